/**
 * A ball oscillating in a spherical bowl (a nonconvex solid of revolution):
 * the textbook pendulum of rolling and sliding. Rolling without slipping on a
 * bowl of radius R, a ball of radius r swings with the period
 * 2 pi sqrt(7 (R - r) / (5 g)); without friction it slides, and the period
 * is 2 pi sqrt((R - r) / g). Both grow by (1 + a^2 / 16) at amplitude a.
 * Known limit (docs/DESIGN.md 4, "Ball in a bowl"), for a ball that is a
 * mesh: with the seed's contact rule (contacts at the predicted pose) the
 * amplitude decays faster than it should, since the impulse that holds the
 * ball up acts along the normal a step ahead, which leans back by
 * v dt / (R - r), a drag; `"solver": {"contactPose": "current"}` (the
 * default) takes it where it touches now. A true sphere is met through its
 * centre along the bowl's gradient there: held below.
 */
import { describe, expect, it } from 'vitest';
import { queryWorld as worldFrom, run } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';

const R = 1, T = 0.1, r = 0.1, G = 9.81, DEG = 10;

function bowlScene(mu: number, contactPose: 'predicted' | 'current' = 'predicted', contactSolver: 'sequential' | 'accumulated' | 'pgs' = 'sequential') {
  // Outer sphere R + T and inner sphere R, both centred (0, R), up to 60 degrees.
  const profile: number[][] = [[0, -T]];
  const n = 32, top = Math.PI / 3;
  for (let k = 1; k <= n; k++) profile.push([(R + T) * Math.sin((top * k) / n), R - (R + T) * Math.cos((top * k) / n)]);
  for (let k = n; k >= 1; k--) profile.push([R * Math.sin((top * k) / n), R - R * Math.cos((top * k) / n)]);
  profile.push([0, 0]);
  const a = (DEG * Math.PI) / 180;
  return {
    format: 'stackfield-scene/1', dt: 1 / 120, sleep: false, solver: { contactPose, contactSolver },
    shapes: {
      bowl: { type: 'revolve', profile, segments: 64, sdf: { cells: 32 } },
      ball: { type: 'sphere', radius: r, segments: [32, 24], sdf: { cells: 24 } },
    },
    bodies: [
      { name: 'bowl', shape: 'bowl', static: true, friction: mu, restitution: 0 },
      { name: 'ball', shape: 'ball', position: [(R - r) * Math.sin(a), R - (R - r) * Math.cos(a) + 0.0005, 0], friction: mu, restitution: 0 },
    ],
  };
}

/** Mean time between the ball's downward crossings of x = 0 over `seconds`. */
async function period(mu: number, backend: 'cpu' | 'gpu', seconds: number): Promise<number> {
  const w = await worldFrom(bowlScene(mu), backend);
  const i = w.bodies.names.indexOf('ball');
  const X = w.bodies.pos;
  const dt = w.dt;
  let t = 0, prev = X[3 * i]!;
  const cross: number[] = [];
  await run(w, Math.round(seconds / dt), () => {
    t += dt;
    const x = X[3 * i]!;
    if (prev > 0 && x <= 0) cross.push(t - (dt * x) / (x - prev));
    prev = x;
  });
  expect(cross.length).toBeGreaterThanOrEqual(2);
  return (cross[cross.length - 1]! - cross[0]!) / (cross.length - 1);
}

const finite = 1 + (DEG * Math.PI / 180) ** 2 / 16;

/**
 * `seconds` of the ball's swing: its energy at the end and the most at any
 * step (both over the start's), the largest |x| over the last second (over
 * the start's), the largest spin, and how far it ends off the swing plane.
 */
async function swing(w: World, seconds: number): Promise<{ energy: number; high: number; amplitude: number; spin: number; off: number }> {
  const i = w.bodies.names.indexOf('ball');
  const B = w.bodies;
  const m = B.mass[i]!, I = 0.4 * m * r * r;
  const energy = (): number => {
    let v2 = 0, w2 = 0;
    for (let c = 0; c < 3; c++) { v2 += B.vel[3 * i + c]! ** 2; w2 += B.angVel[3 * i + c]! ** 2; }
    return 0.5 * m * v2 + 0.5 * I * w2 + m * G * (B.pos[3 * i + 1]! - r);
  };
  const e0 = energy();
  const x0 = Math.abs(B.pos[3 * i]!);
  let xmax = 0, spin = 0, high = 0;
  await run(w, Math.round(seconds / w.dt), (ww) => {
    if (ww.time > seconds - 1) xmax = Math.max(xmax, Math.abs(B.pos[3 * i]!));
    spin = Math.max(spin, Math.hypot(B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!));
    high = Math.max(high, energy() / e0);
  });
  return { energy: energy() / e0, high, amplitude: xmax / x0, spin, off: Math.abs(B.pos[3 * i + 2]!) };
}

