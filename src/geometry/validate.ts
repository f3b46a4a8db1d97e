/**
 * Checks that a mesh can be a rigid body. The SDF sign comes from angle-weighted
 * pseudonormals (ALGORITHM.md 1), which are only meaningful for a closed,
 * manifold, consistently oriented mesh with non-degenerate triangles, so those
 * are refused here with an InputError that says what is wrong and where,
 * instead of producing a silently wrong distance field later.
 *
 * Accepted with a change and a warning:
 *  - a closed mesh that is inside out (negative volume): every triangle flipped;
 *  - vertices no triangle uses: dropped (they would be stray collision samples).
 * Accepted silently: several disconnected closed parts (e.g. nested shells).
 *
 * Cost: O(V + T) plus sorting each vertex's handful of edges; no hash maps on
 * the main path, so a million triangles take a fraction of a second.
 */
import { InputError } from '../errors.ts';
import { compactMesh, meshBounds, signedVolume, type TriMesh } from './mesh.ts';

export interface ValidatedMesh {
  mesh: TriMesh;
  warnings: string[];
}

/**
 * A triangle counts as degenerate when twice its area is below this fraction
 * of the squared bounding-box diagonal: far below any real feature (a
 * million-triangle mesh of a unit object has triangle areas around 1e-6), yet
 * far above the rounding noise (~1e-16) of a truly flat triangle.
 */
const DEGENERATE_REL = 1e-12;
/** A closed mesh enclosing less than this fraction of diagonal^3 encloses nothing. */
const ZERO_VOLUME_REL = 1e-12;

export function validateMesh(input: TriMesh, file: string): ValidatedMesh {
  const warnings: string[] = [];
  if (input.positions.length % 3 !== 0 || input.indices.length % 3 !== 0) {
    throw new InputError(
      `mesh arrays have the wrong length (${input.positions.length} coordinates, ${input.indices.length} indices); expected multiples of 3`,
      file,
    );
  }
  const nv0 = input.positions.length / 3;
  const nt = input.indices.length / 3;
  if (nt === 0) throw new InputError('mesh has no triangles; expected a closed triangle mesh', file);

  for (let i = 0; i < input.positions.length; i++) {
    if (!Number.isFinite(input.positions[i])) {
      const v = Math.floor(i / 3);
      throw new InputError(
        `vertex ${v} has a non-finite coordinate (${fmtPoint(input.positions, v)}); expected finite numbers`,
        file,
        `vertex ${v}`,
      );
    }
  }
  for (let i = 0; i < input.indices.length; i++) {
    if (input.indices[i]! >= nv0) {
      const t = Math.floor(i / 3);
      throw new InputError(
        `triangle ${t} refers to vertex ${input.indices[i]} but the mesh has ${nv0} vertices`,
        file,
        `triangle ${t}`,
      );
    }
  }

  const compact = compactMesh(input);
  if (compact.dropped > 0) warnings.push(`${file}: ${compact.dropped} vertices used by no triangle were dropped`);
  const mesh = compact.mesh;
  const p = mesh.positions;
  const idx = mesh.indices;
  const b = meshBounds(mesh);
  const dx = b.max[0] - b.min[0], dy = b.max[1] - b.min[1], dz = b.max[2] - b.min[2];
  const diag2 = dx * dx + dy * dy + dz * dz;

  checkDegenerate(mesh, diag2, file);
  checkEdges(mesh, file);

  const vol = signedVolume(mesh);
  const diag3 = diag2 * Math.sqrt(diag2);
  if (!(Math.abs(vol) > ZERO_VOLUME_REL * diag3)) {
    throw new InputError(
      `mesh encloses no volume (signed volume ${vol.toPrecision(3)}), e.g. a surface listed once per side; expected a closed solid`,
      file,
    );
  }
  if (vol < 0) {
    const flipped = new Uint32Array(idx.length);
    for (let t = 0; t < idx.length; t += 3) {
      flipped[t] = idx[t]!;
      flipped[t + 1] = idx[t + 2]!;
      flipped[t + 2] = idx[t + 1]!;
    }
    warnings.push(
      `${file}: mesh is inside out (triangles clockwise seen from outside, volume ${vol.toPrecision(4)}); all ${nt} triangles were flipped`,
    );
    return { mesh: { positions: p, indices: flipped }, warnings };
  }
  return { mesh, warnings };
}

