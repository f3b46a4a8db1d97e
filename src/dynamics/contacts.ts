/**
 * Contact points of the current candidate pairs, grouped by pair: the points
 * of pair k are [start[k], end[k]), in the order of the pair's cached samples
 * (not sorted: the solvers pick the deepest themselves). Body 1 owns the
 * sample point, body 2's distance field was hit, and the normal points out of
 * body 2 (docs/ALGORITHM.md 5). A pair lists its penetrating points and also
 * the samples just outside (phi up to a band above 0), which a contact patch
 * takes in for its centroid (patches.ts).
 *
 * Each pair owns a *slot*: the narrow phase re-evaluates one pair at a time,
 * lazily, when one of its bodies moved (narrowphase.ts), so a pair's points
 * are rewritten in place while they fit its slot and moved to the end of the
 * arrays when they outgrow it; clear() starts over with each new pair list.
 * `stamp[k]` changes whenever pair k's points are rewritten, so what is
 * derived from them (patches) knows when to derive again.
 */
import { clearColumns, growColumns } from '../util/growable.ts';

/** A pair's slot (zeroed by clear) and its stamp (kept). */
const SLOT_COLUMNS = { start: 1, end: 1, cap: 1 } as const;
const STAMP_COLUMNS = { stamp: 1 } as const;
/** A contact point. */
const POINT_COLUMNS = { b1: 1, b2: 1, p: 3, n: 3, phi: 1, gap: 1, pred: 1, now: 1, sample: 1, area: 1 } as const;

export class ContactSet {
  /** Points stored, slots and their spare room included (the end of the used arrays). */
  count = 0;
  pairCount = 0;
  start = new Int32Array(2);
  end = new Int32Array(2);
  /** Points pair k's slot holds. */
  cap = new Int32Array(2);
  /** Bumped whenever pair k's points are rewritten. */
  stamp = new Uint32Array(2);
  b1 = new Int32Array(64);
  b2 = new Int32Array(64);
  /** World point (3 per contact), on body 1's surface at the predicted pose, moved back by contactShift. */
  p = new Float64Array(192);
  /** World unit normal (3 per contact). */
  n = new Float64Array(192);
  phi = new Float64Array(64);
  /** The point's signed distance at the current poses (first order, as phi), where phi is at the predicted ones. */
  gap = new Float64Array(64);
  /** The point's signed distance at the predicted poses (equal to phi where points are made there). */
  pred = new Float64Array(64);
  /** 1 where the point (and its normal and phi) is at the current poses, 0 at the predicted ones. */
  now = new Uint8Array(64);
  /** The sample of body 1's shape the point is. */
  sample = new Int32Array(64);
  /** The surface area the sample stands for (samples.ts sampleAreas). */
  area = new Float64Array(64);
  private writing = -1;
  private writeAt = 0;
  private written = 0;
  private inPlace = false;
  private stamps = 0;

  /** Empties every slot, for `pairCount` pairs (a new pair list). */
  clear(pairCount: number): void {
    this.pairCount = pairCount;
    this.count = 0;
    clearColumns(this, SLOT_COLUMNS, pairCount);
    growColumns(this, STAMP_COLUMNS, pairCount);
  }

  /** Starts rewriting pair k's points; push() them, then close(). */
  open(k: number): void {
    this.writing = k;
    this.written = 0;
    this.inPlace = this.cap[k]! > 0;
    this.writeAt = this.inPlace ? this.start[k]! : this.count;
  }

  push(b1: number, b2: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number, gap: number, sample: number, area: number, pred = phi, now = 0): void {
    const v = this.staged;
    v[0] = px; v[1] = py; v[2] = pz;
    v[3] = nx; v[4] = ny; v[5] = nz;
    v[6] = phi; v[7] = gap; v[8] = pred; v[9] = area;
    this.pushStaged(b1, b2, sample, now);
  }

  /**
   * A point's floating-point fields for pushStaged: p xyz, n xyz, phi, gap,
   * pred, area. The narrow phase fills it rather than calling push(): where
   * the optimiser does not inline a call, every floating-point argument is a
   * heap allocation, and this runs for every point of every evaluation.
   */
  readonly staged = new Float64Array(10);

