import type { TriMesh } from './mesh.ts';
import * as det from '../util/detmath.ts';
import { meshEdges, type MeshEdges } from './edges.ts';

/**
 * Collision sample points of a body (docs/ALGORITHM.md 4.3): every mesh vertex,
 * then face samples of large triangles, then for every unique edge up to
 * `edgeSamples` interior points evenly spaced along it.
 *
 * Layout (shared by the CPU and GPU query, see src/gpu/layout.ts):
 *  - samples [0, vertexCount) are single points: the mesh vertices in mesh
 *    order ([0, meshVertexCount)), then the face samples;
 *  - samples [edgeSampleStart(s, e), edgeSampleStart(s, e + 1)) belong to
 *    edge e: `edgeSamples` of them each, or as `edgeStart` says when edges
 *    carry different numbers (edge spacing, buildSamples).
 * The query reports every sample (vertex, face or edge sample) within its
 * margin of the other body (src/collision/query.ts).
 *
 * Why face samples (not in the seed): two boxes stacked face on face, edges
 * aligned, put every vertex and rim edge sample of one exactly on the side
 * faces of the other, where the distance field is ~0 with a sideways normal;
 * only the face diagonals' samples would then hold the upper box, and it
 * rocks and sinks. A triangle much larger than an SDF cell therefore also
 * carries its centroid and three points pulled 20% from its corners toward
 * the centroid, which lie inside the face footprint and see the true normal.
 */
export interface CollisionSamples {
  /** x, y, z, 0 per sample (vec4-packed for the GPU), body-local frame. */
  points: Float32Array;
  /** Single-point samples: mesh vertices, then face samples. */
  vertexCount: number;
  /** Mesh vertices among them (the first ones). */
  meshVertexCount?: number;
  edgeCount: number;
  /** Interior samples per edge (with `edgeStart`: the most any edge has). */
  edgeSamples: number;
  /**
   * Where each edge's samples start, counted from `vertexCount` (edgeCount + 1
   * entries, the last the total): present when edges carry different numbers
   * of samples; absent, edge e's are the `edgeSamples` from e * edgeSamples.
   */
  edgeStart?: Uint32Array;
  /** Endpoints (vertex indices) of each unique edge, 2 per edge. */
  edges: Uint32Array;
  /**
   * Outward unit normal of the surface at each sample (x, y, z, 0): the
   * angle-weighted pseudonormal at vertices, the face normal for face samples,
   * the sum of the two face normals for edge samples. The host uses it to drop
   * shallow contacts whose surfaces do not face each other (src/dynamics/narrowphase.ts).
   */
  normals?: Float32Array;
  /**
   * Where the surface around each sample turns sharply (sampleCreases): 6
   * floats per sample, the symmetric tensor sum over the sharp mesh edges
   * next to it (dihedral above CREASE_DEGREES) of u u^T, u the unit
   * direction across the edge (xx, xy, xz, yy, yz, zz, local frame). Along a
   * direction d, d^T M d is about 1 where a sharp edge crosses d's way and
   * 0 on a smooth tessellation (a ball, the side of a cylinder).
   */
  creases?: Float32Array;
  /**
   * The surface area each sample stands for (sampleAreas): the samples are
   * dense where many triangles meet (a sphere's poles), so a contact patch
   * weighs its points by area, not by count, to find its centre.
   */
  areas?: Float32Array;
}

export function sampleCount(s: CollisionSamples): number {
  return edgeSampleStart(s, s.edgeCount);
}

/** The index of edge e's first sample (e = edgeCount: the sample count). */
export function edgeSampleStart(s: CollisionSamples, e: number): number {
  return s.vertexCount + (s.edgeStart ? s.edgeStart[e]! : e * s.edgeSamples);
}


/** Unique undirected edges of a mesh, in first-seen order. */
export function uniqueEdges(mesh: TriMesh): Uint32Array {
  return meshEdges(mesh.indices, mesh.positions.length / 3).edges;
}

