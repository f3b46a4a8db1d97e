/**
 * Checks that a mesh can be a rigid body. The SDF sign comes from angle-weighted
 * pseudonormals (docs/ALGORITHM.md 1), which are only meaningful for a closed,
 * manifold, consistently oriented mesh with non-degenerate triangles, so those
 * are refused here with an InputError that says what is wrong and where,
 * instead of producing a silently wrong distance field later.
 *
 * Repaired with a warning that says what was done (repair.ts):
 *  - vertices no triangle uses: dropped (they would be stray collision samples);
 *  - triangles that name one vertex twice: dropped (a zero-area needle whose
 *    edges pair with each other, so the rest stays closed);
 *  - an unwelded export (open seams whose two sides sit on the same points):
 *    boundary vertices within a millionth of the mesh size are welded;
 *  - small holes: filled (a missing triangle, or a hole of at most 5% of the area);
 *  - a closed mesh that is inside out (negative volume): every triangle flipped.
 * Accepted silently: several disconnected closed parts (nested or overlapping
 * parts are the business of src/sdf/solid.ts, which finds what they enclose).
 *
 * Every tolerance is relative (to a triangle's own edges, to the mesh size, to
 * the sum the volume cancels from), so the same mesh passes or fails at any
 * scale and any aspect ratio up to the stated limits.
 *
 * Cost: O(V + T) plus sorting each vertex's handful of edges; no hash maps on
 * the main path of a closed mesh, so a million triangles take a fraction of a second.
 */
import { InputError } from '../errors.ts';
import { fileLabel } from '../util/echo.ts';
import { compactMesh, meshBounds, volumeParts, type MeshNumbering, type TriMesh } from './mesh.ts';
import { fillHoles, HOLE_AREA_FRACTION, totalArea, weldBoundary } from './repair.ts';

export interface ValidatedMesh {
  mesh: TriMesh;
  warnings: string[];
  /** How the source names the returned mesh's vertices and triangles ("vertex 12", "triangle 7 (line 31)"), for later messages. */
  names: { vertex(v: number): string; triangle(t: number): string };
}

/**
 * A triangle counts as degenerate when twice its area is below this fraction
 * of its longest edge squared, i.e. its smallest angle is under ~1e-12 rad:
 * its normal is then mostly rounding noise (~1e-16 relative). Relative to the
 * triangle itself, so a long thin box, whose side triangles are as thin as the
 * box, is not mistaken for one.
 */
const DEGENERATE_REL = 1e-12;
/** A closed mesh whose signed volume is below this fraction of the sum of |tetrahedra| it cancels from encloses nothing. */
const ZERO_VOLUME_REL = 1e-9;
/**
 * Sizes (bounding-box diagonal) a shape may have. Its volume (~size^3) and
 * inertia per unit density (~size^5) must stay within 1e-100..1e100, so that
 * the solver's products of up to three of them (a 3x3 determinant, K = 1/m +
 * r^2/I) neither overflow nor sink into subnormals.
 */
export const MIN_SIZE = 1e-20;
export const MAX_SIZE = 1e20;
/**
 * Thinnest shape accepted: 3 V / (A d) (1 / (2 sqrt 3) for a cube or sphere,
 * about thickness / diagonal for a plate or a needle), below which a shape is
 * flat or needle-thin: thinner than single-precision coordinates (the GPU's)
 * resolve along its length, with a near-singular inertia tensor.
 */
export const MIN_THICKNESS_REL = 1e-7;

/**
 * How messages name the vertices and triangles of the mesh being checked:
 * as its source does (an OBJ's vertex numbers from 1, the line of a
 * triangle's face), followed through the repairs that drop and add them.
 */
class Names {
  /** The input vertex of each current vertex; -1 for one added to fill a hole. */
  private vertex: Int32Array;
  /** The input triangle of each current triangle; -1 for one added to fill a hole. */
  private triangle: Int32Array;

