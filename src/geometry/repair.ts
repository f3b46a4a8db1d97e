/**
 * Repairs for meshes from the wild, run by validateMesh before it judges a
 * mesh: welding the seams of an unwelded export, dropping triangles that
 * collapse, and filling small holes. Each returns what it did, so the caller
 * can say so in a warning; none of them touches a closed mesh.
 *
 * Welding only merges vertices that lie on boundary edges (edges used by one
 * triangle). An exporter that writes every face with its own vertices leaves
 * every edge open, so all of its vertices qualify; a closed mesh has none, so
 * two solids that legitimately touch at a vertex are never glued together
 * (that would make the shared vertex, or a shared edge, non-manifold).
 *
 * Holes are filled when the fill is unambiguous or small: a hole of three
 * edges is exactly one missing triangle; any other hole is filled only when its
 * fill area is at most HOLE_AREA_FRACTION of the area of the triangles present. A larger opening is
 * more likely meant (a cup modelled as a bare surface), and closing it would
 * silently make a different solid, so it stays an error.
 */
import type { TriMesh, Vec3 } from './mesh.ts';
import { meshBounds } from './mesh.ts';
import { DisjointSets } from './disjointSets.ts';

/** Vertices closer than this fraction of the bounding-box diagonal are one vertex. */
export const WELD_REL = 1e-6;
/** Largest hole (other than a single missing triangle) filled, as a fraction of the area of the triangles present (the open surface). */
export const HOLE_AREA_FRACTION = 0.05;

export interface WeldResult {
  mesh: TriMesh;
  /** Vertices merged into another one. */
  merged: number;
  /** Triangles dropped because welding collapsed two of their corners into one. */
  collapsed: number;
  /** The distance under which vertices were merged. */
  tolerance: number;
  /** The input index of each output triangle (null when nothing was welded). */
  keptTriangles: Uint32Array | null;
}

/** Half-edge keys of the boundary: directed edges whose reverse no triangle has. */
export function boundaryEdges(mesh: TriMesh): { from: Uint32Array; to: Uint32Array } {
  const idx = mesh.indices;
  const nv = mesh.positions.length / 3;
  // Directed edge a->b as the number a * nv + b (below 2^53 for any mesh in memory).
  const edges = new Set<number>();
  for (let t = 0; t < idx.length; t += 3) {
    for (let k = 0; k < 3; k++) edges.add(idx[t + k]! * nv + idx[t + (k + 1) % 3]!);
  }
  const from: number[] = [];
  const to: number[] = [];
  for (let t = 0; t < idx.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = idx[t + k]!, b = idx[t + (k + 1) % 3]!;
      if (!edges.has(b * nv + a)) {
        from.push(a);
        to.push(b);
      }
    }
  }
  return { from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

/**
 * Merges boundary vertices closer than WELD_REL of the bounding-box diagonal
 * (clusters by union-find over a hash grid of that cell size, so chains of
 * near points end up as one), then drops triangles that lost a corner. The
 * surviving vertex of a cluster is its lowest index; positions are not moved.
 */
export function weldBoundary(mesh: TriMesh): WeldResult {
  const p = mesh.positions;
  const nv = p.length / 3;
  const b = meshBounds(mesh);
  const diag = Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
  const tol = WELD_REL * diag;
  const none: WeldResult = { mesh, merged: 0, collapsed: 0, tolerance: tol, keptTriangles: null };
  if (!(tol > 0)) return none;

  const open = new Uint8Array(nv);
  const bd = boundaryEdges(mesh);
  for (let i = 0; i < bd.from.length; i++) {
    open[bd.from[i]!] = 1;
    open[bd.to[i]!] = 1;
  }
  const sets = new DisjointSets(nv);
  const find = (v: number): number => sets.find(v);
  // Hash grid of cell `tol`: a partner within tol is in one of the 27 cells around.
  const inv = 1 / tol;
  const cellKey = (x: number, y: number, z: number): string => `${x},${y},${z}`;
  const grid = new Map<string, number[]>();
  const tol2 = tol * tol;
  for (let v = 0; v < nv; v++) {
    if (!open[v]) continue;
    const cx = Math.floor((p[3 * v]! - b.min[0]) * inv);
    const cy = Math.floor((p[3 * v + 1]! - b.min[1]) * inv);
    const cz = Math.floor((p[3 * v + 2]! - b.min[2]) * inv);
    for (let dz = -1; dz <= 1; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const list = grid.get(cellKey(cx + dx, cy + dy, cz + dz));
          if (!list) continue;
          for (const u of list) {
            const ex = p[3 * u]! - p[3 * v]!, ey = p[3 * u + 1]! - p[3 * v + 1]!, ez = p[3 * u + 2]! - p[3 * v + 2]!;
            if (ex * ex + ey * ey + ez * ez <= tol2) sets.union(u, v);
          }
        }
      }
    }
    const key = cellKey(cx, cy, cz);
    const list = grid.get(key);
    if (list) list.push(v);
    else grid.set(key, [v]);
  }
  let merged = 0;
  for (let v = 0; v < nv; v++) if (find(v) !== v) merged++;
  if (merged === 0) return none;

  const idx = mesh.indices;
  const out: number[] = [];
  const kept: number[] = [];
  let collapsed = 0;
  for (let t = 0; t < idx.length; t += 3) {
    const a = find(idx[t]!), c1 = find(idx[t + 1]!), c2 = find(idx[t + 2]!);
    if (a === c1 || c1 === c2 || a === c2) {
      collapsed++;
      continue;
    }
    out.push(a, c1, c2);
    kept.push(t / 3);
  }
  return { mesh: { positions: p, indices: Uint32Array.from(out) }, merged, collapsed, tolerance: tol, keptTriangles: Uint32Array.from(kept) };
}

