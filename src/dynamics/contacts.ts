/**
 * Contact points of the current candidate pairs, stored flat and grouped by
 * pair (points of pair k are [start[k], start[k + 1])), deepest first within a
 * pair. Body 1 owns the sample point, body 2's distance field was hit, and the
 * normal points out of body 2 (ALGORITHM.md 5).
 */
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
    const g32 = (a: Int32Array) => {
      const b = new Int32Array(c);
      b.set(a);
      return b;
    };
    const g64 = (a: Float64Array, k: number) => {
      const b = new Float64Array(c * k);
      b.set(a);
      return b;
    };
    this.b1 = g32(this.b1);
    this.b2 = g32(this.b2);
    this.p = g64(this.p, 3);
    this.n = g64(this.n, 3);
    this.phi = g64(this.phi, 1);
  }
}
