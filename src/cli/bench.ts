/**
 * `stackfield bench [SCENE.json | --builtin NAME --bodies N] [--steps N] [--backend cpu,gpu] [--json]`
 * and `stackfield bench --sdf [--cells 64,128] [--backend cpu,gpu]` (bake only).
 */
import { quote } from '../util/echo.ts';
import { readFile } from 'node:fs/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import os from 'node:os';
import type { Command } from './command.ts';
import { intFlag, parseArgs, stringFlag, type ParsedArgs } from './args.ts';
import { applySolverFlag, extractParams, LIMIT_FLAGS, limitFlags, loadSceneArgWithSources, sceneInputs, threadsFlag } from './sceneArgs.ts';
import type { SceneDesc } from '../scene/types.ts';
import { InputError } from '../errors.ts';
import { OutputFile } from './output.ts';
import { Progress } from './progress.ts';
import { readMeshText } from './nodeIo.ts';
import { gridNodesWithin, parseCells, SDF_DEFAULT_PADDING } from './sdf.ts';
import { terminalSafe } from '../util/echo.ts';
import { BUILD_LIMITS, type BuildLimits } from '../scene/shapeBuild.ts';
import { DEFAULT_BENCH_STEPS, formatTable, runBenchmark, stats, type BenchResults } from '../bench/harness.ts';
import { listBuiltins } from '../scene/builtins.ts';
import { createBackend, parseBackendKind } from '../backends.ts';
import type { BackendKind } from '../collision/query.ts';
import { cupProfile, revolveMesh, sphereMesh } from '../geometry/shapes.ts';
import { parseObj } from '../geometry/obj.ts';
import type { TriMesh } from '../geometry/mesh.ts';
import { fileURLToPath } from 'node:url';
import { triangleCount } from '../geometry/mesh.ts';
import { nodeCount } from '../sdf/grid.ts';

const help = `stackfield bench - time SDF bakes, penetration queries and whole steps per backend

Usage:
  stackfield bench [SCENE.json | --builtin NAME [--bodies N] [--param k=v ...]] [options]
  stackfield bench --sdf [--cells 64,128] [--backend cpu,gpu] [--max-sdf-nodes N]

Options:
  --builtin NAME      a built-in scene (default: rings)
  --bodies N          set the built-in's body count (the parameter "run --list" marks, in its
                      range; refused for scenes without one, such as seesaw or caterpillar)
  --steps N           measured steps (default ${DEFAULT_BENCH_STEPS}: falling, landing and settled); a warm-up of max(2, steps/10) (at most 20) runs first
  --warmup N          warm-up steps instead of the default
  --warm-code N       first run N steps on a discarded copy of the scene, so the measured run
                      (from step 0) starts with compiled code (default 0: a cold start, as a
                      fresh process sees it)
  --backend LIST      comma-separated backends (default cpu)
  --threads N         threads for the CPU queries, 1 = one thread (default: the cores, at most 8)
  --solver NAME       contact solver: sequential (or seed), pgs or accumulated (default: the scene's own)
  --json              print the results as JSON instead of a table
  --out FILE.json     also write the JSON results there (commit them per machine to compare)
  --sdf               bake-only benchmark: a sphere (2944 triangles), a nonconvex cup and the Stanford
                      bunny (3674 triangles) at each of --cells (default 64,128)
  --repeats N         SDF bake repeats (default 3)
  --max-triangles N   refuse a scene's shape with more triangles (default ${BUILD_LIMITS.maxTriangles})
  --max-sdf-nodes N   refuse a shape (or with --sdf, a mesh at one of --cells) whose SDF grid has
                      more nodes (default ${BUILD_LIMITS.maxSdfNodes}); checked before anything is baked

Reports median and p95 per phase (milliseconds), queries per second, pairs and contacts per step,
and Node's garbage collection pauses per measured step. GPU times are wall-clock around submit +
readback (the host's own work that overlaps the GPU is not counted in them).
`;

