import { describe, expect, it } from 'vitest';
import * as det from '../../src/util/detmath.ts';

const buf = new Float64Array(1);
const bits = new BigInt64Array(buf.buffer);

/** Distance in units in the last place between two finite doubles of the same sign (0 if equal). */
function ulps(a: number, b: number): number {
  if (a === b) return 0;
  buf[0] = a;
  const x = bits[0]!;
  buf[0] = b;
  const d = x - bits[0]!;
  return Number(d < 0n ? -d : d);
}

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/**
 * The engine's own elementary functions are compared with the engine's Math
 * (which is within 1 ulp of the true value on V8): ours must be within 2 ulp of
 * the truth, so within 3 of Math, and almost always equal or one apart.
 */
describe('detmath: the same bits on every engine, as accurate as Math', () => {
  const cases: Array<[string, (x: number) => number, (x: number) => number, (r: () => number) => number]> = [
    ['sin on [-1, 1]', det.sin, Math.sin, (r) => 2 * r() - 1],
    ['sin on [-100, 100]', det.sin, Math.sin, (r) => 200 * r() - 100],
    ['sin on [-1e5, 1e5]', det.sin, Math.sin, (r) => 2e5 * r() - 1e5],
    ['cos on [-1, 1]', det.cos, Math.cos, (r) => 2 * r() - 1],
    ['cos on [-100, 100]', det.cos, Math.cos, (r) => 200 * r() - 100],
    ['sin of tiny angles', det.sin, Math.sin, (r) => (r() - 0.5) * 1e-9],
    ['atan', det.atan, Math.atan, (r) => Math.tan((r() - 0.5) * 3.14)],
    ['acos', det.acos, Math.acos, (r) => 2 * r() - 1],
    ['acos near 1', det.acos, Math.acos, (r) => 1 - r() * 1e-7],
    ['asin', det.asin, Math.asin, (r) => 2 * r() - 1],
    ['expm1 on [-2, 2]', det.expm1, Math.expm1, (r) => 4 * r() - 2],
    ['expm1 of tiny arguments', det.expm1, Math.expm1, (r) => (r() - 0.5) * 1e-9],
    ['expm1 on [-700, 700]', det.expm1, Math.expm1, (r) => 1400 * r() - 700],
    ['log on [0.5, 2]', det.log, Math.log, (r) => 0.5 + 1.5 * r()],
    ['log over 600 binades', det.log, Math.log, (r) => 2 ** (600 * r() - 300) * (1 + r())],
    ['log1p of small arguments', det.log1p, Math.log1p, (r) => (r() - 0.5) * 1e-6],
    ['log1p on [-0.9, 10]', det.log1p, Math.log1p, (r) => 10.9 * r() - 0.9],
    ['asinh on [-3, 3]', det.asinh, Math.asinh, (r) => 6 * r() - 3],
    ['asinh over 100 binades', det.asinh, Math.asinh, (r) => (r() < 0.5 ? -1 : 1) * 2 ** (100 * r() - 50)],
  ];
  for (const [name, f, g, arg] of cases) {
    it(`${name}: within 3 ulp of Math, and equal or 1 ulp apart for 95 % of arguments`, () => {
      const r = rng(12345);
      let worst = 0;
      let close = 0;
      const n = 200_000;
      for (let i = 0; i < n; i++) {
        const x = arg(r);
        const u = ulps(f(x), g(x));
        if (u > worst) worst = u;
        if (u <= 1) close++;
      }
      expect(worst).toBeLessThanOrEqual(3);
      expect(close / n).toBeGreaterThan(0.95);
    });
  }

  it('atan2 within 3 ulp of Math over all four quadrants and spans of scale', () => {
    const r = rng(777);
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const y = (r() - 0.5) * 10 ** (6 * r() - 3);
      const x = (r() - 0.5) * 10 ** (6 * r() - 3);
      worst = Math.max(worst, ulps(det.atan2(y, x), Math.atan2(y, x)));
    }
    expect(worst).toBeLessThanOrEqual(3);
  });

  it('the special values ECMAScript gives Math: signed zeros, infinities, NaN', () => {
    const pairs = [0, -0, 1, -1, Infinity, -Infinity, NaN, 1e300, -1e-300];
    for (const y of pairs) for (const x of pairs) expect(Object.is(det.atan2(y, x), Math.atan2(y, x)), `atan2(${y}, ${x})`).toBe(true);
    for (const x of [0, -0, Infinity, -Infinity, NaN]) {
      expect(Object.is(det.sin(x), Math.sin(x)), `sin(${x})`).toBe(true);
      expect(Object.is(det.cos(x), Math.cos(x)), `cos(${x})`).toBe(true);
      expect(Object.is(det.atan(x), Math.atan(x)), `atan(${x})`).toBe(true);
      expect(Object.is(det.expm1(x), Math.expm1(x)), `expm1(${x})`).toBe(true);
    }
    for (const x of [1, -1, 0, -0, 1 + 2 ** -52, -1 - 2 ** -52, NaN]) {
      expect(Object.is(det.acos(x), Math.acos(x)), `acos(${x})`).toBe(true);
      expect(Object.is(det.asin(x), Math.asin(x)), `asin(${x})`).toBe(true);
    }
    expect(det.expm1(709.78)).toBe(Math.expm1(709.78));
    expect(det.expm1(710)).toBe(Infinity);
    expect(det.expm1(-800)).toBe(-1);
    for (const x of [0, -0, -1, 1, Infinity, -Infinity, NaN]) expect(Object.is(det.log(x), Math.log(x)), `log(${x})`).toBe(true);
    for (const x of [0, -0, Infinity, -Infinity, NaN]) expect(Object.is(det.asinh(x), Math.asinh(x)), `asinh(${x})`).toBe(true);
    for (const x of [0, -0, -1, -2, Infinity, NaN]) expect(Object.is(det.log1p(x), Math.log1p(x)), `log1p(${x})`).toBe(true);
    // Subnormals and the largest double.
    for (const x of [5e-324, 1e-310, 1.7976931348623157e308]) expect(Math.abs(det.log(x) / Math.log(x) - 1)).toBeLessThan(1e-15);
  });

  it('sin and cos of huge arguments stay in [-1, 1] with sin^2 + cos^2 = 1', () => {
    for (const x of [1e6, -3.3e9, 1e15, 1.7e308]) {
      const s = det.sin(x), c = det.cos(x);
      expect(Math.abs(s)).toBeLessThanOrEqual(1);
      expect(s * s + c * c).toBeCloseTo(1, 14);
    }
  });

  it('the reduction keeps its quarter turns: sin and cos at multiples of pi/2 and pi/6', () => {
    for (let k = -40; k <= 40; k++) {
      const x = (k * Math.PI) / 2;
      expect(Math.abs(det.sin(x) - [0, 1, 0, -1][((k % 4) + 4) % 4]!)).toBeLessThan(1e-15 * (1 + Math.abs(k)));
      expect(Math.abs(det.cos(x) - [1, 0, -1, 0][((k % 4) + 4) % 4]!)).toBeLessThan(1e-15 * (1 + Math.abs(k)));
    }
    expect(ulps(det.sin(Math.PI / 6), 0.5)).toBeLessThanOrEqual(1);
    expect(ulps(det.cos(Math.PI / 3), 0.5)).toBeLessThanOrEqual(1);
    expect(ulps(det.atan(1), Math.PI / 4)).toBeLessThanOrEqual(1);
    expect(ulps(det.atan(Math.sqrt(3)), Math.PI / 3)).toBeLessThanOrEqual(1);
  });
});

describe('the simulation calls no engine-dependent Math function', () => {
  it('src/ outside the app, CLI and benchmark code uses detmath for sin, cos, atan2, acos, expm1, ...', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const root = join(__dirname, '..', '..', 'src');
    // Left to the engine's last bit by ECMAScript (only + - * /, sqrt, %, and exact results such as
    // 2 ** k are fixed): a call of any of these in simulation code makes the app and Node disagree.
    const banned = /\bMath\.(sin|cos|tan|asin|acos|atan|atan2|exp|expm1|log|log1p|log10|pow|cbrt|sinh|cosh|tanh|asinh|acosh|atanh)\(|[\w)\]!] \*\* (?!\d)/;
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir)) {
        const p = join(dir, e);
        if (statSync(p).isDirectory()) {
          if (!['app', 'cli', 'bench'].includes(e)) walk(p);
        } else if (p.endsWith('.ts') && !p.endsWith('detmath.ts')) {
          readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
            if (banned.test(line.replace(/\b2 \*\* /g, '')) && !/^\s*(\*|\/\/)/.test(line)) found.push(`${p.slice(root.length + 1)}:${i + 1}: ${line.trim()}`);
          });
        }
      }
    };
    walk(root);
    expect(found).toEqual([]);
  });
});
