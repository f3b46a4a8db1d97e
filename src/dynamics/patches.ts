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
 * tangent direction u by d = c0 + c1 u + c2 u^2, with the slope across u
 * as well where the points allow (PatchBuilder.curved).
 *  - A face (c2 ~ 0, flat or tilted): the centre of its penetrating points,
 *    so a tilted face is pushed at its low side and tips back.
 *  - A curved surface (c2 clearly > 0): the centre of all its points, each
 *    weighing 1 at the leader's depth down to 0 at the band's end. A
 *    tessellated sphere or cylinder is pushed where its smooth original
 *    touches, not at whichever vertex of the tessellation happens to be
 *    lowest; a lowest vertex ahead of the centre would brake every roll.
 *
 * A face lying flat (points within TORQUE_BAND cells of the leader's depth)
 * can also hold a torque (patchTorque.ts applyPatchTorque), as far as those
 * points reach on either side of the centre, except about an axis the
 * surface curves across:
 * the flat points of a lying cylinder are one facet of its tessellation, and
 * the smooth cylinder rolls on a line. That line's direction, for a patch
 * curved one way only, comes from a quadric fit of the members' depths
 * (straightAxis): a roll read about an axis a fraction of a milliradian off
 * leaks into a rocking the face's torque then fights.
 */
import type { ContactSet } from './contacts.ts';
import type { StepContext } from './stepContext.ts';
import { exactOnPlane, type ConvexSolid } from './shape.ts';
import { norm2, norm3, solveDense, tangentBasis } from './math.ts';
import { clearColumns, growColumns } from '../util/growable.ts';
import { BALL_CONE, ballField, meshBall, SurfaceMeet } from './fieldPoint.ts';
import * as det from '../util/detmath.ts';

/** PatchBuilder.underBall's scratch: the other body's field at the sphere's centre (gradient, value), then the centre (ballField). */
const BALL_N = new Float64Array(7);

/** Depth band of a contact patch, in SDF cells. */
export const PATCH_BAND = 0.25;
/** Depth band, in cells, of the points that make a patch flat enough to hold a torque (and whose extent bounds it). */
export const TORQUE_BAND = 0.02;
/**
 * A patch that holds no torque holds a spin when its deepest point lies at
 * least this many times its points' mean distance from its centre
 * (PatchBuilder.spinRadius).
 */
const SPIN_OFFSET = 0.5;
/**
 * Cells within which the gaps of a face's points taken at the current poses
 * count as one (the face lies flat: PatchBuilder.gap); the position
 * correction's slop.
 */
const FLAT_GAP = 0.002;
/** Crease tensors whose trace is below this cannot say "sharp" (PatchBuilder.sharp: q > 0.5, with a margin for rounding). */
const SHARP_TRACE = 0.5 * (1 - 1e-9);
/** A sample standing for more surface than this many cells squared does not weigh in a curved patch's centre (PatchBuilder.centreArea). */
const COARSE_AREA = 4;
/** ... and more than this many times the leader's (two faces sampled alike weigh alike). */
const COARSE_RATIO = 100;
/** Members a patch needs before PatchBuilder.curved fits its slope across as well (four terms and a point to spare). */
const ACROSS_MIN = 5;
/** Normals within ~25 degrees of the patch leader's join its patch. */
export const PATCH_COS = 0.9;
/** Floats of a patch's extent (PatchBuilder.spread). */
export const SPREAD_FLOATS = 15;
/** PatchCache.flat: a patch that holds no torque, a flat face, a curved patch that holds a spin only. */
export const PATCH_POINT = 0;
export const PATCH_FLAT = 1;
export const PATCH_SPIN = 2;


export class PatchBuilder {
  /**
   * The current pair's points not yet part of a patch, in the pair's order
   * (build drops the ones it takes, so each patch looks at what is left, not
   * at every point again).
   */
  private live = new Int32Array(64);
  private liveCount = 0;
  /** The last patch: centre, unit normal, point count, whether it holds a torque. */
  px = 0;
  py = 0;
  pz = 0;
  nx = 0;
  ny = 0;
  nz = 0;
  count = 0;
  flat = false;
  /** A curved patch resting on points spread around its centre: it holds a spin about its normal (spread[14]), nothing else. */
  spinOnly = false;
  /**
   * Extent of the last flat patch about its centre along its principal
   * tangent directions e1 and e2 (e1 x e2 = the normal), and along their
   * diagonals a = (e1 + e2)/sqrt 2 and b = (e1 - e2)/sqrt 2: [lo1, hi1, lo2,
   * hi2, e1 xyz, e2 xyz, loA, hiA, loB, hiB], for applyPatchTorque. The four
   * slabs bound an octagon around the points: the principal directions of a
   * square face are any two (its spread is the same every way), and a box
   * along e1 and e2 alone, when they are the square's diagonals, reaches
   * 1.41 times too far toward its edges. spread[14]: the radius r_s the
   * patch's friction acts at against a spin about its normal (it holds
   * mu j_n r_s): a face's, flatSpinRadius against a static body and half
   * the face's diagonal between moving ones; a spin-only patch's, the mean
   * distance of its points from the centre.
   */
  readonly spread = new Float64Array(SPREAD_FLOATS);
  private readonly basis = new Float64Array(6);
  /** Members of the current patch (point indices) and their tangent coordinates. */
  private members = new Int32Array(64);
  private mu = new Float64Array(64);
  private mv = new Float64Array(64);
  /** Each member's weight in the centre (build), which spinRadius reuses. */
  private mw = new Float64Array(64);
  /** Scratch of curved: each member's coordinates along and across its direction, centred and scaled. */
  private fu = new Float64Array(64);
  private fv = new Float64Array(64);
  /** Scratch of straightAxis: normal equations, right-hand side, basis values, and the direction found. */
  private readonly fitA = new Float64Array(36);
  private readonly fitY = new Float64Array(6);
  private readonly fitF = new Float64Array(6);
  private readonly axis = new Float64Array(2);

  /**
   * The deepest penetrating point of the patch last built (its leader), whose
   * depth the position correction reads.
   */
  leader = -1;
  /**
   * The gap at the current poses whose closing the contact passes allow the
   * patch: its leader's, or for a face taken at the current poses, at its
   * centre (build).
   */
  gap = 0;
  /** The step context, for the members' crease tensors and their owners' rotations (sharp()); set by PatchCache. */
  ctx: StepContext | null = null;

  /** Starts a pair whose points are [s, e) of the contact set: all unhandled. */
  beginPair(s: number, e: number): void {
    const n = e - s;
    if (this.live.length < n) {
      this.live = new Int32Array(2 * n);
      this.members = new Int32Array(2 * n);
      this.mu = new Float64Array(2 * n);
      this.mv = new Float64Array(2 * n);
      this.mw = new Float64Array(2 * n);
      this.fu = new Float64Array(2 * n);
      this.fv = new Float64Array(2 * n);
    }
    const live = this.live;
    for (let j = 0; j < n; j++) live[j] = s + j;
    this.liveCount = n;
  }

  /**
   * The deepest unhandled penetrating point of the current pair (the first of
   * equal depths), or -1 when none is left.
   */
  nextLeader(cs: ContactSet): number {
    // Points taken at the current poses (ContactSet.now) lead first, each
    // that penetrates now or at the prediction; then the penetrating
    // predicted ones.
    let best = -1, bestNow = -1;
    let bestPhi = 0, bestNowPhi = Infinity;
    const live = this.live, phi = cs.phi, now = cs.now, pred = cs.pred;
    for (let l = 0, nl = this.liveCount; l < nl; l++) {
      const i = live[l]!;
      const f = phi[i]!;
      if (now[i] === 1) {
        if (f < bestNowPhi && (f < 0 || pred[i]! < 0)) {
          bestNowPhi = f;
          bestNow = i;
        }
      } else if (f < bestPhi) {
        bestPhi = f;
        best = i;
      }
    }
    return bestNow >= 0 ? bestNow : best;
  }

  /**
   * Builds the patch led by point i of the current pair (i unhandled, the
   * deepest such; beginPair), taking its points off the unhandled list.
   * `cell` is the pair's SDF cell size.
   */
  build(cs: ContactSet, i: number, cell: number): void {
    const live = this.live;
    const members = this.members;
    const b1 = cs.b1[i]!;
    const lnx = cs.n[3 * i]!, lny = cs.n[3 * i + 1]!, lnz = cs.n[3 * i + 2]!;
    const band = PATCH_BAND * cell;
    const phi0 = cs.phi[i]!;
    const limit = phi0 + band;
    // Members, and the normal weighted toward the deepest.
    let m = 0;
    let nx = 0, ny = 0, nz = 0;
    // The points not taken are written back in order (a stable compaction).
    let kept = 0;
    for (let l = 0, nl = this.liveCount; l < nl; l++) {
      const j = live[l]!;
      if (cs.phi[j]! > limit || cs.now[j] !== cs.now[i]) {
        live[kept++] = j;
        continue;
      }
      const sign = cs.b1[j] === b1 ? 1 : -1;
      const mx = sign * cs.n[3 * j]!, my = sign * cs.n[3 * j + 1]!, mz = sign * cs.n[3 * j + 2]!;
      if (j !== i && mx * lnx + my * lny + mz * lnz < PATCH_COS) {
        live[kept++] = j;
        continue;
      }
      members[m++] = j;
      const w = (limit - cs.phi[j]!) / band;
      nx += w * mx;
      ny += w * my;
      nz += w * mz;
    }
    this.liveCount = kept;
    this.count = m;
    this.flat = false;
    this.spinOnly = false;
    this.leader = i;
    this.gap = cs.gap[i]!;
    const lp = cs.p;
    if (m === 1) {
      this.px = lp[3 * i]!; this.py = lp[3 * i + 1]!; this.pz = lp[3 * i + 2]!;
      this.nx = lnx; this.ny = lny; this.nz = lnz;
      this.underBall(cs, i);
      return;
    }
    const l = norm3(nx, ny, nz);
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
    let ex = 1, ey = 0, l1 = 0;
    if (cnt >= 3 && sa > 0) {
      const au = su / sa, av = sv / sa;
      const cuu = Math.max(0, suu / sa - au * au), cvv = Math.max(0, svv / sa - av * av), cuv = suv / sa - au * av;
      const tr = cuu + cvv, det = cuu * cvv - cuv * cuv;
      const disc = Math.sqrt(Math.max(0, 0.25 * tr * tr - det));
      l1 = 0.5 * tr + disc;
      if (Math.abs(cuv) > 1e-300) { ex = l1 - cvv; ey = cuv; } else if (cuu >= cvv) { ex = 1; ey = 0; } else { ex = 0; ey = 1; }
      const el = norm2(ex, ey);
      ex /= el; ey /= el;
    }
    // Does the surface curve along each of those directions? Either the
    // members' depths say so, or the surface around them turns gently: the
    // patch is then a facet of a tessellated curved surface (a ball, the
    // side of a lying cylinder), whose smooth original rolls that way.
    // (The crease test first: it is the cheaper, and where no crease runs
    // across, the depths' fit need not be made.)
    let curve1 = !this.sharp(cs, m, t, ex, ey) || this.curved(cs, m, phi0, ex, ey, TORQUE_BAND * cell);
    let curve2 = !this.sharp(cs, m, t, -ey, ex) || this.curved(cs, m, phi0, -ey, ex, TORQUE_BAND * cell);
    // A cylinder's exact points on a plane (narrowphase.ts,
    // roundPlanePoints), three or more pressed, are its cap lying flat: a
    // face. (Their indices are no samples, whose creases sharp() reads.)
    if (cnt >= 3 && this.ctx && roundOnPlane(this.ctx, cs, i)) curve1 = curve2 = false;
    // Curved one way only (a lying cylinder): the straight direction is the
    // axis it rolls about, and the flat points' spread gives it only
    // roughly (which samples of the next facet fall in the torque band
    // varies from step to step). Taken from the depths' curvature instead
    // when they show it, so the roll is not read as a little rocking.
    if (curve1 !== curve2 && this.straightAxis(m, phi0, cs, TORQUE_BAND * cell)) {
      ex = this.axis[0]!; ey = this.axis[1]!;
      curve1 = false;
      curve2 = true;
    }
    // The centre: on a curved surface, of all points, weighted by depth and
    // by the area each stands for (a tessellation's samples crowd where its
    // triangles meet, a sphere's pole); on a face, of the penetrating points
    // (a face's samples are laid out symmetrically, and the areas of its
    // corner vertices, shared with the side faces' triangles, are not).
    const curvedPatch = curve1 || curve2;
    // A curved patch on a smooth surface (no member on a crease) whose
    // leader lies deeper than the band against a static body (an impact's
    // predicted pose, centimetres into a floor, a table, a bowl) takes the
    // rest of the region it penetrates, its points weighted by their depth:
    // taken a band at a time, a ball landing 4 cells deep made 16 patches in
    // layers, the upper ones ringing the ball ever further inside, whose
    // friction, at 0.084 instead of 0.1 m from its centre, read a slip that
    // was not there (a ball landing while rolling lost 3 % of its speed and
    // was spun up 6 %). The others keep their layers: a face (a box landing
    // flat is one layer anyway, one landing on an edge is pushed at the edge
    // first); a box's rim, which the field rounds into a curved-looking
    // patch (taken whole, its tilted normal pushed a box in a struck stack
    // sideways off it); bodies deep in each other now, not only at the
    // prediction (started crossed, they are pushed apart layer by layer, as
    // position correction expects); and two moving bodies (a cart's driven
    // wheels, taking a ring's whole region as one, spun in place on a pile
    // of rings).
    let cLimit = limit, cBand = band;
    const smooth = curvedPatch && !this.onCrease(cs, m);
    if (smooth && -phi0 > band && cs.gap[i]! > -band && this.againstStatic(cs, i)) {
      cLimit = 0;
      cBand = -phi0;
      let keep = 0;
      for (let l = 0, nl = this.liveCount; l < nl; l++) {
        const j = live[l]!;
        const sign = cs.b1[j] === b1 ? 1 : -1;
        if (cs.phi[j]! < 0 && cs.now[j] === cs.now[i] &&
          sign * (cs.n[3 * j]! * lnx + cs.n[3 * j + 1]! * lny + cs.n[3 * j + 2]! * lnz) >= PATCH_COS) members[m++] = j;
        else live[keep++] = j;
      }
      this.liveCount = keep;
      this.count = m;
    }
    // The deepest a face's points taken now reach at the prediction, plus the torque band.
    let predLimit = Infinity;
    if (!curvedPatch && cs.now[i] === 1) {
      for (let k = 0; k < m; k++) predLimit = Math.min(predLimit, cs.pred[members[k]!]!);
      predLimit += TORQUE_BAND * cell;
    }
    let px = 0, py = 0, pz = 0, wsum = 0;
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      const f = cs.phi[j]!;
      // A face's points taken at the current poses weigh where they press
      // at the prediction (a face tipping over an edge is pushed there),
      // and only those within the torque band of the deepest there: against
      // a static body the prediction sinks a resting face by g dt^2, so
      // every point of a face tilted by less pressed, and the centre of them
      // all held it up where it hovered, tilted on one edge (a domino at
      // 60 Hz rested 1.85 degrees over; tests/physics/resting.test.ts).
      const w = curvedPatch ? ((cLimit - f) / cBand) * this.centreArea(cs, j, i, cell) : (cs.now[j] === 1 ? cs.pred[j]! < 0 && cs.pred[j]! <= predLimit : f < 0) ? 1 : 0;
      this.mw[k] = w;
      px += w * lp[3 * j]!; py += w * lp[3 * j + 1]!; pz += w * lp[3 * j + 2]!;
      wsum += w;
    }
    if (!(wsum > 0)) {
      // A face taken now that penetrates now but is not pressed at the
      // prediction: its leader's point.
      for (let k = 0; k < m; k++) this.mw[k] = members[k] === i ? 1 : 0;
      px = lp[3 * i]!; py = lp[3 * i + 1]!; pz = lp[3 * i + 2]!; wsum = 1;
    }
    this.px = px / wsum; this.py = py / wsum; this.pz = pz / wsum;
    if (smooth && cs.now[i] === 0 && this.refine(cs, i, cell)) {
      nx = this.nx; ny = this.ny; nz = this.nz;
    }
    if (smooth) {
      // A curved patch's weighted centre lies inside the surface (on a
      // chord of the cap its points span); along the normal it belongs at
      // the leader, the surface's extreme point, so that its friction acts
      // at the body's true radius: a 0.1 m ball rolled with v / omega =
      // 0.0994 and lost speed to the slip friction read at that radius.
      const s = (lp[3 * i]! - this.px) * nx + (lp[3 * i + 1]! - this.py) * ny + (lp[3 * i + 2]! - this.pz) * nz;
      this.px += s * nx; this.py += s * ny; this.pz += s * nz;
    }
    this.underBall(cs, i);
    // A face taken at the current poses that lies flat on the other (its
    // points' gaps within FLAT_GAP cells): its gap where it is pushed, the
    // mean of its points' (a face tilted by a micro-radian on the one below
    // would otherwise close only its lowest point's gap and hover). A face
    // tipping over an edge keeps its lowest point's.
    if (!curvedPatch && cs.now[i] === 1) {
      let gs = 0, hi = -Infinity;
      for (let k = 0; k < m; k++) {
        if (this.mw[k] === 0) continue;
        const g = cs.gap[members[k]!]!;
        gs += g;
        if (g > hi) hi = g;
      }
      if (hi - this.gap <= FLAT_GAP * cell) this.gap = gs / wsum;
    }
    if (cnt < 3 || !(l1 > 0)) {
      this.spinRadius(cs, m, i, t);
      return;
    }
    // The face's extent about the centre along e1 and e2: how far off the
    // centre the normal force may act before the face would tip about its
    // edge (applyPatchTorque). From the flat points themselves, so a plank
    // overhanging a ledge is held only up to the ledge's edge, not
    // symmetrically about wherever its samples' centre falls.
    const sp = this.spread;
    const e1x = ex * t[0]! + ey * t[3]!, e1y = ex * t[1]! + ey * t[4]!, e1z = ex * t[2]! + ey * t[5]!;
    const e2x = -ey * t[0]! + ex * t[3]!, e2y = -ey * t[1]! + ex * t[4]!, e2z = -ey * t[2]! + ex * t[5]!;
    let lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0, loA = 0, hiA = 0, loB = 0, hiB = 0;
    // The true spin lever is read against a static body only (sp[14] below).
    const trueLever = this.againstStatic(cs, i);
    this.spinSums.fill(0);
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      if (cs.phi[j]! > torqueLimit) continue;
      const dx = lp[3 * j]! - this.px, dy = lp[3 * j + 1]! - this.py, dz = lp[3 * j + 2]! - this.pz;
      const a1 = dx * e1x + dy * e1y + dz * e1z, a2 = dx * e2x + dy * e2y + dz * e2z;
      // Per side (whose sample the point is): its area-weighted sums and count.
      if (trueLever) {
        const r = norm2(curve1 ? 0 : a1, curve2 ? 0 : a2), wa = cs.area[j]!, side = cs.b1[j] === b1 ? 0 : 4;
        const rs = this.spinSums;
        rs[side] += wa * r; rs[side + 1] += wa; rs[side + 2] += r; rs[side + 3]++;
      }
      const aA = Math.SQRT1_2 * (a1 + a2), aB = Math.SQRT1_2 * (a1 - a2);
      if (a1 < lo1) lo1 = a1; else if (a1 > hi1) hi1 = a1;
      if (a2 < lo2) lo2 = a2; else if (a2 > hi2) hi2 = a2;
      if (aA < loA) loA = aA; else if (aA > hiA) hiA = aA;
      if (aB < loB) loB = aB; else if (aB > hiB) hiB = aB;
    }
    // Across a direction the surface curves, it rolls: no extent that way
    // (and the diagonals, which mix the two, say nothing more).
    if (curve1) { lo1 = 0; hi1 = 0; }
    if (curve2) { lo2 = 0; hi2 = 0; }
    if (curve1 || curve2) { loA = -Infinity; hiA = Infinity; loB = -Infinity; hiB = Infinity; }
    sp[0] = lo1; sp[1] = hi1; sp[2] = lo2; sp[3] = hi2;
    sp[4] = e1x; sp[5] = e1y; sp[6] = e1z;
    sp[7] = e2x; sp[8] = e2y; sp[9] = e2z;
    sp[10] = loA; sp[11] = hiA; sp[12] = loB; sp[13] = hiB;
    // The spin radius: against a static body, the friction's true lever
    // (flatSpinRadius); between two moving bodies, half the extent's
    // diagonal, from the pair of directions that bounds it tighter (e1 and
    // e2 of a square face may be its diagonals, whose extents made the
    // radius its full side). The latter holds a spin 1.4 times (a ring) to
    // 2.1 times (a disc) harder than friction can, and that is what lets
    // ring stacks come to rest: with the true lever a stack of 20 rings on
    // a peg kept turning, 8 of them awake at 6 s.
    let lever = -1;
    if (trueLever && !curve1 && !curve2) lever = this.faceSpinRadius(cs, m, torqueLimit, t);
    if (trueLever && !(lever >= 0)) lever = this.flatSpinRadius();
    sp[14] = trueLever ? lever : 0.5 * Math.min(norm2(hi1 - lo1, hi2 - lo2), norm2(hiA - loA, hiB - loB));
    this.flat = hi1 - lo1 > 0 || hi2 - lo2 > 0;
    if (!this.flat) this.spinRadius(cs, m, i, t);
  }

  private readonly meet = new SurfaceMeet();

  /**
   * Of a flat patch's flat points, per side (the leader's body's samples,
   * then the other's): area-weighted distance from the centre, area,
   * distance, count (build).
   */
  private readonly spinSums = new Float64Array(8);

  /**
   * A flat patch's spin radius r_s: its flat points' mean distance from the
   * centre (along the directions the face is flat), weighted by the area
   * each stands for, over the points of the side sampled finer (the smaller
   * mean area). That is the lever at which Coulomb friction under an even
   * pressure stops a spin: a ring lying flat, R (where no mesh face lies
   * flat, faceSpinRadius gives way to this); a disc, 2R/3 (read 0.70 R from
   * its samples, which crowd its rim); a cube's face, 0.38 of its side (its
   * samples lie on its edges: read 0.56). The finer side, because a
   * coarse face (a floor box's, a few samples standing for square metres)
   * would outweigh the other's. Half the extent's diagonal, as the torque's
   * octagon has it, held a disc's spin with sqrt(2) R, 2.1 times too hard.
   */
  private flatSpinRadius(): number {
    const s = this.spinSums;
    const fineA = s[3]! > 0 && s[1]! > 0 ? s[1]! / s[3]! : Infinity, fineB = s[7]! > 0 && s[5]! > 0 ? s[5]! / s[7]! : Infinity;
    const o = fineA <= fineB ? 0 : 4;
    if (s[o + 1]! > 0) return s[o]! / s[o + 1]!;
    // No areas (every weight zero): the plain mean over both sides.
    const n = s[3]! + s[7]!;
    return n > 0 ? (s[2]! + s[6]!) / n : 0;
  }

  /** faceSpinRadius (below) of the patch just built, about its centre. */
  private faceSpinRadius(cs: ContactSet, m: number, torqueLimit: number, t: Float64Array): number {
    return this.ctx ? faceSpinRadius(this.ctx, cs, this.members, m, this.leader, torqueLimit, this.px, this.py, this.pz, t) : -1;
  }

  /**
   * Moves the centre of a smooth curved patch between two fields to where
   * the surfaces meet, and takes the normal there: the point x where the two
   * fields' gradients are opposite (phi_1 + phi_2 is least across the
   * normal), the normal the difference of those gradients. Two spheres then
   * push along the line of their centres, whichever of their samples fell
   * in the patch: struck at 10 to 80 degrees, frictionless at e = 1, they
   * leave 90.000 degrees apart spinning under 0.005 rad/s (the samples'
   * weighted normal at the predicted poses gave 89.4-89.6 degrees and 0.5-1
   * rad/s: the predicted line of centres, pushed through the current
   * centres, misses them by half the step's relative motion).
   *
   * At the current poses, the centres the impulse's arms are taken about, so
   * that one point serves both bodies and angular momentum stays exact.
   * SurfaceMeet (fieldPoint.ts) from the weighted centre; given up (false: the centre and normal stay as
   * they were) when a field has no value there, the steps do not settle, x
   * would leave the patch's own reach, or the normal turns away from the
   * patch's by more than PATCH_COS.
   */
  private refine(cs: ContactSet, i: number, cell: number): boolean {
    const ctx = this.ctx;
    if (!ctx) return false;
    const a = cs.b1[i]!, b = cs.b2[i]!;
    const B = ctx.bodies;
    // Against a static body the point already moves back with the moving
    // body alone (contactShift): its arm is exact, and rolling there is
    // tuned on the samples' centre (a ball in a bowl rolls with the
    // textbook period).
    if (!(B.invMass[a]! > 0 && B.invMass[b]! > 0)) return false;
    if (!ctx.shapeOf(a).sdf || !ctx.shapeOf(b).sdf) return false;
    // The normal pushes body 1 off body 2: grad phi_2 - grad phi_1, oriented as the patch's.
    const m = this.meet;
    if (!m.find(ctx, a, b, this.px, this.py, this.pz, this.nx, this.ny, this.nz, Math.max(this.reach(cs), cell), PATCH_COS)) return false;
    this.nx = m.nx; this.ny = m.ny; this.nz = m.nz;
    this.px = m.px; this.py = m.py; this.pz = m.pz;
    return true;
  }

  /**
   * A true sphere's patch against a mesh (a field, not a plane or a convex
   * solid, whose points are exact already): its normal the mesh's field
   * gradient at the sphere's centre now, where the patch's own lies within
   * BALL_CONE of it (along the samples' normals at the predicted pose, which
   * lean back by v dt / rho on a curved support, the collision phase
   * dragged a ball swinging in a bowl: 7.4 % of its energy in 5 s under the
   * seed's passes, now 3.1 %); its point moved onto the sphere's surface
   * where the normal's line through its centre leaves it, so the impulse
   * passes through the centre (at the samples' centre, a few millimetres to
   * the side, an impact spun a frictionless ball dropped into a groove at
   * 0.36 rad/s for good).
   */
  private underBall(cs: ContactSet, i: number): void {
    const ctx = this.ctx;
    if (!ctx) return;
    const b1 = cs.b1[i]!, b2 = cs.b2[i]!;
    const ball = meshBall(ctx, b1, b2);
    if (ball < 0) return;
    // The normal pushes body 1 off body 2.
    const sg = ball === b1 ? 1 : -1;
    const N = BALL_N;
    if (ballField(ctx, ball, ball === b1 ? b2 : b1, N) && sg * (N[0]! * this.nx + N[1]! * this.ny + N[2]! * this.nz) >= BALL_CONE) {
      this.nx = sg * N[0]!; this.ny = sg * N[1]!; this.nz = sg * N[2]!;
    }
    const side = -sg * ctx.shapeOf(ball).sphere!.radius;
    this.px = N[4]! + side * this.nx;
    this.py = N[5]! + side * this.ny;
    this.pz = N[6]! + side * this.nz;
  }

  /**
   * The area member j of a curved patch (leader i) weighs with in the
   * patch's centre: the surface its sample stands for, or nothing when that
   * is more than COARSE_AREA cells squared and COARSE_RATIO times the
   * leader's (a sample of a large face sampled sparsely against a finely
   * sampled body: a box floor's top face has a handful, one of them at its
   * centre). Such a sample cannot say where in its area the other surface
   * comes nearest, and its area outweighed the curved body's samples
   * thousands of times over: a hemisphere rocking on a 2 m box, its contact
   * 20 mm from that sample 1.5 mm below it, was pushed there, its swing
   * stopped dead, and it rocked in 0.76 s instead of 0.85 (at the sample
   * itself, 0.58-0.71 s and twice the energy). The leader always weighs.
   */
  private centreArea(cs: ContactSet, j: number, i: number, cell: number): number {
    const a = cs.area[j]!;
    return j !== i && a > COARSE_AREA * cell * cell && a > COARSE_RATIO * cs.area[i]! ? 0 : a;
  }

  /** The farthest the current patch's members lie from its weighted centre. */
  private reach(cs: ContactSet): number {
    let r = 0;
    const lp = cs.p;
    for (let k = 0; k < this.count; k++) {
      const j = this.members[k]!;
      r = Math.max(r, norm3(lp[3 * j]! - this.px, lp[3 * j + 1]! - this.py, lp[3 * j + 2]! - this.pz));
    }
    return r;
  }


  /**
   * A patch that holds no torque may still hold a spin about its normal.
   * Its points carry the load where they are, and the centre is their
   * weighted mean (build). When the deepest point lies near that centre
   * (a ball on a floor), the patch is one touching point and the rest of its
   * band only the sampling's rounding: no spin is held. When it lies far out
   * (a ring lying on a ring, touching here and there around its circle, its
   * centre in the hole), the patch rests on points spread around the centre,
   * whose friction stops a spin about the normal up to mu j_n r_s, r_s their
   * weighted mean distance from the centre: without it the friction at the
   * centre, in the hole, never saw the spin, and stacked rings turned
   * about their peg for seconds after landing. Sets spinOnly and spread
   * (no extent, so no tipping torque; r_s in spread[14]).
   */
  private spinRadius(cs: ContactSet, m: number, i: number, t: Float64Array): void {
    if (m < 3) return;
    let rs = 0, wsum = 0;
    for (let k = 0; k < m; k++) {
      const w = this.mw[k]!;
      if (!(w > 0)) continue;
      rs += w * this.offCentre(cs, this.members[k]!);
      wsum += w;
    }
    if (!(wsum > 0)) return;
    rs /= wsum;
    if (!(rs > 0) || this.offCentre(cs, i) < SPIN_OFFSET * rs) return;
    const sp = this.spread;
    sp[0] = 0; sp[1] = 0; sp[2] = 0; sp[3] = 0;
    sp[4] = t[0]!; sp[5] = t[1]!; sp[6] = t[2]!;
    sp[7] = t[3]!; sp[8] = t[4]!; sp[9] = t[5]!;
    sp[10] = -Infinity; sp[11] = Infinity; sp[12] = -Infinity; sp[13] = Infinity;
    sp[14] = rs;
    this.spinOnly = true;
  }

  /** Distance of point j from the patch's centre across its normal. */
  private offCentre(cs: ContactSet, j: number): number {
    const lp = cs.p, nx = this.nx, ny = this.ny, nz = this.nz;
    const dx = lp[3 * j]! - this.px, dy = lp[3 * j + 1]! - this.py, dz = lp[3 * j + 2]! - this.pz;
    const dn = dx * nx + dy * ny + dz * nz;
    return norm3(dx - dn * nx, dy - dn * ny, dz - dn * nz);
  }

  /**
   * Whether the surface the patch lies on meets a crease across tangent
   * direction (a, b) (coordinates in the basis t): some member's crease
   * tensor (samples.ts sampleCreases, its owner's local frame) says a sharp
   * edge runs across that way. A box's face ends in its 90-degree edges; the
   * facets of a tessellated ball, or the side of a lying cylinder across its
   * axis, meet at a few degrees and have none.
   */
  private sharp(cs: ContactSet, m: number, t: Float64Array, a: number, b: number): boolean {
    const ctx = this.ctx;
    if (!ctx) return true;
    const dx = a * t[0]! + b * t[3]!, dy = a * t[1]! + b * t[4]!, dz = a * t[2]! + b * t[5]!;
    const R = ctx.predRot;
    let last = -1, lx = 0, ly = 0, lz = 0;
    for (let k = 0; k < m; k++) {
      const j = this.members[k]!;
      const owner = cs.b1[j]!;
      const M = ctx.shapeOf(owner).samples.creases;
      // Without crease data every patch counts as a face.
      if (!M) return true;
      const c = 6 * cs.sample[j]!;
      if (!onCreaseAt(M, c)) continue;
      if (owner !== last) {
        // The direction in the owner's frame: R^T d.
        const o = 9 * owner;
        lx = R[o]! * dx + R[o + 3]! * dy + R[o + 6]! * dz;
        ly = R[o + 1]! * dx + R[o + 4]! * dy + R[o + 7]! * dz;
        lz = R[o + 2]! * dx + R[o + 5]! * dy + R[o + 8]! * dz;
        last = owner;
      }
      if (creaseAlong(M, c, lx, ly, lz) > 0.5) return true;
    }
    return false;
  }

  /** Whether point i's pair has a static body (a floor, a table, a peg, a bowl). */
  private againstStatic(cs: ContactSet, i: number): boolean {
    const B = this.ctx?.bodies;
    return B !== undefined && (B.isStatic[cs.b1[i]!] === 1 || B.isStatic[cs.b2[i]!] === 1);
  }

  /** Whether any of the current patch's first m members is a sample on a crease of its owner (samples.ts sampleCreases). */
  private onCrease(cs: ContactSet, m: number): boolean {
    const ctx = this.ctx;
    if (!ctx) return true;
    for (let k = 0; k < m; k++) {
      const j = this.members[k]!;
      const M = ctx.shapeOf(cs.b1[j]!).samples.creases;
      if (!M) return true;
      if (onCreaseAt(M, 6 * cs.sample[j]!)) return true;
    }
    return false;
  }

  /**
   * The straight direction of a patch whose depths curve one way only: the
   * least-squares quadric d = c0 + c1 u + c2 v + c3 u^2 + c4 uv + c5 v^2 of
   * the members' depths above the leader, whose Hessian has one eigenvalue
   * that puts more than `tol` of depth across the patch and another under a
   * tenth of it. Writes the unit straight direction (tangent coordinates) to
   * this.axis; false when the depths do not show a single straight direction.
   */
  private straightAxis(m: number, phi0: number, cs: ContactSet, tol: number): boolean {
    if (m < 6) return false;
    // Coordinates about the members' mean, scaled to the patch's size, so the normal equations stay well conditioned.
    let au = 0, av = 0;
    for (let k = 0; k < m; k++) { au += this.mu[k]!; av += this.mv[k]!; }
    au /= m; av /= m;
    let r2 = 0;
    for (let k = 0; k < m; k++) {
      const du = this.mu[k]! - au, dv = this.mv[k]! - av;
      r2 = Math.max(r2, du * du + dv * dv);
    }
    if (!(r2 > 0)) return false;
    const sc = 1 / Math.sqrt(r2);
    const A = this.fitA, y = this.fitY, f = this.fitF;
    A.fill(0);
    y.fill(0);
    for (let k = 0; k < m; k++) {
      const u = (this.mu[k]! - au) * sc, v = (this.mv[k]! - av) * sc;
      const d = cs.phi[this.members[k]!]! - phi0;
      f[0] = 1; f[1] = u; f[2] = v; f[3] = u * u; f[4] = u * v; f[5] = v * v;
      for (let r = 0; r < 6; r++) {
        y[r] += f[r]! * d;
        for (let c = r; c < 6; c++) A[6 * r + c] += f[r]! * f[c]!;
      }
    }
    for (let r = 1; r < 6; r++) for (let c = 0; c < r; c++) A[6 * r + c] = A[6 * c + r]!;
    if (!solveDense(A, y, 6)) return false;
    // Hessian (per scaled unit squared) [[2 c3, c4], [c4, 2 c5]]: its eigenvalues.
    const a = 2 * y[3]!, b = y[4]!, c = 2 * y[5]!;
    const half = 0.5 * (a + c), disc = Math.sqrt(0.25 * (a - c) * (a - c) + b * b);
    const hi = half + disc, lo = half - disc;
    const big = Math.abs(hi) >= Math.abs(lo) ? hi : lo, small = big === hi ? lo : hi;
    // Depth the curvature puts across the patch (scaled radius 1): |big| / 2.
    if (!(0.5 * Math.abs(big) > tol) || Math.abs(small) > 0.1 * Math.abs(big)) return false;
    // Eigenvector of the small eigenvalue: the straight direction.
    let x0 = b, y0 = small - a;
    if (Math.abs(x0) + Math.abs(y0) < 1e-12 * (Math.abs(a) + Math.abs(c))) { x0 = small - c; y0 = b; }
    let l = norm2(x0, y0);
    if (!(l > 0)) { x0 = Math.abs(a) <= Math.abs(c) ? 1 : 0; y0 = 1 - x0; l = 1; }
    this.axis[0] = x0 / l;
    this.axis[1] = y0 / l;
    return true;
  }

  /**
   * Whether the patch's surface curves along tangent direction (a, b): the
   * least-squares fit d = c0 + c1 u + c3 u^2 of the members' depths above
   * the leader (u along (a, b)) puts more than `tol` of depth into its curved
   * part across the patch (c3 var(u) > tol), and so does the fit with a
   * slope across, d = c0 + c1 u + c2 v + c3 u^2 (v across (a, b)), where the
   * members spread across on their own. A face, flat or tilted either way,
   * fits with c3 = 0. Without the slope across, a face tilted across u with
   * its samples strewn unevenly along u (a box pivoting on an edge: its
   * bottom face's samples rise away from the edge, at whatever places along
   * it the triangulation put them) read as curved along the edge; the
   * patch's centre, weighted by the corners' unequal areas, sat 27 mm off the
   * edge's middle and rolled the block over sideways (the edge's ends 1.7 mm
   * apart in height within 0.15 s, against 0.03 mm with it).
   */
  private curved(cs: ContactSet, m: number, phi0: number, a: number, b: number, tol: number): boolean {
    // Coordinates about the members' mean, scaled to the patch's size (c3 var(u) is the same in any scale).
    const U = this.fu, V = this.fv;
    let au = 0, av = 0;
    for (let k = 0; k < m; k++) {
      U[k] = a * this.mu[k]! + b * this.mv[k]!;
      V[k] = a * this.mv[k]! - b * this.mu[k]!;
      au += U[k]!;
      av += V[k]!;
    }
    au /= m; av /= m;
    let r2 = 0;
    for (let k = 0; k < m; k++) {
      U[k] -= au;
      V[k] -= av;
      r2 = Math.max(r2, U[k]! * U[k]! + V[k]! * V[k]!);
    }
    if (!(r2 > 0)) return false;
    const sc = 1 / Math.sqrt(r2);
    // u and v are centred: sums for var(u) and for v fitted by 1, u, u^2.
    let suu = 0, su3 = 0, su4 = 0, svv = 0, suv = 0, su2v = 0;
    for (let k = 0; k < m; k++) {
      const u = U[k]! * sc, v = V[k]! * sc;
      U[k] = u; V[k] = v;
      const u2 = u * u;
      suu += u2; su3 += u2 * u; su4 += u2 * u2; svv += v * v; suv += u * v; su2v += u2 * v;
    }
    const varU = suu / m;
    if (!(varU > 0)) return false;
    if (!(this.curvature(cs, m, phi0, false) * varU > tol)) return false;
    // The slope across can only explain away a curvature along u, never
    // make one, and is fitted only where v varies on its own: members on
    // one line or one arc along u (v, less what 1, u and u^2 predict of it,
    // spread under a hundredth of the patch's radius) would trade the
    // curvature along u for a slope across (a ring's rim read as a tilted
    // line), and fewer than ACROSS_MIN members would fit the four terms
    // exactly whatever the surface.
    if (m < ACROSS_MIN) return true;
    const A = this.fitA, y = this.fitY;
    A[0] = m; A[1] = 0; A[2] = suu;
    A[3] = 0; A[4] = suu; A[5] = su3;
    A[6] = suu; A[7] = su3; A[8] = su4;
    y[0] = 0; y[1] = suv; y[2] = su2v;
    if (!solveDense(A, y, 3) || !((svv - y[1]! * suv - y[2]! * su2v) / m > 1e-4)) return true;
    return this.curvature(cs, m, phi0, true) * varU > tol;
  }

  /**
   * c3 of the least-squares fit d = c0 + c1 u (+ c2 v) + c3 u^2 of the
   * members' depths above the leader, u and v their scaled centred
   * coordinates along and across the direction (fu, fv, set by
   * PatchBuilder.curved); NaN where the fit is singular. c3 var(u) in scaled
   * coordinates equals it in real ones (depths are not scaled).
   */
  private curvature(cs: ContactSet, m: number, phi0: number, across: boolean): number {
    const A = this.fitA, y = this.fitY, f = this.fitF;
    const n = across ? 4 : 3;
    A.fill(0, 0, n * n);
    y.fill(0, 0, n);
    for (let k = 0; k < m; k++) {
      const u = this.fu[k]!;
      const d = cs.phi[this.members[k]!]! - phi0;
      f[0] = 1; f[1] = u;
      if (across) f[2] = this.fv[k]!;
      f[n - 1] = u * u;
      for (let r = 0; r < n; r++) {
        y[r] += f[r]! * d;
        for (let c = r; c < n; c++) A[n * r + c] += f[r]! * f[c]!;
      }
    }
    for (let r = 1; r < n; r++) for (let c = 0; c < r; c++) A[n * r + c] = A[n * c + r]!;
    return solveDense(A, y, n) ? y[n - 1]! : NaN;
  }
}

