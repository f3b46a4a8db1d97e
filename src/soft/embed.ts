/**
 * Finding points inside a deformed soft body: which of its tetrahedra
 * (SoftModel.tets) holds a point, and where, in barycentric coordinates.
 * With them a point of the deformed body maps back to the rest shape,
 * X = sum_k w_k X_k, where the shape's own SDF says how deep it is
 * (docs/soft-bodies.md, "Rigid and soft points inside soft bodies").
 *
 * A uniform grid over the tetrahedra's boxes at the current positions,
 * rebuilt whenever the body has moved (once per step), optionally only
 * around the points to be located: cells about one
 * lattice spacing wide, each listing the tetrahedra whose padded box touches
 * it, in compressed rows (counts, prefix sums, fill), so a rebuild allocates
 * nothing once warm. Each tetrahedron keeps the inverse of its edge matrix
 * [x1 - x0, x2 - x0, x3 - x0], so a candidate costs one 3x3 product.
 *
 * The snapped lattice is a chordal approximation of a curved surface (the
 * drawn surface is embedded in it the same way, lattice.ts): a point just
 * outside every tetrahedron but inside the shape is still the body's. So a
 * point takes the tetrahedron whose smallest barycentric coordinate is
 * largest, and is accepted when that coordinate is at least -tolerance
 * (OUTSIDE_TOLERANCE by default; the weights then extrapolate a little); the
 * rest SDF decides whether it is really inside.
 */
import { grown } from '../util/growable.ts';

/** Smallest barycentric coordinate a point may have and still be located (extrapolation past a face). */
export const OUTSIDE_TOLERANCE = 0.35;

export class TetLocator {
  /** Tetrahedra, 4 global particle indices each. */
  private tets = new Uint32Array(0);
  private tetCount = 0;
  /** Per tetrahedron: x0 (3) and the inverse edge matrix (9, row-major): lambda = inv (p - x0). */
  private frame = new Float64Array(0);
  /** 1 where the tetrahedron is degenerate at the current positions (never a candidate). */
  private flat = new Uint8Array(0);
  private origin = [0, 0, 0];
  private cell = 1;
  private dims = [1, 1, 1];
  /** Whether the grid was cut to 256 cells on some axis (index() then files every tetrahedron). */
  private clamped = false;
  private start = new Uint32Array(2);
  private items = new Uint32Array(0);
  private fill = new Uint32Array(0);
  readonly min = new Float64Array(3);
  readonly max = new Float64Array(3);
  /** Scratch: a tetrahedron's cell range. */
  private readonly lo = new Int32Array(3);
  private readonly hi = new Int32Array(3);

  /**
   * Rebuilds over `tets` (local indices, offset by `offset` into x) at
   * positions x; `cell` is the grid's cell size (about the lattice spacing),
   * `pad` how far outside a tetrahedron's box a point may lie and still find it.
   */
  build(localTets: Uint32Array, offset: number, x: Float64Array, cell: number, pad: number): void {
    this.bound(localTets, offset, x, cell, pad);
    this.index(x, pad, null);
  }

  /**
   * The first half of build(): takes the tetrahedra and their bounds (min,
   * max) at x and lays out the grid, indexing nothing yet. Call index() before
   * locate().
   */
  bound(localTets: Uint32Array, offset: number, x: Float64Array, cell: number, pad: number): void {
    const n = localTets.length / 4;
    this.tetCount = n;
    this.tets = grown(this.tets, 4 * n);
    this.frame = grown(this.frame, 12 * n);
    this.flat = grown(this.flat, n);
    const min = this.min, max = this.max;
    min.fill(Infinity);
    max.fill(-Infinity);
    if (n === 0) return;
    for (let t = 0; t < n; t++) {
      for (let c = 0; c < 4; c++) {
        const g = localTets[4 * t + c]! + offset;
        this.tets[4 * t + c] = g;
        for (let k = 0; k < 3; k++) {
          const v = x[3 * g + k]!;
          if (v < min[k]!) min[k] = v;
          if (v > max[k]!) max[k] = v;
        }
      }
    }
    this.cell = cell;
    this.clamped = false;
    for (let k = 0; k < 3; k++) {
      this.origin[k] = min[k]! - pad;
      const want = Math.ceil((max[k]! - min[k]! + 2 * pad) / cell);
      if (want > 256) this.clamped = true;
      this.dims[k] = Math.max(1, Math.min(256, want));
    }
  }

