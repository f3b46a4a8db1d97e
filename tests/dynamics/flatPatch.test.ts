/**
 * The coupled solve of a flat patch with accumulated totals (flatPatch.ts
 * applyFlatAccumulated), as shock propagation uses it: a unit cube (body 1)
 * on a frozen support (body 0), one face patch off the cube's centre.
 */
import { describe, expect, it } from 'vitest';
import { applyFlatAccumulated, FACE_SLIDES } from '../../src/dynamics/flatPatch.ts';
import type { ImpulseResult, ImpulseState } from '../../src/dynamics/impulse.ts';

/** The cube (mass 1, edge 1: I = 1/6) at (0, 0.5, 0) over a frozen body at the origin. */
function cubeOnSupport(v: number[], w: number[]): ImpulseState {
  const invI = new Float64Array(18);
  for (const d of [0, 4, 8]) invI[9 + d] = 6;
  return {
    centre: Float64Array.from([0, 0, 0, 0, 0.5, 0]),
    vel: Float64Array.from([0, 0, 0, ...v]),
    angVel: Float64Array.from([0, 0, 0, ...w]),
    invMass: Float64Array.from([0, 1]),
    invInertiaW: invI,
  };
}

/**
 * The patch's extent (PatchBuilder.spread) for the cube's bottom face seen
 * from p = (px, 0, pz): e1 = z, e2 = x (e1 x e2 = N = y).
 */
function faceExtent(px: number, pz: number): Float64Array {
  const lo1 = -0.5 - pz, hi1 = 0.5 - pz, lo2 = -0.5 - px, hi2 = 0.5 - px;
  const r = Math.SQRT1_2;
  return Float64Array.from([
    lo1, hi1, lo2, hi2, 0, 0, 1, 1, 0, 0,
    r * (lo1 + lo2), r * (hi1 + hi2), r * (lo1 - hi2), r * (hi1 - lo2), 0.5 * Math.hypot(1, 1),
  ]);
}

/** The cube's velocity at world point p relative to the frozen support, and its angular velocity. */
function relative(s: ImpulseState, p: number[]): number[] {
  const v = s.vel, w = s.angVel, c = s.centre;
  const r = [p[0]! - c[3]!, p[1]! - c[4]!, p[2]! - c[5]!];
  return [
    v[3]! + w[4]! * r[2]! - w[5]! * r[1]!,
    v[4]! + w[5]! * r[0]! - w[3]! * r[2]!,
    v[5]! + w[3]! * r[1]! - w[4]! * r[0]!,
    w[3]!, w[4]!, w[5]!,
  ];
}

const P = [0.1, 0, 0.05];
const TOL = 1e-12;

/** What an applied solve reports (ImpulseResult). */
const res: ImpulseResult = { sticking: false, jt: 0, torqueLoad: 0, spin: 0 };

/** A contact site (impulse.ts): point p, normal +y (out of the floor, body 0). */
function site(px: number, py: number, pz: number): Float64Array {
  return Float64Array.of(px, py, pz, 0, 1, 0);
}

