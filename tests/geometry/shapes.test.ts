import { describe, expect, it } from 'vitest';
import { meshBounds, signedVolume, type TriMesh, type Vec3 } from '../../src/geometry/mesh.ts';
import {
  boneProfile, boxMesh, capsuleMesh, cupProfile, cylinderMesh, dominoPolygon, extrudeMesh,
  lBlockPolygon, MAX_PROCEDURAL_TRIANGLES, planeQuadMesh, revolveMesh, sphereMesh, starPolygon, torusMesh,
} from '../../src/geometry/shapes.ts';
import { validateMesh } from '../../src/geometry/validate.ts';

/** A procedural mesh must pass validation untouched: same object, no warnings. */
function expectClean(m: TriMesh): void {
  const r = validateMesh(m, 'shape');
  expect(r.warnings).toEqual([]);
  expect(r.mesh).toBe(m);
}

/**
 * Exact volume of an N-step lathe of a polygonal (r, y) profile: the
 * cross-section at height y is a regular N-gon of circumradius r(y), area
 * (N/2) sin(2 pi/N) r^2, and r is linear on each profile segment, so
 * integral r^2 dy = (y1 - y0)(r0^2 + r0 r1 + r1^2)/3. `loop` closes the profile.
 */
function latheVolume(profile: [number, number][], n: number, loop = false): number {
  let integral = 0;
  const m = profile.length;
  for (let i = 0; i < (loop ? m : m - 1); i++) {
    const [r0, y0] = profile[i]!;
    const [r1, y1] = profile[(i + 1) % m]!;
    integral += ((y1 - y0) * (r0 * r0 + r0 * r1 + r1 * r1)) / 3;
  }
  return (n / 2) * Math.sin((2 * Math.PI) / n) * integral;
}

/** Area of a regular n-gon over the area of its circumscribed circle. */
const ngonRatio = (n: number): number => Math.sin((2 * Math.PI) / n) / ((2 * Math.PI) / n);

/**
 * Smallest distance from the segment (0, -c, 0)-(0, c, 0) to the planes of the
 * mesh's triangles. A convex mesh containing the segment contains every point
 * within that distance of it (each face's half-space does), so the mesh volume
 * is at least that of the capsule (or ball, c = 0) of that radius.
 */
function inradiusAboutAxisSegment(m: TriMesh, c: number): number {
  const p = m.positions, idx = m.indices;
  let d = Infinity;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]! * 3, b = idx[t + 1]! * 3, e = idx[t + 2]! * 3;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[e]! - p[a]!, vy = p[e + 1]! - p[a + 1]!, vz = p[e + 2]! - p[a + 2]!;
    let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const l = Math.hypot(nx, ny, nz);
    nx /= l; ny /= l; nz /= l;
    const off = nx * p[a]! + ny * p[a + 1]! + nz * p[a + 2]!;
    d = Math.min(d, off - ny * c, off + ny * c);
  }
  return d;
}

const capsuleVolume = (r: number, c: number): number => Math.PI * r * r * 2 * c + (4 / 3) * Math.PI * r ** 3;

function expectCentred(m: TriMesh, axes = [0, 1, 2]): void {
  const b = meshBounds(m);
  for (const k of axes) expect(Math.abs(b.min[k]! + b.max[k]!)).toBeLessThan(1e-12);
}

describe('boxMesh', () => {
  it.each([[[1, 1, 1]], [[1, 2, 3]], [[0.05, 4, 0.3]]] as [Vec3][])('box %j is clean, 8 vertices, 12 triangles, exact volume, centred', (size) => {
    const m = boxMesh(size);
    expect(m.positions.length / 3).toBe(8);
    expect(m.indices.length / 3).toBe(12);
    expectClean(m);
    expect(signedVolume(m)).toBeCloseTo(size[0] * size[1] * size[2], 12);
    const b = meshBounds(m);
    expect(b.max).toEqual(size.map((s) => s / 2));
    expect(b.min).toEqual(size.map((s) => -s / 2));
  });
});