/** Fraction of the way from a triangle corner to its centroid for the inset face samples. */
export const FACE_INSET = 0.2;

/**
 * @param edgeSamples interior samples per edge (the most any edge gets, with `edgeSpacing`)
 * @param faceMinInradius triangles whose inscribed-circle radius exceeds this get face samples (Infinity: none)
 * @param edgeSpacing above 0, an edge gets only the interior samples (up to
 *   `edgeSamples`) that keep its samples at most this far apart,
 *   ceil(length / edgeSpacing) - 1: a dense mesh's short edges need none,
 *   since its vertices are already closer than the fields resolve
 */
export function buildSamples(mesh: TriMesh, edgeSamples = 3, faceMinInradius = Infinity, edgeSpacing = 0): CollisionSamples {
  if (!Number.isInteger(edgeSamples) || edgeSamples < 0 || edgeSamples > 64) {
    throw new RangeError(`edgeSamples must be an integer in [0, 64], got ${edgeSamples}`);
  }
  const me = meshEdges(mesh.indices, mesh.positions.length / 3);
  const edges = me.edges;
  const p = mesh.positions;
  const idx = mesh.indices;
  const nv = p.length / 3;
  const ne = edges.length / 2;
  // Face samples of large triangles.
  const face: number[] = [];
  if (Number.isFinite(faceMinInradius)) {
    for (let t = 0; t < idx.length; t += 3) {
      const a = 3 * idx[t]!, b = 3 * idx[t + 1]!, c = 3 * idx[t + 2]!;
      const lab = Math.hypot(p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!);
      const lbc = Math.hypot(p[c]! - p[b]!, p[c + 1]! - p[b + 1]!, p[c + 2]! - p[b + 2]!);
      const lca = Math.hypot(p[a]! - p[c]!, p[a + 1]! - p[c + 1]!, p[a + 2]! - p[c + 2]!);
      const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
      const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
      const area = 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
      const inradius = (2 * area) / (lab + lbc + lca);
      if (!(inradius > faceMinInradius)) continue;
      const cx = (p[a]! + p[b]! + p[c]!) / 3, cy = (p[a + 1]! + p[b + 1]! + p[c + 1]!) / 3, cz = (p[a + 2]! + p[b + 2]! + p[c + 2]!) / 3;
      face.push(cx, cy, cz);
      for (const v of [a, b, c]) {
        face.push(p[v]! + FACE_INSET * (cx - p[v]!), p[v + 1]! + FACE_INSET * (cy - p[v + 1]!), p[v + 2]! + FACE_INSET * (cz - p[v + 2]!));
      }
    }
  }
  const nf = face.length / 3;
  const single = nv + nf;
  // Each edge's interior samples: edgeSamples, or fewer on short edges (edgeSpacing).
  const edgeStart = new Uint32Array(ne + 1);
  let uniform = true;
  for (let e = 0; e < ne; e++) {
    let k = edgeSamples;
    if (edgeSpacing > 0) {
      const a = 3 * edges[2 * e]!, b = 3 * edges[2 * e + 1]!;
      const dx = p[b]! - p[a]!, dy = p[b + 1]! - p[a + 1]!, dz = p[b + 2]! - p[a + 2]!;
      // (sqrt, not hypot: correctly rounded on every engine, so every engine counts alike.)
      k = Math.min(edgeSamples, Math.max(0, Math.ceil(Math.sqrt(dx * dx + dy * dy + dz * dz) / edgeSpacing) - 1));
      if (k !== edgeSamples) uniform = false;
    }
    edgeStart[e + 1] = edgeStart[e]! + k;
  }
  const n = single + edgeStart[ne]!;
  const pts = new Float32Array(n * 4);
  for (let v = 0; v < nv; v++) {
    pts[v * 4] = p[v * 3]!;
    pts[v * 4 + 1] = p[v * 3 + 1]!;
    pts[v * 4 + 2] = p[v * 3 + 2]!;
  }
  for (let f = 0; f < nf; f++) {
    pts[(nv + f) * 4] = face[3 * f]!;
    pts[(nv + f) * 4 + 1] = face[3 * f + 1]!;
    pts[(nv + f) * 4 + 2] = face[3 * f + 2]!;
  }
  for (let e = 0; e < ne; e++) {
    const a = edges[e * 2]! * 3;
    const b = edges[e * 2 + 1]! * 3;
    const k = edgeStart[e + 1]! - edgeStart[e]!;
    for (let s = 0; s < k; s++) {
      const t = (s + 1) / (k + 1);
      const o = (single + edgeStart[e]! + s) * 4;
      pts[o] = p[a]! + t * (p[b]! - p[a]!);
      pts[o + 1] = p[a + 1]! + t * (p[b + 1]! - p[a + 1]!);
      pts[o + 2] = p[a + 2]! + t * (p[b + 2]! - p[a + 2]!);
    }
  }
  // Outward normals per sample.
  const vn = new Float64Array(3 * nv);
  // Per edge, the sum of its faces' normals (set by the first, in triangle order).
  const fnByEdge = new Float64Array(3 * ne);
  const faceNormals: number[] = [];
  for (let t = 0; t < idx.length; t += 3) {
    const ia = idx[t]!, ib = idx[t + 1]!, ic = idx[t + 2]!;
    const ux = p[3 * ib]! - p[3 * ia]!, uy = p[3 * ib + 1]! - p[3 * ia + 1]!, uz = p[3 * ib + 2]! - p[3 * ia + 2]!;
    const vx = p[3 * ic]! - p[3 * ia]!, vy = p[3 * ic + 1]! - p[3 * ia + 1]!, vz = p[3 * ic + 2]! - p[3 * ia + 2]!;
    let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const l = Math.hypot(nx, ny, nz) || 1;
    nx /= l;
    ny /= l;
    nz /= l;
    faceNormals.push(nx, ny, nz);
    const tri = [ia, ib, ic];
    for (let k = 0; k < 3; k++) {
      const v = tri[k]!, v1 = tri[(k + 1) % 3]!, v2 = tri[(k + 2) % 3]!;
      const ax = p[3 * v1]! - p[3 * v]!, ay = p[3 * v1 + 1]! - p[3 * v]!, az = p[3 * v1 + 2]! - p[3 * v]!;
      const bx = p[3 * v2]! - p[3 * v]!, by = p[3 * v2 + 1]! - p[3 * v]!, bz = p[3 * v2 + 2]! - p[3 * v]!;
      const ang = det.acos(Math.max(-1, Math.min(1, (ax * bx + ay * by + az * bz) / ((Math.hypot(ax, ay, az) * Math.hypot(bx, by, bz)) || 1))));
      vn[3 * v] += ang * nx;
      vn[3 * v + 1] += ang * ny;
      vn[3 * v + 2] += ang * nz;
      const h = t + k, e = 3 * me.edgeOf[h]!;
      if (me.first[h]) {
        fnByEdge[e] = nx;
        fnByEdge[e + 1] = ny;
        fnByEdge[e + 2] = nz;
      } else {
        fnByEdge[e] += nx;
        fnByEdge[e + 1] += ny;
        fnByEdge[e + 2] += nz;
      }
    }
  }
  const normals = new Float32Array(n * 4);
  const put = (i: number, x: number, y: number, z: number) => {
    const l = Math.hypot(x, y, z) || 1;
    normals[4 * i] = x / l;
    normals[4 * i + 1] = y / l;
    normals[4 * i + 2] = z / l;
  };
  for (let v = 0; v < nv; v++) put(v, vn[3 * v]!, vn[3 * v + 1]!, vn[3 * v + 2]!);
  // Face samples come 4 per qualifying triangle, in triangle order.
  if (nf > 0) {
    let f = 0;
    for (let t = 0; t < idx.length / 3 && f < nf; t++) {
      // Re-test which triangles qualified: their centroid is the next face sample.
      const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
      const cx = (p[a]! + p[b]! + p[c]!) / 3, cy = (p[a + 1]! + p[b + 1]! + p[c + 1]!) / 3, cz = (p[a + 2]! + p[b + 2]! + p[c + 2]!) / 3;
      if (Math.abs(face[3 * f]! - cx) + Math.abs(face[3 * f + 1]! - cy) + Math.abs(face[3 * f + 2]! - cz) > 1e-12 * (1 + Math.abs(cx) + Math.abs(cy) + Math.abs(cz))) continue;
      for (let k = 0; k < 4; k++) put(nv + f + k, faceNormals[3 * t]!, faceNormals[3 * t + 1]!, faceNormals[3 * t + 2]!);
      f += 4;
    }
  }
  for (let e = 0; e < ne; e++) {
    for (let i = single + edgeStart[e]!; i < single + edgeStart[e + 1]!; i++) put(i, fnByEdge[3 * e]!, fnByEdge[3 * e + 1]!, fnByEdge[3 * e + 2]!);
  }
  const out: CollisionSamples = { points: pts, vertexCount: single, meshVertexCount: nv, edgeCount: ne, edgeSamples, edges, normals };
  if (!uniform) out.edgeStart = edgeStart;
  out.areas = sampleAreas(mesh, out, me);
  out.creases = sampleCreases(mesh, out, me);
  return out;
}

