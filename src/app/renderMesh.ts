/**
 * Turns a simulation mesh (shared vertices, CCW triangles) into what the
 * renderer draws: one vertex per triangle corner with a normal that is smooth
 * across soft edges and sharp across creases. Smooth normals alone would make
 * a box look like a blob (its corners average three faces); flat normals
 * alone make a torus look faceted. A crease angle between the two gives both
 * their natural look.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { RENDER_VERTEX_FLOATS } from './render/layout.ts';

export interface RenderMesh {
  /** Interleaved position (3) + normal (3) per vertex, 3 vertices per triangle. */
  vertices: Float32Array;
  vertexCount: number;
}

/**
 * @param creaseDegrees faces meeting at a larger angle keep separate normals.
 */
export function buildRenderMesh(mesh: TriMesh, creaseDegrees = 40): RenderMesh {
  const p = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;
  const nv = p.length / 3;
  // Unit face normals.
  const fn = new Float64Array(nt * 3);
  for (let t = 0; t < nt; t++) {
    const a = idx[3 * t]! * 3;
    const b = idx[3 * t + 1]! * 3;
    const c = idx[3 * t + 2]! * 3;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz) || 1;
    fn[3 * t] = nx / len;
    fn[3 * t + 1] = ny / len;
    fn[3 * t + 2] = nz / len;
  }
  // Incident (triangle, corner) lists per vertex, CSR.
  const start = new Uint32Array(nv + 1);
  for (let i = 0; i < idx.length; i++) start[idx[i]! + 1]!++;
  for (let v = 0; v < nv; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, nv);
  const corners = new Uint32Array(idx.length);
  for (let i = 0; i < idx.length; i++) corners[fill[idx[i]!]!++] = i;

  // Angle of each triangle at each corner (the weight of its normal, as for pseudonormals).
  const angle = new Float64Array(idx.length);
  for (let t = 0; t < nt; t++) {
    for (let k = 0; k < 3; k++) {
      const o = idx[3 * t + k]! * 3;
      const a = idx[3 * t + ((k + 1) % 3)]! * 3;
      const b = idx[3 * t + ((k + 2) % 3)]! * 3;
      const ux = p[a]! - p[o]!, uy = p[a + 1]! - p[o + 1]!, uz = p[a + 2]! - p[o + 2]!;
      const vx = p[b]! - p[o]!, vy = p[b + 1]! - p[o + 1]!, vz = p[b + 2]! - p[o + 2]!;
      const d = (ux * vx + uy * vy + uz * vz) / ((Math.hypot(ux, uy, uz) * Math.hypot(vx, vy, vz)) || 1);
      angle[3 * t + k] = Math.acos(Math.min(1, Math.max(-1, d)));
    }
  }

  const cosCrease = Math.cos((creaseDegrees * Math.PI) / 180);
  const out = new Float32Array(nt * 3 * RENDER_VERTEX_FLOATS);
  for (let i = 0; i < idx.length; i++) {
    const t = (i / 3) | 0;
    const v = idx[i]!;
    let nx = 0, ny = 0, nz = 0;
    for (let j = start[v]!; j < start[v + 1]!; j++) {
      const c = corners[j]!;
      const f = (c / 3) | 0;
      const dot = fn[3 * f]! * fn[3 * t]! + fn[3 * f + 1]! * fn[3 * t + 1]! + fn[3 * f + 2]! * fn[3 * t + 2]!;
      if (dot < cosCrease) continue;
      const w = angle[c]!;
      nx += w * fn[3 * f]!;
      ny += w * fn[3 * f + 1]!;
      nz += w * fn[3 * f + 2]!;
    }
    let len = Math.hypot(nx, ny, nz);
    if (!(len > 1e-12)) {
      nx = fn[3 * t]!;
      ny = fn[3 * t + 1]!;
      nz = fn[3 * t + 2]!;
      len = 1;
    }
    const o = i * RENDER_VERTEX_FLOATS;
    out[o] = p[3 * v]!;
    out[o + 1] = p[3 * v + 1]!;
    out[o + 2] = p[3 * v + 2]!;
    out[o + 3] = nx / len;
    out[o + 4] = ny / len;
    out[o + 5] = nz / len;
  }
  return { vertices: out, vertexCount: nt * 3 };
}
