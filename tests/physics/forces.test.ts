/**
 * External forces (src/dynamics/forces.ts, docs/forces.md) against their
 * analytic answers: a constant force's parabola, linear drag's exponential
 * approach and terminal velocity, quadratic drag's terminal velocity, an
 * impulse at a point, a force's time window, and momentum bookkeeping.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, bodyIndex, pos, run, vel, worldFrom } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';
import { quatToMat3 } from '../../src/dynamics/math.ts';

const BOX = { type: 'box', size: [1, 0.4, 0.2], sdf: { cells: 8 } };
const BALL = { type: 'sphere', radius: 0.2, sdf: { cells: 8 } };

function angVel(w: World, name: string): [number, number, number] {
  const i = bodyIndex(w, name), a = w.bodies.angVel;
  return [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
}

/** Total linear momentum and angular momentum about the origin of the dynamic bodies. */
function momenta(w: World): { p: number[]; L: number[] } {
  const B = w.bodies, p = [0, 0, 0], L = [0, 0, 0], R = new Float64Array(9);
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    const m = B.mass[i]!;
    const x = [B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!];
    const mv = [m * B.vel[3 * i]!, m * B.vel[3 * i + 1]!, m * B.vel[3 * i + 2]!];
    for (let k = 0; k < 3; k++) p[k] += mv[k]!;
    const c = cross(x, mv);
    // Spin: R I0 R^T w.
    quatToMat3(B.quat, 4 * i, R);
    const I0 = w.inertiaOf(i), wv = [B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!];
    const wb = [0, 1, 2].map((r) => R[r]! * wv[0]! + R[3 + r]! * wv[1]! + R[6 + r]! * wv[2]!);
    const lb = [0, 1, 2].map((r) => I0[3 * r]! * wb[0]! + I0[3 * r + 1]! * wb[1]! + I0[3 * r + 2]! * wb[2]!);
    const lw = [0, 1, 2].map((r) => R[3 * r]! * lb[0]! + R[3 * r + 1]! * lb[1]! + R[3 * r + 2]! * lb[2]!);
    for (let k = 0; k < 3; k++) L[k] += c[k]! + lw[k]!;
  }
  return { p, L };
}

function cross(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

describe('a constant force', () => {
  it('moves a body by F t^2 / (2 m) exactly, as free fall does (force at the centre, and a field)', async () => {
    const g = -9.81, dt = 0.01, m = 2, F = 3, n = 100;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, g, 0],
      shapes: { box: BOX },
      bodies: [
        { name: 'a', shape: 'box', position: [1, 10, 0], mass: m },
        { name: 'b', shape: 'box', position: [5, 10, 0], mass: m, velocity: [0, 0, 1] },
      ],
      forces: [
        { type: 'force', body: 'a', force: [F, 0, 0] },
        { type: 'field', force: [0, 0, -F], bodies: ['b'] },
      ],
    });
    await run(w, n);
    const t = n * dt;
    const [xa, ya] = pos(w, 'a');
    expect(xa).toBeCloseTo(1 + (F * t * t) / (2 * m), 11);
    expect(ya).toBeCloseTo(10 + 0.5 * g * t * t, 9);
    expect(vel(w, 'a')[0]).toBeCloseTo((F / m) * t, 12);
    const zb = pos(w, 'b')[2];
    expect(zb).toBeCloseTo(t - (F * t * t) / (2 * m), 11);
    // No torque at the centre.
    expect(angVel(w, 'a')).toEqual([0, 0, 0]);
  });

  it('acts the same under the sequential, PGS and accumulated contact solvers: a pushed block slides at F/m - mu g', async () => {
    const m = 1, mu = 0.2, F = 5, dt = 0.005, n = 200;
    const a = F / m - mu * 9.81;
    for (const solver of ['sequential', 'pgs', 'accumulated'] as const) {
      const w = await worldFrom({
        format: FORMAT, dt,
        shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
        bodies: [
          { name: 'floor', shape: 'floor', static: true, friction: mu, restitution: 0 },
          { name: 'box', shape: 'box', position: [0, 0.2, 0], mass: m, friction: mu, restitution: 0 },
        ],
        forces: [{ type: 'force', body: 'box', force: [F, 0, 0] }],
      });
      w.solver.contactSolver = solver;
      await run(w, n);
      const t = n * dt;
      const x = pos(w, 'box')[0];
      // v = a t to rounding (sequential, PGS) or 1e-6 (accumulated's substeps);
      // x within dt / t (0.5 %): a body in contact advances by dt v', not
      // along the parabola.
      expect(Math.abs(vel(w, 'box')[0] / (a * t) - 1), solver).toBeLessThan(1e-5);
      expect(Math.abs(x / (0.5 * a * t * t) - 1), solver).toBeLessThan(0.0055);
      // Still on the floor.
      expect(Math.abs(pos(w, 'box')[1] - 0.2), solver).toBeLessThan(0.005);
    }
  });
});