/**
 * A mesh edge is a crease (a real edge of the solid, not a seam of a smooth
 * surface's tessellation) when its faces meet at more than this angle
 * between their normals: above the few degrees between the facets of a
 * tessellated ball or cylinder (7.5 for 48 segments, 15 for 24), below the
 * 90 of a box. A 12-gon prism (30) counts as a prism.
 */
export const CREASE_DEGREES = 25;

/**
 * The crease tensor of every sample (CollisionSamples.creases): for a vertex
 * its incident edges, for a face sample its triangle's three edges, for an
 * edge sample its own edge; each crease among them adds u u^T with u the
 * unit vector across the edge in the surface (sample normal x edge
 * direction). An open edge (one face) counts as a crease.
 */
export function sampleCreases(mesh: TriMesh, s: CollisionSamples, me: MeshEdges = meshEdges(mesh.indices, s.meshVertexCount ?? s.vertexCount)): Float32Array {
  const p = mesh.positions, idx = mesh.indices;
  const nv = s.meshVertexCount ?? s.vertexCount;
  const n = sampleCount(s);
  const out = new Float32Array(6 * n);
  const normals = s.normals;
  if (!normals) return out;
  const cosCrease = det.cos((CREASE_DEGREES * Math.PI) / 180);
  // Face normals, and the faces of each unique edge.
  const nt = idx.length / 3;
  const fn = new Float64Array(3 * nt);
  for (let t = 0; t < nt; t++) {
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
    const x = uy * vz - uz * vy, y = uz * vx - ux * vz, z = ux * vy - uy * vx;
    const l = Math.hypot(x, y, z) || 1;
    fn[3 * t] = x / l; fn[3 * t + 1] = y / l; fn[3 * t + 2] = z / l;
  }
  const faceA = new Int32Array(s.edgeCount).fill(-1), faceB = new Int32Array(s.edgeCount).fill(-1);
  const triEdges = new Int32Array(3 * nt).fill(-1);
  for (let t = 0; t < nt; t++) {
    for (let j = 0; j < 3; j++) {
      const e = me.edgeOf[3 * t + j]!;
      triEdges[3 * t + j] = e;
      if (faceA[e] === -1) faceA[e] = t;
      else faceB[e] = t;
    }
  }
  const crease = new Uint8Array(s.edgeCount);
  for (let e = 0; e < s.edgeCount; e++) {
    const a = faceA[e]!, b = faceB[e]!;
    crease[e] = a < 0 || b < 0 || fn[3 * a]! * fn[3 * b]! + fn[3 * a + 1]! * fn[3 * b + 1]! + fn[3 * a + 2]! * fn[3 * b + 2]! < cosCrease ? 1 : 0;
  }
  /** Adds edge e's crease term (if it is one) to sample i's tensor. */
  const add = (i: number, e: number): void => {
    if (!crease[e]) return;
    const a = 3 * s.edges[2 * e]!, b = 3 * s.edges[2 * e + 1]!;
    const dx = p[b]! - p[a]!, dy = p[b + 1]! - p[a + 1]!, dz = p[b + 2]! - p[a + 2]!;
    const nx = normals[4 * i]!, ny = normals[4 * i + 1]!, nz = normals[4 * i + 2]!;
    let ux = ny * dz - nz * dy, uy = nz * dx - nx * dz, uz = nx * dy - ny * dx;
    const l = Math.hypot(ux, uy, uz);
    if (!(l > 0)) return;
    ux /= l; uy /= l; uz /= l;
    const o = 6 * i;
    out[o] += ux * ux; out[o + 1] += ux * uy; out[o + 2] += ux * uz;
    out[o + 3] += uy * uy; out[o + 4] += uy * uz; out[o + 5] += uz * uz;
  };
  // Vertices: their incident edges.
  for (let e = 0; e < s.edgeCount; e++) {
    add(s.edges[2 * e]!, e);
    add(s.edges[2 * e + 1]!, e);
  }
  // Face samples (FACE_SAMPLES_PER_TRIANGLE per qualifying triangle, in
  // triangle order, after the vertices): their triangle's edges.
  let face = nv;
  for (let t = 0; t < nt && face < s.vertexCount; t++) {
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
    const cx = (p[a]! + p[b]! + p[c]!) / 3, cy = (p[a + 1]! + p[b + 1]! + p[c + 1]!) / 3, cz = (p[a + 2]! + p[b + 2]! + p[c + 2]!) / 3;
    const q = s.points;
    if (Math.abs(q[4 * face]! - cx) + Math.abs(q[4 * face + 1]! - cy) + Math.abs(q[4 * face + 2]! - cz) > 1e-6 * (1 + Math.abs(cx) + Math.abs(cy) + Math.abs(cz))) continue;
    for (let f = 0; f < FACE_SAMPLES_PER_TRIANGLE; f++) {
      for (let j = 0; j < 3; j++) if (triEdges[3 * t + j]! >= 0) add(face + f, triEdges[3 * t + j]!);
    }
    face += FACE_SAMPLES_PER_TRIANGLE;
  }
  // Edge samples: their own edge.
  for (let e = 0; e < s.edgeCount; e++) {
    for (let i = edgeSampleStart(s, e), end = edgeSampleStart(s, e + 1); i < end; i++) add(i, e);
  }
  return out;
}

