/**
 * Mass properties (src/sdf/mass.ts) against closed forms. The mesh integral
 * must be exact for polyhedra (box, L-block prism, and the volume of a lathe,
 * whose cross-sections are regular N-gons); for the curved sphere and torus it
 * must sit within the polygonisation error of the analytic solid. The seed's
 * voxel sum over a 48-cell SDF must agree within 2%.
 */
import { describe, expect, it } from 'vitest';
import { translatedMesh, type TriMesh, type Vec3 } from '../../src/geometry/mesh.ts';
import { boxMesh, extrudeMesh, lBlockPolygon, sphereMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import { invertInertia, massFromMesh, massFromSdf, principalInertia, type MassProperties } from '../../src/sdf/mass.ts';

/** Mass properties of a solid box (density 1) with full extents `s`, centred at `c`. */
function boxProps(s: Vec3, c: Vec3): MassProperties {
  const v = s[0] * s[1] * s[2];
  const inertia = new Float64Array(9);
  inertia[0] = (v * (s[1] ** 2 + s[2] ** 2)) / 12;
  inertia[4] = (v * (s[0] ** 2 + s[2] ** 2)) / 12;
  inertia[8] = (v * (s[0] ** 2 + s[1] ** 2)) / 12;
  return { volume: v, centerOfMass: c, inertia };
}

/** Union of disjoint parts: masses add, inertias move to the common centre (parallel axis theorem). */
function combine(parts: MassProperties[]): MassProperties {
  const volume = parts.reduce((s, p) => s + p.volume, 0);
  const com = [0, 1, 2].map((k) => parts.reduce((s, p) => s + p.volume * p.centerOfMass[k]!, 0) / volume) as Vec3;
  const inertia = new Float64Array(9);
  for (const p of parts) {
    const d = [0, 1, 2].map((k) => p.centerOfMass[k]! - com[k]!);
    const d2 = d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        inertia[3 * i + j] += p.inertia[3 * i + j]! + p.volume * ((i === j ? d2 : 0) - d[i]! * d[j]!);
      }
    }
  }
  return { volume, centerOfMass: com, inertia };
}

/** Exact volume of an N-step lathe of a closed polygonal (r, y) profile: regular N-gon sections, r linear per segment. */
function latheVolume(r: number[], y: number[], n: number): number {
  let integral = 0;
  for (let i = 0; i < r.length; i++) {
    const j = (i + 1) % r.length;
    integral += ((y[j]! - y[i]!) * (r[i]! ** 2 + r[i]! * r[j]! + r[j]! ** 2)) / 3;
  }
  return (n / 2) * Math.sin((2 * Math.PI) / n) * integral;
}

/** Relative comparison of everything: volume, centre of mass (relative to `size`), inertia (relative to its largest entry). */
function expectClose(got: MassProperties, want: MassProperties, rel: number, size: number): void {
  expect(Math.abs(got.volume - want.volume)).toBeLessThanOrEqual(rel * want.volume);
  for (let k = 0; k < 3; k++) {
    expect(Math.abs(got.centerOfMass[k]! - want.centerOfMass[k]!)).toBeLessThanOrEqual(rel * size);
  }
  const scale = Math.max(...Array.from(want.inertia, Math.abs));
  for (let i = 0; i < 9; i++) {
    const tol = i % 4 === 0 ? rel * Math.abs(want.inertia[i]!) : rel * scale;
    expect(Math.abs(got.inertia[i]! - want.inertia[i]!)).toBeLessThanOrEqual(tol + 1e-15 * scale);
  }
}

const L = { w: 1, h: 0.8, t: 0.3, depth: 0.4 };
/** The L-block prism as two boxes: the bottom leg [0, w] x [0, t] and the upright [0, t] x [t, h], outline centred. */
function lBlockProps(): MassProperties {
  const { w, h, t, depth } = L;
  const ox = w / 2;
  const oy = h / 2;
  return combine([
    boxProps([w, t, depth], [w / 2 - ox, t / 2 - oy, 0]),
    boxProps([t, h - t, depth], [t / 2 - ox, (t + h) / 2 - oy, 0]),
  ]);
}