  constructor(nv: number, nt: number, private readonly source: MeshNumbering) {
    this.vertex = Int32Array.from({ length: nv }, (_, i) => i);
    this.triangle = Int32Array.from({ length: nt }, (_, i) => i);
  }

  /** After compactMesh: `kept` holds the old index of each vertex kept. */
  keepVertices(kept: Uint32Array | null): void {
    if (kept) this.vertex = Int32Array.from(kept, (k) => this.vertex[k]!);
  }

  /** After triangles were dropped: `kept` holds the old index of each triangle kept. */
  keepTriangles(kept: ArrayLike<number> | null): void {
    if (kept) this.triangle = Int32Array.from(kept, (k) => this.triangle[k]!);
  }

  /** After hole filling appended vertices and triangles. */
  grow(nv: number, nt: number): void {
    const v = new Int32Array(nv).fill(-1);
    v.set(this.vertex.subarray(0, Math.min(nv, this.vertex.length)));
    const t = new Int32Array(nt).fill(-1);
    t.set(this.triangle.subarray(0, Math.min(nt, this.triangle.length)));
    this.vertex = v;
    this.triangle = t;
  }

  /** The source's number of current vertex v (from 1), or null for an added one. */
  vertexNumber(v: number): number | null {
    const o = this.vertex[v] ?? v;
    if (o < 0) return null;
    return this.source.vertexNumbers ? this.source.vertexNumbers[o]! : o + 1;
  }

  /** "vertex 12", or "a vertex added to fill a hole". */
  vertexName(v: number): string {
    const n = this.vertexNumber(v);
    return n === null ? 'a vertex added to fill a hole' : `vertex ${n}`;
  }

  /** "triangle 7 (line 31)", "triangle 7", or "a triangle added to fill a hole". */
  triangleName(t: number): string {
    const o = this.triangle[t] ?? t;
    if (o < 0) return 'a triangle added to fill a hole';
    const line = this.source.triangleLines?.[o];
    return `triangle ${o + 1}${line !== undefined ? ` (line ${line})` : ''}`;
  }

  /** The InputError location of a triangle: its line when the source has lines. */
  triangleWhere(t: number): string {
    const o = this.triangle[t] ?? t;
    const line = o >= 0 ? this.source.triangleLines?.[o] : undefined;
    return line !== undefined ? `line ${line}` : o >= 0 ? `triangle ${o + 1}` : 'a filled hole';
  }

  /** The naming functions a ValidatedMesh carries. */
  public(): ValidatedMesh['names'] {
    return { vertex: (v) => this.vertexName(v), triangle: (t) => this.triangleName(t) };
  }

  /** The InputError location of an edge: "edge 3-7" in the source's vertex numbers. */
  edgeWhere(a: number, b: number): string {
    return `edge ${this.vertexNumber(a) ?? 'new'}-${this.vertexNumber(b) ?? 'new'}`;
  }
}

/**
 * Checks and repairs a mesh for a body (file comment). `numbering` says how
 * the source names vertices and triangles (an OBJ's, ObjResult.numbering);
 * without it vertices and triangles are numbered from 1 in the order given.
 */