/**
 * Whether the crease tensor at M[c..c+6) can say "sharp": a tensor is a sum
 * of u u^T, so its value along a unit direction is at most its trace, which
 * most samples (none on a crease) have 0.
 */
export function onCreaseAt(M: Float32Array, c: number): boolean {
  return M[c]! + M[c + 3]! + M[c + 5]! >= SHARP_TRACE;
}

/** The crease tensor at M[c..] read along (x, y, z) in its owner's frame, d^T M d: 1 straight across one crease, 0 along it. */
export function creaseAlong(M: Float32Array, c: number, x: number, y: number, z: number): number {
  return M[c]! * x * x + M[c + 3]! * y * y + M[c + 5]! * z * z + 2 * (M[c + 1]! * x * y + M[c + 2]! * x * z + M[c + 4]! * y * z);
}

/** Floats per stored patch: centre (3), normal (3), extent (SPREAD_FLOATS: see PatchBuilder.spread), gap (PatchBuilder.gap, at PATCH_GAP). */
const PATCH_FLOATS = 7 + SPREAD_FLOATS;
/** Offset of a stored patch's gap. */
export const PATCH_GAP = 6 + SPREAD_FLOATS;

/**
 * The patches of every pair, kept until the pair's points change: a pair's
 * contact points are rewritten only when one of its bodies moved
 * (ContactSet.stamp), and every pass that visits an unchanged pair (the
 * collision iterations that change nothing, the sweeps of shock
 * propagation, the position correction) reuses its patches instead of
 * building them again. Each pair has a slot (rewritten in place while its
 * patches fit); clear() empties them with the pair list.
 */
