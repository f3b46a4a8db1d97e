/**
 * Contact patches (not in the seed; README "One step"). A pair's points are
 * sorted deepest first; the deepest point not yet handled leads a *patch*:
 * every unhandled point of the pair at most PATCH_BAND cells shallower whose
 * normal agrees with the leader's (points found in the reverse direction
 * count with their roles and normal flipped). The solver applies one impulse
 * at the patch's centroid along its mean normal. A box landing on a corner
 * makes a one-point patch at the corner (the seed's deepest point); a box
 * resting flat makes one patch over its whole face, pushed through the face's
 * centre, so the rest state carries no spurious spin from whichever corner
 * came first.
 *
 * A patch whose points lie flat (within TORQUE_BAND cells of the leader's
 * depth) can also hold a torque (impulse.ts applyPatchTorque); its spread is
 * measured here.
 */
import type { ContactSet } from './contacts.ts';
import { tangentBasis } from './math.ts';

/** Depth band of a contact patch, in SDF cells. */
export const PATCH_BAND = 0.25;
/** Depth band, in cells, of the points that make a patch flat enough to hold a torque. */
export const TORQUE_BAND = 0.02;
/** Normals within ~25 degrees of the patch leader's join its patch. */
export const PATCH_COS = 0.9;

export class PatchBuilder {
  /** Per point of the current pair: already part of a patch. */
  handled = new Uint8Array(64);
  /** The last patch: centroid, unit normal, point count, whether it holds a torque. */
  px = 0;
  py = 0;
  pz = 0;
  nx = 0;
  ny = 0;
  nz = 0;
  count = 0;
  flat = false;
  /**
   * Spread of the last flat patch: sigma1 >= sigma2 and the tangent
   * directions e1, e2 (sigma1, sigma2, e1 xyz, e2 xyz), for applyPatchTorque.
   */
  readonly spread = new Float64Array(8);
  private readonly basis = new Float64Array(6);

  /** Starts a pair of `n` points (clears the handled flags). */
  beginPair(n: number): void {
    if (this.handled.length < n) this.handled = new Uint8Array(2 * n);
    this.handled.fill(0, 0, n);
  }

  /**
   * Builds the patch led by point i of the pair whose points are [s, e) in
   * `cs` (i unhandled, the deepest such), marking its points handled.
   * `cell` is the pair's SDF cell size.
   */
  build(cs: ContactSet, s: number, e: number, i: number, cell: number): void {
    const handled = this.handled;
    handled[i - s] = 1;
    const b1 = cs.b1[i]!;
    const lnx = cs.n[3 * i]!, lny = cs.n[3 * i + 1]!, lnz = cs.n[3 * i + 2]!;
    let px = cs.p[3 * i]!, py = cs.p[3 * i + 1]!, pz = cs.p[3 * i + 2]!;
    let nx = lnx, ny = lny, nz = lnz;
    let count = 1;
    const limit = cs.phi[i]! + PATCH_BAND * cell;
    for (let j = i + 1; j < e && cs.phi[j]! <= limit; j++) {
      if (handled[j - s]) continue;
      const sign = cs.b1[j] === b1 ? 1 : -1;
      const mx = sign * cs.n[3 * j]!, my = sign * cs.n[3 * j + 1]!, mz = sign * cs.n[3 * j + 2]!;
      if (mx * lnx + my * lny + mz * lnz < PATCH_COS) continue;
      handled[j - s] = 1;
      px += cs.p[3 * j]!;
      py += cs.p[3 * j + 1]!;
      pz += cs.p[3 * j + 2]!;
      nx += mx;
      ny += my;
      nz += mz;
      count++;
    }
    let flat = false;
    if (count > 1) {
      px /= count;
      py /= count;
      pz /= count;
      const l = Math.hypot(nx, ny, nz);
      nx /= l;
      ny /= l;
      nz /= l;
      flat = this.measureSpread(cs, i, e, b1, lnx, lny, lnz, cs.phi[i]! + TORQUE_BAND * cell, nx, ny, nz);
    }
    this.px = px; this.py = py; this.pz = pz;
    this.nx = nx; this.ny = ny; this.nz = nz;
    this.count = count;
    this.flat = flat;
  }

  /**
   * The spread of a flat patch: the points of the patch led by point i that
   * are within TORQUE_BAND cells of the leader's depth (a face lying flat on
   * a face: equal depths to rounding), as principal standard deviations
   * sigma1 >= sigma2 along tangent directions e1, e2 (into this.spread). A
   * single deepest point or a curved surface gives ~0 and no torque; an edge
   * gives sigma2 ~ 0, so it rolls freely about itself.
   */
  private measureSpread(cs: ContactSet, i: number, e: number, b1: number, lnx: number, lny: number, lnz: number, limit: number,
    nx: number, ny: number, nz: number): boolean {
    const t = this.basis;
    tangentBasis(nx, ny, nz, t);
    const t1x = t[0]!, t1y = t[1]!, t1z = t[2]!, t2x = t[3]!, t2y = t[4]!, t2z = t[5]!;
    let cnt = 0, su = 0, sv = 0, suu = 0, svv = 0, suv = 0;
    for (let j = i; j < e && cs.phi[j]! <= limit; j++) {
      if (j !== i) {
        const sign = cs.b1[j] === b1 ? 1 : -1;
        if (sign * (cs.n[3 * j]! * lnx + cs.n[3 * j + 1]! * lny + cs.n[3 * j + 2]! * lnz) < PATCH_COS) continue;
      }
      const px = cs.p[3 * j]!, py = cs.p[3 * j + 1]!, pz = cs.p[3 * j + 2]!;
      const u = px * t1x + py * t1y + pz * t1z, v = px * t2x + py * t2y + pz * t2z;
      cnt++; su += u; sv += v; suu += u * u; svv += v * v; suv += u * v;
    }
    if (cnt < 3) return false;
    const mu = su / cnt, mv = sv / cnt;
    const cuu = Math.max(0, suu / cnt - mu * mu), cvv = Math.max(0, svv / cnt - mv * mv), cuv = suv / cnt - mu * mv;
    // Eigen-decomposition of the 2x2 covariance.
    const tr = cuu + cvv, det = cuu * cvv - cuv * cuv;
    const disc = Math.sqrt(Math.max(0, 0.25 * tr * tr - det));
    const l1 = 0.5 * tr + disc, l2 = Math.max(0, 0.5 * tr - disc);
    if (!(l1 > 0)) return false;
    let ex: number, ey: number;
    if (Math.abs(cuv) > 1e-300) { ex = l1 - cvv; ey = cuv; } else if (cuu >= cvv) { ex = 1; ey = 0; } else { ex = 0; ey = 1; }
    const el = Math.hypot(ex, ey);
    ex /= el; ey /= el;
    const sp = this.spread;
    sp[0] = Math.sqrt(l1);
    sp[1] = Math.sqrt(l2);
    sp[2] = ex * t1x + ey * t2x; sp[3] = ex * t1y + ey * t2y; sp[4] = ex * t1z + ey * t2z;
    sp[5] = -ey * t1x + ex * t2x; sp[6] = -ey * t1y + ex * t2y; sp[7] = -ey * t1z + ex * t2z;
    return true;
  }
}