describe('sphereMesh', () => {
  it.each([[1, 16, 12], [0.3, 5, 3], [2, 3, 2], [1, 64, 48]])(
    'sphere r=%d around=%d rings=%d is clean with the exact polygonal volume, inside the ball and containing its inscribed ball',
    (r, around, rings) => {
      const m = sphereMesh(r, around, rings);
      expectClean(m);
      expect(m.positions.length / 3).toBe(2 + around * (rings - 1));
      expect(m.indices.length / 3).toBe(2 * around * (rings - 1));
      const profile: [number, number][] = [];
      for (let k = 0; k <= rings; k++) {
        const a = -Math.PI / 2 + (Math.PI * k) / rings;
        profile.push([k === 0 || k === rings ? 0 : r * Math.cos(a), r * Math.sin(a)]);
      }
      const v = signedVolume(m);
      expect(v).toBeGreaterThan(0);
      expect(Math.abs(v / latheVolume(profile, around) - 1)).toBeLessThan(1e-12);
      const ball = (4 / 3) * Math.PI * r ** 3;
      const d = inradiusAboutAxisSegment(m, 0);
      expect(v).toBeLessThanOrEqual(ball);
      expect(v).toBeGreaterThanOrEqual((4 / 3) * Math.PI * d ** 3);
      expectCentred(m, [1]);
    },
  );

  it('the default 16 x 12 sphere is within 5% of the ball volume', () => {
    expect(signedVolume(sphereMesh(1)) / ((4 / 3) * Math.PI)).toBeGreaterThan(0.95);
  });
});