describe('ball in a bowl', () => {
  it.each(['cpu', 'gpu'] as const)('rolls with the period 2 pi sqrt(7 (R - r) / (5 g)) within 2 per cent (%s)', async (backend) => {
    const expected = 2 * Math.PI * Math.sqrt((7 * (R - r)) / (5 * G)) * finite;
    // Measured: 2.245 s against 2.256.
    expect(Math.abs((await period(0.5, backend, 3.2)) / expected - 1)).toBeLessThan(0.02);
  }, 120_000);

  it('slides without friction with the period 2 pi sqrt((R - r) / g) within 2 % (cpu)', async () => {
    const expected = 2 * Math.PI * Math.sqrt((R - r) / G) * finite;
    // Measured: 1.9075 s against 1.907 over 5 s (single periods 1.89-1.93).
    expect(Math.abs((await period(0, 'cpu', 5)) / expected - 1)).toBeLessThan(0.02);
  });

  // A true sphere (a `sphere` shape) meets the bowl through its centre, along
  // the bowl's field's gradient there, in the collision phase and under
  // every contact solver (patches.ts underBall; accumulatedSolver.ts
  // addManifold, half a step on; pgs.ts buildRows). Before, each contact's
  // normal came from the samples at the predicted pose, which on the bowl
  // lean back by v dt / (R - r), a drag whose own rate, g dt / (R - r), takes
  // 36 % in 5 s; and a sample a few millimetres to the side of the centre
  // turns the ball. Measured in 5 s before, frictionless / the rolling
  // amplitude: the seed's passes 7.4 % / 0.974 with contacts taken where the
  // ball touches now (43 % / 0.71 at the predicted pose), the accumulated
  // stage 9.7 % / 0.977 (with its points where the fields meet: +68 % and
  // 7 rad/s of spin), PGS 45 % / 0.56 spinning at 0.77 rad/s. The GPU backend
  // runs 2 s (on a software adapter its queries of the 64-segment bowl cost
  // 12 times the CPU's).
  it.each([
    ['sequential', 'cpu', 5, 0.05],
    ['sequential', 'gpu', 2, 0.03],
    ['accumulated', 'cpu', 5, 0.08],
    ['accumulated', 'gpu', 2, 0.04],
    ['pgs', 'cpu', 5, 0.1],
    ['pgs', 'gpu', 2, 0.09],
  ] as const)('%s: a frictionless ball neither spins nor gains energy and loses little, a rolling one keeps its amplitude (%s, %d s: under %s of the energy lost)', async (contactSolver, backend, seconds, lossBound) => {
    // Measured frictionless, energy lost in 5 s / 2 s (either backend): the
    // seed's passes 3.1 / 2.0 %, the accumulated stage 5.3 / 1.9 %, PGS
    // 7.8 / 6.7 %; no spin. Rolling (mu 0.5), the largest |x| over the last
    // second of 5 s over the start's: 0.997, 0.990, 0.999. The most energy
    // at any step: 1.004 of the start's (the seed's passes).
    for (const mu of [0, 0.5]) {
      const s = await swing(await worldFrom(bowlScene(mu, 'current', contactSolver), backend), seconds);
      expect(s.high, `mu ${mu}: the most energy at any step, over the start's`).toBeLessThan(1.01);
      if (mu === 0) {
        expect(s.spin, 'frictionless spin').toBeLessThan(1e-6);
        expect(1 - s.energy, 'energy lost sliding').toBeLessThan(lossBound);
      } else {
        expect(s.amplitude, 'amplitude rolling').toBeGreaterThan(0.97);
      }
      expect(s.off, 'off the swing plane').toBeLessThan(1e-3);
    }
  }, 240_000);
});
