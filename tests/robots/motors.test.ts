/**
 * Joint motors (docs/SCENE_FORMAT.md "motors", docs/EXTRAS.md "Robots"): they
 * conserve momentum and angular momentum, reach and hold their target, lift
 * a load exactly when their torque exceeds it, and follow programs without
 * drifting. The seed's body motor and its weak motor that does not move its
 * load: tests/joints/motors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, bodyIndex, pos, run, worldFrom } from '../dynamics/helpers.ts';
import { angVel, cross, quat, rotate, type V3 } from '../joints/geometry.ts';
import { JointSystem, jointsOf } from '../../src/dynamics/joints/system.ts';
import type { MotorDesc } from '../../src/dynamics/joints/types.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { quatToMat3 } from '../../src/dynamics/math.ts';
import type { World } from '../../src/dynamics/world.ts';

type Json = Record<string, unknown>;

/** Total linear momentum and angular momentum about the origin: sum m x (x) v + R I0 R^T w. */
function momenta(w: World): { p: V3; L: V3 } {
  const B = w.bodies;
  const p: V3 = [0, 0, 0], L: V3 = [0, 0, 0];
  const R = new Float64Array(9);
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    const m = B.mass[i]!;
    const x: V3 = [B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!];
    const v: V3 = [B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!];
    const om: V3 = [B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!];
    const xv = cross(x, v);
    quatToMat3(B.quat, 4 * i, R);
    const I = w.inertiaOf(i);
    // body omega = R^T w; L_body = I0 body omega; world = R L_body.
    const b = [0, 1, 2].map((r) => R[r]! * om[0] + R[3 + r]! * om[1] + R[6 + r]! * om[2]);
    const lb = [0, 1, 2].map((r) => I[3 * r]! * b[0]! + I[3 * r + 1]! * b[1]! + I[3 * r + 2]! * b[2]!);
    for (let k = 0; k < 3; k++) {
      p[k] += m * v[k]!;
      L[k] += m * xv[k]! + R[3 * k]! * lb[0]! + R[3 * k + 1]! * lb[1]! + R[3 * k + 2]! * lb[2]!;
    }
  }
  return { p, L };
}

/**
 * Two cubes (0.3 m, 20 kg and 0.2 m, 5 kg: each the same inertia about every
 * axis, so no gyroscopic change muddies angular momentum) in free space,
 * drifting and spinning, joined by `joint` and driven by `motor`.
 */
function freePair(joint: Json, motor: Json): Json {
  return {
    format: FORMAT,
    dt: 0.01,
    gravity: [0, 0, 0],
    sleep: false,
    shapes: { big: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 8 } }, small: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } } },
    bodies: [
      { name: 'a', shape: 'big', position: [0.1, 0.2, -0.3], mass: 20, velocity: [0.3, -0.1, 0.2], angularVelocity: [0.2, 0.1, -0.3] },
      { name: 'b', shape: 'small', position: [0.45, 0.35, -0.3], mass: 5, velocity: [0.3, -0.1, 0.2], angularVelocity: [0.2, 0.1, -0.3] },
    ],
    joints: [{ name: 'j', bodyA: 'a', bodyB: 'b', ...joint }],
    motors: [{ joint: 'j', ...motor }],
  };
}

/** The scene motor of freePair as the engine takes it (for a probe MotorSet). */
function sceneMotor(joint: Json, motor: Json): MotorDesc {
  return validateScene(freePair(joint, motor), '<probe>').motors[0]!;
}

const HINGE = { type: 'hinge', anchorA: [0.2, 0.1, 0], anchorB: [-0.15, -0.05, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] };
const SLIDER = { type: 'slider', anchorA: [0.2, 0.1, 0], anchorB: [-0.15, -0.05, 0], axisA: [1, 0.5, 0] };

/** Relative angular velocity of b against a about a's turned axis. */
function hingeRate(w: World, axis: V3): number {
  const a = rotate(quat(w, 'a'), axis);
  const wa = angVel(w, 'a'), wb = angVel(w, 'b');
  return (wb[0] - wa[0]) * a[0] + (wb[1] - wa[1]) * a[1] + (wb[2] - wa[2]) * a[2];
}

