/**
 * Motors (docs/EXTRAS.md robots, seed 003): the torque ramp, the target speed, the
 * active window, a motor too weak for its load, and the caterpillar robot.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, builtinWorld, pos, run, worldFrom } from '../dynamics/helpers.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import { angleOf, angVel, conj, mul, quat } from './geometry.ts';

type Json = Record<string, unknown>;

/** A cube of side 0.2 and mass 8 kg floating without gravity, with one motor. */
function floating(motor: Json): Json {
  return {
    format: FORMAT,
    dt: 0.01,
    gravity: [0, 0, 0],
    shapes: { cube: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } } },
    bodies: [{ name: 'cube', shape: 'cube', position: [0, 0, 0], mass: 8 }],
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