describe('cylinderMesh', () => {
  it.each([[1, 2, 16, 1], [0.1, 2, 14, 2], [0.5, 0.2, 3, 1], [2, 1, 40, 3]])(
    'cylinder r=%d h=%d segments=%d bands=%d is clean and its volume is the n-gon prism volume',
    (r, h, n, bands) => {
      const m = cylinderMesh(r, h, n, bands);
      expectClean(m);
      expect(m.indices.length / 3).toBe(2 * n + 2 * n * bands);
      const v = signedVolume(m);
      expect(Math.abs(v / ((n / 2) * Math.sin((2 * Math.PI) / n) * r * r * h) - 1)).toBeLessThan(1e-12);
      expect(Math.abs(v / (Math.PI * r * r * h) - ngonRatio(n))).toBeLessThan(1e-12);
      expectCentred(m, [1]);
    },
  );

  it('splits its side quads along both diagonals equally (an achiral mesh: all along one, a rolling cylinder veers)', () => {
    // Each side diagonal joins two vertices at different heights and angles;
    // the sign of (turn x rise) tells which way it leans.
    for (const [n, bands] of [[48, 1], [16, 2], [21, 4]] as const) {
      const m = cylinderMesh(0.1, 0.2, n, bands);
      const P = m.positions, I = m.indices;
      const lean = [0, 0];
      const seen = new Set<string>();
      for (let t = 0; t < I.length; t += 3) {
        for (let e = 0; e < 3; e++) {
          const u = I[t + e]!, v = I[t + ((e + 1) % 3)]!;
          const key = u < v ? `${u},${v}` : `${v},${u}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const rise = P[3 * v + 1]! - P[3 * u + 1]!;
          const turn = Math.atan2(P[3 * u]! * P[3 * v + 2]! - P[3 * u + 2]! * P[3 * v]!, P[3 * u]! * P[3 * v]! + P[3 * u + 2]! * P[3 * v + 2]!);
          const ru = Math.hypot(P[3 * u]!, P[3 * u + 2]!), rv = Math.hypot(P[3 * v]!, P[3 * v + 2]!);
          if (Math.abs(rise) < 1e-12 || Math.abs(turn) < 1e-9 || ru < 1e-9 || rv < 1e-9) continue;
          lean[turn * rise > 0 ? 0 : 1]!++;
        }
      }
      expect(lean[0]! + lean[1]!).toBe(n * bands);
      expect(Math.abs(lean[0]! - lean[1]!)).toBeLessThanOrEqual(bands);
    }
  });

  it('14 segments with 2 bands gives the seed peg of 84 triangles; the default has 16 segments and 1 band', () => {
    expect(cylinderMesh(0.1, 2, 14, 2).indices.length / 3).toBe(84);
    expect(cylinderMesh(1, 1).indices.length / 3).toBe(64);
  });
});

describe('capsuleMesh', () => {
  it.each([[0.5, 2, 16, 8], [0.5, 1, 12, 4], [0.2, 3, 8, 1], [1, 2.5, 5, 2]])(
    'capsule r=%d h=%d around=%d rings=%d is clean, centred, and its volume lies between the inscribed and true capsule',
    (r, h, around, rings) => {
      const m = capsuleMesh(r, h, around, rings);
      expectClean(m);
      expectCentred(m, [1]);
      const b = meshBounds(m);
      expect(b.max[1]).toBeCloseTo(h / 2, 14);
      const straight = h > 2 * r;
      expect(m.indices.length / 3).toBe(straight ? 4 * rings * around : (4 * rings - 2) * around);
      const c = h / 2 - r;
      const v = signedVolume(m);
      expect(v).toBeLessThanOrEqual(capsuleVolume(r, c));
      expect(v).toBeGreaterThanOrEqual(capsuleVolume(inradiusAboutAxisSegment(m, c), c));
    },
  );

  it('the default capsule is within 5% of the analytic capsule volume', () => {
    expect(signedVolume(capsuleMesh(0.5, 2)) / capsuleVolume(0.5, 0.5)).toBeGreaterThan(0.95);
  });
});

describe('torusMesh', () => {
  it('the [12, 9] ring has the seed\'s 216 triangles', () => {
    const m = torusMesh(0.5, 0.12, 12, 9);
    expect(m.indices.length / 3).toBe(216);
    expect(m.positions.length / 3).toBe(108);
  });

  it.each([[0.5, 0.12, 12, 9], [1, 0.3, 24, 9], [2, 1.9, 3, 3], [1, 0.5, 40, 20]])(
    'torus R=%d r=%d around=%d tube=%d is clean and its volume is Pappus on the polygons',
    (big, small, around, tube) => {
      const m = torusMesh(big, small, around, tube);
      expectClean(m);
      expect(m.indices.length / 3).toBe(2 * around * tube);
      // Tube n-gon area A = (tube/2) r^2 sin(2pi/tube) with centroid at R; the
      // lathe replaces 2 pi by around * sin(2 pi / around).
      const exact = around * Math.sin((2 * Math.PI) / around) * big * (tube / 2) * small * small * Math.sin((2 * Math.PI) / tube);
      const v = signedVolume(m);
      expect(Math.abs(v / exact - 1)).toBeLessThan(1e-12);
      const analytic = 2 * Math.PI * Math.PI * big * small * small;
      expect(Math.abs(v / analytic - ngonRatio(around) * ngonRatio(tube))).toBeLessThan(1e-12);
      expectCentred(m, [1]);
    },
  );
});

describe('revolveMesh', () => {
  it.each([[2, 0.3, 24], [1, 0.25, 7], [3, 0.5, 40]])('bone length=%d radius=%d segments=%d is clean with the exact lathe volume', (len, rad, n) => {
    const profile = boneProfile(len, rad);
    const m = revolveMesh(profile, n);
    expectClean(m);
    expectCentred(m, [1]);
    expect(meshBounds(m).max[1]).toBeCloseTo(len / 2, 14);
    const v = signedVolume(m);
    expect(Math.abs(v / latheVolume(profile, n) - 1)).toBeLessThan(1e-12);
    // Between the knob centres the radius never drops below the shaft's, and
    // nothing sticks out of the knobs' bounding cylinder.
    expect(v).toBeGreaterThan(ngonRatio(n) * Math.PI * (0.45 * rad) ** 2 * (len - 2 * rad));
    expect(v).toBeLessThan(Math.PI * rad * rad * len);
  });

  it.each([[1, 2, 0.1, 24], [0.5, 0.4, 0.2, 6], [1, 1, 0.9, 3]])(
    'cup radius=%d height=%d wall=%d segments=%d is clean and its volume is the n-gon version of outer minus cavity',
    (rad, h, wall, n) => {
      const m = revolveMesh(cupProfile(rad, h, wall), n);
      expectClean(m);
      expectCentred(m, [1]);
      const solid = Math.PI * (rad * rad * h - (rad - wall) ** 2 * (h - wall));
      expect(Math.abs(signedVolume(m) / (ngonRatio(n) * solid) - 1)).toBeLessThan(1e-12);
    },
  );

  it('a profile listed top to bottom is reversed and still gives an outward mesh', () => {
    const profile = cupProfile(1, 2, 0.1);
    const m = revolveMesh(profile.slice().reverse(), 12);
    expectClean(m);
    expect(signedVolume(m)).toBeCloseTo(signedVolume(revolveMesh(profile, 12)), 12);
  });

  it('a three-point profile gives a double cone with 2 * segments triangles', () => {
    const m = revolveMesh([[0, -1], [1, 0], [0, 1]], 5);
    expectClean(m);
    expect(m.indices.length / 3).toBe(10);
    expect(Math.abs(signedVolume(m) / (((5 / 2) * Math.sin((2 * Math.PI) / 5) * 2) / 3) - 1)).toBeLessThan(1e-12);
  });

  it.each([
    ['an end off the axis', [[0.1, -1], [1, 0], [0, 1]], /start and end on the axis/],
    ['an interior point on the axis', [[0, -1], [1, -0.5], [0, 0], [1, 0.5], [0, 1]], /point 2 has radius 0/],
    ['a negative radius', [[0, -1], [-1, 0], [0, 1]], /point 1 has radius -1/],
    ['a self-crossing outline', [[0, -1], [1, -1], [0.2, 0.5], [0.2, -0.5], [1, 1], [0, 1]], /crosses itself/],
    ['coinciding neighbours', [[0, -1], [1, 0], [1, 0], [0, 1]], /coincide/],
    ['ends at the same axis point', [[0, 0], [1, 1], [1, -1], [0, 0]], /same axis point/],
    ['a non-finite point', [[0, -1], [NaN, 0], [0, 1]], /not finite/],
    ['too few points', [[0, -1], [0, 1]], /at least 3/],
  ] as [string, [number, number][], RegExp][])('refuses a profile with %s', (_what, profile, msg) => {
    expect(() => revolveMesh(profile)).toThrow(RangeError);
    expect(() => revolveMesh(profile)).toThrow(msg);
  });
});

describe('extrudeMesh', () => {
  /** Every cap triangle must face its cap's direction: that is what rules out overlapping ears. */
  function expectCapsFaceOut(m: TriMesh, depth: number): void {
    const p = m.positions, idx = m.indices;
    let caps = 0;
    for (let t = 0; t < idx.length; t += 3) {
      const a = idx[t]! * 3, b = idx[t + 1]! * 3, c = idx[t + 2]! * 3;
      const z = p[a + 2]!;
      if (z !== p[b + 2]! || z !== p[c + 2]!) continue; // side wall
      const nz = (p[b]! - p[a]!) * (p[c + 1]! - p[a + 1]!) - (p[b + 1]! - p[a + 1]!) * (p[c]! - p[a]!);
      expect(Math.sign(nz)).toBe(Math.sign(z));
      expect(Math.abs(z)).toBe(depth / 2);
      caps++;
    }
    expect(caps).toBe(2 * (m.positions.length / 6 - 2));
  }

  it.each([[2, 3, 0.5, 1], [1, 1, 0.1, 0.3], [4, 1, 0.9, 2]])('L-block w=%d h=%d t=%d depth=%d has volume area * depth exactly', (w, h, t, depth) => {
    const m = extrudeMesh(lBlockPolygon(w, h, t), depth);
    expectClean(m);
    expectCentred(m);
    expectCapsFaceOut(m, depth);
    expect(m.indices.length / 3).toBe(4 * 6 - 4);
    expect(signedVolume(m)).toBeCloseTo((w * t + (h - t) * t) * depth, 12);
  });

  it.each([[5, 1, 0.4, 0.3], [3, 2, 0.5, 1], [12, 1, 0.8, 0.2]])('star points=%d outer=%d inner=%d depth=%d has volume area * depth exactly', (n, outer, inner, depth) => {
    const m = extrudeMesh(starPolygon(n, outer, inner), depth);
    expectClean(m);
    expectCapsFaceOut(m, depth);
    expect(m.indices.length / 3).toBe(4 * 2 * n - 4);
    const area = n * outer * inner * Math.sin(Math.PI / n);
    expect(signedVolume(m)).toBeCloseTo(area * depth, 12);
  });

  it('a domino is a box', () => {
    const m = extrudeMesh(dominoPolygon(0.5, 1), 0.1);
    expectClean(m);
    expectCentred(m);
    expect(m.positions.length / 3).toBe(8);
    expect(signedVolume(m)).toBeCloseTo(0.05, 14);
  });

  it('accepts a clockwise outline with a repeated closing point and collinear points, giving the same solid', () => {
    const l = lBlockPolygon(2, 3, 0.5);
    const messy: [number, number][] = [l[0]!, [0, -1.5], l[1]!, l[2]!, l[3]!, l[4]!, l[5]!, [-1, 0.5], l[0]!].reverse() as [number, number][];
    const m = extrudeMesh(messy, 1);
    expectClean(m);
    expectCapsFaceOut(m, 1);
    expect(m.positions.length / 3).toBe(12); // the collinear points are gone
    expect(signedVolume(m)).toBeCloseTo(2.25, 12);
  });

  it.each([
    ['a bow-tie', [[0, 0], [1, 1], [1, 0], [0, 1]], /crosses or touches/],
    ['two points', [[0, 0], [1, 0]], /at least 3 points/],
    ['all points on a line', [[0, 0], [1, 0], [2, 0]], /turns back/],
    ['a spike that turns back', [[0, 0], [2, 0], [1, 0], [1, 1]], /turns back/],
    ['a NaN', [[0, 0], [1, NaN], [0, 1]], /not finite/],
  ] as [string, [number, number][], RegExp][])('refuses %s', (_what, poly, msg) => {
    expect(() => extrudeMesh(poly, 1)).toThrow(RangeError);
    expect(() => extrudeMesh(poly, 1)).toThrow(msg);
  });
});

describe('planeQuadMesh', () => {
  it.each([[[0, 1, 0]], [[1, 2, 3]], [[-1, 0, 0]]] as [Vec3][])('a quad facing %j: two triangles in the plane, facing the normal', (normal) => {
    const h = 50;
    const m = planeQuadMesh(normal, h);
    expect(m.indices.length).toBe(6);
    const l = Math.hypot(...normal);
    const n = normal.map((x) => x / l);
    const p = m.positions;
    for (let v = 0; v < 4; v++) {
      expect(Math.abs(p[v * 3]! * n[0]! + p[v * 3 + 1]! * n[1]! + p[v * 3 + 2]! * n[2]!)).toBeLessThan(1e-12);
      expect(Math.hypot(p[v * 3]!, p[v * 3 + 1]!, p[v * 3 + 2]!)).toBeCloseTo(h * Math.SQRT2, 10);
    }
    for (let t = 0; t < 6; t += 3) {
      const [a, b, c] = [m.indices[t]! * 3, m.indices[t + 1]! * 3, m.indices[t + 2]! * 3];
      const u = [p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!];
      const w = [p[c]! - p[a]!, p[c + 1]! - p[a + 1]!, p[c + 2]! - p[a + 2]!];
      const cr = [u[1]! * w[2]! - u[2]! * w[1]!, u[2]! * w[0]! - u[0]! * w[2]!, u[0]! * w[1]! - u[1]! * w[0]!];
      // twice the triangle area (2h)^2 / 2, along +n
      expect(cr[0]! * n[0]! + cr[1]! * n[1]! + cr[2]! * n[2]!).toBeCloseTo(4 * h * h, 8);
    }
  });
});

describe('invalid parameters throw RangeError', () => {
  it.each([
    ['box with a zero side', () => boxMesh([1, 0, 1])],
    ['box with NaN', () => boxMesh([1, NaN, 1])],
    ['sphere with negative radius', () => sphereMesh(-1)],
    ['sphere with 2 segments around', () => sphereMesh(1, 2)],
    ['sphere with 1 ring', () => sphereMesh(1, 8, 1)],
    ['sphere with fractional segments', () => sphereMesh(1, 8.5)],
    ['cylinder with 2 segments', () => cylinderMesh(1, 1, 2)],
    ['cylinder with infinite height', () => cylinderMesh(1, Infinity)],
    ['capsule shorter than its caps', () => capsuleMesh(1, 1.5)],
    ['capsule with 0 rings', () => capsuleMesh(1, 3, 8, 0)],
    ['torus tube as fat as the ring', () => torusMesh(1, 1)],
    ['torus with 2 tube segments', () => torusMesh(1, 0.2, 8, 2)],
    ['bone too short for its knobs', () => boneProfile(1, 0.3)],
    ['cup wall as thick as the radius', () => cupProfile(1, 2, 1)],
    ['cup wall as thick as the height', () => cupProfile(1, 0.1, 0.1)],
    ['revolve with 2 segments', () => revolveMesh([[0, -1], [1, 0], [0, 1]], 2)],
    ['extrude with zero depth', () => extrudeMesh(dominoPolygon(1, 1), 0)],
    ['L-block leg as wide as the block', () => lBlockPolygon(1, 2, 1)],
    ['star with 2 points', () => starPolygon(2, 1, 0.5)],
    ['star with inner >= outer', () => starPolygon(5, 1, 1)],
    ['domino with NaN', () => dominoPolygon(NaN, 1)],
    ['plane with zero normal', () => planeQuadMesh([0, 0, 0], 1)],
    ['plane with zero size', () => planeQuadMesh([0, 1, 0], 0)],
  ] as [string, () => unknown][])('%s', (_what, fn) => {
    expect(fn).toThrow(RangeError);
  });
});

describe('procedural shapes too fine to build', () => {
  it('are refused at once, before anything is allocated, naming the triangle count', () => {
    const t = performance.now();
    expect(() => sphereMesh(1, 20000, 20000)).toThrow('the sphere would have about 8.00e8 triangles, more than the 2e7 a procedural shape may have; use fewer segments');
    expect(() => cylinderMesh(1, 1, 3, 1e9)).toThrow('the cylinder would have about 6.00e9 triangles');
    expect(() => torusMesh(1, 0.2, 1e8, 1e8)).toThrow('the torus would have about 2.00e16 triangles');
    expect(() => capsuleMesh(1, 3, 1e5, 1e5)).toThrow('the capsule would have about 4.00e10 triangles');
    expect(() => revolveMesh([[0, 0], [1, 0], [1, 1], [0, 1]], 1e7)).toThrow('the revolved shape would have about 8.00e7 triangles');
    expect(performance.now() - t).toBeLessThan(1000);
    // The finest a scene may ask for (1024 x 1024 segments) is well within.
    expect(sphereMesh(1, 1024, 1024).indices.length / 3).toBeLessThanOrEqual(MAX_PROCEDURAL_TRIANGLES);
  });
});