describe('a constant force in the other settings', () => {
  it('the standard scheme advances by semi-implicit Euler: x_n = F dt^2 n (n + 1) / (2 m)', async () => {
    const dt = 0.01, m = 2, F = 3, n = 50;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, 0, 0], solver: { scheme: 'standard' },
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: m }],
      forces: [{ type: 'field', force: [F, 0, 0] }],
    });
    await run(w, n);
    expect(pos(w, 'b')[0]).toBeCloseTo((F * dt * dt * n * (n + 1)) / (2 * m), 12);
    expect(vel(w, 'b')[0]).toBeCloseTo((F * n * dt) / m, 12);
  });

  it('a couple turns a box on a frictionless floor at tau t / I under every contact solver', async () => {
    const dt = 0.01, m = 3, n = 100;
    for (const solver of ['sequential', 'pgs', 'accumulated'] as const) {
      const w = await worldFrom({
        format: FORMAT, dt,
        shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [1, 0.4, 0.6], sdf: { cells: 16 } } },
        bodies: [
          { name: 'floor', shape: 'floor', static: true, friction: 0, restitution: 0 },
          { name: 'box', shape: 'box', position: [0, 0.2, 0], mass: m, friction: 0, restitution: 0 },
        ],
        // r x F = (0.5, 0, 0) x (0, 0, 1) = (0, -0.5, 0), twice: a couple of 1 N m about -y, turning with the box.
        forces: [
          { type: 'force', body: 'box', force: [0, 0, 1], point: [0.5, 0, 0], frame: 'body' },
          { type: 'force', body: 'box', force: [0, 0, -1], point: [-0.5, 0, 0], frame: 'body' },
        ],
      });
      w.solver.contactSolver = solver;
      await run(w, n);
      const Iyy = (m * (1 + 0.36)) / 12;
      const wy = angVel(w, 'box')[1];
      expect(Math.abs(wy / (-(n * dt) / Iyy) - 1), solver).toBeLessThan(1e-6);
      expect(Math.hypot(...vel(w, 'box')), solver).toBeLessThan(1e-6);
    }
  });
});

