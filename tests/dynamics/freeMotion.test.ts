import { describe, expect, it } from 'vitest';
import { FORMAT, pos, run, vel, worldFrom } from './helpers.ts';

describe('free motion', () => {
  it('a thrown box follows the exact parabola of free fall', async () => {
    const g = -9.81, dt = 0.01, y0 = 10;
    const w = await worldFrom({
      format: FORMAT, dt, gravity: [0, g, 0],
      shapes: { box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 8 } } },
      bodies: [{ name: 'b', shape: 'box', position: [1, y0, 2], velocity: [0.5, 2, 0] }],
    });
    const n = 100;
    await run(w, n);
    const t = n * dt;
    // Nothing but gravity acts, so the step moves it by dt (v + v') / 2: the
    // parabola itself at any dt (semi-implicit Euler's x += dt v' would put it
    // g dt t / 2 = 4.9 cm lower here).
    const [x, y, z] = pos(w, 'b');
    expect(y).toBeCloseTo(y0 + 2 * t + 0.5 * g * t * t, 9);
    expect(x).toBeCloseTo(1 + 0.5 * t, 9);
    expect(z).toBeCloseTo(2, 12);
    expect(vel(w, 'b')[1]).toBeCloseTo(2 + g * t, 9);
  });

  it('a spinning body keeps a unit quaternion and its angular velocity when torque-free about a principal axis', async () => {
    const w = await worldFrom({
      format: FORMAT, gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [1, 0.4, 0.2], sdf: { cells: 8 } } },
      bodies: [{ name: 'b', shape: 'box', angularVelocity: [0, 3, 0] }],
    });
    await run(w, 100);
    const q = w.bodies.quat;
    expect(Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!)).toBeCloseTo(1, 12);
    // After 1 s at 3 rad/s about y: rotation angle 3 rad, exactly.
    const angle = 2 * Math.atan2(q[1]!, q[3]!);
    expect(angle).toBeCloseTo(3, 10);
    expect(w.bodies.angVel[1]).toBeCloseTo(3, 12);
  });

  it('a body spinning fast about a principal axis turns by exactly omega t (50 rad/s, dt 0.01, 1 s)', async () => {
    // The seed's q + dt/2 (omega, 0) q, renormalised, turns 2 atan(omega dt / 2)
    // a step: 49.0 rad here, 2 % short. The exact map turns 50.
    const w = await worldFrom({
      format: FORMAT, gravity: [0, 0, 0], dt: 0.01,
      shapes: { ball: { type: 'sphere', radius: 0.5, sdf: { cells: 8 } }, box: { type: 'box', size: [1, 0.4, 0.2], sdf: { cells: 8 } } },
      bodies: [
        { name: 'ball', shape: 'ball', angularVelocity: [0, 50, 0] },
        { name: 'box', shape: 'box', position: [3, 0, 0], angularVelocity: [0, 0, 20] },
      ],
    });
    // Unwrap the angle step by step.
    let turned = 0, boxTurned = 0, prev = 0, prevBox = 0;
    await run(w, 100, (ww) => {
      const q = ww.bodies.quat;
      const a = 2 * Math.atan2(q[1]!, q[3]!), b = 2 * Math.atan2(q[6]!, q[7]!);
      const wrap = (d: number): number => d - 2 * Math.PI * Math.round(d / (2 * Math.PI));
      turned += wrap(a - prev);
      boxTurned += wrap(b - prevBox);
      prev = a;
      prevBox = b;
    });
    expect(turned).toBeCloseTo(50, 9);
    expect(boxTurned).toBeCloseTo(20, 9);
  });

  it('counts time as steps times dt, not a running sum, and keeps counting from a restored state or a new dt', async () => {
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 8 } } },
      bodies: [{ name: 'b', shape: 'box', position: [0, 0, 0], velocity: [1, 0, 0] }],
    });
    await run(w, 3000);
    // Summed, 3000 steps of 0.01 s give 30.00000000000189.
    expect(w.time).toBe(30);
    const saved = w.saveState();
    await run(w, 500);
    w.restoreState(saved);
    await run(w, 1000);
    expect([w.stepCount, w.time]).toEqual([4000, 40]);
    w.dt = 0.02;
    await run(w, 500);
    expect(w.time).toBe(50);
  });
});
