/**
 * A stable sort of an index permutation by a Float64 key, for the narrow
 * phase's sample cache (narrowphase.ts SampleCache.sortRange). The same
 * order as `perm.sort((x, y) => key[x] - key[y] || x - y)` on a permutation
 * that starts ascending (ties keep their order), without calling a
 * comparator function per comparison: in a ring pile's landing that
 * comparator sort was a sixth of the step.
 *
 * Runs of RUN elements are insertion-sorted in place, then merged bottom up,
 * ping-ponging between `perm` and `tmp` (both at least n long).
 */
const RUN = 16;

export function sortIndicesByKey(perm: Int32Array, n: number, key: Float64Array, tmp: Int32Array): void {
  if (n < 2) return;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const v = perm[i]!;
      const kv = key[v]!;
      let j = i - 1;
      // Strictly greater only: equal keys keep their order (stable).
      while (j >= lo && key[perm[j]!]! > kv) {
        perm[j + 1] = perm[j]!;
        j--;
      }
      perm[j + 1] = v;
    }
  }
  if (n <= RUN) return;
  let src = perm, dst = tmp;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n), hi = Math.min(lo + 2 * width, n);
      let i = lo, j = mid, o = lo;
      if (mid >= hi || !(key[src[mid]!]! < key[src[mid - 1]!]!)) {
        // Already in order (or nothing to merge with): copy the run.
        while (i < hi) dst[o++] = src[i++]!;
        continue;
      }
      while (i < mid && j < hi) {
        // Take from the right only when strictly smaller (stable).
        if (key[src[j]!]! < key[src[i]!]!) dst[o++] = src[j++]!;
        else dst[o++] = src[i++]!;
      }
      while (i < mid) dst[o++] = src[i++]!;
      while (j < hi) dst[o++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== perm) perm.set(src.subarray(0, n));
}