describe('massFromMesh', () => {
  it('is exact for a box', () => {
    expectClose(massFromMesh(boxMesh([1, 2, 3])), boxProps([1, 2, 3], [0, 0, 0]), 1e-12, 3);
  });

  it('puts a shifted box centre of mass where the box is, with unchanged inertia', () => {
    const shifted = translatedMesh(boxMesh([1, 2, 3]), [-3, 2, -5]); // translatedMesh moves by -offset
    expectClose(massFromMesh(shifted), boxProps([1, 2, 3], [3, -2, 5]), 1e-12, 3);
  });

  it('is exact for the L-block prism, including its off-centre centre of mass and xy product of inertia', () => {
    const got = massFromMesh(extrudeMesh(lBlockPolygon(L.w, L.h, L.t), L.depth));
    const want = lBlockProps();
    expect(Math.abs(want.inertia[1]!)).toBeGreaterThan(1e-3 * want.inertia[0]!); // the test has a real product term
    expectClose(got, want, 1e-12, 1);
  });

  it('gives a UV sphere the exact polyhedron volume and the analytic inertia within its volume deficit', () => {
    const [R, around, rings] = [1, 48, 24];
    const got = massFromMesh(sphereMesh(R, around, rings));
    const r: number[] = [];
    const y: number[] = [];
    for (let k = 0; k <= rings; k++) {
      const a = -Math.PI / 2 + (Math.PI * k) / rings;
      r.push(k === 0 || k === rings ? 0 : R * Math.cos(a));
      y.push(R * Math.sin(a));
    }
    const exactVolume = latheVolume(r, y, around);
    expect(Math.abs(got.volume - exactVolume)).toBeLessThanOrEqual(1e-12 * exactVolume);
    const ball = (4 / 3) * Math.PI * R ** 3;
    const deficit = 1 - exactVolume / ball;
    expect(deficit).toBeGreaterThan(0);
    // Inertia weighs the outer shell (where the mesh is missing) by r^2: at most ~5/3 of the volume deficit.
    expectClose(got, { volume: ball, centerOfMass: [0, 0, 0], inertia: diag((2 / 5) * ball * R * R) }, 2 * deficit, 2 * R);
  });

  it('gives a torus the exact polyhedron volume and the analytic inertia within its volume deficit', () => {
    const [R, a, around, tube] = [1, 0.35, 48, 24];
    const got = massFromMesh(torusMesh(R, a, around, tube));
    const r: number[] = [];
    const y: number[] = [];
    for (let k = 0; k < tube; k++) {
      r.push(R + a * Math.cos((2 * Math.PI * k) / tube));
      y.push(a * Math.sin((2 * Math.PI * k) / tube));
    }
    const exactVolume = latheVolume(r, y, around);
    expect(Math.abs(got.volume - exactVolume)).toBeLessThanOrEqual(1e-12 * exactVolume);
    const v = 2 * Math.PI ** 2 * R * a * a;
    const deficit = 1 - exactVolume / v;
    const side = v * (R * R / 2 + (5 / 8) * a * a);
    const inertia = Float64Array.of(side, 0, 0, 0, v * (R * R + (3 / 4) * a * a), 0, 0, 0, side);
    expectClose(got, { volume: v, centerOfMass: [0, 0, 0], inertia }, 2 * deficit, 2 * (R + a));
  });

  it('refuses an inside-out mesh', () => {
    const m = boxMesh([1, 1, 1]);
    const flipped: TriMesh = { positions: m.positions, indices: Uint32Array.from(m.indices).reverse() };
    expect(() => massFromMesh(flipped)).toThrow(RangeError);
  });
});

function diag(x: number, y = x, z = x): Float64Array {
  return Float64Array.of(x, 0, 0, 0, y, 0, 0, 0, z);
}

describe('massFromSdf (voxel sum, 48 cells)', () => {
  // A box or prism whose extents are whole numbers of cells is tiled exactly by
  // the inside cells (gridLayout centres the grid on the bounds), so the voxel
  // sum, own-inertia term included, must reproduce the closed form to rounding.
  it('is within 1% for a box whose sides are whole numbers of cells, shifted or not', () => {
    const size: Vec3 = [1, 0.75, 0.5]; // 48, 36 and 24 cells of 1/48
    expectClose(massFromSdf(bakeSdfCpu(boxMesh(size), { cells: 48 })), boxProps(size, [0, 0, 0]), 0.01, 1);
    const shifted = translatedMesh(boxMesh(size), [-3, 2, -5]);
    expectClose(massFromSdf(bakeSdfCpu(shifted, { cells: 48 })), boxProps(size, [3, -2, 5]), 0.01, 1);
  });

  it('is within 2% for an L-block whose legs are whole numbers of cells', () => {
    const [w, h, t, depth] = [1, 0.75, 0.25, 0.5];
    const grid = bakeSdfCpu(extrudeMesh(lBlockPolygon(w, h, t), depth), { cells: 48 });
    const want = combine([
      boxProps([w, t, depth], [0, t / 2 - h / 2, 0]), // bottom leg, outline centred on its bounds
      boxProps([t, h - t, depth], [t / 2 - w / 2, t / 2, 0]), // upright
    ]);
    expectClose(massFromSdf(grid), want, 0.02, 1);
  });

  it('is within 2% of the mesh integral for a sphere and a torus', () => {
    for (const m of [sphereMesh(1, 48, 24), torusMesh(1, 0.35, 48, 24)]) {
      expectClose(massFromSdf(bakeSdfCpu(m, { cells: 48 })), massFromMesh(m), 0.02, 2);
    }
  });

  it('is within 2% of the closed forms for a box and an L-block not aligned with the cells', () => {
    // Cells cut by the surface count by the part behind it (1/2 - phi cells),
    // so faces between grid nodes do not gain or lose half a cell each.
    const size: Vec3 = [1, 0.6, 0.8];
    expectClose(massFromSdf(bakeSdfCpu(boxMesh(size), { cells: 48 })), boxProps(size, [0, 0, 0]), 0.02, 2);
    const lb = massFromSdf(bakeSdfCpu(extrudeMesh(lBlockPolygon(L.w, L.h, L.t), L.depth), { cells: 48 }));
    expectClose(lb, lBlockProps(), 0.02, 2);
  });

  it('counts a cell whose centre is half a cell or more inside as d^3 with its own inertia d^2/6 per unit mass, a cut cell by its inside part', () => {
    const d = 0.5;
    const cell = (phi: number) => massFromSdf({ origin: [10, 20, 30] as Vec3, cellSize: d, dims: [2, 2, 2] as Vec3, values: new Float32Array(8).fill(phi) });
    const whole = cell(-d);
    expect(whole.volume).toBe(d ** 3);
    expect(whole.centerOfMass).toEqual([10.25, 20.25, 30.25]);
    expect([...whole.inertia]).toEqual([...diag((d ** 3 * d * d) / 6)]);
    expect(cell(0).volume).toBeCloseTo(0.5 * d ** 3, 15); // the surface through the centre
    expect(cell(-0.25 * d).volume).toBeCloseTo(0.75 * d ** 3, 15);
    expect(() => cell(d)).toThrow(RangeError); // nothing inside
  });
});

