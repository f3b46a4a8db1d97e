/**
 * Contact patches (not in the seed; docs/ALGORITHM.md 4.3). The deepest
 * penetrating point of a pair not yet handled leads a *patch*: every
 * unhandled point of the pair at most PATCH_BAND cells shallower whose normal
 * agrees with the leader's (points found in the reverse direction count with
 * their roles and normal flipped), including points just outside (phi >= 0)
 * within the band: the surface next to the contact. The solver applies one
 * impulse at the patch's centre along its mean normal. A box landing on a
 * corner makes a one-point patch at the corner (the seed's deepest point); a
 * box resting flat makes one patch over its whole face, pushed through the
 * face's centre, so the rest state carries no spurious spin from whichever
 * corner came first.
 *
 * Where the impulse goes depends on the shape of the surface under the patch,
 * read off its points: the depth d above the leader is fitted along each
 * tangent direction by d = c0 + c1 u + c2 u^2.
 *  - A face (c2 ~ 0, flat or tilted): the centre of its penetrating points,
 *    so a tilted face is pushed at its low side and tips back.
 *  - A curved surface (c2 clearly > 0): the centre of all its points, each
 *    weighing 1 at the leader's depth down to 0 at the band's end. A
 *    tessellated sphere or cylinder is pushed where its smooth original
 *    touches, not at whichever vertex of the tessellation happens to be
 *    lowest; a lowest vertex ahead of the centre would brake every roll.
 *
 * A face lying flat (points within TORQUE_BAND cells of the leader's depth)
 * can also hold a torque (impulse.ts applyPatchTorque), with levers from the
 * spread of those points, except about an axis the surface curves across:
 * the flat points of a lying cylinder are one facet of its tessellation, and
 * the smooth cylinder rolls on a line.
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
  /** The last patch: centre, unit normal, point count, whether it holds a torque. */
  px = 0;
  py = 0;
  pz = 0;
  nx = 0;
  ny = 0;
  nz = 0;
  count = 0;
  flat = false;
  /**
   * Spread of the last flat patch: sigma1, sigma2 and the tangent directions
   * e1, e2 (sigma1, sigma2, e1 xyz, e2 xyz), for applyPatchTorque.
   */
  readonly spread = new Float64Array(8);
  private readonly basis = new Float64Array(6);
  /** Members of the current patch (point indices) and their tangent coordinates. */
  private members = new Int32Array(64);
  private mu = new Float64Array(64);
  private mv = new Float64Array(64);

  /** Starts a pair of `n` points (clears the handled flags). */
  beginPair(n: number): void {
    if (this.handled.length < n) {
      this.handled = new Uint8Array(2 * n);
      this.members = new Int32Array(2 * n);
      this.mu = new Float64Array(2 * n);
      this.mv = new Float64Array(2 * n);
    }
    this.handled.fill(0, 0, n);
  }

  /**
   * The deepest unhandled penetrating point of the pair [s, e) (the first of
   * equal depths), or -1 when none is left.
   */
  nextLeader(cs: ContactSet, s: number, e: number): number {
    let best = -1;
    let bestPhi = 0;
    const handled = this.handled, phi = cs.phi;
    for (let i = s; i < e; i++) {
      if (!handled[i - s] && phi[i]! < bestPhi) {
        bestPhi = phi[i]!;
        best = i;
      }
    }
    return best;
  }

  /**
   * Builds the patch led by point i of the pair whose points are [s, e) in
   * `cs` (i unhandled, the deepest such), marking its points handled.
   * `cell` is the pair's SDF cell size.
   */
  build(cs: ContactSet, s: number, e: number, i: number, cell: number): void {
    const handled = this.handled;
    const members = this.members;
    const b1 = cs.b1[i]!;
    const lnx = cs.n[3 * i]!, lny = cs.n[3 * i + 1]!, lnz = cs.n[3 * i + 2]!;
    const band = PATCH_BAND * cell;
    const phi0 = cs.phi[i]!;
    const limit = phi0 + band;
    // Members, and the normal weighted toward the deepest.
    let m = 0;
    let nx = 0, ny = 0, nz = 0;
    for (let j = s; j < e; j++) {
      if (handled[j - s] || cs.phi[j]! > limit) continue;
      const sign = cs.b1[j] === b1 ? 1 : -1;
      const mx = sign * cs.n[3 * j]!, my = sign * cs.n[3 * j + 1]!, mz = sign * cs.n[3 * j + 2]!;
      if (j !== i && mx * lnx + my * lny + mz * lnz < PATCH_COS) continue;
      handled[j - s] = 1;
      members[m++] = j;
      const w = (limit - cs.phi[j]!) / band;
      nx += w * mx;
      ny += w * my;
      nz += w * mz;
    }
    this.count = m;
    this.flat = false;
    const lp = cs.p;
    if (m === 1) {
      this.px = lp[3 * i]!; this.py = lp[3 * i + 1]!; this.pz = lp[3 * i + 2]!;
      this.nx = lnx; this.ny = lny; this.nz = lnz;
      return;
    }
    const l = Math.hypot(nx, ny, nz);
    nx /= l; ny /= l; nz /= l;
    this.nx = nx; this.ny = ny; this.nz = nz;
    // Tangent coordinates about the leader.
    const t = this.basis;
    tangentBasis(nx, ny, nz, t);
    const ox = lp[3 * i]!, oy = lp[3 * i + 1]!, oz = lp[3 * i + 2]!;
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      const dx = lp[3 * j]! - ox, dy = lp[3 * j + 1]! - oy, dz = lp[3 * j + 2]! - oz;
      this.mu[k] = dx * t[0]! + dy * t[1]! + dz * t[2]!;
      this.mv[k] = dx * t[3]! + dy * t[4]! + dz * t[5]!;
    }
    // The flat points' principal directions (a, b in the tangent plane) and spreads.
    const torqueLimit = phi0 + TORQUE_BAND * cell;
    let cnt = 0, su = 0, sv = 0, suu = 0, svv = 0, suv = 0;
    for (let k = 0; k < m; k++) {
      if (cs.phi[members[k]!]! > torqueLimit) continue;
      const u = this.mu[k]!, v = this.mv[k]!;
      cnt++; su += u; sv += v; suu += u * u; svv += v * v; suv += u * v;
    }
    const sa = cnt;
    let ex = 1, ey = 0, l1 = 0, l2 = 0;
    if (cnt >= 3 && sa > 0) {
      const au = su / sa, av = sv / sa;
      const cuu = Math.max(0, suu / sa - au * au), cvv = Math.max(0, svv / sa - av * av), cuv = suv / sa - au * av;
      const tr = cuu + cvv, det = cuu * cvv - cuv * cuv;
      const disc = Math.sqrt(Math.max(0, 0.25 * tr * tr - det));
      l1 = 0.5 * tr + disc;
      l2 = Math.max(0, 0.5 * tr - disc);
      if (Math.abs(cuv) > 1e-300) { ex = l1 - cvv; ey = cuv; } else if (cuu >= cvv) { ex = 1; ey = 0; } else { ex = 0; ey = 1; }
      const el = Math.hypot(ex, ey);
      ex /= el; ey /= el;
    }
    // Does the surface curve along each of those directions?
    const curve1 = this.curved(cs, m, phi0, ex, ey, TORQUE_BAND * cell);
    const curve2 = this.curved(cs, m, phi0, -ey, ex, TORQUE_BAND * cell);
    // The centre: on a curved surface, of all points, weighted by depth and
    // by the area each stands for (a tessellation's samples crowd where its
    // triangles meet, a sphere's pole); on a face, of the penetrating points
    // (a face's samples are laid out symmetrically, and the areas of its
    // corner vertices, shared with the side faces' triangles, are not).
    const curvedPatch = curve1 || curve2;
    let px = 0, py = 0, pz = 0, wsum = 0;
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      const f = cs.phi[j]!;
      const w = curvedPatch ? ((limit - f) / band) * cs.area[j]! : f < 0 ? 1 : 0;
      px += w * lp[3 * j]!; py += w * lp[3 * j + 1]!; pz += w * lp[3 * j + 2]!;
      wsum += w;
    }
    this.px = px / wsum; this.py = py / wsum; this.pz = pz / wsum;
    if (cnt < 3 || !(l1 > 0)) return;
    const sp = this.spread;
    sp[0] = curve1 ? 0 : Math.sqrt(l1);
    sp[1] = curve2 ? 0 : Math.sqrt(l2);
    sp[2] = ex * t[0]! + ey * t[3]!; sp[3] = ex * t[1]! + ey * t[4]!; sp[4] = ex * t[2]! + ey * t[5]!;
    sp[5] = -ey * t[0]! + ex * t[3]!; sp[6] = -ey * t[1]! + ex * t[4]!; sp[7] = -ey * t[2]! + ex * t[5]!;
    this.flat = sp[0]! > 0 || sp[1]! > 0;
  }

  /**
   * Whether the patch's surface curves along tangent direction (a, b): the
   * least-squares fit d = c0 + c1 u + c2 u^2 of the members' depths above the
   * leader puts more than `tol` of depth into its curved part across the
   * patch (c2 var(u) > tol). A face, flat or tilted, fits with c2 = 0.
   */
  private curved(cs: ContactSet, m: number, phi0: number, a: number, b: number, tol: number): boolean {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, d0 = 0, d1 = 0, d2 = 0;
    for (let k = 0; k < m; k++) {
      const u = a * this.mu[k]! + b * this.mv[k]!;
      const d = cs.phi[this.members[k]!]! - phi0;
      const u2 = u * u;
      s0++; s1 += u; s2 += u2; s3 += u2 * u; s4 += u2 * u2;
      d0 += d; d1 += u * d; d2 += u2 * d;
    }
    const varU = s2 / s0 - (s1 / s0) ** 2;
    if (!(varU > 0)) return false;
    // Cramer's rule for c2 of [s0 s1 s2; s1 s2 s3; s2 s3 s4] c = [d0 d1 d2].
    const det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2);
    if (!(Math.abs(det) > 1e-300)) return false;
    const det2 = s0 * (s2 * d2 - d1 * s3) - s1 * (s1 * d2 - d1 * s2) + d0 * (s1 * s3 - s2 * s2);
    const c2 = det2 / det;
    return c2 * varU > tol;
  }
}
