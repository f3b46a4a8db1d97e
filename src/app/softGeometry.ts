/**
 * What the renderers draw of the soft bodies (docs/soft-bodies.md), rebuilt
 * from a SoftSystem every frame into reused arrays, without the GPU (so the
 * rules are unit-tested in Node):
 *
 *  - the skinned surface of every soft body: positions, smooth normals (the
 *    area-weighted sum of the triangles' normals at a vertex) and the body's
 *    colour per vertex, one index list for all bodies (each body's triangles
 *    offset by its first vertex);
 *  - the springs, each a line coloured by its strain (L - L0) / L0: blue when
 *    compressed, a faint grey at rest, red when stretched, saturating at
 *    STRAIN_SATURATION either way (opacity rises with the strain, so the few
 *    strained springs of a dense net stand out from the many at rest);
 *  - the particles, as points in their body's colour.
 *
 * Lines and points use the overlays' vertex format (position, packed RGBA;
 * overlays.ts VertexList), so the renderers' line and point pipelines draw them.
 */
import type { SoftSystem } from '../soft/system.ts';
import { bodyColor, packColor, VertexList } from './overlays.ts';
import { SOFT_VERTEX_FLOATS } from './render/layout.ts';

/** Strain at which a spring's colour is fully blue (compressed) or red (stretched). */
export const STRAIN_SATURATION = 0.1;

/** Colour of a spring at strain s (file comment): RGB in 0..1 and opacity. */
export function strainColor(strain: number, out: number[] | Float32Array, o = 0): void {
  const t = Math.max(-1, Math.min(1, strain / STRAIN_SATURATION));
  const a = Math.abs(t);
  // Grey at rest, towards red (stretched) or blue (compressed).
  const grey = 0.6;
  if (t >= 0) {
    out[o] = grey + (1 - grey) * a;
    out[o + 1] = grey * (1 - 0.8 * a);
    out[o + 2] = grey * (1 - 0.85 * a);
  } else {
    out[o] = grey * (1 - 0.8 * a);
    out[o + 1] = grey * (1 - 0.3 * a) + 0.1 * a;
    out[o + 2] = grey + (1 - grey) * a;
  }
  out[o + 3] = 0.25 + 0.75 * a;
}

export class SoftGeometry {
  /** Surface vertices of all bodies: SOFT_VERTEX_FLOATS per vertex (render/layout.ts: position, normal, packed RGBA as f32 bits) (see `colorBits` for the colour slot). */
  vertices = new Float32Array(0);
  /** The colour slot seen as integers (the same buffer). */
  private colorBits = new Uint32Array(0);
  /** Triangles of all bodies, offset to the body's first vertex. */
  indices = new Uint32Array(0);
  vertexCount = 0;
  /** First surface vertex of each soft body. */
  firstVertex: number[] = [];
  readonly springLines = new VertexList(1024);
  readonly particlePoints = new VertexList(1024);
  private scratch = new Float32Array(0);
  private readonly rgb = [0, 0, 0, 0];

  constructor(readonly system: SoftSystem, readonly colorOffset = 0) {
    let nv = 0, ni = 0;
    for (const b of system.bodies) {
      this.firstVertex.push(nv);
      nv += b.surface.skinWeight.length / 4;
      ni += b.surface.indices.length;
    }
    this.vertexCount = nv;
    this.vertices = new Float32Array(nv * SOFT_VERTEX_FLOATS);
    this.colorBits = new Uint32Array(this.vertices.buffer);
    this.indices = new Uint32Array(ni);
    let at = 0;
    system.bodies.forEach((b, k) => {
      const first = this.firstVertex[k]!;
      for (let i = 0; i < b.surface.indices.length; i++) this.indices[at++] = b.surface.indices[i]! + first;
      const rgb = this.rgb;
      bodyColor(colorOffset + k, false, rgb);
      const packed = packColor(rgb[0]!, rgb[1]!, rgb[2]!);
      const n = b.surface.skinWeight.length / 4;
      for (let v = first; v < first + n; v++) this.colorBits[v * SOFT_VERTEX_FLOATS + 6] = packed;
    });
  }