/** A pair's slot: its patches, the room it holds, the stamp they were built from. */
const SLOT_COLUMNS = { first: 1, last: 1, cap: 1, built: 1 } as const;
/** A patch. */
const PATCH_COLUMNS = { data: PATCH_FLOATS, flat: 1, leader: 1 } as const;
/** One pair's patches as they are built. */
const SCRATCH_COLUMNS = { scratch: PATCH_FLOATS, scratchFlat: 1, scratchLeader: 1 } as const;

export class PatchCache {
  /** Patches of pair k: [first[k], last[k]). */
  first = new Int32Array(2);
  last = new Int32Array(2);
  /** Per patch: PATCH_FLOATS floats (centre, normal, spread, gap), what torque it holds (PATCH_POINT/FLAT/SPIN), its leader point. */
  data = new Float64Array(64 * PATCH_FLOATS);
  flat = new Uint8Array(64);
  leader = new Int32Array(64);
  // The columns below are the cache's own; they are not private only so the column helpers (growable.ts) reach them.
  /** Patches pair k's slot holds room for. */
  cap = new Int32Array(2);
  /** The contact-set stamp pair k's patches were built from (0: none yet). */
  built = new Uint32Array(2);
  scratch = new Float64Array(16 * PATCH_FLOATS);
  scratchFlat = new Uint8Array(16);
  scratchLeader = new Int32Array(16);
  private count = 0;
  private readonly builder = new PatchBuilder();