/** "cpu,gpu" -> the backends, each once; an empty entry ("cpu,") or one given twice is refused. */
export function parseBackends(s: string | undefined): BackendKind[] {
  const items = (s ?? 'cpu').split(',').map((x) => x.trim());
  if (items.some((x) => x === '')) throw new InputError(`--backend: expected a list like cpu,gpu, got ${quote(s ?? '')}`, undefined, 'command line');
  const list = items.map((x) => parseBackendKind(x));
  const twice = list.find((b, i) => list.indexOf(b) !== i);
  if (twice !== undefined) throw new InputError(`--backend: backend ${quote(twice)} is listed twice; list each once, like cpu,gpu`, undefined, 'command line');
  return list;
}

/** The meshes `bench --sdf` bakes: a convex sphere, a nonconvex cup, and a scanned mesh (the Stanford bunny). */
async function sdfBenchMeshes(): Promise<{ name: string; mesh: TriMesh }[]> {
  const bunnyFile = fileURLToPath(new URL('../../examples/meshes/bunny.obj', import.meta.url));
  const bunny = parseObj(await readFile(bunnyFile, 'utf8'), 'bunny.obj');
  return [
    { name: 'sphere', mesh: sphereMesh(1, 64, 24) },
    { name: 'cup', mesh: revolveMesh(cupProfile(0.5, 0.8, 0.05), 64) },
    { name: 'bunny', mesh: bunny },
  ];
}

/**
 * What `bench --sdf` bakes: its meshes and --cells, each grid checked
 * against --max-sdf-nodes (as \`sdf\` checks its one) before anything is baked.
 */
interface SdfBenchPlan {
  meshes: { name: string; mesh: TriMesh }[];
  cells: number[];
}

async function sdfBenchPlan(args: ParsedArgs, limits: BuildLimits): Promise<SdfBenchPlan> {
  // Each entry as sdf reads its --cells (decimal digits, the same range).
  const cells = (stringFlag(args, 'cells') ?? '64,128').split(',').map(parseCells);
  const meshes = await sdfBenchMeshes();
  for (const { name, mesh } of meshes) {
    for (const c of cells) gridNodesWithin(mesh, c, SDF_DEFAULT_PADDING, limits.maxSdfNodes, { what: `the grid of the ${name} at --cells ${c}`, json: false });
  }
  return { meshes, cells };
}

async function sdfBench(backends: BackendKind[], plan: SdfBenchPlan, repeats: number, json: boolean): Promise<unknown> {
  const { meshes, cells: cellsList } = plan;
  const out: unknown[] = [];
  for (const kind of backends) {
    const b = await createBackend(kind);
    try {
      for (const { name, mesh } of meshes) {
        const tris = triangleCount(mesh);
        for (const cells of cellsList) {
          const times: number[] = [];
          let nodes = 0;
          for (let r = 0; r < repeats; r++) {
            const t0 = performance.now();
            const g = await b.bake(mesh, { cells, padding: SDF_DEFAULT_PADDING });
            times.push(performance.now() - t0);
            nodes = nodeCount(g);
          }
          const s = stats(times);
          const row = { backend: kind, adapter: b.description, mesh: name, triangles: tris, cells, nodes, ms: s, nodesPerSecond: nodes / (s.median / 1000) };
          out.push(row);
          if (!json) {
            process.stdout.write(
              `${kind.padEnd(4)} ${name.padEnd(7)} ${String(tris).padStart(5)} triangles ${String(cells).padStart(4)} cells ${String(nodes).padStart(8)} nodes  median ${s.median.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms  ${(row.nodesPerSecond / 1e6).toFixed(2)} M nodes/s\n`,
            );
          }
        }
      }
    } finally {
      b.destroy();
    }
  }
  return { benchmark: 'sdf', date: new Date().toISOString(), platform: platform(), results: out };
}

function platform(): string {
  return `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${os.platform()}`;
}

