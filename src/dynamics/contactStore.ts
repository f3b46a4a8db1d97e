/**
 * The contact store: each contact point's accumulated impulses, kept from
 * one step to the next for the warm start of the contact solvers that
 * accumulate (the accumulated stage, accumulatedSolver.ts, and projected
 * Gauss-Seidel, pgs.ts).
 *
 * A point is identified by what already identifies it, never by where it
 * lies: its body pair (a, b) as the pair list orders it (a < b) and a key
 * the solver makes from the point's side and sample (contactKey). Samples
 * are fixed points of their body, so the same key is the same material
 * point from step to step. An entry holds the normal impulse, the friction
 * impulse as a world vector (a new tangent basis reads it by projection),
 * and a byte of flags the solver defines.
 *
 * Entries are sorted by pair, then key. The next step's pair list, sorted
 * the same way, is matched to them in one merge (index: each pair's range of
 * entries), and a point to its entry by a binary search in its pair's range
 * (find). A new point has no entry and starts at zero.
 *
 * Writing: reserve(n), then set() entries grouped by pair with the pairs in
 * ascending order (a pair's entries in any order), then commit(count), which
 * sorts each pair's run by key.
 */
import { growColumns } from '../util/growable.ts';
import { sortIndicesByKey } from '../util/sort.ts';
import type { ContactSet } from './contacts.ts';
import type { PairList } from './pairs.ts';

/** Floats of an entry's impulse: the normal impulse, then the friction impulse as a world vector. */
export const STORE_IMPULSE = 4;

const ENTRY_COLUMNS = { a: 1, b: 1, key: 1, imp: STORE_IMPULSE, flags: 1 } as const;
const PAIR_COLUMNS = { pairStart: 1, pairEnd: 1 } as const;

/**
 * The key of point i of a contact set within its pair, whose first body is
 * `a`: which side's sample it is (a's, or the other body's) and the sample.
 */
export function contactKey(cs: ContactSet, a: number, i: number): number {
  return (cs.b1[i] === a ? 0 : 1) * 4294967296 + cs.sample[i]!;
}

export class ContactStore {
  /** Entries kept. */
  count = 0;
  /** The pair's bodies, as the pair list orders them. */
  a = new Int32Array(0);
  b = new Int32Array(0);
  /** The point's key within its pair (contactKey). */
  key = new Float64Array(0);
  /** STORE_IMPULSE floats an entry. */
  imp = new Float64Array(0);
  /** The solver's own bits for the entry. */
  flags = new Uint8Array(0);
  /** After index(): pair k of the list has entries [pairStart[k], pairEnd[k]). */
  pairStart = new Int32Array(0);
  pairEnd = new Int32Array(0);

  /** Forgets every entry (bodies added or removed: their indices changed meaning). */
  reset(): void {
    this.count = 0;
  }

  /** Finds each pair's range of entries: one merge of two lists sorted by (a, b). */
  index(pairs: PairList): void {
    const np = pairs.count;
    if (this.pairStart.length < np) growColumns(this, PAIR_COLUMNS, 2 * np + 16);
    const A = this.a, B = this.b, n = this.count;
    let i = 0;
    for (let k = 0; k < np; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      while (i < n && (A[i]! < a || (A[i] === a && B[i]! < b))) i++;
      this.pairStart[k] = i;
      while (i < n && A[i] === a && B[i] === b) i++;
      this.pairEnd[k] = i;
    }
  }

  /** Whether pair k (of the list index() last saw) has entries. */
  has(k: number): boolean {
    return this.pairStart[k] !== this.pairEnd[k];
  }