export function validateMesh(input: TriMesh, file: string, numbering: MeshNumbering = {}): ValidatedMesh {
  // From plain JavaScript: not a mesh at all (null, a plain array) is named as such, not a TypeError.
  const m = input as Partial<TriMesh> | null;
  if (m === null || typeof m !== 'object' || !isNumberArray(m.positions) || !isNumberArray(m.indices)) {
    throw new InputError('expected a mesh { positions, indices } (arrays of numbers, 3 per vertex and 3 per triangle)', file);
  }
  const warnings: string[] = [];
  if (input.positions.length % 3 !== 0 || input.indices.length % 3 !== 0) {
    throw new InputError(
      `mesh arrays have the wrong length (${input.positions.length} coordinates, ${input.indices.length} indices); expected multiples of 3`,
      file,
    );
  }
  const nv0 = input.positions.length / 3;
  const nt0 = input.indices.length / 3;
  if (nt0 === 0) throw new InputError('mesh has no triangles; expected a closed triangle mesh', file);

  const names = new Names(nv0, nt0, numbering);
  for (let i = 0; i < input.positions.length; i++) {
    if (!Number.isFinite(input.positions[i])) {
      const v = Math.floor(i / 3);
      throw new InputError(
        `${names.vertexName(v)} has a non-finite coordinate (${fmtPoint(input.positions, v)}); expected finite numbers`,
        file,
        names.vertexName(v),
      );
    }
  }
  for (let i = 0; i < input.indices.length; i++) {
    if (input.indices[i]! >= nv0) {
      const t = Math.floor(i / 3);
      throw new InputError(
        `${names.triangleName(t)} refers to vertex ${input.indices[i]! + 1} but the mesh has ${nv0} vertices (numbered from 1)`,
        file,
        names.triangleWhere(t),
      );
    }
  }

  let mesh = dropRepeatedCorners(input, file, warnings, names);
  const compact = compactMesh(mesh);
  names.keepVertices(compact.kept);
  const n = compact.dropped;
  if (n > 0) warnings.push(`${fileLabel(file)}: ${n === 1 ? '1 vertex' : `${n} vertices`} used by no triangle ${n === 1 ? 'was' : 'were'} dropped`);
  mesh = compact.mesh;
  checkSize(mesh, file);

  let edges = analyseEdges(mesh);
  if (edges.boundary > 0) {
    const w = weldBoundary(mesh);
    if (w.merged > 0) {
      names.keepTriangles(w.keptTriangles);
      const welded = compactMesh(w.mesh);
      names.keepVertices(welded.kept);
      mesh = welded.mesh;
      warnings.push(
        `${fileLabel(file)}: ${w.merged} duplicate vertices on open seams were welded (closer than ${fmtNum(w.tolerance)}, a millionth of the mesh size)` +
          (w.collapsed > 0 ? `; ${w.collapsed} triangles that collapsed were dropped` : ''),
      );
      edges = analyseEdges(mesh);
    }
  }
  // A mesh whose every triangle is flat is refused as such before a hole
  // filling adds triangles to the count (one flat face read "all 2 triangles").
  if (edges.boundary > 0 && degenerateTriangles(mesh).count === mesh.indices.length / 3) checkDegenerate(mesh, file, names);
  // Holes are only looked for in an otherwise sound surface: a flipped or
  // over-shared edge also shows up as a one-sided directed edge.
  if (edges.boundary > 0 && edges.nonManifold === 0 && edges.misoriented === 0) {
    const holes = fillHoles(mesh);
    if (holes.tangledAt < 0 && holes.refused.length === 0 && holes.filled.length > 0) {
      mesh = holes.mesh;
      names.grow(mesh.positions.length / 3, mesh.indices.length / 3);
      const area = holes.filled.reduce((s, h) => s + h.area, 0);
      const list = holes.filled.slice(0, 3).map((h) => `${h.edges} edges at ${fmtVec(h.centre, meshSize(mesh))}`).join(', ');
      warnings.push(
        `${fileLabel(file)}: the mesh was open; ${holes.filled.length} hole${holes.filled.length === 1 ? ' was' : 's were'} filled (${list}${holes.filled.length > 3 ? ', ...' : ''}; ` +
          `area ${fmtNum(area)}, ${fmtPercent(area / holes.surfaceArea)} of the area of the triangles present)`,
      );
      edges = analyseEdges(mesh);
    } else {
      edges.holes = holes;
    }
  }
  // A mesh whose every triangle is flat (all its points on one line) is that, whatever its edges say.
  if (edges.boundary + edges.nonManifold + edges.misoriented > 0 && degenerateTriangles(mesh).count === mesh.indices.length / 3) checkDegenerate(mesh, file, names);
  reportEdges(mesh, edges, file, names);
  checkDegenerate(mesh, file, names);

  const { volume: vol, absSum } = volumeParts(mesh);
  if (!(Math.abs(vol) > ZERO_VOLUME_REL * absSum)) {
    throw new InputError(
      `mesh encloses no volume (signed volume ${vol.toPrecision(3)}), e.g. a surface listed once per side; expected a closed solid`,
      file,
    );
  }
  checkThickness(mesh, file);
  if (vol < 0) {
    const idx = mesh.indices;
    const flipped = new Uint32Array(idx.length);
    for (let t = 0; t < idx.length; t += 3) {
      flipped[t] = idx[t]!;
      flipped[t + 1] = idx[t + 2]!;
      flipped[t + 2] = idx[t + 1]!;
    }
    warnings.push(
      `${fileLabel(file)}: mesh is inside out (triangles clockwise seen from outside, volume ${vol.toPrecision(4)}); all ${idx.length / 3} triangles were flipped`,
    );
    return { mesh: { positions: mesh.positions, indices: flipped }, warnings, names: names.public() };
  }
  return { mesh, warnings, names: names.public() };
}

