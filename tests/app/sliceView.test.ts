import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SdfGrid } from '../../src/sdf/grid.ts';
import { sampleSdf } from '../../src/sdf/grid.ts';
import { SLICE_RANGE_CELLS, axisDirection, imagePoint, insetFrame, insetPoint, type InsetFrame, dragSliceOffset, facingAxis, raySliceHit, formatMetres, phiColor, scaleTicks, sliceImage, slicePoint, sliceValue, zeroContour, type SliceImage } from '../../src/app/sliceView.ts';
import { bodyLook, defaultViews, setOthers, setSliceMode, setView, setSliceBody } from '../../src/app/views.ts';

/** A grid of `n` nodes a side over [-1, 1]^3 holding phi(x, y, z). */
function grid(n: number, phi: (x: number, y: number, z: number) => number): SdfGrid {
  const h = 2 / (n - 1);
  const values = new Float32Array(n * n * n);
  for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) values[i + n * (j + n * k)] = phi(-1 + h * i, -1 + h * j, -1 + h * k);
  return { origin: [-1, -1, -1], cellSize: h, dims: [n, n, n], values };
}

const R = 0.7;
const sphere = grid(33, (x, y, z) => Math.hypot(x, y, z) - R);

describe('the slice axis that faces the camera', () => {
  const identity = [0, 0, 0, 1];
  it('is the body-grid axis with the largest |cos| to the line of sight', () => {
    expect(facingAxis(identity, 0, [0, 0, -1])).toBe('z');
    expect(facingAxis(identity, 0, [0.2, -0.9, 0.3])).toBe('y');
    expect(facingAxis(identity, 0, [-1, 0.5, 0.4])).toBe('x');
  });

  it('follows the body: turned 90 degrees about y, its x axis lies along world z', () => {
    const q = [9, 9, 0, Math.SQRT1_2, 0, Math.SQRT1_2]; // at offset 2, after two unrelated numbers
    expect(facingAxis(q, 2, [0, 0, 1])).toBe('x');
    expect(facingAxis(q, 2, [1, 0, 0])).toBe('z');
    // Turned 90 degrees about x: local y is world z.
    expect(facingAxis([Math.SQRT1_2, 0, 0, Math.SQRT1_2], 0, [0.1, 0.2, -1])).toBe('y');
  });

  it('keeps the current axis near a diagonal unless another beats it by the hysteresis', () => {
    // |cos| to x 0.700, to z 0.714: z wins alone, x is kept when it is the current one.
    const d = [0.7, 0, -0.714];
    expect(facingAxis([0, 0, 0, 1], 0, d)).toBe('z');
    expect(facingAxis([0, 0, 0, 1], 0, d, 'x')).toBe('x');
    expect(facingAxis([0, 0, 0, 1], 0, d, 'x', 0.01)).toBe('z');
    // Far from the diagonal the current axis gives way.
    expect(facingAxis([0, 0, 0, 1], 0, [0.3, 0, -0.95], 'x')).toBe('z');
  });
});

describe('the slice as a 2D field', () => {
  it('holds phi on the node lines of the plane, as sampleSdf gives it, with u and v after the normal axis', () => {
    for (const [axis, a] of [['x', 0], ['y', 1], ['z', 2]] as const) {
      const img = sliceImage(sphere, axis, 0.37);
      expect([img.a, img.u, img.v]).toEqual([a, (a + 1) % 3, (a + 2) % 3]);
      expect(img.plane).toBeCloseTo(-1 + 0.37 * 2, 12);
      let worst = 0;
      for (let j = 0; j < img.nv; j++) {
        for (let i = 0; i < img.nu; i++) {
          const p = slicePoint(img, i, j);
          expect(p[a]).toBeCloseTo(img.plane, 12);
          worst = Math.max(worst, Math.abs(img.values[i + img.nu * j]! - sampleSdf(sphere, p[0], p[1], p[2])));
        }
      }
      expect(worst).toBeLessThan(1e-6);
    }
  });

  it('reproduces a linear field exactly between nodes (bilinear in the plane)', () => {
    const lin = grid(9, (x, y, z) => 0.3 * x - 0.5 * y + 0.2 * z + 0.05);
    const img = sliceImage(lin, 'z', 0.61);
    for (const [s, t] of [[0.5, 0.5], [3.25, 7.9], [7.99, 0.01], [4, 4]] as const) {
      const p = slicePoint(img, s, t);
      expect(sliceValue(img, s, t)).toBeCloseTo(0.3 * p[0] - 0.5 * p[1] + 0.2 * p[2] + 0.05, 5);
    }
    // Clamped to the image.
    expect(sliceValue(img, -3, 4)).toBeCloseTo(sliceValue(img, 0, 4), 12);
  });

  it('clamps the offset and reads the last node plane at 1', () => {
    const img = sliceImage(sphere, 'x', 1.5);
    expect(img.plane).toBeCloseTo(1, 12);
    expect(img.values[0]).toBeCloseTo(sphere.values[32]!, 7);
  });
});