/**
 * Bounding sphere of samples [first, end) (default: all): the centre of their
 * box and the distance of the farthest from it. `about` = [0, 0, 0] instead
 * measures the radius about the local origin.
 */
export function samplesBoundingSphere(s: CollisionSamples, first = 0, end = sampleCount(s), about?: readonly number[]): [number, number, number, number] {
  const p = s.points;
  let cx: number, cy: number, cz: number;
  if (about) {
    cx = about[0]!; cy = about[1]!; cz = about[2]!;
  } else {
    let minx = Infinity, miny = Infinity, minz = Infinity, maxx = -Infinity, maxy = -Infinity, maxz = -Infinity;
    for (let i = first; i < end; i++) {
      const x = p[4 * i]!, y = p[4 * i + 1]!, z = p[4 * i + 2]!;
      if (x < minx) minx = x; if (x > maxx) maxx = x;
      if (y < miny) miny = y; if (y > maxy) maxy = y;
      if (z < minz) minz = z; if (z > maxz) maxz = z;
    }
    if (!(end > first)) return [0, 0, 0, 0];
    cx = 0.5 * (minx + maxx); cy = 0.5 * (miny + maxy); cz = 0.5 * (minz + maxz);
  }
  let r2 = 0;
  for (let i = first; i < end; i++) {
    const dx = p[4 * i]! - cx, dy = p[4 * i + 1]! - cy, dz = p[4 * i + 2]! - cz;
    const d = dx * dx + dy * dy + dz * dz;
    if (d > r2) r2 = d;
  }
  return [cx, cy, cz, Math.sqrt(r2)];
}

