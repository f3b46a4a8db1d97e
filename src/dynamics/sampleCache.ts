/**
 * The narrow phase's sample cache: the samples a penetration query returned
 * for each pair (flat, a pair's samples one contiguous range), each with the
 * value, normal and position in the other body's frame it was found at; their
 * order within a range (sorted by that value, so an evaluation stops at the
 * first sample too far out to matter), and the evaluation of one cached
 * sample at a later relative pose, to first order from the query.
 */
import { growColumns } from '../util/growable.ts';
import { sortIndicesByKey } from '../util/sort.ts';
import type { RelPose } from './relPose.ts';

/** A cached sample's columns. */
const SAMPLE_COLUMNS = { side: 1, sample: 1, phi0: 1, n0: 3, p0: 3 } as const;

/** Cached samples, flat: the samples of one pair are a contiguous range. */
export class SampleCache {
  count = 0;
  /** 0: a sample of the pair's body a in b's frame; 1: of b in a's frame. */
  side = new Uint8Array(256);
  sample = new Int32Array(256);
  phi0 = new Float64Array(256);
  /** Normal (grad phi) in the other body's frame at the query (first-order evaluation of swept pairs). */
  n0 = new Float64Array(768);
  /** The sample's position in the other body's frame at the query. */
  p0 = new Float64Array(768);

  clear(): void {
    this.count = 0;
  }

  /**
   * Room for `n` more samples: the index the first of them goes to. The
   * caller writes the columns and then sets `count` past them. (For loops
   * that write thousands of samples a step: push's floating-point arguments
   * are heap numbers wherever the optimiser leaves it a call.)
   */
  reserve(n: number): number {
    const at = this.count;
    if (at + n > this.side.length) this.grow(Math.max(2 * this.side.length, at + n));
    return at;
  }

  push(side: number, sample: number, phi: number, nx: number, ny: number, nz: number, px: number, py: number, pz: number): void {
    const i = this.count++;
    if (i === this.side.length) this.grow(2 * i);
    this.side[i] = side;
    this.sample[i] = sample;
    this.phi0[i] = phi;
    this.n0[3 * i] = nx; this.n0[3 * i + 1] = ny; this.n0[3 * i + 2] = nz;
    this.p0[3 * i] = px; this.p0[3 * i + 1] = py; this.p0[3 * i + 2] = pz;
  }

  /**
   * Sample i (its local point at pts[4 * sample[i]..], a point of the pair's
   * body a when side[i] is 0) at relative pose `pose`: its position in the
   * other body's frame to out[0..2], and its value there to out[3], first
   * order from the query,
   *
   *   phi = phi0 + n0 . (p - p0),
   *
   * or exact for a plane (its normal n0 in its own frame: phi = n0 . p).
   * (No floating-point arguments or result: where the optimiser does not
   * inline a call, each one is a heap allocation.)
   */
  evaluate(i: number, pts: Float32Array, pose: RelPose, plane: boolean, out: Float64Array): void {
    const ps = 4 * this.sample[i]!;
    const lx = pts[ps]!, ly = pts[ps + 1]!, lz = pts[ps + 2]!;
    const R = pose.R;
    let gx: number, gy: number, gz: number;
    if (this.side[i] === 0) {
      gx = R[0]! * lx + R[1]! * ly + R[2]! * lz + pose.tx;
      gy = R[3]! * lx + R[4]! * ly + R[5]! * lz + pose.ty;
      gz = R[6]! * lx + R[7]! * ly + R[8]! * lz + pose.tz;
    } else {
      gx = R[0]! * lx + R[3]! * ly + R[6]! * lz + pose.ux;
      gy = R[1]! * lx + R[4]! * ly + R[7]! * lz + pose.uy;
      gz = R[2]! * lx + R[5]! * ly + R[8]! * lz + pose.uz;
    }
    out[0] = gx; out[1] = gy; out[2] = gz;
    const o3 = 3 * i, n = this.n0;
    out[3] = plane ? n[o3]! * gx + n[o3 + 1]! * gy + n[o3 + 2]! * gz
      : this.phi0[i]! + n[o3]! * (gx - this.p0[o3]!) + n[o3 + 1]! * (gy - this.p0[o3 + 1]!) + n[o3 + 2]! * (gz - this.p0[o3 + 2]!);
  }

  /**
   * Orders samples [start, end) so evaluation can stop at the first sample
   * too far out to matter (NarrowPhase.evaluatePair): those with phi0 <=
   * `cutoff` first, sorted by phi0 (stable), then the rest in the order
   * they came. An evaluation's stop never exceeds the cutoff while the
   * cache is kept (sortCutoff), so it never reaches the unsorted rest: in a
   * ring pile's landing most of a margin's samples lie beyond it, and
   * sorting them was a tenth of the step.
   */
  sortRange(start: number, end: number, cutoff: number): void {
    const n = end - start;
    if (n < 2) return;
    if (this.perm.length < n) {
      this.perm = new Int32Array(2 * n);
      this.permTmp = new Int32Array(2 * n);
    }
    const perm = this.perm, phi = this.phi0;
    let m = 0;
    for (let i = start; i < end; i++) if (phi[i]! <= cutoff) perm[m++] = i;
    if (m < n) for (let i = start, r = m; i < end; i++) if (!(phi[i]! <= cutoff)) perm[r++] = i;
    sortIndicesByKey(perm, m, phi, this.permTmp);
    let sorted = true;
    for (let i = 0; i < n && sorted; i++) if (perm[i] !== start + i) sorted = false;
    if (sorted) return;
    // Apply the permutation through scratch copies of the range.
    const t = this.tmp;
    if (t.side.length < n) t.grow(2 * n);
    t.side.set(this.side.subarray(start, end));
    t.sample.set(this.sample.subarray(start, end));
    t.phi0.set(this.phi0.subarray(start, end));
    t.n0.set(this.n0.subarray(3 * start, 3 * end));
    t.p0.set(this.p0.subarray(3 * start, 3 * end));
    for (let i = 0; i < n; i++) {
      const j = perm[i]! - start, d = start + i;
      this.side[d] = t.side[j]!;
      this.sample[d] = t.sample[j]!;
      this.phi0[d] = t.phi0[j]!;
      for (let c = 0; c < 3; c++) {
        this.n0[3 * d + c] = t.n0[3 * j + c]!;
        this.p0[3 * d + c] = t.p0[3 * j + c]!;
      }
    }
  }

  private perm = new Int32Array(0);
  private permTmp = new Int32Array(0);
  private static scratch: SampleCache | null = null;
  private get tmp(): SampleCache {
    return (SampleCache.scratch ??= new SampleCache());
  }

  copyRange(from: SampleCache, start: number, n: number): void {
    const at = this.count;
    if (at + n > this.side.length) this.grow(2 * (at + n));
    this.side.set(from.side.subarray(start, start + n), at);
    this.sample.set(from.sample.subarray(start, start + n), at);
    this.phi0.set(from.phi0.subarray(start, start + n), at);
    this.n0.set(from.n0.subarray(3 * start, 3 * (start + n)), 3 * at);
    this.p0.set(from.p0.subarray(3 * start, 3 * (start + n)), 3 * at);
    this.count += n;
  }

  grow(n: number): void {
    growColumns(this, SAMPLE_COLUMNS, n);
  }

  /** Room for n samples in all (only grows; the rows held are kept). */
  reserveTotal(n: number): void {
    if (n > this.side.length) this.grow(n);
  }
}