describe('linear drag', () => {
  it('approaches the terminal velocity m g / k exponentially, exactly at every step', async () => {
    const g = 9.81, m = 1.5, k = 2, dt = 0.01;
    const w = await worldFrom({
      format: FORMAT, dt,
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', position: [0, 100, 0], mass: m, drag: { linear: k } }],
    });
    const vt = (m * g) / k;
    let worst = 0;
    let steps = 0;
    await run(w, 300, (ww) => {
      steps++;
      const t = steps * dt;
      const exact = -vt * (1 - Math.exp((-k * t) / m));
      worst = Math.max(worst, Math.abs(vel(ww, 'b')[1] - exact));
    });
    expect(worst).toBeLessThan(1e-12 * vt * 300);
    // The position: the trapezoid of the exact velocities, O(dt^2) off y(t).
    const t = steps * dt;
    const y = 100 - vt * (t - (m / k) * (1 - Math.exp((-k * t) / m)));
    expect(Math.abs(pos(w, 'b')[1] - y)).toBeLessThan(1e-4);
    await run(w, 2000);
    expect(vel(w, 'b')[1]).toBeCloseTo(-vt, 10);
  });

  it('drags a body toward the wind\'s air velocity (with linear drag, v -> u + m g / k)', async () => {
    const m = 1, k = 4, u = [5, 0, -2];
    const w = await worldFrom({
      format: FORMAT, dt: 0.01,
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', position: [0, 100, 0], mass: m, drag: { linear: k } }],
      forces: [{ type: 'wind', velocity: u }],
    });
    await run(w, 50);
    const t = 0.5;
    expect(vel(w, 'b')[0]).toBeCloseTo(u[0]! * (1 - Math.exp((-k * t) / m)), 12);
    expect(vel(w, 'b')[2]).toBeCloseTo(u[2]! * (1 - Math.exp((-k * t) / m)), 12);
    await run(w, 1000);
    const v = vel(w, 'b');
    expect(v[0]).toBeCloseTo(u[0]!, 10);
    expect(v[1]).toBeCloseTo((-m * 9.81) / k, 10);
    expect(v[2]).toBeCloseTo(u[2]!, 10);
  });

  it('follows a gusting wind: u(t) = u0 + A sin(2 pi t / T + phase)', async () => {
    // Strong drag (c = 200 / s) keeps the body within ~A w / c of the air.
    const m = 1, k = 200, A = 1.5, T = 2;
    const w = await worldFrom({
      format: FORMAT, dt: 0.001, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: m, drag: { linear: k } }],
      forces: [{ type: 'wind', velocity: [3, 0, 0], gust: { amplitude: [A, 0, 0], period: T, phase: 90 } }],
    });
    await run(w, 1500);
    const t = 1.5;
    // Steady state of dv/dt = c (u - v) with u = 3 + A cos(w t): lag atan(w / c), gain c / |c + i w|.
    const om = (2 * Math.PI) / T, c = k / m;
    const expected = 3 + (A * c * Math.cos(om * t - Math.atan(om / c))) / Math.hypot(c, om);
    expect(vel(w, 'b')[0]).toBeCloseTo(expected, 3);
  });

  it('a gust whose period is the smallest number (t / T overflows) stays finite, at its phase', async () => {
    // Phase 90 degrees: the gust reads A every step, so the body gains A t / m.
    const A = 2;
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: 1 }],
      forces: [{ type: 'field', force: [0, 0, 0], gust: { amplitude: [A, 0, 0], period: 5e-324, phase: 90 } }],
    });
    await run(w, 10);
    expect(vel(w, 'b')[0]).toBeCloseTo(A * 0.1, 12);
  });
});

describe('quadratic drag', () => {
  it('reaches the terminal velocity sqrt(2 m g / (rho Cd A)) within 0.5 %, along v_t tanh(g t / v_t)', async () => {
    const m = 1, g = 9.81, rho = 1.225, cd = 0.47, area = 0.05, dt = 0.01;
    const w = await worldFrom({
      format: FORMAT, dt, fluid: { density: rho },
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', position: [0, 1000, 0], mass: m, drag: { cd, area } }],
    });
    const vt = Math.sqrt((2 * m * g) / (rho * cd * area));
    await run(w, 200);
    expect(Math.abs(-vel(w, 'b')[1] / (vt * Math.tanh((g * 2) / vt)) - 1)).toBeLessThan(0.005);
    await run(w, 1800);
    expect(Math.abs(-vel(w, 'b')[1] / vt - 1)).toBeLessThan(0.005);
    // The balance of forces is the step's fixed point: closer still.
    expect(Math.abs(-vel(w, 'b')[1] / vt - 1)).toBeLessThan(1e-6);
  });
});