/**
 * The area each sample stands for: every triangle shares its area equally
 * among the samples on it (its 3 vertices, the samples of its 3 edges, each
 * edge shared with the neighbouring triangle, and its own face samples), and a
 * sample sums its shares. The areas add up to the mesh's surface area.
 */
export function sampleAreas(mesh: TriMesh, s: CollisionSamples, me: MeshEdges = meshEdges(mesh.indices, s.meshVertexCount ?? s.vertexCount)): Float32Array {
  const p = mesh.positions, idx = mesh.indices;
  const nv = s.meshVertexCount ?? s.vertexCount;
  const out = new Float64Array(sampleCount(s));
  // Face samples come FACE_SAMPLES_PER_TRIANGLE per qualifying triangle, in triangle order, after the vertices.
  let face = nv;
  const faceEnd = s.vertexCount;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]!, b = idx[t + 1]!, c = idx[t + 2]!;
    const ux = p[3 * b]! - p[3 * a]!, uy = p[3 * b + 1]! - p[3 * a + 1]!, uz = p[3 * b + 2]! - p[3 * a + 2]!;
    const vx = p[3 * c]! - p[3 * a]!, vy = p[3 * c + 1]! - p[3 * a + 1]!, vz = p[3 * c + 2]! - p[3 * a + 2]!;
    const area = 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    // Does this triangle own the next face samples? (Their centroid matches.)
    let own = 0;
    if (face < faceEnd) {
      const cx = (p[3 * a]! + p[3 * b]! + p[3 * c]!) / 3, cy = (p[3 * a + 1]! + p[3 * b + 1]! + p[3 * c + 1]!) / 3, cz = (p[3 * a + 2]! + p[3 * b + 2]! + p[3 * c + 2]!) / 3;
      const q = s.points;
      if (Math.abs(q[4 * face]! - cx) + Math.abs(q[4 * face + 1]! - cy) + Math.abs(q[4 * face + 2]! - cz) <= 1e-6 * (1 + Math.abs(cx) + Math.abs(cy) + Math.abs(cz))) own = FACE_SAMPLES_PER_TRIANGLE;
    }
    const e0 = me.edgeOf[t]!, e1 = me.edgeOf[t + 1]!, e2 = me.edgeOf[t + 2]!;
    const onEdges = edgeSampleStart(s, e0 + 1) - edgeSampleStart(s, e0) + edgeSampleStart(s, e1 + 1) - edgeSampleStart(s, e1) +
      edgeSampleStart(s, e2 + 1) - edgeSampleStart(s, e2);
    const share = area / (3 + onEdges + own);
    out[a] += share;
    out[b] += share;
    out[c] += share;
    for (let j = 0; j < 3; j++) {
      const e = me.edgeOf[t + j]!;
      for (let i = edgeSampleStart(s, e), end = edgeSampleStart(s, e + 1); i < end; i++) out[i] += share;
    }
    for (let f = 0; f < own; f++) out[face + f] += share;
    face += own;
  }
  return Float32Array.from(out);
}

/** Face samples a large triangle gets: its centroid and three inset points. */
const FACE_SAMPLES_PER_TRIANGLE = 4;
