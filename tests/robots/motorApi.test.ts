/**
 * Motors from code (World.motor, src/dynamics/motorHandle.ts;
 * docs/LIBRARY_FORMAT.md "Motors from code"): a hinge motor driven by
 * setSpeed reaches the speed and replaces its program, setMaxTorque limits
 * the torque (a motor too weak for its load stalls), a change wakes a
 * sleeping robot, and an unknown name throws naming the world's motors.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, run, worldFrom } from '../dynamics/helpers.ts';
import { quat } from '../joints/geometry.ts';
import { join } from 'node:path';
import { EXAMPLES, worldOfFile } from './helpers.ts';
import type { World } from '../../src/index.ts';
import type { MotorHandle } from '../../src/index.ts';

type Json = Record<string, unknown>;

/**
 * An arm (1 m x 0.1 m x 0.1 m, 2 kg) hinged at one end to a static post
 * about `axis`: about y gravity does not load the motor, about z the
 * weight's torque is m g L / 2 = 9.81 N m. The motor runs `motor`.
 */
function arm(axis: [number, number, number], motor: Json, extra: Json = {}): Json {
  return {
    format: FORMAT, dt: 0.01, ...extra,
    shapes: { post: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } }, arm: { type: 'box', size: [1, 0.1, 0.1], sdf: { cells: 16 } } },
    bodies: [
      { name: 'post', shape: 'post', static: true, position: [0, 1, 0] },
      { name: 'arm', shape: 'arm', position: [0.55, 1, 0], mass: 2 },
    ],
    joints: [{ name: 'shoulder', type: 'hinge', bodyA: 'post', bodyB: 'arm', anchorA: [0.05, 0, 0], anchorB: [-0.5, 0, 0], axisA: axis, axisB: axis }],
    motors: [{ name: 'drive', joint: 'shoulder', ...motor }],
  };
}
const lift = (w: World) => 2 * Math.atan2(quat(w, 'arm')[2], quat(w, 'arm')[3]);

describe('world.motor(name)', () => {
  it('drives a hinge motor at the speed set from code, replacing its program', async () => {
    // A back-and-forth program the code replaces with a constant 2 rad/s.
    const w = await worldFrom(arm([0, 1, 0], { program: [{ speed: 1, duration: 0.2 }, { speed: -1, duration: 0.2 }], repeat: true, maxTorque: 20 }));
    const drive: MotorHandle = w.motor('drive');
    expect(drive).toMatchObject({ name: 'drive', kind: 'hinge', maxTorque: 20, manual: false });
    await run(w, 30);
    expect(drive.target).toBe(-1);
    drive.setSpeed(2);
    expect(drive.target).toBe(2);
    expect(drive.manual).toBe(true);
    await run(w, 50);
    // Within 0.5 %: the joint's own stabilisation nudges the relative speed a little.
    expect(Math.abs(drive.speed - 2)).toBeLessThan(0.01);
    // The handle's speed is the arm's angular velocity about the (world y) axis.
    expect(w.bodies.angVel[3 * 1 + 1]).toBeCloseTo(drive.speed, 9);
    const speeds: number[] = [];
    await run(w, 60, () => speeds.push(drive.speed));
    for (const s of speeds) expect(Math.abs(s - 2)).toBeLessThan(0.01);
    // Back to the program: it follows the program's speed at the world's time.
    drive.useProgram();
    expect(drive.manual).toBe(false);
    expect(Math.abs(drive.target)).toBe(1);
  });

  it('setMaxTorque limits the torque: a motor too weak for its load stalls, a strong one lifts it', async () => {
    const weak = await worldFrom(arm([0, 0, 1], { speed: 0.5, maxTorque: 40 }));
    const strong = await worldFrom(arm([0, 0, 1], { speed: 0.5, maxTorque: 40 }));
    weak.motor('drive').setMaxTorque(9.81 * 0.85);
    strong.motor('drive').setMaxTorque(9.81 * 1.15);
    expect(weak.motor('drive').maxTorque).toBeCloseTo(9.81 * 0.85, 12);
    let most = 0;
    await run(weak, 100, (w) => (most = Math.max(most, Math.abs(w.motor('drive').torque))));
    await run(strong, 100);
    // m g L / 2 = 9.81 N m: 0.85 of it cannot lift the arm, which sags; 1.15 of it lifts at 0.5 rad/s.
    expect(most).toBeLessThanOrEqual(9.81 * 0.85 + 1e-9);
    expect(lift(weak)).toBeLessThan(-0.05);
    expect(lift(strong)).toBeGreaterThan(0.4);
    expect(lift(strong)).toBeLessThan(0.51);
    // Raising the limit from code lets the stalled motor lift the arm.
    weak.motor('drive').setMaxTorque(30);
    const before = lift(weak);
    await run(weak, 100);
    expect(lift(weak)).toBeGreaterThan(before + 0.3);
    expect(() => weak.motor('drive').setMaxTorque(-1)).toThrow(/setMaxTorque expects a finite number >= 0, got -1/);
    expect(() => weak.motor('drive').setSpeed(NaN)).toThrow(/setSpeed expects a finite number/);
  });

  it('wakes a sleeping robot when its motor is set, and off() stops it', async () => {
    // The motor's window starts far ahead: the arm (about y, unloaded) rests and sleeps.
    const w = await worldFrom(arm([0, 1, 0], { speed: 0.2, maxTorque: 20, from: 1000 }, { sleep: true }));
    await run(w, 400);
    expect(w.bodies.asleep[1]).toBe(1);
    w.motor('drive').setSpeed(1);
    expect(w.bodies.asleep[1]).toBe(0);
    await run(w, 40);
    expect(Math.abs(w.motor('drive').speed - 1)).toBeLessThan(0.005);
    w.motor('drive').off();
    expect(Number.isNaN(w.motor('drive').target)).toBe(true);
    await run(w, 1);
    expect(w.motor('drive').torque).toBe(0);
  });

  it("names a robot's motors instance/motor and throws for an unknown name, listing the world's motors", async () => {
    const w = await worldOfFile(join(EXAMPLES, 'cart-incline.scene.json'));
    expect(w.motorNames()).toEqual(['cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
    expect(w.motor('cart/fl')).toMatchObject({ kind: 'hinge', maxTorque: 6, target: -4 });
    expect(() => w.motor('fl')).toThrow(RangeError);
    expect(() => w.motor('cart/fx')).toThrow('no motor "cart/fx" in this world (did you mean "cart/fl"?): its motors are "cart/fl", "cart/fr", "cart/rl", "cart/rr"');
    const none = await worldFrom({ format: FORMAT, shapes: { b: { type: 'box', sdf: { cells: 8 } } }, bodies: [{ shape: 'b' }] });
    expect(() => none.motor('drive')).toThrow('no motor "drive" in this world: it has no motors');
  });
});
