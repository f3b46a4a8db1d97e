/**
 * The exact lever integral behind a flat patch's spin radius (patches.ts
 * apexTriangleLever): the integral of the distance from a point over a
 * polygon, summed edge by edge, against closed forms.
 */
import { describe, expect, it } from 'vitest';
import { apexTriangleLever } from '../../src/dynamics/patches.ts';

/** The integral of |x - c| over a polygon (corners in order), by its edges. */
function polygonMoment(corners: [number, number][], c: [number, number]): number {
  let s = 0;
  for (let k = 0; k < corners.length; k++) {
    const [ax, ay] = corners[k]!, [bx, by] = corners[(k + 1) % corners.length]!;
    s += apexTriangleLever(ax - c[0], ay - c[1], bx - c[0], by - c[1]);
  }
  return Math.abs(s);
}

describe('the spin lever of a flat face', () => {
  it('a square of side a about its centre: a^3 (sqrt 2 + ln(1 + sqrt 2)) / 6, a mean distance of 0.3826 a', () => {
    const a = 0.5;
    const sq: [number, number][] = [[-a / 2, -a / 2], [a / 2, -a / 2], [a / 2, a / 2], [-a / 2, a / 2]];
    const exact = (a ** 3 / 6) * (Math.SQRT2 + Math.log(1 + Math.SQRT2));
    expect(polygonMoment(sq, [0, 0]) / exact - 1).toBeCloseTo(0, 12);
    // Clockwise corners give the same magnitude.
    expect(polygonMoment([...sq].reverse(), [0, 0]) / exact - 1).toBeCloseTo(0, 12);
  });

  it('a square about one of its corners: a^3 (sqrt 2 + ln(1 + sqrt 2)) / 3 (a point on an edge line adds nothing for that edge)', () => {
    const sq: [number, number][] = [[0, 0], [1, 0], [1, 1], [0, 1]];
    expect(polygonMoment(sq, [0, 0])).toBeCloseTo((Math.SQRT2 + Math.log(1 + Math.SQRT2)) / 3, 12);
  });

  it('a regular 256-gon of radius R about its centre tends to the disc, 2 pi R^3 / 3 (mean 2R/3)', () => {
    const n = 256, R = 0.5;
    const poly: [number, number][] = Array.from({ length: n }, (_, k) => [R * Math.cos((2 * Math.PI * k) / n), R * Math.sin((2 * Math.PI * k) / n)]);
    expect(Math.abs(polygonMoment(poly, [0, 0]) / ((2 * Math.PI * R ** 3) / 3) - 1)).toBeLessThan(1e-3);
  });

  it('a point outside the polygon: the signed edge terms cancel to the integral over it (a unit square seen from (3, 0.5))', () => {
    // Midpoint rule on a fine grid as the reference.
    const sq: [number, number][] = [[0, 0], [1, 0], [1, 1], [0, 1]];
    const m = 400;
    let ref = 0;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) ref += Math.hypot((i + 0.5) / m - 3, (j + 0.5) / m - 0.5) / (m * m);
    expect(polygonMoment(sq, [3, 0.5]) / ref - 1).toBeCloseTo(0, 6);
  });
});