  /** Surface positions and smooth normals from the particles now. */
  updateSurface(): void {
    const sys = this.system, V = this.vertices, F = SOFT_VERTEX_FLOATS;
    sys.bodies.forEach((b, k) => {
      const first = this.firstVertex[k]!;
      const n = b.surface.skinWeight.length / 4;
      if (this.scratch.length < 3 * n) this.scratch = new Float32Array(3 * n);
      const p = this.scratch;
      sys.surfacePositions(k, p);
      for (let v = 0; v < n; v++) {
        const o = (first + v) * F;
        V[o] = p[3 * v]!;
        V[o + 1] = p[3 * v + 1]!;
        V[o + 2] = p[3 * v + 2]!;
        V[o + 3] = V[o + 4] = V[o + 5] = 0;
      }
      // Area-weighted normals: the cross product of a triangle's edges, added at its corners.
      const I = b.surface.indices;
      for (let t = 0; t < I.length; t += 3) {
        const a = I[t]!, c = I[t + 1]!, d = I[t + 2]!;
        const ux = p[3 * c]! - p[3 * a]!, uy = p[3 * c + 1]! - p[3 * a + 1]!, uz = p[3 * c + 2]! - p[3 * a + 2]!;
        const wx = p[3 * d]! - p[3 * a]!, wy = p[3 * d + 1]! - p[3 * a + 1]!, wz = p[3 * d + 2]! - p[3 * a + 2]!;
        const nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
        addNormal(V, (first + a) * F, nx, ny, nz);
        addNormal(V, (first + c) * F, nx, ny, nz);
        addNormal(V, (first + d) * F, nx, ny, nz);
      }
      for (let v = first; v < first + n; v++) {
        const o = v * F;
        const l = Math.hypot(V[o + 3]!, V[o + 4]!, V[o + 5]!) || 1;
        V[o + 3] /= l;
        V[o + 4] /= l;
        V[o + 5] /= l;
      }
    });
  }

  /** Every spring as a line coloured by its strain. */
  updateSprings(): void {
    const sys = this.system, x = sys.pos, L = this.springLines, rgb = this.rgb;
    L.clear();
    for (let s = 0; s < sys.springCount; s++) {
      const a = 3 * sys.springA[s]!, b = 3 * sys.springB[s]!;
      const len = Math.hypot(x[a]! - x[b]!, x[a + 1]! - x[b + 1]!, x[a + 2]! - x[b + 2]!);
      strainColor(len / sys.springRest[s]! - 1, rgb);
      const c = packColor(rgb[0]!, rgb[1]!, rgb[2]!, rgb[3]!);
      L.push(x[a]!, x[a + 1]!, x[a + 2]!, c);
      L.push(x[b]!, x[b + 1]!, x[b + 2]!, c);
    }
  }

  /** Every particle as a point in its body's colour (lighter, so it shows on the surface). */
  updateParticles(): void {
    const sys = this.system, x = sys.pos, P = this.particlePoints, rgb = this.rgb;
    P.clear();
    sys.bodies.forEach((b, k) => {
      bodyColor(this.colorOffset + k, false, rgb);
      const c = packColor(Math.min(1, rgb[0]! * 0.5 + 0.5), Math.min(1, rgb[1]! * 0.5 + 0.5), Math.min(1, rgb[2]! * 0.5 + 0.5));
      for (let i = b.particleStart; i < b.particleStart + b.particleCount; i++) P.push(x[3 * i]!, x[3 * i + 1]!, x[3 * i + 2]!, c);
    });
  }
}

function addNormal(V: Float32Array, o: number, x: number, y: number, z: number): void {
  V[o + 3] += x;
  V[o + 4] += y;
  V[o + 5] += z;
}