  clear(pairCount: number): void {
    this.count = 0;
    clearColumns(this, SLOT_COLUMNS, pairCount);
  }

  /** Makes pair k's patches current with its points in `cs` (`cell`: the pair's SDF cell size). */
  ensure(ctx: StepContext, cs: ContactSet, k: number, cell: number): void {
    const stamp = cs.stamp[k]!;
    if (this.built[k] === stamp) return;
    this.built[k] = stamp;
    this.builder.ctx = ctx;
    const s = cs.start[k]!, e = cs.end[k]!;
    const pb = this.builder;
    let m = 0;
    if (e > s) {
      pb.beginPair(s, e);
      for (let i = pb.nextLeader(cs); i >= 0; i = pb.nextLeader(cs)) {
        pb.build(cs, i, cell);
        if ((m + 1) * PATCH_FLOATS > this.scratch.length) {
          growColumns(this, SCRATCH_COLUMNS, 2 * (m + 1));
        }
        const o = m * PATCH_FLOATS, d = this.scratch;
        d[o] = pb.px; d[o + 1] = pb.py; d[o + 2] = pb.pz;
        d[o + 3] = pb.nx; d[o + 4] = pb.ny; d[o + 5] = pb.nz;
        for (let j = 0; j < SPREAD_FLOATS; j++) d[o + 6 + j] = pb.spread[j]!;
        d[o + PATCH_GAP] = pb.gap;
        this.scratchFlat[m] = pb.flat ? PATCH_FLAT : pb.spinOnly ? PATCH_SPIN : PATCH_POINT;
        this.scratchLeader[m] = pb.leader;
        m++;
      }
    }
    let at: number;
    if (m <= this.cap[k]!) {
      at = this.first[k]!;
    } else {
      at = this.count;
      const cap = m + (m >> 1) + 1;
      this.count += cap;
      this.cap[k] = cap;
      if (this.count > this.flat.length) {
        growColumns(this, PATCH_COLUMNS, 2 * this.count);
      }
    }
    // Plain loops: subarray() views would allocate three objects per pair.
    const src = this.scratch, dst = this.data, base = at * PATCH_FLOATS;
    for (let j = 0; j < m * PATCH_FLOATS; j++) dst[base + j] = src[j]!;
    for (let j = 0; j < m; j++) {
      this.flat[at + j] = this.scratchFlat[j]!;
      this.leader[at + j] = this.scratchLeader[j]!;
    }
    this.first[k] = at;
    this.last[k] = at + m;
  }
}