/** Drops triangles that name one vertex twice (see the file comment). */
function dropRepeatedCorners(mesh: TriMesh, file: string, warnings: string[], names: Names): TriMesh {
  const idx = mesh.indices;
  let bad = 0;
  let first = -1;
  for (let t = 0; t < idx.length; t += 3) {
    if (idx[t] === idx[t + 1] || idx[t + 1] === idx[t + 2] || idx[t] === idx[t + 2]) {
      if (bad++ === 0) first = t / 3;
    }
  }
  if (bad === 0) return mesh;
  if (bad * 3 === idx.length) {
    throw new InputError(`every triangle names one vertex twice (e.g. ${names.triangleName(first)}); expected a closed triangle mesh`, file, names.triangleWhere(first));
  }
  const out = new Uint32Array(idx.length - 3 * bad);
  const kept = new Uint32Array(idx.length / 3 - bad);
  let o = 0;
  for (let t = 0; t < idx.length; t += 3) {
    if (idx[t] === idx[t + 1] || idx[t + 1] === idx[t + 2] || idx[t] === idx[t + 2]) continue;
    kept[o / 3] = t / 3;
    out[o++] = idx[t]!;
    out[o++] = idx[t + 1]!;
    out[o++] = idx[t + 2]!;
  }
  warnings.push(`${fileLabel(file)}: ${bad} triangle${bad === 1 ? '' : 's'} naming one vertex twice (zero area) dropped, first: ${names.triangleName(first)}`);
  names.keepTriangles(kept);
  return { positions: mesh.positions, indices: out };
}

/** Largest bounding-box extent. */
function meshSize(mesh: TriMesh): number {
  const b = meshBounds(mesh);
  return Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
}

/** The size limits (MIN_SIZE, MAX_SIZE), checked before any product of coordinates is formed. */
function checkSize(mesh: TriMesh, file: string): void {
  const b = meshBounds(mesh);
  const ext = [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]];
  // The diagonal without squaring (hypot would overflow at 1e160 and underflow at 1e-160).
  const largest = Math.max(ext[0]!, ext[1]!, ext[2]!);
  const diag = largest === 0 ? 0 : largest * Math.hypot(ext[0]! / largest, ext[1]! / largest, ext[2]! / largest);
  if (!(diag >= MIN_SIZE && diag <= MAX_SIZE)) {
    throw new InputError(
      `the shape is ${fmtNum(diag)} across (bounding-box diagonal); expected a size between 1e-20 and 1e20, ` +
        `so that its volume and inertia stay within the range the solver computes with (1e-100 to 1e100)`,
      file,
    );
  }
}

