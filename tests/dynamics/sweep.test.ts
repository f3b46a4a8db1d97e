/**
 * The sweep's window (src/dynamics/sweep.ts): the stretch of a step's motion
 * in which two bodies can touch, and the poses spread over it.
 */
import { describe, expect, it } from 'vitest';
import { RelPose } from '../../src/dynamics/relPose.ts';
import { sweepFraction, sweepWindow } from '../../src/dynamics/sweep.ts';

/** A's origin at `a` in B's frame (B at the origin, neither turned). */
function at(a: [number, number, number]): RelPose {
  const p = new RelPose();
  p.set(new Float64Array([...a, 0, 0, 0]), new Float64Array([0, 0, 0, 1, 0, 0, 0, 1]), 0, 1);
  return p;
}
const BOX = new Float64Array([-0.1, -1, -1, 0.1, 1, 1]);

describe('sweep window', () => {
  it('is the stretch of a straight path within reach of the box', () => {
    const out = new Float64Array(2);
    // From x = -10 to x = 10: within 0.05 of [-0.1, 0.1] from x = -0.15 to 0.15.
    expect(sweepWindow(at([-10, 0, 0]), at([10, 0, 0]), BOX, 0.05, out)).toBe(true);
    expect(out[0]).toBeCloseTo(9.85 / 20, 12);
    expect(out[1]).toBeCloseTo(10.15 / 20, 12);
    // Starting inside, ending beyond: from 0.
    expect(sweepWindow(at([0, 0, 0]), at([4, 0, 0]), BOX, 0.05, out)).toBe(true);
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo(0.15 / 4, 12);
  });

  it('is empty for a path that passes beside the box or stops short of it', () => {
    const out = new Float64Array(2);
    expect(sweepWindow(at([-10, 1.2, 0]), at([10, 1.2, 0]), BOX, 0.05, out)).toBe(false);
    expect(sweepWindow(at([-10, 0, 0]), at([-5, 0, 0]), BOX, 0.05, out)).toBe(false);
    // Parallel to an axis and outside the box's slab along it.
    expect(sweepWindow(at([0.5, -10, 0]), at([0.5, 10, 0]), BOX, 0.05, out)).toBe(false);
  });

  it('spreads the poses over the window, the prediction last', () => {
    // Window [0.4, 0.6] with 4 poses in it, then the prediction: m = 5.
    const f = [1, 2, 3, 4, 5].map((j) => sweepFraction(0.4, 0.6, 0.05, 5, j));
    [0.45, 0.5, 0.55, 0.6, 1].forEach((x, j) => expect(f[j]).toBeCloseTo(x, 14));
    // A window that reaches the prediction ends on it: the whole step is j / m.
    expect([1, 2, 3, 4].map((j) => sweepFraction(0, 1, 0.25, 4, j))).toEqual([0.25, 0.5, 0.75, 1]);
  });

  it('keeps a long window\'s first poses one step apart and spreads the rest over what is left', () => {
    // Window [0.2, 0.9], poses 0.001 apart would take 700: 96 in it (32 + 64), then the prediction.
    const f = Array.from({ length: 97 }, (_, i) => sweepFraction(0.2, 0.9, 0.001, 97, i + 1));
    for (let j = 1; j <= 32; j++) expect(f[j - 1]).toBeCloseTo(0.2 + 0.001 * j, 14);
    // The other 64 evenly from 0.232 to the window's end (no farther apart than 64 over the whole window), then the prediction.
    for (let j = 33; j <= 96; j++) expect(f[j - 1]).toBeCloseTo(0.232 + ((0.9 - 0.232) * (j - 32)) / 64, 14);
    expect((0.9 - 0.232) / 64).toBeLessThan(0.7 / 64);
    expect(f[96]).toBe(1);
    for (let j = 1; j < 97; j++) expect(f[j]!).toBeGreaterThan(f[j - 1]!);
  });
});