export { PATCH_FLOATS };

/**
 * The signed integral of the distance from the origin over the triangle
 * (origin, (ax, ay), (bx, by)) in the plane: positive when it turns
 * counter-clockwise. With h the origin's distance from the line through a
 * and b and s the position along it from the foot of the perpendicular,
 * the integral over angles of rho^3 / 3 with rho = h / cos is
 * (h^3 / 6) [G(s / h)] from a to b, G(x) = x sqrt(1 + x^2) + asinh(x). Summed
 * over a triangle's three edges it gives the integral over the triangle
 * about any point of its plane.
 */
export function apexTriangleLever(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  const len = Math.sqrt(dx * dx + dy * dy);
  const cross = ax * by - ay * bx;
  if (!(len > 0) || cross === 0) return 0;
  const h = Math.abs(cross) / len;
  const sa = (ax * dx + ay * dy) / len / h, sb = (bx * dx + by * dy) / len / h;
  const G = (x: number) => x * Math.sqrt(1 + x * x) + det.asinh(x);
  return Math.sign(cross) * (h * h * h / 6) * (G(sb) - G(sa));
}

/** A mesh's triangles around each of its first vertices (CSR), with marks for faceSpinRadius. */
interface VertexTriangles {
  start: Int32Array;
  tris: Int32Array;
  /** The stamp of the call that marked each vertex, and the contact point it marked it with. */
  mark: Int32Array;
  point: Int32Array;
  stamp: number;
}

