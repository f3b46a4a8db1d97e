/**
 * `stackfield sdf MESH.obj [--cells 64] [--padding 2] [--backend cpu|gpu] --out GRID.json`
 * (docs/SCENE_FORMAT.md "Command line"): bake a mesh's signed distance field and
 * write it with the mesh's mass properties as JSON:
 *   {"origin": [x,y,z], "cellSize": h, "dims": [nx,ny,nz], "values": [...],
 *    "mass": m, "centerOfMass": [x,y,z], "inertia": [[..],[..],[..]]}
 * values x fastest (index = x + nx*(y + ny*z)), in the mesh's own frame (not
 * re-centred); mass, centre of mass and inertia (about the centre of mass) at
 * density 1 from the exact mesh integral (src/sdf/mass.ts).
 */
import type { Command } from './command.ts';
import { intFlag, parseArgs, stringFlag } from './args.ts';
import { InputError } from '../errors.ts';
import { BUILD_LIMITS, buildStepText, fmtBytes, fmtSeconds, objTrianglesGuess, shapeCost } from '../scene/shapeBuild.ts';
import { readMeshText } from './nodeIo.ts';
import { gridLayout } from '../sdf/grid.ts';
import { triangleCount, meshBounds } from '../geometry/mesh.ts';
import { fileLabel, quote } from '../util/echo.ts';
import { say, writeOutputFile } from './output.ts';
import { Progress } from './progress.ts';
import { parseObjWithWarnings } from '../geometry/obj.ts';
import { validateMesh, type ValidatedMesh } from '../geometry/validate.ts';
import type { TriMesh } from '../geometry/mesh.ts';
import type { SdfGrid } from '../sdf/grid.ts';
import { bakeSdfCpu } from '../sdf/bake.ts';
import type { MassProperties } from '../sdf/mass.ts';
import { analyseSolid, bakeSolid, describeSolid, TangledMeshError, type SolidAnalysis } from '../sdf/solid.ts';

export const SDF_DEFAULT_CELLS = 64;
export const SDF_DEFAULT_PADDING = 2;
/**
 * Fewest cells along the longest side: below 8 a cell is an eighth of the
 * shape, no grid node may lie inside a part thinner than that, and the
 * trilinear field is a blob (the scene format's "sdf": {"cells"} has the same
 * minimum).
 */
export const SDF_MIN_CELLS = 8;

/** Most cells along the longest side. */
export const SDF_MAX_CELLS = 1024;

/**
 * A --cells value (of `sdf`, and each entry of `bench --sdf --cells`):
 * decimal digits, SDF_MIN_CELLS to SDF_MAX_CELLS; a count under the minimum
 * says why it is too coarse.
 */
export function parseCells(v: string): number {
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (n < SDF_MIN_CELLS) {
    throw new InputError(
      `--cells ${v} is too coarse: the minimum is ${SDF_MIN_CELLS} cells along the longest side (with fewer, a cell is more than ` +
        `an eighth of the shape, no grid node lies inside its thinner parts, and the field cannot tell inside from outside)`,
      undefined,
      'command line',
    );
  }
  if (!Number.isInteger(n) || n > SDF_MAX_CELLS) {
    throw new InputError(`--cells expects an integer from ${SDF_MIN_CELLS} to ${SDF_MAX_CELLS}, got ${quote(v)}`, undefined, 'command line');
  }
  return n;
}

/**
 * The nodes of `mesh`'s grid at `cells` and `padding`, or, over `maxNodes`,
 * bad input that says what the grid would cost and how to lower --cells or
 * raise --max-sdf-nodes (\`sdf\`, and each mesh and --cells of \`bench --sdf\`,
 * checked before anything is baked). `grid.what` names the grid in the message
 * (bench: the mesh and its --cells); `grid.json`: the grid is to be written
 * as JSON (sdf), whose size the message gives too.
 */