describe('an impulse at a point', () => {
  it('changes v by J / m and omega by I^-1 (r x J) exactly (world.applyImpulse)', async () => {
    const m = 3;
    const w = await worldFrom({
      format: FORMAT, gravity: [0, 0, 0],
      shapes: { box: { ...BOX, size: [1, 0.4, 0.2] } },
      bodies: [{ name: 'b', shape: 'box', position: [1, 2, 3], mass: m, rotation: { axis: [1, 2, 3], degrees: 40 }, velocity: [0.1, 0, 0], angularVelocity: [0, 0.2, 0] }],
    });
    const J: [number, number, number] = [0.3, -1.2, 2.5];
    const point: [number, number, number] = [1.4, 2.1, 2.9];
    const v0 = vel(w, 'b'), w0 = angVel(w, 'b');
    const before = momenta(w);
    w.applyImpulse('b', J, point);
    const v1 = vel(w, 'b'), w1 = angVel(w, 'b');
    for (let k = 0; k < 3; k++) expect(v1[k]! - v0[k]!).toBeCloseTo(J[k]! / m, 14);
    // I_w = R diag(m (b^2 + c^2) / 12, ...) R^T, independently of the engine.
    const [a, b, c] = [1, 0.4, 0.2];
    const Ib = [(m * (b * b + c * c)) / 12, (m * (a * a + c * c)) / 12, (m * (a * a + b * b)) / 12];
    const R = new Float64Array(9);
    quatToMat3(w.bodies.quat, 0, R);
    const r = [point[0] - 1, point[1] - 2, point[2] - 3];
    const tau = cross(r, J);
    // dw = R diag(1 / Ib) R^T tau
    const tb = [0, 1, 2].map((k) => (R[k]! * tau[0]! + R[3 + k]! * tau[1]! + R[6 + k]! * tau[2]!) / Ib[k]!);
    const dw = [0, 1, 2].map((k) => R[3 * k]! * tb[0]! + R[3 * k + 1]! * tb[1]! + R[3 * k + 2]! * tb[2]!);
    for (let k = 0; k < 3; k++) expect(w1[k]! - w0[k]!).toBeCloseTo(dw[k]!, 12);
    // Bookkeeping: p changes by J, L about the origin by point x J.
    const after = momenta(w);
    const dL = cross(point, J);
    for (let k = 0; k < 3; k++) {
      expect(after.p[k]! - before.p[k]!).toBeCloseTo(J[k]!, 12);
      expect(after.L[k]! - before.L[k]!).toBeCloseTo(dL[k]!, 12);
    }
  });

  it('is refused, changing nothing, where it would leave the body faster than light or turning more than half a turn a step', async () => {
    const w = await worldFrom({
      format: FORMAT, gravity: [0, 0, 0],
      shapes: { box: BOX },
      bodies: [{ name: 'b', shape: 'box', mass: 2, velocity: [0.1, 0, 0] }],
    });
    const v0 = vel(w, 'b'), w0 = angVel(w, 'b');
    expect(() => w.applyImpulse('b', [1e308, 1e308, 0])).toThrow(/^applyImpulse: it would leave body "b" \(mass 2\.000 kg\) at .* m\/s, more than the speed of light/);
    expect(() => w.applyImpulse('b', [0, 1e6, 0], [1e6, 0, 0])).toThrow(/turning at .* rad\/s, more than half a turn per step \(pi \/ dt = 314\.2 rad\/s\)/);
    expect(vel(w, 'b')).toEqual(v0);
    expect(angVel(w, 'b')).toEqual(w0);
    // Up to the limit it is applied.
    w.applyImpulse('b', [2 * 299_792_458 - 0.2 - 1, 0, 0]);
    expect(vel(w, 'b')[0]).toBeCloseTo(299_792_458 - 0.5, 3);
  });

  it('fires from a scene once, at the start of the step nearest its time, at a point in the shape frame', async () => {
    const dt = 0.01, m = 2;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: m }],
      // The ball's centre is its shape origin; the point is 0.2 m out along x.
      forces: [{ type: 'impulse', body: 'b', impulse: [0, 4, 0], point: [0.2, 0, 0], at: 0.05 }],
    });
    const seen: number[] = [];
    await run(w, 10, (ww) => seen.push(vel(ww, 'b')[1]));
    // Steps 0-4 start before 0.045 s: nothing; step 5 starts at 0.05 s: 2 m/s from then on.
    expect(seen.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    for (const v of seen.slice(5)) expect(v).toBeCloseTo(4 / m, 14);
    // r x J = 0.2 x 4 about z, through the model's own (polyhedral) inertia.
    const Izz = w.inertiaOf(bodyIndex(w, 'b'))[8]!;
    expect(angVel(w, 'b')[2]).toBeCloseTo((0.2 * 4) / Izz, 12);
    // Going back in time fires it again.
    w.restoreState({ ...w.saveState(), time: 0, stepCount: 0, vel: new Float64Array(3), angVel: new Float64Array(3) });
    await run(w, 6);
    expect(vel(w, 'b')[1]).toBeCloseTo(4 / m, 14);
  });
});