  /**
   * The second half of build(): inverts and files the tetrahedra whose padded
   * box comes within a cell of `region` (min xyz, max xyz), or all of them
   * when region is null. locate() then answers every point inside the region
   * exactly as a full index would: a tetrahedron filed in a point's cell has
   * its padded box within a cell of the point. (A grid clamped to 256 cells
   * an axis files edge tetrahedra into cells far from them, so it indexes all.)
   */
  index(x: Float64Array, pad: number, region: ArrayLike<number> | null): void {
    const n = this.tetCount;
    if (n === 0) return;
    const cell = this.cell;
    const all = region === null || this.clamped;
    const lo = this.lo, hi = this.hi;
    const cells = this.dims[0]! * this.dims[1]! * this.dims[2]!;
    this.start = grown(this.start, cells + 1);
    this.start.fill(0, 0, cells + 1);
    this.fill = grown(this.fill, cells);
    // Which tetrahedra to file (flat = 0): the non-degenerate ones near the region.
    for (let t = 0; t < n; t++) {
      let near = true;
      if (!all) {
        for (let k = 0; k < 3 && near; k++) {
          let a = Infinity, b = -Infinity;
          for (let c = 0; c < 4; c++) {
            const v = x[3 * this.tets[4 * t + c]! + k]!;
            if (v < a) a = v;
            if (v > b) b = v;
          }
          near = b + pad >= region![k]! - cell && a - pad <= region![k + 3]! + cell;
        }
      }
      this.flat[t] = near && invertTet(x, this.tets, t, this.frame, 12 * t) ? 0 : 1;
    }
    // Two passes over the filed tetrahedra's padded boxes: count, then fill.
    for (let pass = 0; pass < 2; pass++) {
      for (let t = 0; t < n; t++) {
        if (this.flat[t]) continue;
        for (let k = 0; k < 3; k++) {
          let a = Infinity, b = -Infinity;
          for (let c = 0; c < 4; c++) {
            const v = x[3 * this.tets[4 * t + c]! + k]!;
            if (v < a) a = v;
            if (v > b) b = v;
          }
          lo[k] = this.clampCell(k, a - pad);
          hi[k] = this.clampCell(k, b + pad);
        }
        for (let i = lo[0]!; i <= hi[0]!; i++) {
          for (let j = lo[1]!; j <= hi[1]!; j++) {
            for (let l = lo[2]!; l <= hi[2]!; l++) {
              const c = i + this.dims[0]! * (j + this.dims[1]! * l);
              if (pass === 0) this.start[c + 1]!++;
              else this.items[this.fill[c]!++] = t;
            }
          }
        }
      }
      if (pass === 0) {
        for (let c = 0; c < cells; c++) this.start[c + 1]! += this.start[c]!;
        this.items = grown(this.items, this.start[cells]!);
        this.fill.set(this.start.subarray(0, cells));
      }
    }
  }

  private clampCell(k: number, v: number): number {
    return Math.max(0, Math.min(this.dims[k]! - 1, Math.floor((v - this.origin[k]!) / this.cell)));
  }

