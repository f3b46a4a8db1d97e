import { describe, expect, it } from 'vitest';
import { specialisedCopy } from '../../src/util/specialise.ts';

/** A self-contained factory: a closure summing a scaled array. */
function sumLoops(a: Float64Array): (k: number) => number {
  return (k: number): number => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += k * a[i]!;
    return s;
  };
}

const outside = 3;
/** A factory that reads a module variable: its copy cannot see it. */
function leakyLoops(a: Float64Array): (k: number) => number {
  return (k: number): number => k * a[0]! * outside;
}

describe('specialisedCopy', () => {
  const agrees = (f: typeof sumLoops) => (copy: typeof sumLoops) =>
    Object.is(copy(new Float64Array([0.1, 0.2, 0.3]))(1.7), f(new Float64Array([0.1, 0.2, 0.3]))(1.7));

  it('compiles a new function per call that gives the factory numbers', () => {
    const a = specialisedCopy(sumLoops, agrees(sumLoops));
    const b = specialisedCopy(sumLoops, agrees(sumLoops));
    expect(a).not.toBe(sumLoops);
    expect(a).not.toBe(b);
    const x = Float64Array.from({ length: 100 }, (_, i) => Math.sin(i));
    expect(Object.is(a(x)(0.3), sumLoops(x)(0.3))).toBe(true);
  });

  it('falls back to the factory itself when a copy cannot stand alone', () => {
    const f = specialisedCopy(leakyLoops, agrees(leakyLoops as typeof sumLoops) as (c: typeof leakyLoops) => boolean);
    expect(f).toBe(leakyLoops);
    expect(f(new Float64Array([2]))(0.5)).toBe(3);
  });

  it('falls back when the check says the numbers differ', () => {
    const f = specialisedCopy(function twice(a: Float64Array) { return (k: number) => 2 * k * a.length; }, () => false);
    expect(f(new Float64Array(3))(1)).toBe(6);
    expect(f.name).toBe('twice');
  });
});