  /** Pair k's entry with this key, or -1 (a binary search in the pair's sorted range). */
  find(k: number, key: number): number {
    let lo = this.pairStart[k]!, hi = this.pairEnd[k]! - 1;
    const K = this.key;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = K[mid]!;
      if (v === key) return mid;
      if (v < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Room for n entries, before they are written. The entries kept so far
   * stay readable until then, so a solver writes its new ones only after it
   * has read the old.
   */
  reserve(n: number): void {
    if (this.a.length < n) growColumns(this, ENTRY_COLUMNS, 2 * n + 16);
  }

  /** Writes entry `at`: pair (a, b), key, normal impulse, friction impulse (world), flags. */
  set(at: number, a: number, b: number, key: number, ln: number, fx: number, fy: number, fz: number, flags: number): void {
    this.a[at] = a;
    this.b[at] = b;
    this.key[at] = key;
    const o = STORE_IMPULSE * at;
    this.imp[o] = ln;
    this.imp[o + 1] = fx;
    this.imp[o + 2] = fy;
    this.imp[o + 3] = fz;
    this.flags[at] = flags;
  }

  /** Writes entry `at` as a copy of `src`'s entry e (src may be this store, with e >= at). */
  copyFrom(at: number, src: ContactStore, e: number): void {
    const o = STORE_IMPULSE * e, I = src.imp;
    this.set(at, src.a[e]!, src.b[e]!, src.key[e]!, I[o]!, I[o + 1]!, I[o + 2]!, I[o + 3]!, src.flags[e]!);
  }

  /** Ends a write of `count` entries: each pair's run sorted by key. */
  commit(count: number): void {
    const A = this.a, B = this.b;
    let x = 0;
    while (x < count) {
      let y = x + 1;
      while (y < count && A[y] === A[x] && B[y] === B[x]) y++;
      if (y - x > 1) this.sortRun(x, y);
      x = y;
    }
    this.count = count;
  }

  /**
   * Sorts entries [from, to) by key, stably: a run of up to INSERTION_MAX
   * entries (the accumulated stage's few manifold points) by insertion in
   * place, a longer one (PGS keeps a row per contact point: two rings
   * touching hold hundreds, in patch order) through a sorted permutation,
   * whose order is the same. By insertion alone, the store's sort was a
   * sixteenth of a 200-ring pile's step under PGS.
   */
  private sortRun(from: number, to: number): void {
    if (to - from > INSERTION_MAX) {
      this.sortLongRun(from, to);
      return;
    }
    const A = this.a, B = this.b, K = this.key, I = this.imp, F = this.flags;
    for (let x = from + 1; x < to; x++) {
      const ka = A[x]!, kb = B[x]!, kk = K[x]!, kf = F[x]!;
      const i0 = I[4 * x]!, i1 = I[4 * x + 1]!, i2 = I[4 * x + 2]!, i3 = I[4 * x + 3]!;
      let y = x - 1;
      while (y >= from && K[y]! > kk) {
        A[y + 1] = A[y]!; B[y + 1] = B[y]!; K[y + 1] = K[y]!; F[y + 1] = F[y]!;
        for (let c = 0; c < 4; c++) I[4 * (y + 1) + c] = I[4 * y + c]!;
        y--;
      }
      A[y + 1] = ka; B[y + 1] = kb; K[y + 1] = kk; F[y + 1] = kf;
      I[4 * (y + 1)] = i0; I[4 * (y + 1) + 1] = i1; I[4 * (y + 1) + 2] = i2; I[4 * (y + 1) + 3] = i3;
    }
  }

  /** sortRun for a long run (one pair's entries: a and b are the same throughout, so only key, impulse and flags move). */
  private sortLongRun(from: number, to: number): void {
    const K = this.key, n = to - from;
    let sorted = true;
    for (let x = from + 1; x < to && sorted; x++) if (K[x - 1]! > K[x]!) sorted = false;
    if (sorted) return;
    if (this.perm.length < n) {
      this.perm = new Int32Array(2 * n);
      this.permTmp = new Int32Array(2 * n);
      this.keyTmp = new Float64Array(2 * n);
      this.impTmp = new Float64Array(2 * STORE_IMPULSE * n);
      this.flagsTmp = new Uint8Array(2 * n);
    }
    const perm = this.perm, I = this.imp, F = this.flags, kt = this.keyTmp, it = this.impTmp, ft = this.flagsTmp;
    for (let j = 0; j < n; j++) perm[j] = from + j;
    sortIndicesByKey(perm, n, K, this.permTmp);
    for (let j = 0; j < n; j++) {
      const x = from + j;
      kt[j] = K[x]!; ft[j] = F[x]!;
      for (let c = 0; c < STORE_IMPULSE; c++) it[STORE_IMPULSE * j + c] = I[STORE_IMPULSE * x + c]!;
    }
    for (let j = 0; j < n; j++) {
      const x = from + j, src = perm[j]! - from;
      K[x] = kt[src]!; F[x] = ft[src]!;
      for (let c = 0; c < STORE_IMPULSE; c++) I[STORE_IMPULSE * x + c] = it[STORE_IMPULSE * src + c]!;
    }
  }

  /** Scratch of sortLongRun. */
  private perm = new Int32Array(0);
  private permTmp = new Int32Array(0);
  private keyTmp = new Float64Array(0);
  private impTmp = new Float64Array(0);
  private flagsTmp = new Uint8Array(0);
}

/** Runs of a pair's entries up to this long are insertion sorted (sortRun). */
const INSERTION_MAX = 32;
