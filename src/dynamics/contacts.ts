/**
 * Contact points of the current candidate pairs, stored flat and grouped by
 * pair (points of pair k are [start[k], start[k + 1])), deepest first within a
 * pair. Body 1 owns the sample point, body 2's distance field was hit, and the
 * normal points out of body 2 (ALGORITHM.md 5).
 */
import { grown } from '../util/growable.ts';

export class ContactSet {
  count = 0;
  pairCount = 0;
  start = new Int32Array(2);
  b1 = new Int32Array(64);
  b2 = new Int32Array(64);
  /** World point (3 per contact), on body 1's surface at the predicted pose. */
  p = new Float64Array(192);
  /** World unit normal (3 per contact). */
  n = new Float64Array(192);
  phi = new Float64Array(64);

  beginPairs(pairCount: number): void {
    this.pairCount = pairCount;
    this.count = 0;
    if (this.start.length < pairCount + 1) this.start = new Int32Array(2 * pairCount + 2);
  }

  /** Marks the start of pair k; call for k = 0, 1, ... in order, then endPairs(). */
  openPair(k: number): void {
    this.start[k] = this.count;
  }

  endPairs(): void {
    this.start[this.pairCount] = this.count;
  }

  push(b1: number, b2: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number): void {
    if (this.count === this.b1.length) this.grow();
    const i = this.count++;
    this.b1[i] = b1;
    this.b2[i] = b2;
    this.p[3 * i] = px;
    this.p[3 * i + 1] = py;
    this.p[3 * i + 2] = pz;
    this.n[3 * i] = nx;
    this.n[3 * i + 1] = ny;
    this.n[3 * i + 2] = nz;
    this.phi[i] = phi;
  }

  /** Copies contact i of another set (a cached pair) onto the end of this one. */
  copyFrom(o: ContactSet, i: number): void {
    this.push(o.b1[i]!, o.b2[i]!, o.p[3 * i]!, o.p[3 * i + 1]!, o.p[3 * i + 2]!, o.n[3 * i]!, o.n[3 * i + 1]!, o.n[3 * i + 2]!, o.phi[i]!);
  }

  /** Sorts the contacts of pair k deepest first (insertion sort: segments are short). */
  sortPair(k: number): void {
    const s = this.start[k]!;
    const e = this.count;
    for (let i = s + 1; i < e; i++) {
      if (this.phi[i]! >= this.phi[i - 1]!) continue;
      let j = i;
      while (j > s && this.phi[j]! < this.phi[j - 1]!) {
        this.swap(j, j - 1);
        j--;
      }
    }
  }

  private swap(i: number, j: number): void {
    let t = this.b1[i]!;
    this.b1[i] = this.b1[j]!;
    this.b1[j] = t;
    t = this.b2[i]!;
    this.b2[i] = this.b2[j]!;
    this.b2[j] = t;
    for (let k = 0; k < 3; k++) {
      let u = this.p[3 * i + k]!;
      this.p[3 * i + k] = this.p[3 * j + k]!;
      this.p[3 * j + k] = u;
      u = this.n[3 * i + k]!;
      this.n[3 * i + k] = this.n[3 * j + k]!;
      this.n[3 * j + k] = u;
    }
    const f = this.phi[i]!;
    this.phi[i] = this.phi[j]!;
    this.phi[j] = f;
  }

  private grow(): void {
    const c = this.b1.length * 2;
    this.b1 = grown(this.b1, c);
    this.b2 = grown(this.b2, c);
    this.p = grown(this.p, 3 * c);
    this.n = grown(this.n, 3 * c);
    this.phi = grown(this.phi, c);
  }
}

/**
 * The shift from where a contact was found (at the predicted poses) to where
 * it is stored, into out[0..2]: minus the mean predicted displacement of its
 * two bodies. Impulses act on the current velocities with lever arms about
 * the current centres; moving the point back this way gives both bodies their
 * impulse at the same point, which conserves linear and angular momentum
 * exactly (arms about the predicted centres would not, by dt (v1 - v2) x J
 * per impulse).
 */
export function contactShift(predPos: Float64Array, pos: Float64Array, a: number, b: number, out: Float64Array): void {
  out[0] = -0.5 * (predPos[3 * a]! - pos[3 * a]! + predPos[3 * b]! - pos[3 * b]!);
  out[1] = -0.5 * (predPos[3 * a + 1]! - pos[3 * a + 1]! + predPos[3 * b + 1]! - pos[3 * b + 1]!);
  out[2] = -0.5 * (predPos[3 * a + 2]! - pos[3 * a + 2]! + predPos[3 * b + 2]! - pos[3 * b + 2]!);
}
