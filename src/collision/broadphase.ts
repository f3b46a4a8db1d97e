/**
 * Broad phase: sweep and prune on x over world boxes (ALGORITHM.md 4.3 "pairs
 * whose predicted bounding boxes overlap"). The sorted order is kept between
 * calls and re-sorted by insertion sort, which is near linear when bodies move
 * a little per step; the sweep itself is O(n + pairs) for piles that are not
 * all stacked on one x.
 */
export class SweepAndPrune {
  /** Body indices sorted by min x. */
  private order = new Int32Array(0);
  private n = 0;
  /** Output: candidate pairs (a, b) with a < b, 2 per pair. */
  pairs = new Int32Array(256);
  pairCount = 0;

  /**
   * @param min,max world boxes (3 per body)
   * @param skip bodies to leave out (e.g. planes, handled analytically)
   * @param bothStatic true if the pair must be ignored (both static, or joined)
   */
  update(
    n: number,
    min: Float64Array,
    max: Float64Array,
    skip: Uint8Array,
    ignore: (a: number, b: number) => boolean,
  ): void {
    if (n !== this.n) {
      this.order = new Int32Array(n);
      for (let i = 0; i < n; i++) this.order[i] = i;
      this.n = n;
    }
    const order = this.order;
    // Insertion sort by min x (stable, adaptive).
    for (let i = 1; i < n; i++) {
      const b = order[i]!;
      const key = min[3 * b]!;
      let j = i - 1;
      while (j >= 0 && min[3 * order[j]!]! > key) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = b;
    }
    this.pairCount = 0;
    for (let i = 0; i < n; i++) {
      const a = order[i]!;
      if (skip[a]) continue;
      const axMax = max[3 * a]!;
      const ayMin = min[3 * a + 1]!, ayMax = max[3 * a + 1]!;
      const azMin = min[3 * a + 2]!, azMax = max[3 * a + 2]!;
      for (let j = i + 1; j < n; j++) {
        const b = order[j]!;
        if (min[3 * b]! > axMax) break;
        if (skip[b]) continue;
        if (min[3 * b + 1]! > ayMax || max[3 * b + 1]! < ayMin) continue;
        if (min[3 * b + 2]! > azMax || max[3 * b + 2]! < azMin) continue;
        const lo = a < b ? a : b;
        const hi = a < b ? b : a;
        if (ignore(lo, hi)) continue;
        this.push(lo, hi);
      }
    }
  }

  private push(a: number, b: number): void {
    if (2 * this.pairCount + 2 > this.pairs.length) {
      const p = new Int32Array(this.pairs.length * 2);
      p.set(this.pairs);
      this.pairs = p;
    }
    this.pairs[2 * this.pairCount] = a;
    this.pairs[2 * this.pairCount + 1] = b;
    this.pairCount++;
  }
}
