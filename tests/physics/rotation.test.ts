/**
 * Torque-free rotation (issue "Physics a physicist would sign", item 1): a
 * free asymmetric body keeps its angular momentum, tumbles about its
 * intermediate axis as Euler's equations say (the Dzhanibekov effect), and
 * spins stably about its major and minor axes. On both query backends (a free
 * body queries nothing, but the step is the backend's step).
 */
import { describe, expect, it } from 'vitest';
import { quatToMat3 } from '../../src/dynamics/math.ts';
import type { World } from '../../src/dynamics/world.ts';
import { queryWorld as worldFrom, run } from '../dynamics/helpers.ts';
import { freeBox } from './scenes.ts';

const SIZE: [number, number, number] = [0.4, 0.2, 0.1];

/** World angular momentum R I0 R^T omega of body 0. */
function angularMomentum(w: World): [number, number, number] {
  const R = new Float64Array(9);
  quatToMat3(w.bodies.quat, 0, R);
  const b = bodyOmega(w);
  const I = w.inertiaOf(0);
  const Lb = [0, 1, 2].map((r) => I[3 * r]! * b[0] + I[3 * r + 1]! * b[1] + I[3 * r + 2]! * b[2]);
  return [0, 1, 2].map((r) => R[3 * r]! * Lb[0]! + R[3 * r + 1]! * Lb[1]! + R[3 * r + 2]! * Lb[2]!) as [number, number, number];
}

/** Body-frame angular velocity R^T omega of body 0. */
function bodyOmega(w: World): [number, number, number] {
  const R = new Float64Array(9);
  quatToMat3(w.bodies.quat, 0, R);
  const a = w.bodies.angVel;
  return [0, 1, 2].map((k) => R[k]! * a[0]! + R[3 + k]! * a[1]! + R[6 + k]! * a[2]!) as [number, number, number];
}

/**
 * The reference: Euler's equations I1 w1' = (I2 - I3) w2 w3 (and cyclic) for
 * the box's principal moments, integrated by RK4 at 1e-5 s, until w2 first
 * changes sign (the flip). Returns the flip time.
 */
function eulerFlipTime(w0: [number, number, number]): number {
  const [a, b, c] = SIZE;
  const I = [b * b + c * c, a * a + c * c, a * a + b * b]; // times m / 12, which cancels
  const f = (w: number[]) => [((I[1]! - I[2]!) * w[1]! * w[2]!) / I[0]!, ((I[2]! - I[0]!) * w[2]! * w[0]!) / I[1]!, ((I[0]! - I[1]!) * w[0]! * w[1]!) / I[2]!];
  let w = [...w0];
  const h = 1e-5;
  let t = 0;
  while (w[1]! > 0 && t < 30) {
    const k1 = f(w), k2 = f(w.map((x, i) => x + (h / 2) * k1[i]!)), k3 = f(w.map((x, i) => x + (h / 2) * k2[i]!)), k4 = f(w.map((x, i) => x + h * k3[i]!));
    w = w.map((x, i) => x + (h / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!));
    t += h;
  }
  return t;
}

describe.each(['cpu', 'gpu'] as const)('torque-free rotation (%s)', (backend) => {
  it('a free asymmetric box keeps |L| and the direction of L within 1 % over 5 s', async () => {
    const w = await worldFrom(freeBox(SIZE, [2, 3, 4]), backend);
    const L0 = angularMomentum(w);
    const n0 = Math.hypot(...L0);
    let worst = 0;
    let turned = 0;
    await run(w, 500, (ww) => {
      const L = angularMomentum(ww);
      worst = Math.max(worst, Math.hypot(L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]) / n0);
      // It does tumble: omega moves away from its start in the world frame.
      const a = ww.bodies.angVel;
      turned = Math.max(turned, Math.hypot(a[0]! - 2, a[1]! - 3, a[2]! - 4));
    });
    expect(worst).toBeLessThan(0.01);
    expect(turned).toBeGreaterThan(1);
  });

  it('a spin about the intermediate axis with a 1 % perturbation flips within 20 % of the time Euler\'s equations give', async () => {
    const w0: [number, number, number] = [0.05, 5, 0];
    const expected = eulerFlipTime(w0);
    const w = await worldFrom(freeBox(SIZE, w0), backend);
    let flip = -1;
    await run(w, 600, (ww) => {
      if (flip < 0 && bodyOmega(ww)[1] < 0) flip = ww.time;
    });
    expect(expected).toBeGreaterThan(1.5);
    expect(expected).toBeLessThan(3);
    expect(Math.abs(flip - expected) / expected).toBeLessThan(0.2);
  });

  it.each([
    ['minor (long) axis', 0, [5, 0.05, 0.05]],
    ['major (short) axis', 2, [0.05, 0.05, 5]],
  ] as const)('a spin about the %s with a 1 %% perturbation stays about it for 5 s', async (_, axis, w0) => {
    const w = await worldFrom(freeBox(SIZE, [...w0]), backend);
    let worst = 0;
    await run(w, 500, (ww) => {
      const b = bodyOmega(ww);
      const off = Math.hypot(...b.filter((_x, k) => k !== axis)) / Math.abs(b[axis]!);
      worst = Math.max(worst, off);
    });
    // The perturbation precesses but does not grow (about 1.4 % of the spin at the start).
    expect(worst).toBeLessThan(0.03);
  });
});