  /** push() with its floating-point fields in `staged`. */
  pushStaged(b1: number, b2: number, sample: number, now: number): void {
    let i = this.writeAt + this.written;
    if (this.inPlace && this.written === this.cap[this.writing]!) {
      // The slot is full: carry what was written to the end and go on there.
      this.relocate();
      i = this.writeAt + this.written;
    } else if (!this.inPlace && i >= this.b1.length) {
      growColumns(this, POINT_COLUMNS, 2 * (i + 1));
    }
    const v = this.staged;
    this.b1[i] = b1;
    this.b2[i] = b2;
    this.p[3 * i] = v[0]!;
    this.p[3 * i + 1] = v[1]!;
    this.p[3 * i + 2] = v[2]!;
    this.n[3 * i] = v[3]!;
    this.n[3 * i + 1] = v[4]!;
    this.n[3 * i + 2] = v[5]!;
    this.phi[i] = v[6]!;
    this.gap[i] = v[7]!;
    this.pred[i] = v[8]!;
    this.now[i] = now;
    this.sample[i] = sample;
    this.area[i] = v[9]!;
    this.written++;
  }

  /** Ends the rewrite open() started. */
  close(): void {
    const k = this.writing;
    this.start[k] = this.writeAt;
    this.end[k] = this.writeAt + this.written;
    if (!this.inPlace) {
      // A new slot at the end, with room to grow a little in place.
      const cap = this.written === 0 ? 0 : this.written + (this.written >> 1) + 2;
      this.cap[k] = cap;
      this.count = this.writeAt + cap;
      if (this.count > this.b1.length) growColumns(this, POINT_COLUMNS, this.count);
    }
    this.stamp[k] = ++this.stamps;
    this.writing = -1;
  }

  /**
   * The deepest point of pair k (the first of equal depths) with phi below
   * `below` (0: penetrating ones only), or -1 if it has none.
   */
  deepest(k: number, below = 0): number {
    let best = -1;
    let bestPhi = below;
    for (let i = this.start[k]!; i < this.end[k]!; i++) {
      if (this.phi[i]! < bestPhi) {
        bestPhi = this.phi[i]!;
        best = i;
      }
    }
    return best;
  }

  private relocate(): void {
    const from = this.writeAt, n = this.written;
    const to = this.count;
    if (to + n + 1 > this.b1.length) growColumns(this, POINT_COLUMNS, 2 * (to + n + 1));
    this.b1.copyWithin(to, from, from + n);
    this.b2.copyWithin(to, from, from + n);
    this.p.copyWithin(3 * to, 3 * from, 3 * (from + n));
    this.n.copyWithin(3 * to, 3 * from, 3 * (from + n));
    this.phi.copyWithin(to, from, from + n);
    this.gap.copyWithin(to, from, from + n);
    this.pred.copyWithin(to, from, from + n);
    this.now.copyWithin(to, from, from + n);
    this.sample.copyWithin(to, from, from + n);
    this.area.copyWithin(to, from, from + n);
    this.cap[this.writing] = 0;
    this.writeAt = to;
    this.inPlace = false;
  }
}

/**
 * The shift from where a contact was found (at the predicted poses) to where
 * it is stored, into out[0..2]: minus the predicted displacement of its two
 * bodies, weighted by their inverse masses, w_a d_a + w_b d_b with
 * w = m^-1 / (m_a^-1 + m_b^-1).
 *
 * Impulses act on the current velocities with lever arms about the current
 * centres, and both bodies get their impulse at this one point, so linear and
 * angular momentum are conserved exactly (arms about the two predicted
 * centres would not be, by dt (v1 - v2) x J per impulse). The weights put the
 * point where it belongs on the body that moves: against a static body (or a
 * much heavier one) the point moves back with the moving body alone, so a
 * rolling ball's contact stays under its centre. The plain mean of the two
 * displacements put it dt v / 2 ahead, and the normal impulse then braked
 * every roll like a rolling resistance of v dt / (2 r).
 */
export function contactShift(predPos: Float64Array, pos: Float64Array, invMass: Float64Array, a: number, b: number, out: Float64Array): void {
  const ma = invMass[a]!, mb = invMass[b]!;
  const sum = ma + mb;
  const wa = sum > 0 ? ma / sum : 0.5, wb = sum > 0 ? mb / sum : 0.5;
  out[0] = -(wa * (predPos[3 * a]! - pos[3 * a]!) + wb * (predPos[3 * b]! - pos[3 * b]!));
  out[1] = -(wa * (predPos[3 * a + 1]! - pos[3 * a + 1]!) + wb * (predPos[3 * b + 1]! - pos[3 * b + 1]!));
  out[2] = -(wa * (predPos[3 * a + 2]! - pos[3 * a + 2]!) + wb * (predPos[3 * b + 2]! - pos[3 * b + 2]!));
}