export function gridNodesWithin(mesh: TriMesh, cells: number, padding: number, maxNodes: number, grid: { what: string; json: boolean }): number {
  const dims = gridLayout(meshBounds(mesh), cells, padding).dims;
  const nodes = dims[0] * dims[1] * dims[2];
  if (nodes > maxNodes) {
    const cost = shapeCost(triangleCount(mesh), nodes);
    throw new InputError(
      `${grid.what} would have ${dims.join(' x ')} = ${nodes} nodes, more than the limit of ${maxNodes} ` +
        `(about ${fmtSeconds(cost.seconds)} to bake, ${fmtBytes(cost.bytes)} of memory${grid.json ? ` and ${fmtBytes(11 * nodes)} of JSON` : ''}); ` +
        `lower --cells, or raise the limit with --max-sdf-nodes ${nodes}`,
      undefined,
      'command line',
    );
  }
  return nodes;
}

const help = `stackfield sdf - bake a signed distance field and mass properties

Usage:
  stackfield sdf MESH.obj --out GRID.json [options]

Options:
  --out GRID.json    where to write the result (required); replaced only when the bake succeeds
  --cells N          grid cells along the longest axis of the mesh bounds, ${SDF_MIN_CELLS} to ${SDF_MAX_CELLS} (default ${SDF_DEFAULT_CELLS});
                     fewer than ${SDF_MIN_CELLS} cannot resolve a shape (no node inside its thinner parts)
  --padding N        extra cells on every side (default ${SDF_DEFAULT_PADDING})
  --backend cpu|gpu  bake on the CPU (exact, BVH) or with WebGPU (default cpu)
  --max-sdf-nodes N  refuse a grid with more nodes (default ${BUILD_LIMITS.maxSdfNodes}: 128 MB of values,
                     some 400 MB of JSON)
  --max-triangles N  refuse a mesh with more triangles (default ${BUILD_LIMITS.maxTriangles})

The mesh must be closed, manifold and consistently oriented; open seams are
welded, small holes filled and an inside-out mesh flipped, each with a warning.
A self-intersecting or nested mesh counts as what it encloses (nonzero winding).
Output, in the mesh's own frame:
  {"origin": [x,y,z], "cellSize": h, "dims": [nx,ny,nz], "values": [...],
   "mass": m, "centerOfMass": [x,y,z], "inertia": [[..],[..],[..]]}
values: signed distances, negative inside, x fastest (index = x + nx*(y + ny*z)).
mass, centerOfMass, inertia (about the centre of mass): density 1, exact mesh integral.
Exit codes: 0 success, 1 GPU or internal error, 2 bad input or output that cannot be written.
`;