export interface FilledHole {
  /** Boundary edges around the hole. */
  edges: number;
  area: number;
  /** Centroid of the hole's boundary vertices. */
  centre: Vec3;
}

export interface HoleReport {
  /** The mesh with the holes filled (the input when nothing was filled). */
  mesh: TriMesh;
  filled: FilledHole[];
  /** Holes left open because they are too large, or boundary that is not a simple loop. */
  refused: FilledHole[];
  /** A vertex where several holes meet, so the boundary does not form simple loops (-1 if none). */
  tangledAt: number;
  /** Surface area before filling. */
  surfaceArea: number;
}

/**
 * Finds the holes (loops of boundary edges) and fills the ones that qualify
 * (file comment): a three-edge hole with its one triangle, a larger one with a
 * fan from its centroid, every new triangle wound opposite to the boundary
 * edges it closes so the orientation stays consistent. A loop whose vertex
 * carries two boundary edges leaving it (two holes touching at a vertex) is not
 * filled: which edges pair up is ambiguous.
 */
export function fillHoles(mesh: TriMesh): HoleReport {
  const p = mesh.positions;
  const nv = p.length / 3;
  const surfaceArea = totalArea(mesh);
  const report: HoleReport = { mesh, filled: [], refused: [], tangledAt: -1, surfaceArea };
  const bd = boundaryEdges(mesh);
  if (bd.from.length === 0) return report;
  // A hole is walked against the triangles' boundary edges: edge a->b of a
  // triangle is crossed by the hole as b->a, so next[b] = a.
  const next = new Int32Array(nv).fill(-1);
  for (let i = 0; i < bd.from.length; i++) {
    const a = bd.from[i]!, b = bd.to[i]!;
    if (next[b] !== -1) {
      report.tangledAt = b;
      return report;
    }
    next[b] = a;
  }
  const seen = new Uint8Array(nv);
  const loops: number[][] = [];
  for (let i = 0; i < bd.from.length; i++) {
    const start = bd.to[i]!;
    if (seen[start]) continue;
    const loop: number[] = [];
    let v = start;
    while (!seen[v]) {
      seen[v] = 1;
      loop.push(v);
      v = next[v]!;
      if (v < 0) {
        report.tangledAt = loop[loop.length - 1]!;
        return report;
      }
    }
    if (v !== start) {
      report.tangledAt = v;
      return report;
    }
    loops.push(loop);
  }

  const extraPos: number[] = [];
  const extraIdx: number[] = [];
  let nextVertex = nv;
  for (const loop of loops) {
    const k = loop.length;
    let cx = 0, cy = 0, cz = 0;
    for (const v of loop) {
      cx += p[3 * v]!;
      cy += p[3 * v + 1]!;
      cz += p[3 * v + 2]!;
    }
    const centre: Vec3 = [cx / k, cy / k, cz / k];
    const tris: number[] = [];
    let area = 0;
    if (k === 3) {
      tris.push(loop[0]!, loop[1]!, loop[2]!);
      area = triArea(p, loop[0]!, loop[1]!, loop[2]!, null);
    } else {
      for (let i = 0; i < k; i++) {
        tris.push(loop[i]!, loop[(i + 1) % k]!, nextVertex);
        area += triArea(p, loop[i]!, loop[(i + 1) % k]!, -1, centre);
      }
    }
    const hole: FilledHole = { edges: k, area, centre };
    if (k !== 3 && !(area <= HOLE_AREA_FRACTION * surfaceArea)) {
      report.refused.push(hole);
      continue;
    }
    if (k !== 3) {
      extraPos.push(centre[0], centre[1], centre[2]);
      nextVertex++;
    }
    extraIdx.push(...tris);
    report.filled.push(hole);
  }
  if (report.refused.length > 0 || report.filled.length === 0) return report;
  const positions = new Float64Array(p.length + extraPos.length);
  positions.set(p);
  positions.set(extraPos, p.length);
  const indices = new Uint32Array(mesh.indices.length + extraIdx.length);
  indices.set(mesh.indices);
  indices.set(extraIdx, mesh.indices.length);
  report.mesh = { positions, indices };
  return report;
}

/** Area of triangle (a, b, c); c < 0 means the point `at` instead of a vertex. */
function triArea(p: Float64Array, a: number, b: number, c: number, at: Vec3 | null): number {
  const ax = p[3 * a]!, ay = p[3 * a + 1]!, az = p[3 * a + 2]!;
  const cx = c >= 0 ? p[3 * c]! : at![0];
  const cy = c >= 0 ? p[3 * c + 1]! : at![1];
  const cz = c >= 0 ? p[3 * c + 2]! : at![2];
  const ux = p[3 * b]! - ax, uy = p[3 * b + 1]! - ay, uz = p[3 * b + 2]! - az;
  const vx = cx - ax, vy = cy - ay, vz = cz - az;
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}

export function totalArea(mesh: TriMesh): number {
  const idx = mesh.indices;
  let a = 0;
  for (let t = 0; t < idx.length; t += 3) a += triArea(mesh.positions, idx[t]!, idx[t + 1]!, idx[t + 2]!, null);
  return a;
}