const vertexTriangleCache = new WeakMap<object, VertexTriangles>();

/** The triangles around each of the mesh's first `verts` vertices, built once per mesh. */
function vertexTriangles(mesh: { positions: Float64Array; indices: Uint32Array }, verts: number): VertexTriangles {
  let adj = vertexTriangleCache.get(mesh);
  if (adj) return adj;
  const idx = mesh.indices, nt = idx.length / 3;
  const start = new Int32Array(verts + 1);
  for (let k = 0; k < idx.length; k++) if (idx[k]! < verts) start[idx[k]! + 1]!++;
  for (let v = 0; v < verts; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, verts);
  const tris = new Int32Array(start[verts]!);
  for (let tri = 0; tri < nt; tri++) for (let c = 0; c < 3; c++) {
    const v = idx[3 * tri + c]!;
    if (v < verts) tris[fill[v]!++] = tri;
  }
  adj = { start, tris, mark: new Int32Array(verts), point: new Int32Array(verts), stamp: 0 };
  vertexTriangleCache.set(mesh, adj);
  return adj;
}

/**
 * The spin radius of a flat cluster of contact points (members[0, m),
 * led by `leader`, centre c, tangent basis t) from the mesh faces it
 * presses: the mean distance from c over the area of the triangles all of whose
 * vertices are flat points of the patch, exactly (apexTriangleLever), on
 * the side whose such triangles have the smaller area (the face that lies
 * within the other's). That is the lever of Coulomb friction under an
 * even pressure over the pressed faces: a cube's face, 0.383 of its side,
 * where its samples, which lie on its edges, read 0.56; a disc, its
 * polygon's 2R/3. -1 where neither side has such a triangle (a ring lying
 * flat touches along its tube's lowest line, which flatSpinRadius reads
 * from the samples).
 */