/** Segment endpoints, rounded, with how many segments end there. */
function endpoints(seg: number[]): Map<string, number> {
  const m = new Map<string, number>();
  for (let q = 0; q < seg.length; q += 2) {
    const key = `${seg[q]!.toFixed(6)},${seg[q + 1]!.toFixed(6)}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
}

describe('the zero contour', () => {
  it('of a sphere is a closed curve at the radius of the cut, to the linear interpolation error', () => {
    const img = sliceImage(sphere, 'z', 0.5 + 0.2 / 2);
    const rc = Math.sqrt(R * R - img.plane * img.plane);
    const seg = zeroContour(img);
    expect(seg.length).toBeGreaterThan(40);
    let worst = 0;
    for (let q = 0; q < seg.length; q += 2) {
      const p = slicePoint(img, seg[q]!, seg[q + 1]!);
      worst = Math.max(worst, Math.abs(Math.hypot(p[0], p[1]) - rc));
    }
    // Sampling |p| - R at the nodes and cutting edges linearly: off by h^2 / (8 r) at most, plus the
    // plane's interpolation between node planes.
    const h = sphere.cellSize;
    expect(worst).toBeLessThan((h * h) / rc);
    // Closed: every endpoint is shared by exactly two segments.
    for (const n of endpoints(seg).values()) expect(n).toBe(2);
  });

  it('of a linear field is the exact line across the image', () => {
    const lin = grid(9, (x, y, z) => 0.4 * x + 0.3 * y - 0.1 * z + 0.1);
    const img: SliceImage = sliceImage(lin, 'z', 0.5);
    const seg = zeroContour(img);
    let length = 0;
    for (let q = 0; q < seg.length; q += 4) {
      for (const k of [0, 2]) {
        const p = slicePoint(img, seg[q + k]!, seg[q + k + 1]!);
        expect(0.4 * p[0] + 0.3 * p[1] - 0.1 * p[2] + 0.1).toBeCloseTo(0, 6);
      }
      length += Math.hypot(seg[q + 2]! - seg[q]!, seg[q + 3]! - seg[q + 1]!) * img.cellSize;
    }
    // 0.4 x + 0.3 y + 0.1 = 0 across [-1, 1]^2: from (-1, 1) to (0.5, -1), 2.5 m long.
    expect(length).toBeCloseTo(2.5, 5);
  });

  it('splits a saddle cell by the sign of its mean', () => {
    const cell = (p: number[]): SliceImage => ({ axis: 'z', a: 2, u: 0, v: 1, nu: 2, nv: 2, values: Float32Array.from(p), cellSize: 1, origin: [0, 0, 0], plane: 0 });
    // Corners (0,0) (1,0) (0,1) (1,1) = image order; inside at (0,0) and (1,1).
    const near = (seg: number[], a: number[]) => seg.length === 8 && [0, 4].some((q) => a.every((v, k) => Math.abs(seg[q + k]! - v) < 1e-9));
    // Mean > 0 (outside): the inside corners are cut off alone: (0, 0.5)-(0.5, 0) and (1, 0.5)-(0.5, 1).
    const outside = zeroContour(cell([-1, 1, 1, -0.5]));
    expect(near(outside, [0, 0.5, 0.5, 0])).toBe(true);
    expect(near(outside, [1, 2 / 3, 2 / 3, 1])).toBe(true);
    // Mean < 0 (inside): the outside corners are cut off: (0.5, 0)-(1, y) and (x, 1)-(0, y').
    const inside = zeroContour(cell([-1, 1, 1, -3]));
    expect(near(inside, [0.5, 0, 1, 0.25])).toBe(true);
    expect(near(inside, [0.25, 1, 0, 0.5])).toBe(true);
  });
});

describe('the colour scale', () => {
  const shader = readFileSync(join(import.meta.dirname, '..', '..', 'shaders', 'render_slice.wgsl'), 'utf8');
  const g = (c: number) => Math.pow(c, 1 / 1.2);

  it("uses the 3D slice shader's colours and range", () => {
    const vecs = [...shader.matchAll(/vec3f\(([\d.]+), ([\d.]+), ([\d.]+)\)/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
    const h = 0.01;
    const at = (phi: number) => phiColor(phi, h);
    // Pale inside, deep inside, pale outside, deep outside: the shader's first four colours.
    const expected = [at(-1e-12), at(-SLICE_RANGE_CELLS * h), at(1e-12), at(SLICE_RANGE_CELLS * h)];
    for (let k = 0; k < 4; k++) for (let c = 0; c < 3; c++) expect(expected[k]![c]).toBeCloseTo(g(vecs[k]![c]!), 9);
    expect(shader).toContain(`clamp(phi / (${SLICE_RANGE_CELLS}.0 * h), -1.0, 1.0)`);
    expect(shader).toContain('pow(c, vec3f(1.0 / 1.2))');
  });

  it('darkens with depth on each side and saturates past the range', () => {
    const h = 0.02;
    const luma = (c: number[]) => 0.3 * c[0]! + 0.59 * c[1]! + 0.11 * c[2]!;
    let prev = Infinity;
    for (let k = 1; k <= SLICE_RANGE_CELLS * 4; k++) {
      const l = luma(phiColor((-k * h) / 4, h));
      expect(l).toBeLessThan(prev + 1e-12);
      prev = l;
    }
    prev = Infinity;
    for (let k = 1; k <= SLICE_RANGE_CELLS * 4; k++) {
      const l = luma(phiColor((k * h) / 4, h));
      expect(l).toBeLessThan(prev);
      prev = l;
    }
    expect(phiColor(5 * SLICE_RANGE_CELLS * h, h)).toEqual(phiColor(SLICE_RANGE_CELLS * h, h));
    expect(phiColor(-5 * SLICE_RANGE_CELLS * h, h)).toEqual(phiColor(-SLICE_RANGE_CELLS * h, h));
    // Inside is blue, outside amber.
    const i = phiColor(-h, h), o = phiColor(h, h);
    expect(i[2]! > i[0]!).toBe(true);
    expect(o[0]! > o[2]!).toBe(true);
  });

  it('has ticks in metres over the range, written with three significant digits', () => {
    const ticks = scaleTicks(0.008);
    [-0.064, -0.032, 0, 0.032, 0.064].forEach((t, k) => expect(ticks[k]).toBeCloseTo(t, 15));
    expect(formatMetres(-0.064)).toBe('\u22120.0640 m');
    expect(formatMetres(0.0123456)).toBe('0.0123 m');
    expect(formatMetres(1.5)).toBe('1.50 m');
    expect(formatMetres(0)).toBe('0 m');
  });
});

describe('the other bodies while the depth field is on', () => {
  it('fade by default, hide or show on request; the depth-field body is its wireframe', () => {
    const off = setSliceBody(defaultViews(), 2);
    expect([bodyLook(off, 1), bodyLook(off, 2)]).toEqual(['solid', 'solid']);
    const on = setView(off, 'depthField', true);
    expect([bodyLook(on, 1), bodyLook(on, 2)]).toEqual(['faded', 'wire']);
    expect(bodyLook(setOthers(on, 'hide'), 0)).toBe('hidden');
    expect(bodyLook(setOthers(on, 'show'), 0)).toBe('solid');
    expect(bodyLook(setSliceBody(on, -1), 0)).toBe('solid');
  });

  it('a fixed slice axis is drawn as chosen; facing the camera is the default', () => {
    const s = defaultViews();
    expect(s.sliceMode).toBe('camera');
    const x = setSliceMode(s, 'x');
    expect([x.sliceMode, x.sliceAxis]).toEqual(['x', 'x']);
    expect(setSliceMode(x, 'camera').sliceAxis).toBe('x');
    expect(setSliceMode(s, 'w' as never).sliceMode).toBe('camera');
  });
});

describe('grabbing the slice in the view', () => {
  // Turned 90 degrees about y: local x is world -z, local z is world x; at (2, 0, 0).
  const quat = [0, Math.SQRT1_2, 0, Math.SQRT1_2];
  const pos = [2, 0, 0];

  it("turns the body's axes into the world", () => {
    const x = axisDirection(quat, 0, 0), z = axisDirection(quat, 0, 2);
    [0, 0, -1].forEach((v, k) => expect(x[k]).toBeCloseTo(v, 12));
    [1, 0, 0].forEach((v, k) => expect(z[k]).toBeCloseTo(v, 12));
  });

  it('hits the slice plane inside the grid, in front of the eye', () => {
    // Across local x at 0.75: local x = 0.5, world z = -0.5.
    expect(raySliceHit(sphere, 'x', 0.75, pos, quat, 0, [2.3, 0.2, 5], [0, 0, -1])).toBeCloseTo(5.5, 12);
    // Beside the grid (local z = 1.5), behind the eye, and along the plane: no hit.
    expect(raySliceHit(sphere, 'x', 0.75, pos, quat, 0, [3.5, 0.2, 5], [0, 0, -1])).toBeNull();
    expect(raySliceHit(sphere, 'x', 0.75, pos, quat, 0, [2.3, 0.2, 5], [0, 0, 1])).toBeNull();
    expect(raySliceHit(sphere, 'x', 0.75, pos, quat, 0, [2.3, 0.2, -0.5], [1, 0, 0])).toBeNull();
    // The body's slot: its pose at pos[3i], quat[4i].
    expect(raySliceHit(sphere, 'x', 0.75, [9, 9, 9, ...pos], [0, 0, 0, 1, ...quat], 1, [2.3, 0.2, 5], [0, 0, -1])).toBeCloseTo(5.5, 12);
  });

  it('moves it away from the eye as the pointer goes up, as far as the pointer moved', () => {
    // 10 pixels up at 1 cm a pixel over a 2 m deep grid: 0.05 of the grid.
    expect(dragSliceOffset(0.5, -10, 0.01, 2, 0.8)).toBeCloseTo(0.55, 12);
    expect(dragSliceOffset(0.5, -10, 0.01, 2, -0.8)).toBeCloseTo(0.45, 12);
    expect(dragSliceOffset(0.5, 10, 0.01, 2, 0.8)).toBeCloseTo(0.45, 12);
    expect(dragSliceOffset(0.9, -1000, 0.01, 2, 0.8)).toBe(1);
    expect(dragSliceOffset(0.1, -1000, 0.01, 2, -0.8)).toBe(0);
  });
});

describe('the inset laid out as the view shows the slice', () => {
  const right = [1, 0, 0], up = [0, 1, 0];
  it('maps the image axes to across and up, mirrored where they run backwards', () => {
    expect(insetFrame([1, 0, 0], [0, 1, 0], right, up)).toEqual({ swap: false, flipAcross: false, flipUp: false });
    expect(insetFrame([-1, 0, 0], [0, 1, 0], right, up)).toEqual({ swap: false, flipAcross: true, flipUp: false });
    expect(insetFrame([0, 1, 0], [1, 0, 0], right, up)).toEqual({ swap: true, flipAcross: false, flipUp: false });
    expect(insetFrame([0, -0.9, 0.4], [0.8, 0.1, 0.6], right, up)).toEqual({ swap: true, flipAcross: false, flipUp: true });
  });

  it('moving across the inset moves right in the view, and up moves up, for any turn of the body', () => {
    const img = sliceImage(sphere, 'y', 0.5);
    const s2 = Math.SQRT1_2;
    for (const q of [[0, 0, 0, 1], [0, s2, 0, s2], [s2, 0, 0, s2], [0.5, 0.5, 0.5, 0.5], [0.1, -0.7, 0.3, 0.64], [0.9, 0.1, -0.3, 0.3]]) {
      const n = Math.hypot(...q);
      const quat = q.map((c) => c / n);
      // The image's u and v axes in the world (for 'y': u = z, v = x), and the camera looking along -z.
      const u = axisDirection(quat, 0, img.u), v = axisDirection(quat, 0, img.v);
      const f = insetFrame(u, v, right, up);
      const world = (X: number, Y: number) => {
        const [s, t] = imagePoint(img, f, X, Y);
        return [0, 1, 2].map((k) => s * u[k]! + t * v[k]!);
      };
      const a = world(0.2, 0.3), b = world(0.8, 0.3), c = world(0.2, 0.9);
      const dot = (p: number[], r: number[], d: number[]) => (p[0]! - r[0]!) * d[0]! + (p[1]! - r[1]!) * d[1]! + (p[2]! - r[2]!) * d[2]!;
      // Unless the slice is seen edge-on along that screen direction (a zero component).
      if (Math.max(Math.abs(u[0]!), Math.abs(v[0]!)) > 0.2) expect(dot(b, a, right)).toBeGreaterThan(0);
      if (Math.max(Math.abs(u[1]!), Math.abs(v[1]!)) > 0.2) expect(dot(c, a, up)).toBeGreaterThan(0);
    }
  });

  it('turns inset points into image points and back, for all eight layouts', () => {
    const img = sliceImage(grid(5, () => 1), 'x', 0.5);
    const odd: SliceImage = { ...img, nu: 7, nv: 4, values: new Float32Array(28) };
    for (let m = 0; m < 8; m++) {
      const f: InsetFrame = { swap: (m & 1) === 1, flipAcross: (m & 2) === 2, flipUp: (m & 4) === 4 };
      const [X, Y] = insetPoint(odd, f, 2.5, 1.25);
      const [s, t] = imagePoint(odd, f, X, Y);
      expect(s).toBeCloseTo(2.5, 12);
      expect(t).toBeCloseTo(1.25, 12);
      expect(X >= 0 && X <= 1 && Y >= 0 && Y <= 1).toBe(true);
    }
  });
});
