import { describe, expect, it } from 'vitest';
import { sortIndicesByKey } from '../../src/util/sort.ts';

/** The order the sample cache used before: the built-in sort with a comparator, ties by index. */
function reference(key: Float64Array, start: number, n: number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => start + i);
  return p.sort((x, y) => key[x]! - key[y]! || x - y);
}

describe('sortIndicesByKey', () => {
  it('gives the comparator sort order, ties by index, for every length and many ties', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (const n of [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000, 4099]) {
      for (const ties of [false, true]) {
        const start = 7;
        const key = new Float64Array(start + n + 3);
        // Keys from a few values (ties) or spread, negative and positive, some runs pre-sorted.
        for (let i = 0; i < key.length; i++) key[i] = ties ? Math.floor(rnd() * 5) - 2 : (rnd() - 0.5) * 1e-2;
        for (let i = start; i < start + Math.min(n, 40); i++) key[i] = i * 1e-3;
        const perm = new Int32Array(n + 5).fill(-1);
        for (let i = 0; i < n; i++) perm[i] = start + i;
        sortIndicesByKey(perm, n, key, new Int32Array(n + 5));
        expect(Array.from(perm.subarray(0, n))).toEqual(Array.from(reference(key, start, n)));
        // Nothing past n is touched.
        expect(Array.from(perm.subarray(n))).toEqual([-1, -1, -1, -1, -1]);
      }
    }
  });

  it('gives the same order when one far key crowds the rest into a few buckets', () => {
    let seed = 777;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (const n of [65, 200, 3000]) {
      const key = Float64Array.from({ length: n }, () => rnd() * 1e-3);
      key[n >> 1] = -1;
      for (let i = 0; i < n; i += 7) key[i] = key[(i * 13) % n]!;
      const perm = Int32Array.from({ length: n }, (_, i) => i);
      sortIndicesByKey(perm, n, key, new Int32Array(n));
      expect(Array.from(perm)).toEqual(Array.from(reference(key, 0, n)));
    }
  });

  it('leaves sorted input as it is', () => {
    const key = Float64Array.from({ length: 300 }, (_, i) => Math.floor(i / 3));
    const perm = Int32Array.from({ length: 300 }, (_, i) => i);
    sortIndicesByKey(perm, 300, key, new Int32Array(300));
    expect(Array.from(perm)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });
});