  /**
   * The tetrahedron holding (px, py, pz) (see the file comment), its index
   * into the tetrahedra given to build(), with its barycentric weights in
   * w[0..3]; -1 when there is none within the tolerance.
   */
  locate(px: number, py: number, pz: number, w: Float64Array, tolerance = OUTSIDE_TOLERANCE): number {
    if (this.tetCount === 0) return -1;
    const o = this.origin, d = this.dims, h = this.cell;
    const ci = Math.floor((px - o[0]!) / h), cj = Math.floor((py - o[1]!) / h), ck = Math.floor((pz - o[2]!) / h);
    if (ci < 0 || ci >= d[0]! || cj < 0 || cj >= d[1]! || ck < 0 || ck >= d[2]!) return -1;
    const cellIndex = ci + d[0]! * (cj + d[1]! * ck);
    let best = -1, bestScore = -tolerance;
    let b1 = 0, b2 = 0, b3 = 0;
    const f = this.frame;
    for (let s = this.start[cellIndex]!; s < this.start[cellIndex + 1]!; s++) {
      const t = this.items[s]!;
      const o = 12 * t;
      const qx = px - f[o]!, qy = py - f[o + 1]!, qz = pz - f[o + 2]!;
      const l1 = f[o + 3]! * qx + f[o + 4]! * qy + f[o + 5]! * qz;
      const l2 = f[o + 6]! * qx + f[o + 7]! * qy + f[o + 8]! * qz;
      const l3 = f[o + 9]! * qx + f[o + 10]! * qy + f[o + 11]! * qz;
      const score = Math.min(1 - l1 - l2 - l3, l1, l2, l3);
      if (score > bestScore) {
        bestScore = score;
        best = t;
        b1 = l1;
        b2 = l2;
        b3 = l3;
      }
    }
    if (best < 0) return -1;
    w[0] = 1 - b1 - b2 - b3;
    w[1] = b1;
    w[2] = b2;
    w[3] = b3;
    return best;
  }

  /** Global particle index of corner c of tetrahedron t. */
  corner(t: number, c: number): number {
    return this.tets[4 * t + c]!;
  }
}

/**
 * Writes x0 and the inverse of [x1 - x0, x2 - x0, x3 - x0] (columns) of
 * tetrahedron t into out[o..o+11]; false when it is degenerate (its volume
 * is below 1e-12 of its edge length cubed).
 */
export function invertTet(x: Float64Array, tets: ArrayLike<number>, t: number, out: Float64Array, o: number): boolean {
  const a = 3 * tets[4 * t]!, b = 3 * tets[4 * t + 1]!, c = 3 * tets[4 * t + 2]!, d = 3 * tets[4 * t + 3]!;
  const ax = x[a]!, ay = x[a + 1]!, az = x[a + 2]!;
  out[o] = ax;
  out[o + 1] = ay;
  out[o + 2] = az;
  return invert3(x[b]! - ax, x[c]! - ax, x[d]! - ax, x[b + 1]! - ay, x[c + 1]! - ay, x[d + 1]! - ay, x[b + 2]! - az, x[c + 2]! - az, x[d + 2]! - az, out, o + 3);
}

/**
 * Inverse of the row-major 3x3 matrix [[a, b, c], [d, e, f], [g, h, i]] into
 * out[o..o+8] (row-major); false (out untouched) when it is near singular.
 */
export function invert3(a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, out: Float64Array, o: number): boolean {
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const scale = Math.max(Math.abs(a), Math.abs(b), Math.abs(c), Math.abs(d), Math.abs(e), Math.abs(f), Math.abs(g), Math.abs(h), Math.abs(i));
  if (!(Math.abs(det) > 1e-12 * scale * scale * scale)) return false;
  const r = 1 / det;
  out[o] = A * r;
  out[o + 1] = (c * h - b * i) * r;
  out[o + 2] = (b * f - c * e) * r;
  out[o + 3] = B * r;
  out[o + 4] = (a * i - c * g) * r;
  out[o + 5] = (c * d - a * f) * r;
  out[o + 6] = C * r;
  out[o + 7] = (b * g - a * h) * r;
  out[o + 8] = (a * e - b * d) * r;
  return true;
}