export function faceSpinRadius(ctx: StepContext, cs: ContactSet, members: Int32Array, m: number, leader: number, torqueLimit: number, cx: number, cy: number, cz: number, t: Float64Array): number {
  const lp = cs.p;
  if (roundOnPlane(ctx, cs, leader)) return exactPlaneLever(cs, members, m, torqueLimit, ctx.shapeOf(cs.b1[leader]!).convex!);
  let best = -1, bestArea = Infinity;
  for (let side = 0; side < 2; side++) {
    // The body whose samples this side's points are: the leader's, then the other.
    const body = side === 0 ? cs.b1[leader]! : cs.b2[leader]!;
    const shape = ctx.shapeOf(body);
    if (shape.kind !== 'mesh') continue;
    const verts = shape.samples.meshVertexCount ?? shape.samples.vertexCount;
    const adj = vertexTriangles(shape.mesh, verts);
    if (adj.stamp >= 0x3fffffff) { adj.mark.fill(0); adj.stamp = 0; }
    const stamp = ++adj.stamp;
    let any = 0;
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      if (cs.b1[j] !== body || cs.phi[j]! > torqueLimit) continue;
      const v = cs.sample[j]!;
      if (v >= verts) continue;
      adj.mark[v] = stamp;
      adj.point[v] = j;
      any++;
    }
    if (any < 3) continue;
    const idx = shape.mesh.indices;
    let area = 0, moment = 0;
    for (let k = 0; k < m; k++) {
      const j = members[k]!;
      if (cs.b1[j] !== body) continue;
      const v = cs.sample[j]!;
      if (v >= verts || adj.mark[v] !== stamp || adj.point[v] !== j) continue;
      for (let e = adj.start[v]!, end = adj.start[v + 1]!; e < end; e++) {
        const tri = adj.tris[e]!;
        const a = idx[3 * tri]!, b = idx[3 * tri + 1]!, c = idx[3 * tri + 2]!;
        // Each flat triangle once: from its least vertex.
        if (Math.min(a, b, c) !== v || adj.mark[a] !== stamp || adj.mark[b] !== stamp || adj.mark[c] !== stamp) continue;
        const pa = adj.point[a]!, pb = adj.point[b]!, pc = adj.point[c]!;
        const u = faceUV;
        for (let q = 0; q < 3; q++) {
          const pj = q === 0 ? pa : q === 1 ? pb : pc;
          const dx = lp[3 * pj]! - cx, dy = lp[3 * pj + 1]! - cy, dz = lp[3 * pj + 2]! - cz;
          u[2 * q] = dx * t[0]! + dy * t[1]! + dz * t[2]!;
          u[2 * q + 1] = dx * t[3]! + dy * t[4]! + dz * t[5]!;
        }
        const cross = (u[2]! - u[0]!) * (u[5]! - u[1]!) - (u[3]! - u[1]!) * (u[4]! - u[0]!);
        const I = apexTriangleLever(u[0]!, u[1]!, u[2]!, u[3]!) + apexTriangleLever(u[2]!, u[3]!, u[4]!, u[5]!) + apexTriangleLever(u[4]!, u[5]!, u[0]!, u[1]!);
        area += 0.5 * Math.abs(cross);
        moment += Math.abs(I);
      }
    }
    if (area > 0 && area < bestArea) {
      bestArea = area;
      best = moment / area;
    }
  }
  return best;
}

