/**
 * Contact points of the current candidate pairs, stored flat and grouped by
 * pair (points of pair k are [start[k], start[k + 1])), in the order of the
 * pair's cached samples (not sorted: the solvers pick the deepest themselves).
 * Body 1 owns the sample point, body 2's distance field was hit, and the
 * normal points out of body 2 (docs/ALGORITHM.md 5). A pair lists its penetrating
 * points and also the samples just outside (phi up to a band above 0), which
 * a contact patch takes in for its centroid (patches.ts).
 */
import { grown } from '../util/growable.ts';

export class ContactSet {
  count = 0;
  pairCount = 0;
  start = new Int32Array(2);
  b1 = new Int32Array(64);
  b2 = new Int32Array(64);
  /** World point (3 per contact), on body 1's surface at the predicted pose, moved back by contactShift. */
  p = new Float64Array(192);
  /** World unit normal (3 per contact). */
  n = new Float64Array(192);
  phi = new Float64Array(64);
  /** The sample of body 1's shape the point is. */
  sample = new Int32Array(64);
  /** The surface area the sample stands for (samples.ts sampleAreas). */
  area = new Float64Array(64);


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

  push(b1: number, b2: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number, sample: number, area: number): void {
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
    this.sample[i] = sample;
    this.area[i] = area;
  }

  /**
   * The deepest point of pair k (the first of equal depths) with phi below
   * `below` (0: penetrating ones only), or -1 if it has none.
   */
  deepest(k: number, below = 0): number {
    let best = -1;
    let bestPhi = below;
    for (let i = this.start[k]!; i < this.start[k + 1]!; i++) {
      if (this.phi[i]! < bestPhi) {
        bestPhi = this.phi[i]!;
        best = i;
      }
    }
    return best;
  }

  private grow(): void {
    const c = this.b1.length * 2;
    this.b1 = grown(this.b1, c);
    this.b2 = grown(this.b2, c);
    this.p = grown(this.p, 3 * c);
    this.n = grown(this.n, 3 * c);
    this.phi = grown(this.phi, c);
    this.sample = grown(this.sample, c);
    this.area = grown(this.area, c);
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