/** Flat or needle-thin shapes (MIN_THICKNESS_REL), with the measured extents. */
function checkThickness(mesh: TriMesh, file: string): void {
  const b = meshBounds(mesh);
  const ext = [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]];
  const diag = Math.hypot(ext[0]!, ext[1]!, ext[2]!);
  const area = totalArea(mesh);
  const vol = Math.abs(volumeParts(mesh).volume);
  const rel = (3 * vol) / (area * diag);
  if (rel >= MIN_THICKNESS_REL) return;
  throw new InputError(
    `the shape is degenerate: too thin for its size (volume ${fmtNum(vol)}, surface ${fmtNum(area)}, extents ${fmtNum(ext[0]!)} x ${fmtNum(ext[1]!)} x ${fmtNum(ext[2]!)}: ` +
      `a mean thickness of ${fmtNum(rel)} of its diagonal); expected a solid at least ${MIN_THICKNESS_REL} of its size thick`,
    file,
  );
}

function checkDegenerate(mesh: TriMesh, file: string, names: Names): void {
  const { count, first } = degenerateTriangles(mesh);
  if (count > 0) {
    const idx = mesh.indices;
    const a = idx[first * 3]!, b = idx[first * 3 + 1]!, c = idx[first * 3 + 2]!;
    const corner = (v: number) => `${names.vertexNumber(v) ?? 'new'} ${fmtPoint(mesh.positions, v)}`;
    const what = count === idx.length / 3 && count > 1 ? `all ${count} triangles are degenerate` : `${count} degenerate triangle${count === 1 ? '' : 's'}`;
    throw new InputError(
      `${what} (three points on one line), first: ${names.triangleName(first)} with vertices ${corner(a)}, ${corner(b)}, ${corner(c)}; expected every triangle to have a positive area`,
      file,
      names.triangleWhere(first),
    );
  }
}

/** How many triangles have no area (DEGENERATE_REL of their longest edge), and the first of them (-1: none). */
function degenerateTriangles(mesh: TriMesh): { count: number; first: number } {
  const p = mesh.positions;
  const idx = mesh.indices;
  let count = 0;
  let first = -1;
  for (let t = 0; t < idx.length; t += 3) {
    const a3 = idx[t]! * 3, b3 = idx[t + 1]! * 3, c3 = idx[t + 2]! * 3;
    let ux = p[b3]! - p[a3]!, uy = p[b3 + 1]! - p[a3 + 1]!, uz = p[b3 + 2]! - p[a3 + 2]!;
    let vx = p[c3]! - p[a3]!, vy = p[c3 + 1]! - p[a3 + 1]!, vz = p[c3 + 2]! - p[a3 + 2]!;
    const wx = vx - ux, wy = vy - uy, wz = vz - uz;
    // Scale by the longest edge first, so the test is the same at any size.
    const l2 = Math.max(ux * ux + uy * uy + uz * uz, vx * vx + vy * vy + vz * vz, wx * wx + wy * wy + wz * wz);
    let bad = !(l2 > 0);
    if (!bad) {
      const s = 1 / Math.sqrt(l2);
      ux *= s; uy *= s; uz *= s;
      vx *= s; vy *= s; vz *= s;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      bad = nx * nx + ny * ny + nz * nz <= DEGENERATE_REL * DEGENERATE_REL;
    }
    if (bad) {
      if (first < 0) first = t / 3;
      count++;
    }
  }
  return { count, first };
}

/**
 * Edge topology by a counting sort: every directed edge a->b is filed under
 * min(a, b) with the key max(a, b)*2 + (a > b), then each vertex's short list
 * is sorted so equal undirected edges are adjacent. A closed, manifold,
 * consistently oriented mesh has every undirected edge exactly twice, once in
 * each direction.
 */