export const sdfCommand: Command = {
  summary: 'bake a signed distance field and mass properties',
  help,
  async run(argv: string[]): Promise<number> {
    const args = parseArgs(argv, [], ['cells', 'padding', 'backend', 'out', 'max-sdf-nodes', 'max-triangles']);
    if (args.positionals.length !== 1) {
      const listed = args.positionals.slice(0, 3).map((p) => quote(p)).join(' ');
      throw new InputError(`expected exactly one mesh file, got ${args.positionals.length}${listed ? ` (${listed})` : ''}`, undefined, 'command line');
    }
    const file = args.positionals[0]!;
    const cellsArg = stringFlag(args, 'cells');
    const cells = cellsArg === undefined ? SDF_DEFAULT_CELLS : parseCells(cellsArg);
    const padding = intFlag(args, 'padding', SDF_DEFAULT_PADDING, 1, 64);
    const maxNodes = intFlag(args, 'max-sdf-nodes', BUILD_LIMITS.maxSdfNodes, 8, 1e10);
    const backend = stringFlag(args, 'backend') ?? 'cpu';
    if (backend !== 'cpu' && backend !== 'gpu') {
      throw new InputError(`--backend: expected cpu or gpu, got ${quote(backend)}`, undefined, 'command line');
    }
    const out = stringFlag(args, 'out');
    if (out === undefined) throw new InputError('missing --out GRID.json (where to write the field)', undefined, 'command line');

    const maxTriangles = intFlag(args, 'max-triangles', BUILD_LIMITS.maxTriangles, 1, 1e9);
    // The mesh's steps before the bake name themselves on a terminal (Progress.step): an 80 000-triangle mesh takes a second or two.
    const progress = new Progress(true);
    try {
      const { mesh, names } = await loadMesh(file, maxTriangles, progress);
      // Refuse what cannot be baked and written in reasonable time and memory, before starting.
      const nodes = gridNodesWithin(mesh, cells, padding, maxNodes, { what: 'the grid', json: true });
      const inputs = [{ path: file, what: 'the mesh file' }];
      // A self-intersecting or nested mesh: the mass and field of what it encloses (src/sdf/solid.ts).
      const tris = triangleCount(mesh);
      progress.step(`${PREFIX}${buildStepText('analysing', tris)}`, 1000 * shapeCost(tris, nodes).seconds);
      let solid: SolidAnalysis;
      try {
        solid = analyseSolid(mesh);
      } catch (e) {
        if (e instanceof TangledMeshError) throw new InputError(e.message, file);
        throw e;
      }
      if (!solid.simple) {
        progress.done();
        say(`stackfield: warning: ${fileLabel(file)}: ${describeSolid(solid, mesh, names.triangle)}`);
      }
      const mass = solid.mass;
      const t0 = performance.now();
      // The bake is timed as a task of its own: in a log its lines start a second into it, as they always did.
      progress.restart();
      const baking = (f: number) => `baking ${nodes} nodes: ${Math.round(100 * f)}%`;
      // The CPU bake builds its own BVH before its first percentage, the GPU's comes when its first chunks are done: say it has begun.
      progress.step(backend === 'gpu' ? `baking ${nodes} nodes on the GPU` : baking(0), 1000 * shapeCost(tris, nodes).seconds);
      const onProgress = (f: number) => progress.update(baking(f));
      const bake = async (m: TriMesh) => (backend === 'gpu' ? bakeOnGpu(m, cells, padding, onProgress) : bakeSdfCpu(m, { cells, padding, onProgress }));
      const grid = await bakeSolid(mesh, solid.simple ? null : solid.boundary, bake);
      progress.done();
      const seconds = (performance.now() - t0) / 1000;

      await writeOutputFile(out, gridJson(grid, mass), inputs);
      const [nx, ny, nz] = grid.dims;
      process.stdout.write(
        `${fileLabel(out)}: ${nx}x${ny}x${nz} nodes, cell ${grid.cellSize.toPrecision(4)}, volume ${mass.volume.toPrecision(6)}, baked on the ${backend} in ${seconds.toFixed(2)} s\n`,
      );
      return 0;
    } catch (e) {
      progress.done(); // the message on a line of its own
      throw e;
    }
  },
};

/** The progress line's prefix for the steps before the bake. */
const PREFIX = 'preparing the bake: ';

/** Read, parse and validate an OBJ mesh, naming each step on `progress` (the caller ends its line on an error); warnings go to standard error. */
async function loadMesh(file: string, maxTriangles: number, progress: Progress): Promise<ValidatedMesh> {
  const text = await readMeshText(file);
  const guess = objTrianglesGuess(text.length);
  progress.step(`${PREFIX}${buildStepText('parsing', guess)}`, 1000 * shapeCost(guess, 0).seconds);
  const parsed = parseObjWithWarnings(text, file);
  if (triangleCount(parsed.mesh) > maxTriangles) {
    const n = triangleCount(parsed.mesh);
    throw new InputError(
      `the mesh has ${n} triangles, more than the limit of ${maxTriangles} (about ${fmtSeconds(shapeCost(n, 0).seconds)} and ${fmtBytes(shapeCost(n, 0).bytes)} before the bake); ` +
        `simplify it, or raise the limit with --max-triangles ${n}`,
      file,
    );
  }
  const tris = triangleCount(parsed.mesh);
  progress.step(`${PREFIX}${buildStepText('validating', tris)}`, 1000 * shapeCost(tris, 0).seconds);
  const valid = validateMesh(parsed.mesh, file, parsed.numbering);
  const warnings = [...parsed.warnings, ...valid.warnings];
  // Off the terminal's line before a warning is said.
  if (warnings.length > 0) progress.done();
  for (const w of warnings) say(`stackfield: warning: ${w}`);
  return valid;
}

async function bakeOnGpu(mesh: TriMesh, cells: number, padding: number, onProgress: (fraction: number) => void): Promise<SdfGrid> {
  // Loaded only here, so the CPU path never touches Dawn.
  const { acquireGpu } = await import('../gpu/device.ts');
  const { bakeSdfGpu } = await import('../gpu/sdfBakePass.ts');
  const gpu = await acquireGpu();
  try {
    return await bakeSdfGpu(gpu.device, mesh, { cells, padding, onProgress });
  } finally {
    gpu.destroy();
  }
}

