/** Meshes the SDF tests build from others. */
import type { TriMesh } from '../../src/geometry/mesh.ts';

/** The meshes as one mesh (their triangles side by side, nothing merged): parts that may cross or touch. */
export function joinMeshes(...ms: TriMesh[]): TriMesh {
  const pos: number[] = [];
  const idx: number[] = [];
  let off = 0;
  for (const m of ms) {
    pos.push(...m.positions);
    idx.push(...Array.from(m.indices, (v) => v + off));
    off += m.positions.length / 3;
  }
  return { positions: Float64Array.from(pos), indices: Uint32Array.from(idx) };
}