interface EdgeReport {
  boundary: number;
  nonManifold: number;
  misoriented: number;
  /** First example of each problem: its two vertices (and the use count). */
  exBoundary: number;
  exBoundaryHi: number;
  exNonManifold: number;
  exNonManifoldHi: number;
  exNonManifoldN: number;
  exMisoriented: number;
  exMisorientedHi: number;
  /** Set when hole filling was tried and refused. */
  holes?: ReturnType<typeof fillHoles>;
}

function analyseEdges(mesh: TriMesh): EdgeReport {
  const idx = mesh.indices;
  const nv = mesh.positions.length / 3;
  if (nv >= 0x7fffffff) throw new RangeError(`mesh has too many vertices (${nv})`);
  const nh = idx.length;
  const start = new Uint32Array(nv + 1);
  for (let t = 0; t < nh; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = idx[t + k]!, b = idx[t + (k === 2 ? 0 : k + 1)]!;
      start[(a < b ? a : b) + 1]!++;
    }
  }
  for (let v = 0; v < nv; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, nv);
  const keys = new Uint32Array(nh);
  for (let t = 0; t < nh; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = idx[t + k]!, b = idx[t + (k === 2 ? 0 : k + 1)]!;
      const lo = a < b ? a : b;
      keys[fill[lo]!++] = a < b ? b * 2 : a * 2 + 1;
    }
  }

  let boundary = 0, nonManifold = 0, misoriented = 0;
  // First example of each problem: its two vertices (and the use count).
  let exBoundary = -1, exNonManifold = -1, exMisoriented = -1;
  let exBoundaryHi = 0, exNonManifoldHi = 0, exNonManifoldN = 0, exMisorientedHi = 0;
  for (let lo = 0; lo < nv; lo++) {
    const s = start[lo]!, e = start[lo + 1]!;
    if (e - s > 1) sortRange(keys, s, e);
    let i = s;
    while (i < e) {
      const hi = keys[i]! >>> 1;
      let j = i;
      let backward = 0;
      while (j < e && keys[j]! >>> 1 === hi) backward += keys[j++]! & 1;
      const n = j - i;
      if (n === 1) {
        if (boundary++ === 0) { exBoundary = lo; exBoundaryHi = hi; }
      } else if (n > 2) {
        if (nonManifold++ === 0) { exNonManifold = lo; exNonManifoldHi = hi; exNonManifoldN = n; }
      } else if (backward !== 1) {
        if (misoriented++ === 0) { exMisoriented = lo; exMisorientedHi = hi; }
      }
      i = j;
    }
  }
  return {
    boundary, nonManifold, misoriented,
    exBoundary, exBoundaryHi, exNonManifold, exNonManifoldHi, exNonManifoldN, exMisoriented, exMisorientedHi,
  };
}

