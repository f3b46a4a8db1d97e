/**
 * A stable sort of an index permutation by a Float64 key, for the narrow
 * phase's sample cache (narrowphase.ts SampleCache.sortRange). The same
 * order as `perm.sort((x, y) => key[x] - key[y] || x - y)` on a permutation
 * that starts ascending (ties keep their order), without calling a
 * comparator function per comparison: in a ring pile's landing that
 * comparator sort was a sixth of the step.
 *
 * Up to BUCKET_MIN indices: runs of RUN elements insertion-sorted in place,
 * then merged bottom up, ping-ponging between `perm` and `tmp` (both at
 * least n long). Beyond: a stable counting pass into n / 2 buckets of equal
 * key width, then each bucket sorted on its own (insertion, or the merge
 * sort for a crowded one). A sample cache's keys (the samples' distances
 * within a margin) spread evenly, so most buckets hold a few indices: on the
 * landing of 50 bunnies (about 400 cached samples a pair) the merge sort
 * alone was a tenth of the step.
 */
const RUN = 16;

export function sortIndicesByKey(perm: Int32Array, n: number, key: Float64Array, tmp: Int32Array): void {
  if (n < 2) return;
  if (n > BUCKET_MIN && bucketSort(perm, n, key, tmp)) return;
  mergeSort(perm, n, key, tmp);
}

/** Indices above which sortIndicesByKey buckets them first. */
const BUCKET_MIN = 64;
/** A bucket with more indices than this is merge sorted rather than insertion sorted. */
const BUCKET_INSERTION_MAX = 24;
let bucketCount = new Int32Array(0);

/** The bucketed sort (see sortIndicesByKey); false (nothing done) when a key is not finite. */
function bucketSort(perm: Int32Array, n: number, key: Float64Array, tmp: Int32Array): boolean {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = key[perm[i]!]!;
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return false;
  if (lo === hi) return true;
  const B = n >> 1;
  if (bucketCount.length < B + 1) bucketCount = new Int32Array(2 * B + 1);
  const count = bucketCount;
  count.fill(0, 0, B + 1);
  const scale = B / (hi - lo);
  // Bucket of key k: floor((k - lo) * scale), the largest key in the last.
  for (let i = 0; i < n; i++) {
    const b = Math.min(B - 1, Math.floor((key[perm[i]!]! - lo) * scale));
    count[b + 1]!++;
  }
  for (let b = 0; b < B; b++) count[b + 1]! += count[b]!;
  // Stable scatter into tmp (count[b] advances through bucket b).
  for (let i = 0; i < n; i++) {
    const v = perm[i]!;
    const b = Math.min(B - 1, Math.floor((key[v]! - lo) * scale));
    tmp[count[b]!++] = v;
  }
  // count[b] is now where bucket b ends: back into perm, each bucket sorted
  // in place (a crowded one through views of its range; a view is an object).
  for (let i = 0; i < n; i++) perm[i] = tmp[i]!;
  let start = 0;
  for (let b = 0; b < B; b++) {
    const end = count[b]!;
    const m = end - start;
    if (m > BUCKET_INSERTION_MAX) mergeSort(perm.subarray(start, end), m, key, tmp.subarray(start, end));
    else insertionSort(perm, start, end, key);
    start = end;
  }
  return true;
}

/**
 * Sorts perm[lo, hi) in place by key[perm[i]], stably (insertion: for the
 * short runs and sparse buckets of the sorts here and in cpuKernel.ts).
 */
export function insertionSort(perm: Int32Array, lo: number, hi: number, key: Float64Array | Uint32Array): void {
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

/** The merge sort (runs of RUN insertion-sorted, then merged bottom up). */
function mergeSort(perm: Int32Array, n: number, key: Float64Array, tmp: Int32Array): void {
  for (let lo = 0; lo < n; lo += RUN) insertionSort(perm, lo, Math.min(lo + RUN, n), key);
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
