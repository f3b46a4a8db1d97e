import { describe, expect, it } from 'vitest';
import { contactKey, ContactStore, STORE_IMPULSE } from '../../src/dynamics/contactStore.ts';
import { ContactSet } from '../../src/dynamics/contacts.ts';
import { PairList } from '../../src/dynamics/pairs.ts';

/** A pair list of these (a, b) pairs, given in canonical order. */
function pairList(bodies: number, pairs: [number, number][]): PairList {
  const p = new PairList();
  p.begin(bodies);
  for (const [a, b] of pairs) p.add(a, b, 0);
  return p;
}

describe('contact store (PGS and the accumulated stage)', () => {
  it('finds each pair its entries by one merge and each point by its key; a pair or point it has not seen finds none', () => {
    const st = new ContactStore();
    // Two pairs' points, each pair's keys out of order, as a solver writes them.
    const written: [number, number, number, number][] = [
      [0, 3, 7, 1.5], [0, 3, 2, 2.5], [0, 3, 4294967296 + 1, 3.5],
      [2, 5, 9, 4.5], [2, 5, 0, 5.5],
    ];
    st.reserve(written.length);
    written.forEach(([a, b, key, ln], i) => st.set(i, a, b, key, ln, ln + 0.1, ln + 0.2, ln + 0.3, i % 3));
    st.commit(written.length);
    expect(Array.from(st.key.subarray(0, 5))).toEqual([2, 7, 4294967296 + 1, 0, 9]);

    // The next step's pairs: (0, 1) is new, (0, 3) and (2, 5) carried, (1, 2) new.
    const pairs = pairList(6, [[0, 1], [0, 3], [1, 2], [2, 5]]);
    st.index(pairs);
    expect([0, 1, 2, 3].map((k) => st.has(k))).toEqual([false, true, false, true]);
    for (const [a, b, key, ln] of written) {
      const k = a === 0 ? 1 : 3;
      expect(b).toBe(a === 0 ? 3 : 5);
      const o = st.find(k, key);
      expect(o).toBeGreaterThanOrEqual(0);
      expect(Array.from(st.imp.subarray(STORE_IMPULSE * o, STORE_IMPULSE * o + 4))).toEqual([ln, ln + 0.1, ln + 0.2, ln + 0.3]);
      // Flags travel with their entry through the sort.
      expect(st.flags[o]).toBe(written.findIndex((w) => w[2] === key && w[0] === a) % 3);
    }
    expect(st.find(1, 3)).toBe(-1);
    expect(st.find(3, 7)).toBe(-1); // pair (0, 3)'s key, asked of pair (2, 5)
    expect(st.find(0, 2)).toBe(-1);
    expect(st.find(2, 0)).toBe(-1);

    st.reset();
    st.index(pairs);
    expect([0, 1, 2, 3].map((k) => st.has(k))).toEqual([false, false, false, false]);
  });

  it('sorts a pair of hundreds of points (PGS keeps a row each) as it sorts a few: by key, each entry whole', () => {
    // Three pairs: 3 points, 400 points in a scrambled order, 40 already in order.
    const runs: [number, number, number[]][] = [[0, 1, [5, 1, 3]], [0, 2, []], [1, 2, []]];
    for (let i = 0; i < 400; i++) runs[1]![2].push(((i * 7919) % 400) + (i % 2) * 4294967296);
    for (let i = 0; i < 40; i++) runs[2]![2].push(3 * i);
    const st = new ContactStore();
    const total = runs.reduce((n, r) => n + r[2].length, 0);
    st.reserve(total);
    let at = 0;
    for (const [a, b, keys] of runs) for (const key of keys) st.set(at++, a, b, key, key + 0.25, -key, key / 2, 1, key % 7);
    st.commit(total);
    let x = 0;
    for (const [a, b, keys] of runs) {
      const sorted = keys.slice().sort((p, q) => p - q);
      for (const key of sorted) {
        expect([st.a[x], st.b[x], st.key[x]]).toEqual([a, b, key]);
        expect(Array.from(st.imp.subarray(STORE_IMPULSE * x, STORE_IMPULSE * x + 4))).toEqual([key + 0.25, -key, key / 2, 1]);
        expect(st.flags[x]).toBe(key % 7);
        x++;
      }
    }
    expect(st.count).toBe(total);
  });

  it('keys a point by its side of the pair and its sample, whichever body the set lists first', () => {
    const cs = new ContactSet();
    // Pair (2, 5): sample 7 of body 2 (in 5's field), then sample 7 of body 5 (in 2's field).
    cs.clear(1);
    cs.open(0);
    cs.push(2, 5, 0, 0, 0, 0, 1, 0, -0.01, -0.01, 7, 1);
    cs.push(5, 2, 0, 0, 0, 0, -1, 0, -0.01, -0.01, 7, 1);
    cs.close();
    expect(cs.end[0]! - cs.start[0]!).toBe(2);
    const i = cs.start[0]!;
    expect(contactKey(cs, 2, i)).toBe(7);
    expect(contactKey(cs, 2, i + 1)).toBe(4294967296 + 7);
    expect(contactKey(cs, 5, i)).toBe(4294967296 + 7);
  });
});