/** Whether point i is one of a capsule's or cylinder's exact points on a plane (narrowphase.ts, roundPlanePoints). */
function roundOnPlane(ctx: StepContext, cs: ContactSet, i: number): boolean {
  const own = ctx.shapeOf(cs.b1[i]!);
  return own.convex !== undefined && exactOnPlane(own) && ctx.shapeOf(cs.b2[i]!).planeNormal !== undefined;
}

/**
 * faceSpinRadius of a capsule's or cylinder's exact points on a plane
 * (narrowphase.ts, roundPlanePoints), whose indices are no mesh vertices:
 * three or more pressed (a cylinder standing on its cap) are its disc, 2R/3;
 * two (lying) the line between them under an even pressure, a quarter of
 * its length; fewer, none.
 */
function exactPlaneLever(cs: ContactSet, members: Int32Array, m: number, torqueLimit: number, solid: ConvexSolid): number {
  let n = 0, first = -1, last = -1;
  for (let k = 0; k < m; k++) {
    const j = members[k]!;
    if (cs.phi[j]! > torqueLimit) continue;
    if (first < 0) first = j;
    last = j;
    n++;
  }
  if (n >= 3 && solid.type === 'cylinder') return (2 / 3) * solid.radius;
  if (n < 2) return 0;
  const P = cs.p;
  return 0.25 * norm3(P[3 * last]! - P[3 * first]!, P[3 * last + 1]! - P[3 * first + 1]!, P[3 * last + 2]! - P[3 * first + 2]!);
}

/**
 * A contact cluster's face lever for the solvers' spin rows (members[0, n),
 * led by its deepest point `lead`; t the tangent basis of its normal): its
 * flat points (within TORQUE_BAND cells of the leader) give the centre,
 * written to `centre`, and faceSpinRadius about it the lever; 0 where fewer
 * than three points lie flat or no mesh face does.
 */
export function faceLever(ctx: StepContext, cs: ContactSet, members: Int32Array, n: number, lead: number, cell: number, t: Float64Array, centre: Float64Array): number {
  const lim = cs.phi[lead]! + TORQUE_BAND * cell, P = cs.p;
  let cx = 0, cy = 0, cz = 0, cnt = 0;
  for (let q = 0; q < n; q++) {
    const j = members[q]!;
    if (cs.phi[j]! > lim) continue;
    cx += P[3 * j]!; cy += P[3 * j + 1]!; cz += P[3 * j + 2]!;
    cnt++;
  }
  if (cnt < 3) return 0;
  cx /= cnt; cy /= cnt; cz /= cnt;
  centre[0] = cx; centre[1] = cy; centre[2] = cz;
  return Math.max(0, faceSpinRadius(ctx, cs, members, n, lead, lim, cx, cy, cz, t));
}

/** faceSpinRadius' scratch: a triangle's corners in the tangent plane about the centre. */
const faceUV = new Float64Array(6);
