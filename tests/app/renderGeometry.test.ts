import { describe, expect, it } from 'vitest';
import { bodyMatrix, shadowMatrix, shadowPlane } from '../../src/app/frameData.ts';
import { levelColor, packColor, pushBoxLines, unpackColor, VertexList, worldAabb } from '../../src/app/overlays.ts';
import { buildRenderMesh } from '../../src/app/renderMesh.ts';
import { RENDER_VERTEX_FLOATS } from '../../src/app/render/layout.ts';
import { depthFieldNodes, sliceQuad } from '../../src/app/sdfView.ts';
import { pickWebmType } from '../../src/app/recorder.ts';
import { BodyStore } from '../../src/dynamics/bodies.ts';
import type { RigidShape } from '../../src/dynamics/shape.ts';
import { boxMesh, planeQuadMesh, sphereMesh } from '../../src/geometry/shapes.ts';
import type { SdfGrid } from '../../src/sdf/grid.ts';

/** A quaternion [x, y, z, w] for `deg` degrees about a unit axis. */
function quat(axis: [number, number, number], deg: number): number[] {
  const h = (deg * Math.PI) / 360;
  return [axis[0] * Math.sin(h), axis[1] * Math.sin(h), axis[2] * Math.sin(h), Math.cos(h)];
}

function apply(m: Float32Array, p: number[]): number[] {
  const w = m[3]! * p[0]! + m[7]! * p[1]! + m[11]! * p[2]! + m[15]!;
  return [0, 1, 2].map((r) => (m[r]! * p[0]! + m[4 + r]! * p[1]! + m[8 + r]! * p[2]! + m[12 + r]!) / w);
}

describe('frame data', () => {
  it('bodyMatrix rotates by the quaternion, then moves to the centre of mass', () => {
    const pos = Float64Array.of(0, 0, 0, 1, 2, 3);
    const q = Float64Array.of(0, 0, 0, 1, ...quat([0, 0, 1], 90));
    const m = new Float32Array(16);
    bodyMatrix(pos, q, 1, m, 0);
    const p = apply(m, [1, 0, 0]);
    expect(p[0]).toBeCloseTo(1, 6);
    expect(p[1]).toBeCloseTo(3, 6); // x turned to +y, plus 2
    expect(p[2]).toBeCloseTo(3, 6);
  });

  it('shadowMatrix puts every point on the plane, along the light', () => {
    const plane = { n: [0, 1, 0] as [number, number, number], d: 0.5 };
    const L = [0.48, 0.8, 0.36];
    const m = new Float32Array(16);
    expect(shadowMatrix(plane, L, 0, m)).toBe(true);
    for (const p of [[0, 3, 0], [1.5, 0.7, -2], [-4, 10, 5]]) {
      const s = apply(m, p);
      expect(s[1]).toBeCloseTo(0.5, 5);
      // s - p is parallel to L.
      const d = [s[0]! - p[0]!, s[1]! - p[1]!, s[2]! - p[2]!];
      const t = d[1]! / L[1]!;
      expect(d[0]).toBeCloseTo(t * L[0]!, 5);
      expect(d[2]).toBeCloseTo(t * L[2]!, 5);
    }
    // A light along the plane gives no projection.
    expect(shadowMatrix(plane, [1, 0, 0], 0, m)).toBe(false);
  });

  it('shadowPlane finds the static ground plane through the body position, and skips walls', () => {
    const bodies = new BodyStore();
    const plane: RigidShape = {
      name: 'floor',
      kind: 'plane',
      mesh: planeQuadMesh([0, 1, 0], 10),
      samples: { points: new Float32Array(0), vertexCount: 0, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) },
      sdf: null,
      comOffset: [0, 0, 0],
      volume: 1,
      inertiaUnit: new Float64Array(9),
      localBounds: { min: [-10, -10, -10], max: [10, 10, 10] },
      radius: Infinity,
      planeNormal: [0, 1, 0],
    };
    const wall = bodies.add('wall', 0);
    bodies.quat.set(quat([0, 0, 1], 90), 4 * wall);
    bodies.isStatic[wall] = 1;
    const ground = bodies.add('ground', 0);
    bodies.pos.set([0, -1.25, 0], 3 * ground);
    bodies.isStatic[ground] = 1;
    const world = { bodies, shapes: [plane], level: new Int32Array(0), contacts: { count: 0, points: new Float64Array(0), normals: new Float64Array(0), depth: new Float64Array(0) } };
    const p = shadowPlane(world)!;
    expect(p.n[1]).toBeCloseTo(1, 12);
    expect(p.d).toBeCloseTo(-1.25, 12);
  });
});