describe('applyFlatAccumulated', () => {
  it('brings a sliding, tipping face to rest in one solve, the totals in bounds, and then has nothing to do', () => {
    const s = cubeOnSupport([0.3, -0.5, -0.2], [0.4, 0.1, -0.6]);
    const acc = new Float64Array(7);
    const ext = faceExtent(P[0]!, P[2]!);
    res.sticking = false;
    expect(applyFlatAccumulated(s, 1, 0, site(P[0]!, P[1]!, P[2]!), 0, 0, 0.8, ext, acc, 0, 0, 0, 0, TOL, res)).toBe(1);
    expect(res.sticking).toBe(true);
    for (const x of relative(s, P)) expect(Math.abs(x)).toBeLessThan(1e-12);
    // The totals are the cube's change of momentum (mass 1): normal along y, tangential in x and z.
    expect(acc[0]).toBeCloseTo(s.vel[4]! + 0.5, 12);
    expect(acc[1]).toBeCloseTo(s.vel[3]! - 0.3, 12);
    expect(acc[2]).toBe(0);
    expect(acc[3]).toBeCloseTo(s.vel[5]! + 0.2, 12);
    expect(acc[0]).toBeGreaterThan(0);
    expect(Math.hypot(acc[1]!, acc[2]!, acc[3]!)).toBeLessThanOrEqual(0.8 * acc[0]! + 1e-12);
    const again = Float64Array.from(acc);
    expect(applyFlatAccumulated(s, 1, 0, site(P[0]!, P[1]!, P[2]!), 0, 0, 0.8, ext, acc, 0, 0, 0, 0, TOL, res)).toBe(0);
    expect(Array.from(acc)).toEqual(Array.from(again));
  });

  it('leaves the approach that closes the gap (close) and stops only the rest', () => {
    const s = cubeOnSupport([0, -0.5, 0], [0, 0, 0]);
    const acc = new Float64Array(7);
    const ext = faceExtent(P[0]!, P[2]!);
    expect(applyFlatAccumulated(s, 1, 0, site(P[0]!, P[1]!, P[2]!), 0, 0.2, 0.8, ext, acc, 0, 0, 0, 0, TOL, res)).toBe(1);
    expect(relative(s, P)[1]).toBeCloseTo(-0.2, 12);
    // No rotation left, so the cube's own fall slowed from 0.5 to 0.2 m/s: 0.3 N s.
    expect(acc[0]).toBeCloseTo(0.3, 12);
  });

  it('declines when the friction the stop needs is outside the cone, says the face slides, and changes nothing', () => {
    const s = cubeOnSupport([2, -0.1, 0], [0, 0, 0]);
    const acc = new Float64Array(7);
    const before = Float64Array.from(s.vel);
    expect(applyFlatAccumulated(s, 1, 0, site(P[0]!, P[1]!, P[2]!), 0, 0, 0.3, faceExtent(P[0]!, P[2]!), acc, 0, 0, 0, 0, TOL, res)).toBe(FACE_SLIDES);
    expect(Array.from(s.vel)).toEqual(Array.from(before));
    expect(Array.from(acc)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('declines when holding the tilt would put the normal force off the face', () => {
    // Fast tipping, little weight on the face: the torque needs an offset beyond the face's edge.
    const s = cubeOnSupport([0, -0.01, 0], [0, 0, 20]);
    const acc = new Float64Array(7);
    expect(applyFlatAccumulated(s, 1, 0, site(0, 0, 0), 0, 0, 10, faceExtent(0, 0), acc, 0, 0, 0, 0, TOL, res)).toBe(-1);
  });

  it('lets a face that would have to pull go (normal total 0) and stops its slide with the spare friction', () => {
    const s = cubeOnSupport([0.2, 0.3, 0], [0, 0, 0]);
    const acc = new Float64Array(7);
    // The contact passes left 1 N s of friction, of torque load and of spin friction to spare.
    expect(applyFlatAccumulated(s, 1, 0, site(0, 0, 0), 0, 0, 0.5, faceExtent(0, 0), acc, 0, 1, 1, 1, TOL, res)).toBe(1);
    expect(acc[0]).toBe(0);
    const u = relative(s, [0, 0, 0]);
    expect(Math.abs(u[0]!)).toBeLessThan(1e-12);
    expect(u[1]).toBeGreaterThan(0.29);
    for (const x of u.slice(3)) expect(Math.abs(x)).toBeLessThan(1e-12);
    expect(Math.hypot(acc[1]!, acc[2]!, acc[3]!)).toBeLessThanOrEqual(1 + 1e-12);
  });

  it('without spare friction, a separating face that slides is left to the rows one by one, as sliding', () => {
    const s = cubeOnSupport([0.2, 0.3, 0], [0, 0, 0]);
    const acc = new Float64Array(7);
    expect(applyFlatAccumulated(s, 1, 0, site(0, 0, 0), 0, 0, 0.5, faceExtent(0, 0), acc, 0, 0, 0, 0, TOL, res)).toBe(FACE_SLIDES);
  });
});