describe('principalInertia and invertInertia', () => {
  /** Row-major rotation matrix of a unit quaternion [x, y, z, w]. */
  function rot(q: number[]): number[] {
    const [x, y, z, w] = q as [number, number, number, number];
    return [
      1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ];
  }
  const mul = (a: ArrayLike<number>, b: ArrayLike<number>): number[] =>
    Array.from({ length: 9 }, (_, n) => [0, 1, 2].reduce((s, k) => s + a[3 * Math.floor(n / 3) + k]! * b[3 * k + (n % 3)]!, 0));
  const transpose = (a: ArrayLike<number>): number[] => Array.from({ length: 9 }, (_, n) => a[3 * (n % 3) + Math.floor(n / 3)]!);

  it('recovers the moments and axes of a rotated tensor, as a proper rotation and its quaternion', () => {
    const len = Math.hypot(0.3, -0.5, 0.2, 0.8);
    const q = [0.3 / len, -0.5 / len, 0.2 / len, 0.8 / len];
    const R = rot(q);
    const I = mul(mul(R, diag(3, 1, 2)), transpose(R));
    const p = principalInertia(I);
    expect(p.moments[0]).toBeCloseTo(1, 12);
    expect(p.moments[1]).toBeCloseTo(2, 12);
    expect(p.moments[2]).toBeCloseTo(3, 12);
    // I = A diag(moments) A^T, A orthonormal with det +1, and A is the quaternion's matrix.
    const back = mul(mul(p.axes, diag(...p.moments)), transpose(p.axes));
    for (let i = 0; i < 9; i++) expect(back[i]!).toBeCloseTo(I[i]!, 12);
    const ata = mul(transpose(p.axes), p.axes);
    for (let i = 0; i < 9; i++) expect(ata[i]!).toBeCloseTo(i % 4 === 0 ? 1 : 0, 12);
    const fromQ = rot(p.rotation);
    for (let i = 0; i < 9; i++) expect(fromQ[i]!).toBeCloseTo(p.axes[i]!, 12);
    expect(Math.hypot(...p.rotation)).toBeCloseTo(1, 14);
  });

  it('handles equal moments (a sphere) and the L-block product of inertia', () => {
    const s = principalInertia(diag(2));
    expect(s.moments).toEqual([2, 2, 2]);
    expect(s.rotation).toEqual([0, 0, 0, 1]);
    const I = massFromMesh(extrudeMesh(lBlockPolygon(L.w, L.h, L.t), L.depth)).inertia;
    const p = principalInertia(I);
    const back = mul(mul(p.axes, diag(...p.moments)), transpose(p.axes));
    for (let i = 0; i < 9; i++) expect(back[i]!).toBeCloseTo(I[i]!, 12);
    // The z axis (normal to the outline) is principal by symmetry.
    const zCol = [0, 1, 2].findIndex((c) => Math.abs(Math.abs(p.axes[6 + c]!) - 1) < 1e-12);
    expect(zCol).toBeGreaterThanOrEqual(0);
  });

  it('inverts an inertia tensor and refuses a singular one', () => {
    const I = massFromMesh(extrudeMesh(lBlockPolygon(L.w, L.h, L.t), L.depth)).inertia;
    const inv = invertInertia(I);
    const id = mul(I, inv);
    for (let i = 0; i < 9; i++) expect(id[i]!).toBeCloseTo(i % 4 === 0 ? 1 : 0, 12);
    const out = new Float64Array(9);
    expect(invertInertia(I, out)).toBe(out);
    expect(() => invertInertia(diag(1, 1, 0))).toThrow(RangeError);
    expect(() => invertInertia(diag(0))).toThrow(RangeError);
  });
});