function reportEdges(mesh: TriMesh, r: EdgeReport, file: string, names: Names): void {
  const { boundary, nonManifold, misoriented, exBoundary, exBoundaryHi, exNonManifold, exNonManifoldHi, exNonManifoldN, exMisoriented, exMisorientedHi } = r;
  const idx = mesh.indices;
  const also = (skip: string): string => {
    const parts: string[] = [];
    const edges = (n: number) => `${n} edge${n === 1 ? '' : 's'}`;
    if (skip !== 'open' && boundary > 0) parts.push(`${edges(boundary)} on the boundary`);
    if (skip !== 'nm' && nonManifold > 0) parts.push(`${edges(nonManifold)} shared by more than two triangles`);
    if (skip !== 'or' && misoriented > 0) parts.push(`${edges(misoriented)} traversed twice in the same direction`);
    return parts.length ? ` (also: ${parts.join(', ')})` : '';
  };
  const p = mesh.positions;
  const edgeText = (a: number, b: number): string =>
    `the edge between ${names.vertexName(a)} ${fmtPoint(p, a)} and ${names.vertexName(b)} ${fmtPoint(p, b)}`;

  if (boundary > 0) {
    const holes = r.holes;
    let hint = '';
    if (holes && holes.tangledAt >= 0) {
      hint = `; the holes could not be filled: several of them meet at ${names.vertexName(holes.tangledAt)} ${fmtPoint(p, holes.tangledAt)}`;
    } else if (holes && holes.refused.length > 0) {
      const h = holes.refused[0]!;
      hint = `; ${holes.refused.length} hole${holes.refused.length === 1 ? ' is' : 's are'} too large to fill automatically, e.g. one of ${h.edges} edges at ${fmtVec(h.centre, meshSize(mesh))} ` +
        `with an area of ${fmtPercent(h.area / holes.surfaceArea)} of the triangles present (holes up to ${fmtPercent(HOLE_AREA_FRACTION)} of it, or of 3 edges, are filled)`;
    }
    throw new InputError(
      `mesh is not closed: ${boundary} boundary edge${boundary === 1 ? '' : 's'} used by only one triangle, e.g. ${edgeText(exBoundary, exBoundaryHi)}${also('open')}; expected a closed (watertight) mesh where every edge is shared by exactly two triangles${hint}`,
      file,
      names.edgeWhere(exBoundary, exBoundaryHi),
    );
  }
  if (nonManifold > 0) {
    throw new InputError(
      `mesh is not manifold: ${nonManifold} edge${nonManifold === 1 ? '' : 's'} shared by more than two triangles, e.g. ${edgeText(exNonManifold, exNonManifoldHi)} used by ${exNonManifoldN} triangles${also('nm')}; expected every edge to be shared by exactly two triangles`,
      file,
      names.edgeWhere(exNonManifold, exNonManifoldHi),
    );
  }
  if (misoriented > 0) {
    const tris = trianglesWithEdge(idx, exMisoriented, exMisorientedHi).map((t) => names.triangleName(t));
    throw new InputError(
      `mesh is inconsistently oriented: ${misoriented} edge${misoriented === 1 ? '' : 's'} traversed twice in the same direction (neighbouring triangles wind opposite ways), e.g. ${edgeText(exMisoriented, exMisorientedHi)} in ${tris.join(' and ')}${also('or')}; expected all triangles counter-clockwise seen from outside`,
      file,
      names.edgeWhere(exMisoriented, exMisorientedHi),
    );
  }
}

/** Sort keys[s, e) ascending: insertion sort for the usual few edges per vertex. */
function sortRange(keys: Uint32Array, s: number, e: number): void {
  if (e - s > 24) {
    keys.subarray(s, e).sort();
    return;
  }
  for (let i = s + 1; i < e; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= s && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
}

/** Error path only: the triangles that use edge a-b (either direction). */
function trianglesWithEdge(idx: Uint32Array, a: number, b: number): number[] {
  const out: number[] = [];
  for (let t = 0; t < idx.length; t += 3) {
    let hits = 0;
    for (let k = 0; k < 3; k++) if (idx[t + k] === a || idx[t + k] === b) hits++;
    if (hits >= 2) out.push(t / 3);
  }
  return out;
}

function fmtPoint(p: Float64Array, v: number): string {
  const f = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x));
  return `(${f(p[v * 3]!)}, ${f(p[v * 3 + 1]!)}, ${f(p[v * 3 + 2]!)})`;
}

/** Three significant digits; exponent form far from 1 (3.74e-6 rather than 0.00000374). */
function fmtNum(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(3)));
}

/** A point to 4 digits, with rounding noise below 1e-9 of `scale` shown as 0. */
function fmtVec(v: readonly number[], scale: number): string {
  return `(${v.map((x) => String(Math.abs(x) < 1e-9 * scale ? 0 : Number(x.toPrecision(4)))).join(', ')})`;
}

function fmtPercent(f: number): string {
  return `${Number((100 * f).toPrecision(2))}%`;
}

/** A typed array or an array (of numbers, checked where used), as a mesh's positions and indices are. */
function isNumberArray(a: unknown): a is ArrayLike<number> {
  return ArrayBuffer.isView(a) || Array.isArray(a);
}
