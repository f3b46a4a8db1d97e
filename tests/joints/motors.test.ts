/**
 * Body motors (docs/EXTRAS.md robots, seed 003): the torque ramp (absolute, and
 * the seed's fraction of the start torque), the target speed, the active window
 * (seconds or steps), the body frame, programs, a motor too weak for its load,
 * and the caterpillar robot. Joint motors: tests/robots/motors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, builtinWorld, pos, run, worldFrom } from '../dynamics/helpers.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import { angleOf, angVel, conj, mul, quat, rotate } from './geometry.ts';
import { LIBRARY, worldOfFile, writeFiles } from '../robots/helpers.ts';
import { join } from 'node:path';

type Json = Record<string, unknown>;

/** A cube of side 0.2 and mass 8 kg floating without gravity, with one motor (and any other body keys). */
function floating(motor: Json, body: Json = {}): Json {
  return {
    format: FORMAT,
    dt: 0.01,
    gravity: [0, 0, 0],
    shapes: { cube: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } } },
    bodies: [{ name: 'cube', shape: 'cube', position: [0, 0, 0], mass: 8, ...body }],
    motors: [{ body: 'cube', ...motor }],
  };
}
/** Moment of inertia of that cube about any axis through its centre: m s^2 / 6. */
const I_CUBE = (8 * 0.04) / 6;

describe('motor torque', () => {
  it('starts at startTorque and grows by torqueIncrement each step (omega += dt tau / I)', async () => {
    const w = await worldFrom(floating({ targetAngularVelocity: [0, 0, 100], startTorque: 1, torqueIncrement: 0.5, maxTorque: 2 }));
    const speeds: number[] = [];
    await run(w, 4, (ww) => speeds.push(angVel(ww, 'cube')[2]));
    // Torques 1, 1.5, 2, 2 (capped at maxTorque).
    const torques = [1, 1.5, 2, 2];
    let expected = 0;
    torques.forEach((tau, k) => {
      expected += (0.01 * tau) / I_CUBE;
      expect(speeds[k]).toBeCloseTo(expected, 9);
    });
    expect(jointsOf(w)!.motors.applied[0]).toBeCloseTo(2, 12);
  });

  it('brings the body to the target angular velocity and holds it there', async () => {
    const w = await worldFrom(floating({ targetAngularVelocity: [0, 3, 4], maxTorque: 5 }));
    await run(w, 100);
    const om = angVel(w, 'cube');
    expect(om[0]).toBeCloseTo(0, 9);
    expect(om[1]).toBeCloseTo(3, 9);
    expect(om[2]).toBeCloseTo(4, 9);
    // Holding the speed needs no torque, so the ramp is back at its start.
    expect(jointsOf(w)!.motors.torque[0]).toBe(5);
  });

  it('acts only during [from, until)', async () => {
    const w = await worldFrom(floating({ targetAngularVelocity: [0, 0, 100], maxTorque: 1, from: 0.1, until: 0.2 }));
    await run(w, 10); // t = 0 .. 0.09: off
    expect(angVel(w, 'cube')[2]).toBe(0);
    await run(w, 10); // t = 0.10 .. 0.19: on
    const on = angVel(w, 'cube')[2];
    expect(on).toBeCloseTo((10 * 0.01 * 1) / I_CUBE, 9);
    await run(w, 10); // off again
    expect(angVel(w, 'cube')[2]).toBe(on);
  });
});

describe('the caterpillar robot', () => {
  it('advances along the ground in 10 s', async () => {
    const w = await builtinWorld('caterpillar');
    const mean = () => (pos(w, 'plate0')[0] + pos(w, 'plate1')[0] + pos(w, 'plate2')[0]) / 3;
    const x0 = mean();
    let highest = 0;
    await run(w, 1000, (ww) => {
      highest = Math.max(highest, pos(ww, 'plate1')[1]);
    });
    expect(mean() - x0).toBeGreaterThan(1.5);
    // It crawls: the middle plate stays near the ground and the robot keeps its line.
    expect(highest).toBeLessThan(0.5);
    expect(Math.abs(pos(w, 'plate1')[2])).toBeLessThan(0.2);
  });

  it('a motor too weak for its load does not turn it', async () => {
    // Turning the first plate about its hinge means lifting it and part of the
    // second plate: about 35 N m; a 10 N m motor cannot.
    const weak = await builtinWorld('caterpillar', { maxTorque: 10 });
    const q0 = quat(weak, 'plate0');
    const p0 = pos(weak, 'plate1');
    // The plates settle into the ground by a few thousandths of a radian in the
    // first half second, then hold: no creep while the motor keeps pushing.
    await run(weak, 100);
    const settled = angleOf(mul(conj(q0), quat(weak, 'plate0')));
    await run(weak, 200);
    const turned = angleOf(mul(conj(q0), quat(weak, 'plate0')));
    expect(turned).toBeLessThan(3e-3);
    expect(Math.abs(turned - settled)).toBeLessThan(5e-4);
    expect(Math.abs(pos(weak, 'plate1')[0] - p0[0])).toBeLessThan(1e-3);
    // The same robot with its normal motor does turn within that time.
    const strong = await builtinWorld('caterpillar');
    await run(strong, 200);
    expect(angleOf(mul(conj(q0), quat(strong, 'plate0')))).toBeGreaterThan(0.5);
  });
});