describe('a force over a time window', () => {
  it('starts and stops at the right steps (a step is on when its midpoint lies in [from, until))', async () => {
    const dt = 0.01, m = 2, F = 6;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: m }],
      forces: [{ type: 'force', body: 'b', force: [F, 0, 0], from: 0.1, until: 0.2 }],
    });
    const v: number[] = [];
    await run(w, 30, (ww) => v.push(vel(ww, 'b')[0]));
    // After steps 1..10: at rest; steps 11..20 (the 10th to the 19th) each add F dt / m; then constant.
    for (let s = 0; s < 10; s++) expect(v[s]).toBe(0);
    for (let s = 10; s < 20; s++) expect(v[s]).toBeCloseTo(((s - 9) * F * dt) / m, 13);
    for (let s = 20; s < 30; s++) expect(v[s]).toBe(v[19]);
    expect(v[29]).toBeCloseTo((F * 0.1) / m, 13);
  });

  it('applyForce acts in the next step only', async () => {
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [{ name: 'b', shape: 'ball', mass: 2 }],
    });
    w.applyForce('b', [0, 0, 8]);
    await run(w, 1);
    expect(vel(w, 'b')[2]).toBeCloseTo(0.04, 14);
    await run(w, 5);
    expect(vel(w, 'b')[2]).toBeCloseTo(0.04, 14);
  });
});

describe('momentum bookkeeping', () => {
  it('a couple in the body frame turns a ball at 2 r F / I and leaves its momentum at 0; fields add N dt F to the total momentum', async () => {
    const dt = 0.01, m = 2, F = 3, r = 0.2, n = 100;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, 0, 0],
      shapes: { ball: BALL },
      bodies: [
        { name: 'b', shape: 'ball', mass: m },
        { name: 'c', shape: 'ball', mass: 1, position: [5, 0, 0] },
        { name: 'd', shape: 'ball', mass: 4, position: [-5, 0, 0] },
      ],
      forces: [
        { type: 'force', body: 'b', force: [0, F, 0], point: [r, 0, 0], frame: 'body' },
        { type: 'force', body: 'b', force: [0, -F, 0], point: [-r, 0, 0], frame: 'body' },
        { type: 'field', force: [1, 2, 0], bodies: ['c', 'd'] },
      ],
    });
    await run(w, n);
    expect(vel(w, 'b')).toEqual([0, 0, 0]);
    const i = bodyIndex(w, 'b');
    const Izz = w.inertiaOf(i)[8]!;
    const wz = angVel(w, 'b');
    expect(wz[2]).toBeCloseTo((2 * r * F * n * dt) / Izz, 11);
    expect(Math.abs(wz[0]) + Math.abs(wz[1])).toBeLessThan(1e-12);
    const { p } = momenta(w);
    expect(p[0]).toBeCloseTo(2 * n * dt, 11);
    expect(p[1]).toBeCloseTo(4 * n * dt, 11);
    expect(p[2]).toBe(0);
  });
});
