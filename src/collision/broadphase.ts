/**
 * Broad phase: sweep and prune over world boxes (docs/ALGORITHM.md 4.3 "pairs
 * whose predicted bounding boxes overlap"), along the axis on which the box
 * centres spread most. Sweeping always along x made a tower (every box at the
 * same x) test every pair; the axis of largest variance keeps a tower, a
 * wall and a flat pile all near linear: O(n + pairs + boxes that overlap
 * along the sweep axis without overlapping in 3D).
 *
 * The sorted order is kept between calls and repaired by insertion sort,
 * which is near linear when bodies move a little per step; the axis changes
 * only when another one spreads clearly more (hysteresis), and then the order
 * is sorted afresh. The pairs come out in canonical order (by lower index,
 * then higher), so what follows does not depend on the sweep axis or on the
 * bodies' order along it.
 */
import { grown } from '../util/growable.ts';

export class SweepAndPrune {
  /** Body indices sorted by their box minimum along `axis`. */
  private order = new Int32Array(0);
  private n = 0;
  /** Current sweep axis (0 x, 1 y, 2 z). */
  axis = 0;
  /** Output: candidate pairs (a, b) with a < b, 2 per pair. */
  pairs = new Int32Array(256);
  pairCount = 0;
  /** Box-against-box tests of the last update (for tests and profiles). */
  tests = 0;
  private keys = new Float64Array(0);
  private readonly sums = new Float64Array(3);
  private readonly sums2 = new Float64Array(3);

  /**
   * @param min,max world boxes (3 per body)
   * @param skip bodies to leave out (e.g. planes, handled analytically)
   * @param ignore true if the pair (a < b) must be ignored (both static, or joined)
   */
  update(
    n: number,
    min: Float64Array,
    max: Float64Array,
    skip: Uint8Array,
    ignore: (a: number, b: number) => boolean,
  ): void {
    const newAxis = this.chooseAxis(n, min, max, skip);
    const resort = newAxis || n !== this.n;
    if (n !== this.n) {
      this.order = new Int32Array(n);
      this.n = n;
    }
    const order = this.order;
    const ax = this.axis;
    if (resort) {
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((a, b) => min[3 * a + ax]! - min[3 * b + ax]! || a - b);
    } else {
      // Insertion sort by min along the axis (stable, adaptive).
      for (let i = 1; i < n; i++) {
        const b = order[i]!;
        const key = min[3 * b + ax]!;
        let j = i - 1;
        while (j >= 0 && min[3 * order[j]! + ax]! > key) {
          order[j + 1] = order[j]!;
          j--;
        }
        order[j + 1] = b;
      }
    }
    const o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
    this.pairCount = 0;
    let tests = 0;
    for (let i = 0; i < n; i++) {
      const a = order[i]!;
      if (skip[a]) continue;
      const aMax = max[3 * a + ax]!;
      const a1Min = min[3 * a + o1]!, a1Max = max[3 * a + o1]!;
      const a2Min = min[3 * a + o2]!, a2Max = max[3 * a + o2]!;
      for (let j = i + 1; j < n; j++) {
        const b = order[j]!;
        if (min[3 * b + ax]! > aMax) break;
        if (skip[b]) continue;
        tests++;
        if (min[3 * b + o1]! > a1Max || max[3 * b + o1]! < a1Min) continue;
        if (min[3 * b + o2]! > a2Max || max[3 * b + o2]! < a2Min) continue;
        const lo = a < b ? a : b;
        const hi = a < b ? b : a;
        if (ignore(lo, hi)) continue;
        this.push(lo, hi);
      }
    }
    this.tests = tests;
    this.canonicalOrder(n);
  }

  /** Picks the axis of largest centre variance; true if it changed. */
  private chooseAxis(n: number, min: Float64Array, max: Float64Array, skip: Uint8Array): boolean {
    let m = 0;
    const s = this.sums, ss = this.sums2;
    s.fill(0);
    ss.fill(0);
    for (let i = 0; i < n; i++) {
      if (skip[i]) continue;
      m++;
      for (let k = 0; k < 3; k++) {
        const c = 0.5 * (min[3 * i + k]! + max[3 * i + k]!);
        s[k] += c;
        ss[k] += c * c;
      }
    }
    if (m < 2) return false;
    let best = this.axis;
    const mb = s[best]! / m;
    let bestVar = ss[best]! / m - mb * mb;
    for (let k = 0; k < 3; k++) {
      const mk = s[k]! / m;
      const v = ss[k]! / m - mk * mk;
      // Hysteresis: a pile whose spreads are about equal must not flip axes every step.
      if (v > 1.5 * bestVar) {
        best = k;
        bestVar = v;
      }
    }
    if (best === this.axis) return false;
    this.axis = best;
    return true;
  }

  /** Sorts the pairs by (a, b). */
  private canonicalOrder(n: number): void {
    const c = this.pairCount;
    if (this.keys.length < c) this.keys = new Float64Array(2 * c);
    const keys = this.keys.subarray(0, c);
    const p = this.pairs;
    for (let k = 0; k < c; k++) keys[k] = p[2 * k]! * n + p[2 * k + 1]!;
    keys.sort();
    for (let k = 0; k < c; k++) {
      const key = keys[k]!;
      const a = Math.floor(key / n);
      p[2 * k] = a;
      p[2 * k + 1] = key - a * n;
    }
  }

  private push(a: number, b: number): void {
    this.pairs = grown(this.pairs, 2 * this.pairCount + 2);
    this.pairs[2 * this.pairCount] = a;
    this.pairs[2 * this.pairCount + 1] = b;
    this.pairCount++;
  }
}