describe("the seed's motor", () => {
  it('grows its torque by a fraction of the start torque each step (seed "increase")', async () => {
    const w = await worldFrom(floating({ targetAngularVelocity: [0, 0, 100], startTorque: 2, torqueIncrementFraction: 0.25, maxTorque: 3 }));
    const speeds: number[] = [];
    await run(w, 4, (ww) => speeds.push(angVel(ww, 'cube')[2]));
    let expected = 0;
    [2, 2.5, 3, 3].forEach((tau, k) => {
      expected += (0.01 * tau) / I_CUBE;
      expect(speeds[k]).toBeCloseTo(expected, 9);
    });
  });

  it('acts in a window given in steps: exactly steps 10 to 19', async () => {
    const w = await worldFrom(floating({ targetAngularVelocity: [0, 0, 100], maxTorque: 1, fromStep: 10, untilStep: 20 }));
    const on: number[] = [];
    await run(w, 30, (ww) => {
      if (jointsOf(ww)!.motors.applied[0]! > 0) on.push(ww.stepCount - 1);
    });
    expect(on).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('in the body frame turns its axis with the body', async () => {
    const w = await worldFrom(floating({ frame: 'body', axis: [1, 0, 0], speed: 2, maxTorque: 50 }, { rotation: { axis: [1, 1, 0], degrees: 40 } }));
    await run(w, 3);
    // A cube's inertia is the same about every axis, so it spins about its own x axis, wherever that points.
    const x = rotate(quat(w, 'cube'), [1, 0, 0]);
    const om = angVel(w, 'cube');
    for (let k = 0; k < 3; k++) expect(om[k]).toBeCloseTo(2 * x[k]!, 9);
  });

  it('follows a program segment by segment; a one-sided couple that never brakes, and a negative target drives the other way', async () => {
    const w = await worldFrom(floating({ axis: [0, 1, 0], program: [1, 3, 1, -2].map((speed) => ({ speed, duration: 0.05 })), maxTorque: 100 }));
    const speed = () => angVel(w, 'cube')[1];
    await run(w, 5);
    expect(speed()).toBeCloseTo(1, 9);
    await run(w, 5);
    expect(speed()).toBeCloseTo(3, 9);
    // Back to 1 rad/s: the body is faster than that, and the seed's motor only drives.
    await run(w, 5);
    expect(speed()).toBeCloseTo(3, 9);
    // -2 rad/s: the same rule along -axis pushes it round to -2.
    await run(w, 5);
    expect(speed()).toBeCloseTo(-2, 9);
    // The program has ended: the motor is off, the spin stays.
    await run(w, 5);
    expect(speed()).toBeCloseTo(-2, 9);
    expect(jointsOf(w)!.motors.applied[0]).toBe(0);
  });

  it('too weak for its load, it does not move it: the caterpillar with the seed\'s motor settings', async () => {
    // The seed's caterpillar motor: start torque S, increase 0.001 S per step, at most 2 S,
    // over steps 0..1000. Turning the first plate about its hinge takes about 35 N m.
    const caterpillar = (start: number) => writeFiles({
      'scene.json': {
        format: FORMAT, include: [LIBRARY],
        bodies: [{ name: 'ground', template: 'ground' }],
        robots: [{ name: 'c', robot: 'caterpillar', motors: { drive: { startTorque: start, torqueIncrementFraction: 0.001, maxTorque: 2 * start, fromStep: 0, untilStep: 1000 } } }],
      },
    });
    const weak = await worldOfFile(join(caterpillar(8), 'scene.json'));
    const q0 = quat(weak, 'c/h0');
    const p0 = pos(weak, 'c/h1');
    let most = 0;
    await run(weak, 300, (ww) => (most = Math.max(most, jointsOf(ww)!.motors.applied[0]!)));
    // It pushed with all it had (the ramp grows by 0.1 % of S a step) ...
    expect(most).toBeGreaterThan(0.99 * 8 * (1 + 0.001 * 299));
    // (The plates settle into the ground by a couple of thousandths of a radian in the first 2 s.)
    const settled = angleOf(mul(conj(q0), quat(weak, 'c/h0')));
    await run(weak, 300);
    // ... and nothing moved: no turn beyond the settling, no creep while the torque grew on.
    const turned = angleOf(mul(conj(q0), quat(weak, 'c/h0')));
    expect(turned).toBeLessThan(3e-3);
    expect(Math.abs(turned - settled)).toBeLessThan(5e-4);
    expect(Math.abs(pos(weak, 'c/h1')[0] - p0[0])).toBeLessThan(1e-3);
    // The same motor with the seed's ratio at 30 N m (up to 60) turns the plate once its ramp passes
    // the 35 N m the load needs (after about 170 steps; the plate is a radian over by step 350).
    const strong = await worldOfFile(join(caterpillar(30), 'scene.json'));
    await run(strong, 200);
    expect(angleOf(mul(conj(q0), quat(strong, 'c/h0')))).toBeLessThan(0.02);
    await run(strong, 150);
    expect(angleOf(mul(conj(q0), quat(strong, 'c/h0')))).toBeGreaterThan(0.5);
  });
});