describe('overlay geometry', () => {
  it('packs colours the way unpack4x8unorm reads them', () => {
    const c = packColor(1, 0.5, 0, 0.25);
    expect(c & 255).toBe(255);
    expect((c >>> 24) & 255).toBe(64);
    const back = unpackColor(c);
    expect(back[1]).toBeCloseTo(0.5, 2);
  });

  it('worldAabb of a box turned 45 degrees about y grows by sqrt 2 in x and z', () => {
    const out = new Float64Array(6);
    const local = { min: [-1, -0.5, -1] as [number, number, number], max: [1, 0.5, 1] as [number, number, number] };
    worldAabb(local, Float64Array.of(10, 0, 0), 0, Float64Array.from(quat([0, 1, 0], 45)), 0, out);
    expect(out[0]).toBeCloseTo(10 - Math.SQRT2, 9);
    expect(out[3]).toBeCloseTo(10 + Math.SQRT2, 9);
    expect(out[1]).toBeCloseTo(-0.5, 9);
    expect(out[5]).toBeCloseTo(Math.SQRT2, 9);
  });

  it('box lines are the 12 distinct edges of the box, each one unit-axis long', () => {
    const list = new VertexList(2);
    pushBoxLines(list, [0, 0, 0, 1, 2, 3], 0, 0xffffffff);
    expect(list.count).toBe(24);
    const seen = new Set<string>();
    for (let i = 0; i < 24; i += 2) {
      const a = [0, 1, 2].map((k) => list.f32[4 * i + k]!);
      const b = [0, 1, 2].map((k) => list.f32[4 * (i + 1) + k]!);
      const diff = [0, 1, 2].filter((k) => a[k] !== b[k]);
      expect(diff).toHaveLength(1);
      seen.add([a, b].map((p) => p.join(',')).sort().join('|'));
    }
    expect(seen.size).toBe(12);
    expect(list.u32[3]).toBe(0xffffffff);
  });

  it('level colours: static is neutral grey, levels differ from each other', () => {
    const a = [0, 0, 0], b = [0, 0, 0], s = [0, 0, 0];
    levelColor(0, a);
    levelColor(5, b);
    levelColor(-1, s);
    expect(Math.abs(s[0]! - s[2]!)).toBeLessThan(0.1);
    expect(Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!)).toBeGreaterThan(0.3);
  });
});

describe('render mesh', () => {
  it('keeps a box faceted: every corner normal is its face normal', () => {
    const m = buildRenderMesh(boxMesh([1, 2, 3]));
    expect(m.vertexCount).toBe(36);
    for (let t = 0; t < 12; t++) {
      const n = [3, 4, 5].map((k) => m.vertices[3 * t * RENDER_VERTEX_FLOATS + k]!);
      expect(Math.max(...n.map(Math.abs))).toBeCloseTo(1, 6);
      for (let c = 1; c < 3; c++) {
        for (let k = 0; k < 3; k++) expect(m.vertices[(3 * t + c) * RENDER_VERTEX_FLOATS + 3 + k]).toBeCloseTo(n[k]!, 6);
      }
    }
  });

  it('makes a sphere smooth: normals point along the position, outward', () => {
    const r = 0.7;
    const m = buildRenderMesh(sphereMesh(r, 24, 16));
    let worst = 1;
    for (let v = 0; v < m.vertexCount; v++) {
      const o = v * RENDER_VERTEX_FLOATS;
      const p = [m.vertices[o]!, m.vertices[o + 1]!, m.vertices[o + 2]!];
      const n = [m.vertices[o + 3]!, m.vertices[o + 4]!, m.vertices[o + 5]!];
      worst = Math.min(worst, (p[0]! * n[0]! + p[1]! * n[1]! + p[2]! * n[2]!) / r);
    }
    expect(worst).toBeGreaterThan(0.98);
  });
});

describe('depth field view', () => {
  // phi = x - 1.5 on a 4 x 2 x 2 grid: x = 0 deep inside, x = 1 just inside, x = 2 just outside, x = 3 far outside.
  const g: SdfGrid = {
    origin: [0, 0, 0],
    cellSize: 1,
    dims: [4, 2, 2],
    values: Float32Array.from({ length: 16 }, (_, i) => (i % 4) - 1.5),
  };

  it('lists the nodes within the band of the surface: outside ones first (red), then inside ones (green)', () => {
    const { list, outsideCount } = depthFieldNodes(g, 1);
    expect(outsideCount).toBe(4); // x = 2 (phi 0.5); x = 3 (phi 1.5) is past the band
    expect(list.count).toBe(4 + 4); // x = 1 (phi -0.5); x = 0 (phi -1.5) is past the band
    expect(depthFieldNodes(g, 2).list.count).toBe(16);
    for (let i = 0; i < list.count; i++) {
      const x = list.f32[4 * i]!;
      const green = ((list.u32[4 * i + 3]! >>> 8) & 255) > (list.u32[4 * i + 3]! & 255);
      expect(green).toBe(i >= outsideCount);
      expect(x - 1.5 < 0).toBe(i >= outsideCount);
    }
  });

  it('the slice quad spans the grid across the two other axes at the offset', () => {
    const out = new Array(12).fill(0);
    sliceQuad(g, 'x', 0.5, out);
    expect(out.slice(0, 3)).toEqual([1.5, 0, 0]);
    expect(out.slice(4, 7)).toEqual([0, 1, 0]); // u = y
    expect(out.slice(8, 11)).toEqual([0, 0, 1]); // v = z
    sliceQuad(g, 'z', 2, out);
    expect(out[2]).toBe(1); // clamped to the last node
    expect(out.slice(4, 7)).toEqual([3, 0, 0]);
  });
});

describe('recording', () => {
  it('prefers VP9 WebM, falls back to any WebM, and says when there is none', () => {
    expect(pickWebmType(() => true)).toBe('video/webm;codecs=vp9');
    expect(pickWebmType((t) => t === 'video/webm')).toBe('video/webm');
    expect(pickWebmType(() => false)).toBeNull();
  });
});