export const benchCommand: Command = {
  summary: 'benchmark backends',
  help,
  async run(argv) {
    const { rest, params } = extractParams(argv);
    const args = parseArgs(rest, ['json', 'sdf'], ['builtin', 'bodies', 'steps', 'warmup', 'warm-code', 'backend', 'out', 'cells', 'repeats', 'threads', 'solver', ...LIMIT_FLAGS]);
    const backends = parseBackends(stringFlag(args, 'backend'));
    const json = args.flags.has('json');
    const repeats = intFlag(args, 'repeats', 3, 1, 1000);
    const out = stringFlag(args, 'out');
    // The output file is opened (a temporary beside it) before the benchmark
    // runs, so a path that cannot be written fails at once, not after minutes
    // of steps; it replaces the target only once the results are complete.
    // The scene is loaded first (cheap: no bake), so that the output may not
    // be any file it reads: the scene, its meshes, the libraries it includes.
    // The bake benchmark's grids are checked against the limits here too: a grid too big is refused before anything runs.
    refuseUnused(args, params);
    const limits = limitFlags(args);
    const loaded = args.flags.has('sdf') ? await sdfBenchPlan(args, limits) : await benchScene(args, params);
    const sink = out !== undefined ? await OutputFile.open(out, 'inputs' in loaded ? loaded.inputs : []) : null;
    try {
      const result = await measure(args, loaded, backends, json, repeats, limits);
      // JSON.stringify escapes C0 controls; terminalSafe the rest (bidi marks) as \uXXXX, line breaks kept: still valid JSON.
      if (json) process.stdout.write(terminalSafe(JSON.stringify(result, null, 2), Infinity) + '\n');
      if (sink) {
        await sink.write(JSON.stringify(result, null, 2) + '\n');
        await sink.commit();
      }
    } finally {
      await sink?.abort();
    }
    return 0;
  },
};

/** What a scene benchmark takes and the bake-only one (--sdf) does not, and the other way round: given to the wrong one, bad input. */
function refuseUnused(args: ParsedArgs, params: Record<string, number>): void {
  const sdf = args.flags.has('sdf');
  const wrong = (what: string, why: string) => {
    throw new InputError(`${what} ${sdf ? 'applies to scene benchmarks, not to --sdf' : 'applies to --sdf only'} (${why})`, undefined, 'command line');
  };
  if (!sdf) {
    if (args.flags.has('cells')) wrong('--cells', 'a scene bakes each shape at its own "sdf" cells');
    return;
  }
  if (args.positionals.length > 0) wrong(`a scene file (${quote(args.positionals[0]!, 200)})`, 'the bake benchmark bakes its own three meshes');
  const why: Record<string, string> = {
    builtin: 'the bake benchmark bakes its own three meshes', bodies: 'the bake has no bodies', threads: 'the bake runs on one thread',
    'warm-code': 'the bake has no steps', steps: 'the bake has no steps', warmup: 'the bake has no steps', solver: 'the bake has no contacts',
    'max-triangles': 'the bake benchmark bakes its own three meshes',
  };
  for (const [flag, reason] of Object.entries(why)) if (args.flags.has(flag)) wrong(`--${flag}`, reason);
  if (Object.keys(params).length > 0) wrong('--param', 'the bake benchmark bakes its own three meshes');
}

/** The scene a scene benchmark runs (a file, or a built-in with its parameters), and the files it reads. */
interface BenchScene {
  scene: SceneDesc;
  builtin: string | undefined;
  params: Record<string, number>;
  inputs: { path: string; what: string }[];
}