describe('joint motors', () => {
  it.each([
    ['hinge', HINGE, { program: [{ speed: 3, duration: 0.3 }, { speed: -2, duration: 0.2 }], repeat: true, startTorque: 0.5, torqueIncrement: 0.2, maxTorque: 4 }],
    ['slider', SLIDER, { program: [{ speed: 0.4, duration: 0.3 }, { speed: -0.4, duration: 0.3 }], repeat: true, maxTorque: 30 }],
  ])('a %s motor conserves momentum and angular momentum in free space', async (_, joint, motor) => {
    const w = await worldFrom(freePair(joint, motor));
    const J = jointsOf(w)!;
    const start = momenta(w);
    const scale = Math.hypot(...start.L);
    let drift = 0, driftP = 0, work = 0, changed = 0;
    for (let s = 0; s < 200; s++) {
      // The motor's own push, alone: a second MotorSet (same ramp state as the
      // world's was at the start) applied to this state and taken back.
      if (s % 20 === 10) {
        const B = w.bodies;
        const vel = B.vel.slice(), angVel = B.angVel.slice();
        const probe = new JointSystem(B, J.joints, [sceneMotor(joint, motor)], (n) => w.shapes[B.shape[bodyIndex(w, n)]!]!);
        const before = momenta(w);
        probe.motors.apply(B, w.time, w.dt);
        const after = momenta(w);
        changed = Math.max(changed, Math.hypot(...[0, 1, 2].map((k) => B.angVel[3 + k]! - angVel[3 + k]!)));
        for (let k = 0; k < 3; k++) {
          expect(Math.abs(after.L[k]! - before.L[k]!)).toBeLessThan(1e-14 * scale);
          expect(Math.abs(after.p[k]! - before.p[k]!)).toBeLessThan(1e-14 * Math.max(1, Math.hypot(...start.p)));
        }
        B.vel.set(vel);
        B.angVel.set(angVel);
      }
      await w.step();
      const now = momenta(w);
      drift = Math.max(drift, Math.hypot(now.L[0] - start.L[0], now.L[1] - start.L[1], now.L[2] - start.L[2]));
      driftP = Math.max(driftP, Math.hypot(now.p[0] - start.p[0], now.p[1] - start.p[1], now.p[2] - start.p[2]));
      work += Math.abs(J.motors.applied[0]!);
    }
    // The motor did act, hard, both ways, and its probe changed velocities.
    expect(work).toBeGreaterThan(50);
    expect(changed).toBeGreaterThan(1e-3);
    expect(driftP).toBeLessThan(1e-12);
    // Over the whole run angular momentum moves only as much as the joint's own
    // impulses move it: its ball part pushes at two anchors up to the position
    // tolerance (1e-6 m) apart, a lever the motor's torques load up.
    expect(drift).toBeLessThan(2e-6 * scale);
  });

  it('a hinge motor brings the relative angular velocity to its target and holds it', async () => {
    const w = await worldFrom(freePair(HINGE, { speed: 2.5, maxTorque: 2 }));
    expect(hingeRate(w, [0, 0, 1])).toBeCloseTo(0, 12);
    await run(w, 100);
    // Held within 0.1 %: the motor sets the rate for the step, the joint's own
    // corrections after integration (the pair spins as a whole) move it by that much.
    let worst = 0;
    await run(w, 200, (ww) => (worst = Math.max(worst, Math.abs(hingeRate(ww, [0, 0, 1]) - 2.5))));
    expect(worst).toBeLessThan(2.5e-3);
  });

  it('a slider motor brings the relative velocity along its axis to its target', async () => {
    const w = await worldFrom(freePair(SLIDER, { speed: -0.3, maxTorque: 50 }));
    await run(w, 100);
    const a = rotate(quat(w, 'a'), [1 / Math.hypot(1, 0.5), 0.5 / Math.hypot(1, 0.5), 0]);
    // The rotation is locked, so every point of b moves alike relative to a: compare centres.
    const i = bodyIndex(w, 'a'), j = bodyIndex(w, 'b');
    const v = w.bodies.vel;
    const pa = pos(w, 'a'), pb = pos(w, 'b');
    const wa = angVel(w, 'a');
    // Velocity of a's frame at b's centre: v_a + w_a x (x_b - x_a).
    const arm = cross(wa, [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]]);
    const rel = [0, 1, 2].map((k) => v[3 * j + k]! - v[3 * i + k]! - arm[k]!);
    expect(rel[0]! * a[0] + rel[1]! * a[1] + rel[2]! * a[2]).toBeCloseTo(-0.3, 3);
  });

  it.each([
    ['sequential', 0], ['sequential', 1], ['sequential', -1], ['pgs', 0], ['pgs', 1],
  ] as const)('a slider motor on a rail tilted 30 degrees holds its target against gravity exactly (%s, %s m/s)', async (contactSolver, speed) => {
    // Gravity along the axis was counted twice (once in the velocity the
    // motor saw, once in its load observer): it held target + g sin 30 dt,
    // creeping 4.9 cm/s up the rail when told to hold still.
    const th = Math.PI / 6, axis: V3 = [Math.cos(th), Math.sin(th), 0];
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, solver: { contactSolver },
      shapes: { rail: { type: 'box', size: [0.05, 0.05, 0.05], sdf: { cells: 8 } }, block: { type: 'box', size: [0.3, 0.1, 0.2], sdf: { cells: 8 } } },
      bodies: [
        { name: 'rail', shape: 'rail', static: true, position: [0, 3, 0], rotation: { axis: [0, 0, 1], degrees: 30 } },
        { name: 'block', shape: 'block', position: [0.3 * axis[0], 3 + 0.3 * axis[1], 0], rotation: { axis: [0, 0, 1], degrees: 30 }, mass: 3 },
      ],
      joints: [{ name: 'rail', type: 'slider', bodyA: 'rail', bodyB: 'block', anchorA: [0.3, 0, 0], anchorB: [0, 0, 0], axisA: [1, 0, 0] }],
      motors: [{ joint: 'rail', speed, maxTorque: 100, startTorque: 100 }],
    });
    await run(w, 50);
    const v = w.bodies.vel, j = 3 * bodyIndex(w, 'block');
    const along = (): number => v[j]! * axis[0] + v[j + 1]! * axis[1] + v[j + 2]! * axis[2];
    expect(Math.abs(along() - speed)).toBeLessThan(1e-9);
    const p0 = pos(w, 'block');
    await run(w, 100);
    const p1 = pos(w, 'block');
    const moved = (p1[0] - p0[0]) * axis[0] + (p1[1] - p0[1]) * axis[1];
    expect(Math.abs(moved - speed)).toBeLessThan(1e-6);
    expect(Math.abs(along() - speed)).toBeLessThan(1e-9);
  });

  /**
   * An arm (a 1 m x 0.1 m x 0.1 m box of 2 kg) hinged at one end to a static
   * post, horizontal, its hinge motor asked to lift it at 0.5 rad/s: the
   * weight's torque is m g L / 2 = 9.81 N m.
   */
  function arm(maxTorque: number, motor: Json = {}): Json {
    return {
      format: FORMAT, dt: 0.01,
      shapes: { post: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } }, arm: { type: 'box', size: [1, 0.1, 0.1], sdf: { cells: 16 } } },
      bodies: [
        { name: 'post', shape: 'post', static: true, position: [0, 1, 0] },
        { name: 'arm', shape: 'arm', position: [0.55, 1, 0], mass: 2 },
      ],
      joints: [{ name: 'shoulder', type: 'hinge', bodyA: 'post', bodyB: 'arm', anchorA: [0.05, 0, 0], anchorB: [-0.5, 0, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] }],
      motors: [{ joint: 'shoulder', ...(motor['program'] ? {} : { speed: 0.5 }), maxTorque, ...motor }],
    };
  }
  const lift = (w: World) => 2 * Math.atan2(quat(w, 'arm')[2], quat(w, 'arm')[3]);

  it('lifts a load exactly when its torque exceeds the load (m g L / 2 = 9.81 N m)', async () => {
    const strong = await worldFrom(arm(9.81 * 1.15));
    const weak = await worldFrom(arm(9.81 * 0.85));
    await run(strong, 100);
    await run(weak, 100);
    // Strong: 1 s at 0.5 rad/s, less a few steps of ramp-up.
    expect(lift(strong)).toBeGreaterThan(0.4);
    expect(lift(strong)).toBeLessThan(0.51);
    expect(lift(weak)).toBeLessThan(-0.05);
    // The strong motor ends holding the speed with what the load takes: (m g L / 2) cos(angle).
    const applied = jointsOf(strong)!.motors.applied[0]!;
    expect(applied).toBeGreaterThan(9.81 * Math.cos(lift(strong)) * 0.9);
    expect(applied).toBeLessThanOrEqual(9.81 * 1.15 + 1e-9);
  });

  it('follows a program as a trajectory: a repeated swing against gravity comes back to where it started', async () => {
    // +1 rad/s for 0.4 s, -1 rad/s for 0.4 s: the arm swings up 0.4 rad and back, every 0.8 s.
    const w = await worldFrom(arm(20, { program: [{ speed: 1, duration: 0.4 }, { speed: -1, duration: 0.4 }], repeat: true, startTorque: 20 }));
    let peak = 0;
    const ends: number[] = [];
    for (let period = 0; period < 4; period++) {
      await run(w, 80, (ww) => (peak = Math.max(peak, lift(ww))));
      ends.push(lift(w));
    }
    expect(peak).toBeGreaterThan(0.37);
    expect(peak).toBeLessThan(0.43);
    for (const e of ends) expect(Math.abs(e)).toBeLessThan(0.02);
  });
});
