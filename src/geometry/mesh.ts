/**
 * The triangle mesh every body is made of. Positions are Float64 (x, y, z per
 * vertex) and triangles are counter-clockwise seen from outside, so the
 * right-hand normal points out of the body.
 */
export interface TriMesh {
  /** x, y, z per vertex. */
  positions: Float64Array;
  /** Three vertex indices per triangle, counter-clockwise seen from outside. */
  indices: Uint32Array;
}

export type Vec3 = [number, number, number];

/**
 * How a mesh's source names its vertices and triangles, for messages: an OBJ
 * numbers vertices from 1 in file order and a triangle comes from a face on
 * some line. Without it a mesh's vertices are numbered index + 1.
 */
export interface MeshNumbering {
  /** The source's number for each vertex (an OBJ's, from 1). */
  vertexNumbers?: Uint32Array;
  /** The source line of each triangle's face. */
  triangleLines?: Uint32Array;
}

export interface Aabb {
  min: Vec3;
  max: Vec3;
}

export function vertexCount(m: TriMesh): number {
  return m.positions.length / 3;
}

export function triangleCount(m: TriMesh): number {
  return m.indices.length / 3;
}

export function meshBounds(m: TriMesh): Aabb {
  const p = m.positions;
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const v = p[i + k]!;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  }
  return { min, max };
}

/** A copy of the mesh moved by -offset (used to re-centre on the centre of mass). */
export function translatedMesh(m: TriMesh, offset: Vec3): TriMesh {
  const p = new Float64Array(m.positions);
  for (let i = 0; i < p.length; i += 3) {
    p[i] -= offset[0];
    p[i + 1] -= offset[1];
    p[i + 2] -= offset[2];
  }
  return { positions: p, indices: m.indices };
}

/** A copy scaled uniformly about the origin. */
export function scaledMesh(m: TriMesh, s: number): TriMesh {
  const p = new Float64Array(m.positions);
  for (let i = 0; i < p.length; i++) p[i] *= s;
  return { positions: p, indices: m.indices };
}

/**
 * Signed volume enclosed by a closed mesh (divergence theorem: sum of the
 * tetrahedra from a reference point to each triangle). Positive when the
 * triangles are counter-clockwise seen from outside. The reference point is the
 * bounding-box centre, so large coordinate offsets do not eat the precision.
 */
export function signedVolume(m: TriMesh): number {
  return volumeParts(m).volume;
}

/**
 * The signed volume and the sum of the absolute tetrahedron volumes it is
 * summed from: a surface that encloses nothing (listed once per side) cancels
 * to rounding noise of that sum, whatever the mesh's scale.
 */
export function volumeParts(m: TriMesh): { volume: number; absSum: number } {
  const p = m.positions;
  const idx = m.indices;
  const b = meshBounds(m);
  const cx = 0.5 * (b.min[0] + b.max[0]);
  const cy = 0.5 * (b.min[1] + b.max[1]);
  const cz = 0.5 * (b.min[2] + b.max[2]);
  let six = 0;
  let abs = 0;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]! * 3;
    const c1 = idx[t + 1]! * 3;
    const c2 = idx[t + 2]! * 3;
    const ax = p[a]! - cx, ay = p[a + 1]! - cy, az = p[a + 2]! - cz;
    const bx = p[c1]! - cx, by = p[c1 + 1]! - cy, bz = p[c1 + 2]! - cz;
    const dx = p[c2]! - cx, dy = p[c2 + 1]! - cy, dz = p[c2 + 2]! - cz;
    const v = ax * (by * dz - bz * dy) + ay * (bz * dx - bx * dz) + az * (bx * dy - by * dx);
    six += v;
    abs += Math.abs(v);
  }
  return { volume: six / 6, absSum: abs / 6 };
}

/**
 * The mesh without the vertices no triangle uses (vertex order kept), how
 * many were dropped, and the old index of each kept vertex (null when nothing
 * was dropped: then the same mesh object is returned). Stray vertices would
 * otherwise become collision sample points.
 */
export function compactMesh(m: TriMesh): { mesh: TriMesh; dropped: number; kept: Uint32Array | null } {
  const nv = m.positions.length / 3;
  const idx = m.indices;
  const remap = new Int32Array(nv).fill(-1);
  for (let i = 0; i < idx.length; i++) remap[idx[i]!] = 0;
  let kept = 0;
  for (let v = 0; v < nv; v++) if (remap[v] === 0) remap[v] = kept++;
  if (kept === nv) return { mesh: m, dropped: 0, kept: null };
  const old = new Uint32Array(kept);
  const pos = new Float64Array(kept * 3);
  for (let v = 0; v < nv; v++) {
    const r = remap[v]!;
    if (r < 0) continue;
    old[r] = v;
    pos[r * 3] = m.positions[v * 3]!;
    pos[r * 3 + 1] = m.positions[v * 3 + 1]!;
    pos[r * 3 + 2] = m.positions[v * 3 + 2]!;
  }
  const out = new Uint32Array(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = remap[idx[i]!]!;
  return { mesh: { positions: pos, indices: out }, dropped: nv - kept, kept: old };
}