/** The output document (docs/SCENE_FORMAT.md) as UTF-8 bytes. */
export function gridJson(grid: SdfGrid, mass: MassProperties): Uint8Array {
  const I = mass.inertia;
  const head = JSON.stringify({ origin: grid.origin, cellSize: grid.cellSize, dims: grid.dims });
  const tail = JSON.stringify({
    mass: mass.volume,
    centerOfMass: mass.centerOfMass,
    inertia: [
      [I[0]!, I[1]!, I[2]!],
      [I[3]!, I[4]!, I[5]!],
      [I[6]!, I[7]!, I[8]!],
    ],
  });
  const enc = new TextEncoder();
  const parts = [enc.encode(`${head.slice(0, -1)},"values":[`), float32JsonList(grid.values), enc.encode(`],${tail.slice(1)}\n`)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** 10^k at POW10[k + POW10_BIAS], for every decimal exponent a float32 (subnormals included) needs. */
const POW10_BIAS = 60;
const POW10 = Float64Array.from({ length: 2 * POW10_BIAS + 1 }, (_, i) => Number(`1e${i - POW10_BIAS}`));

/**
 * Float32 values as comma-separated JSON numbers, written byte by byte: 9
 * significant digits (always enough to read back the same float32), trailing
 * zeros dropped. Number-to-string conversion through JS strings took longer
 * than the bake itself for a 128^3 grid (2.4 million values).
 */
export function float32JsonList(values: Float32Array): Uint8Array {
  let buf = new Uint8Array(values.length * 12 + 64);
  const d = new Uint8Array(9);
  const bits = new Float32Array(1);
  const ints = new Int32Array(bits.buffer);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    if (buf.length - n < 40) {
      const next = new Uint8Array(buf.length * 2);
      next.set(buf);
      buf = next;
    }
    if (i > 0) buf[n++] = 44; // ,
    let x = values[i]!;
    if (x === 0 || !Number.isFinite(x)) {
      buf[n++] = 48; // 0 (an SDF holds no infinities or NaN; never write invalid JSON)
      continue;
    }
    if (x < 0) {
      buf[n++] = 45; // -
      x = -x;
    }
    // x = m * 10^(e - 8) with m a 9-digit integer. The decimal exponent from
    // the binary one (log10(2) ~ 0.30103), corrected by one comparison each way.
    bits[0] = x;
    let e = Math.floor((((ints[0]! >>> 23) & 0xff) - 127) * 0.3010299956639812);
    if (x >= POW10[e + 1 + POW10_BIAS]!) e++;
    else if (x < POW10[e + POW10_BIAS]!) e--;
    let m = Math.round(x * POW10[8 - e + POW10_BIAS]!);
    // Rounding may carry into a tenth digit; subnormals need several steps down.
    while (m >= 1e9) m = Math.round(x * POW10[8 - ++e + POW10_BIAS]!);
    while (m < 1e8) m = Math.round(x * POW10[8 - --e + POW10_BIAS]!);
    for (let k = 8; k >= 0; k--) {
      const q = Math.floor(m / 10);
      d[k] = m - 10 * q;
      m = q;
    }
    let len = 9;
    while (len > 1 && d[len - 1] === 0) len--;
    if (e >= 0 && e < 9) {
      for (let k = 0; k <= e; k++) buf[n++] = 48 + (k < len ? d[k]! : 0);
      if (len > e + 1) {
        buf[n++] = 46; // .
        for (let k = e + 1; k < len; k++) buf[n++] = 48 + d[k]!;
      }
    } else if (e < 0 && e >= -7) {
      buf[n++] = 48;
      buf[n++] = 46;
      for (let k = e + 1; k < 0; k++) buf[n++] = 48;
      for (let k = 0; k < len; k++) buf[n++] = 48 + d[k]!;
    } else {
      buf[n++] = 48 + d[0]!;
      if (len > 1) {
        buf[n++] = 46;
        for (let k = 1; k < len; k++) buf[n++] = 48 + d[k]!;
      }
      buf[n++] = 101; // e
      const exp = String(e);
      for (let k = 0; k < exp.length; k++) buf[n++] = exp.charCodeAt(k);
    }
  }
  return buf.subarray(0, n);
}
