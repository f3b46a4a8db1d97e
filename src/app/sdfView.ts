/**
 * Geometry of the depth-field view (the seed's "grid nodes inside green,
 * outside red") and of the SDF slice plane, in the body's local frame.
 */
import type { SdfGrid } from '../sdf/grid.ts';
import { packColor, VertexList } from './overlays.ts';
import type { SliceAxis } from './views.ts';

/**
 * Nodes farther than this many cells from the surface are left out, inside
 * and outside: a 48-cell grid has ~10^5 nodes, and a solid cloud of them
 * hides both the surface band (where the sign matters) and the slice.
 */
export const NODE_BAND_CELLS = 1.5;

const INSIDE = packColor(0.3, 1.0, 0.4, 1.0);
const OUTSIDE = packColor(1.0, 0.3, 0.25, 0.55);

/**
 * Grid nodes within the band around the surface as coloured points: outside
 * nodes (phi >= 0) red, then inside nodes (phi < 0) green, so both can be
 * drawn as two ranges of one list with different dot sizes.
 */
export function depthFieldNodes(
  g: SdfGrid,
  bandCells = NODE_BAND_CELLS,
  out = new VertexList(1024),
): { list: VertexList; outsideCount: number } {
  out.clear();
  const band = bandCells * g.cellSize;
  pushNodes(g, out, (phi) => phi >= 0 && phi < band, OUTSIDE);
  const outsideCount = out.count;
  pushNodes(g, out, (phi) => phi < 0 && phi > -band, INSIDE);
  return { list: out, outsideCount };
}

function pushNodes(g: SdfGrid, out: VertexList, keep: (phi: number) => boolean, rgba: number): void {
  const [nx, ny, nz] = g.dims;
  const h = g.cellSize;
  const v = g.values;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        if (keep(v[i + nx * (j + ny * k)]!)) out.push(g.origin[0] + h * i, g.origin[1] + h * j, g.origin[2] + h * k, rgba);
      }
    }
  }
}

const AXIS: Record<SliceAxis, number> = { x: 0, y: 1, z: 2 };

/**
 * The slice quad across the whole grid, perpendicular to `axis` at `offset`
 * (0 = first node plane, 1 = last): writes corner, edgeU, edgeV as three
 * vec4 (w = 0) into out[0..11].
 */
export function sliceQuad(g: SdfGrid, axis: SliceAxis, offset: number, out: Float32Array | number[]): void {
  const a = AXIS[axis];
  const u = (a + 1) % 3;
  const w = (a + 2) % 3;
  const ext = [0, 1, 2].map((k) => g.cellSize * (g.dims[k]! - 1));
  for (let k = 0; k < 12; k++) out[k] = 0;
  for (let k = 0; k < 3; k++) out[k] = g.origin[k]!;
  out[a] = g.origin[a]! + Math.min(1, Math.max(0, offset)) * ext[a]!;
  out[4 + u] = ext[u]!;
  out[8 + w] = ext[w]!;
}