async function benchScene(args: ParsedArgs, params: Record<string, number>): Promise<BenchScene> {
  let builtin = stringFlag(args, 'builtin');
  const file = args.positionals[0];
  if (file === undefined && !builtin) builtin = 'rings';
  const p = { ...params };
  // Decimal digits, in the range of the scene's own count parameter (checked below).
  const bodiesText = stringFlag(args, 'bodies');
  if (bodiesText !== undefined) {
    const bodies = /^\d+$/.test(bodiesText) ? Number(bodiesText) : NaN;
    if (!builtin) throw new InputError('--bodies only applies to --builtin scenes', undefined, 'command line');
    const info = listBuiltins().find((b) => b.name === builtin);
    // Each built-in declares which parameter counts its bodies; the first parameter may be a speed or a mass ratio.
    if (info && info.count === undefined) {
      const ps = info.params.map((q) => q.name).join(', ');
      throw new InputError(
        `scene "${builtin}" has no body-count parameter, so --bodies cannot apply (its parameters: ${ps || 'none'}; set them with --param name=value)`,
        undefined,
        '--bodies',
      );
    }
    if (info?.count !== undefined) {
      const d = info.params.find((q) => q.name === info.count);
      if (d && !(bodies >= d.min && bodies <= d.max)) {
        throw new InputError(`--bodies expects an integer from ${d.min} to ${d.max} for scene "${builtin}" (its parameter ${d.name}), got ${quote(bodiesText)}`, undefined, 'command line');
      }
      if (Object.hasOwn(p, info.count)) {
        throw new InputError(`--bodies ${bodies} and --param ${info.count}=${p[info.count]} both set the body count of "${builtin}"; give one`, undefined, 'command line');
      }
      p[info.count] = bodies;
    }
  }
  const loaded = await loadSceneArgWithSources(file, builtin, p);
  return { scene: loaded.scene, builtin, params: p, inputs: sceneInputs(loaded.scene, file, loaded.libraries) };
}

/** The benchmark the arguments ask for (an SDF bake, or the steps of `loaded`), its table printed unless --json. */
async function measure(args: ParsedArgs, loaded: BenchScene | SdfBenchPlan, backends: BackendKind[], json: boolean, repeats: number, limits: BuildLimits): Promise<unknown> {
  let result: unknown;
  if (!('scene' in loaded)) {
    result = await sdfBench(backends, loaded, repeats, json);
  } else {
    const { scene, builtin, params: p } = loaded;
    applySolverFlag(args, scene);
    const steps = intFlag(args, 'steps', DEFAULT_BENCH_STEPS, 1, 1_000_000);
    const warmup = args.flags.has('warmup') ? intFlag(args, 'warmup', 0, 0, 1_000_000) : undefined;
    const warmCode = intFlag(args, 'warm-code', 0, 0, 1_000_000);
    // As run shows its own: a line redrawn in place on a terminal, a plain line every few seconds in
    // a log (a long bench printed nothing at all through a pipe).
    const progress = new Progress(true);
    const onProgress = (f: number, m: string) => progress.update(`${(f * 100).toFixed(0).padStart(3)}% ${m}`);
    const gc = gcClock();
    let r: BenchResults;
    try {
      r = await runBenchmark(
        { scene, params: p, steps, ...(warmup !== undefined ? { warmup } : {}), warmCode, bakeRepeats: repeats, backends, threads: await threadsFlag(args), limits },
        // Mesh files read as run reads them (UTF-8 checked, size capped).
        { readText: readMeshText, platform: platform(), gc: gc.read },
        onProgress,
      );
    } finally {
      gc.stop();
      progress.done();
    }
    if (builtin) r.scene = builtin;
    result = r;
    // File and shape names come from the user: escaped, like every line the command line prints (src/util/echo.ts).
    if (!json) process.stdout.write(terminalSafe(formatTable(r), Infinity) + '\n');
  }
  return result;
}

/**
 * Node's garbage collection pauses so far (BenchEnv.gc), from its 'gc'
 * performance entries. The entries arrive between tasks, and the benchmark
 * awaits between steps, so a reading lags by at most the pauses of the step
 * just run.
 */
function gcClock(): { read: () => { ms: number; pauses: number }; stop: () => void } {
  let ms = 0, pauses = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      ms += e.duration;
      pauses++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { read: () => ({ ms, pauses }), stop: () => observer.disconnect() };
}