function checkDegenerate(mesh: TriMesh, diag2: number, file: string): void {
  const p = mesh.positions;
  const idx = mesh.indices;
  // Compare squared quantities: |2A|^2 <= (eps * diag^2)^2, no sqrt per triangle.
  const lim = DEGENERATE_REL * diag2;
  const lim2 = lim * lim;
  let count = 0;
  let first = -1;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]!, b = idx[t + 1]!, c = idx[t + 2]!;
    let bad = a === b || b === c || a === c;
    if (!bad) {
      const a3 = a * 3, b3 = b * 3, c3 = c * 3;
      const ux = p[b3]! - p[a3]!, uy = p[b3 + 1]! - p[a3 + 1]!, uz = p[b3 + 2]! - p[a3 + 2]!;
      const vx = p[c3]! - p[a3]!, vy = p[c3 + 1]! - p[a3 + 1]!, vz = p[c3 + 2]! - p[a3 + 2]!;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      bad = nx * nx + ny * ny + nz * nz <= lim2;
    }
    if (bad) {
      if (first < 0) first = t / 3;
      count++;
    }
  }
  if (count > 0) {
    const a = idx[first * 3]!, b = idx[first * 3 + 1]!, c = idx[first * 3 + 2]!;
    throw new InputError(
      `${count} degenerate triangle${count === 1 ? '' : 's'} (zero area or a repeated vertex), first: triangle ${first} with vertices ${a} ${fmtPoint(mesh.positions, a)}, ${b} ${fmtPoint(mesh.positions, b)}, ${c} ${fmtPoint(mesh.positions, c)}; expected every triangle to have a positive area`,
      file,
      `triangle ${first}`,
    );
  }
}

/**
 * Edge topology by a counting sort: every directed edge a->b is filed under
 * min(a, b) with the key max(a, b)*2 + (a > b), then each vertex's short list
 * is sorted so equal undirected edges are adjacent. A closed, manifold,
 * consistently oriented mesh has every undirected edge exactly twice, once in
 * each direction.
 */
function checkEdges(mesh: TriMesh, file: string): void {
  const idx = mesh.indices;
  const nv = mesh.positions.length / 3;
  if (nv >= 0x7fffffff) throw new InputError(`mesh has too many vertices (${nv})`, file);
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

  const also = (skip: string): string => {
    const parts: string[] = [];
    if (skip !== 'open' && boundary > 0) parts.push(`${boundary} boundary edges`);
    if (skip !== 'nm' && nonManifold > 0) parts.push(`${nonManifold} edges shared by more than two triangles`);
    if (skip !== 'or' && misoriented > 0) parts.push(`${misoriented} edges traversed twice in the same direction`);
    return parts.length ? ` (also: ${parts.join(', ')})` : '';
  };
  const p = mesh.positions;
  const edgeText = (a: number, b: number): string =>
    `the edge between vertices ${a} ${fmtPoint(p, a)} and ${b} ${fmtPoint(p, b)}`;

  if (boundary > 0) {
    const dup = countCoincidentVertices(p);
    const hint = dup > 0
      ? `; note: ${dup} vertices sit exactly on another vertex, so the surface is probably unwelded (weld duplicate vertices)`
      : '';
    throw new InputError(
      `mesh is not closed: ${boundary} boundary edge${boundary === 1 ? '' : 's'} used by only one triangle, e.g. ${edgeText(exBoundary, exBoundaryHi)}${also('open')}; expected a closed (watertight) mesh where every edge is shared by exactly two triangles${hint}`,
      file,
      `edge ${exBoundary}-${exBoundaryHi}`,
    );
  }
  if (nonManifold > 0) {
    throw new InputError(
      `mesh is not manifold: ${nonManifold} edge${nonManifold === 1 ? '' : 's'} shared by more than two triangles, e.g. ${edgeText(exNonManifold, exNonManifoldHi)} used by ${exNonManifoldN} triangles${also('nm')}; expected every edge to be shared by exactly two triangles`,
      file,
      `edge ${exNonManifold}-${exNonManifoldHi}`,
    );
  }
  if (misoriented > 0) {
    const tris = trianglesWithEdge(idx, exMisoriented, exMisorientedHi);
    throw new InputError(
      `mesh is inconsistently oriented: ${misoriented} edge${misoriented === 1 ? '' : 's'} traversed twice in the same direction (neighbouring triangles wind opposite ways), e.g. ${edgeText(exMisoriented, exMisorientedHi)} in triangles ${tris.join(' and ')}${also('or')}; expected all triangles counter-clockwise seen from outside`,
      file,
      `edge ${exMisoriented}-${exMisorientedHi}`,
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

/** Error path only: how many vertices repeat an earlier vertex's exact position. */
function countCoincidentVertices(p: Float64Array): number {
  const seen = new Set<string>();
  let dup = 0;
  for (let i = 0; i < p.length; i += 3) {
    const key = `${p[i]},${p[i + 1]},${p[i + 2]}`;
    if (seen.has(key)) dup++;
    else seen.add(key);
  }
  return dup;
}

function fmtPoint(p: Float64Array, v: number): string {
  const f = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x));
  return `(${f(p[v * 3]!)}, ${f(p[v * 3 + 1]!)}, ${f(p[v * 3 + 2]!)})`;
}
