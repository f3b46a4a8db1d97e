/**
 * Distance and rope joints as rows of the projected Gauss-Seidel solve
 * (pgs.ts, docs/EXTRAS.md "Constraint solver alternative"). With
 * `solver.contactSolver` "pgs" the DIST parts (parts.ts) leave the joint
 * passes (system.ts skips them) and become one row each, swept together with
 * the contact rows.
 *
 * A part joins anchor pA on body a to anchor pB on body b; with the gap
 * g = pA - pB, d = |g| and n = g / d, its row has the direction -n, so
 * J v = -d' (the anchors' approach speed) and an impulse lambda > 0 pulls the
 * anchors together (tension):
 *
 *   distance   J v  = target,  lambda free         (equality, d = L)
 *   rope       J v >= target,  lambda >= 0          (inequality, d <= L)
 *
 * with the effective mass 1 / (J M^-1 J^T). (A taut row whose predicted gap
 * turns far within the step, a short rod's or one with its anchors together
 * now, takes the rod's direction at the step's end instead of -n, and the
 * target that keeps the length along it: rowDirection, rod.ts.) The target
 * is 0 but for a rope:
 * - slack now (d < L - ROPE_SLACK): -(L - d) / dt, a speculative row like a
 *   contact still apart: the anchors may reach the rope's length within the
 *   step, no more; nothing happens unless they would pass it;
 * - taut now after going taut in the last step with the separating speed u
 *   (kept from that step's row): e u, the rebound with the rope's
 *   restitution e. The speculative row stops the anchors at L, so the
 *   rebound starts there, one step after the catch, at e times the speed the
 *   rope went taut with.
 *
 * Position error goes to pseudo velocities like the contacts' depth (split
 * impulse, no energy added): after the velocity sweeps the row is set up
 * again at the end-of-step pose the solved velocities give (arms, length d',
 * and the direction the rod has once corrected, rod.ts), and the pseudo
 * sweeps drive d' to L + (1 - beta) e0, where
 * e0 = d - L is the error at the step's start (a rope: max(e0, 0), and
 * only pulling). The drift the velocities carry within the step (a
 * pendulum's d grows by (v dt)^2 / (2 L)) is removed whole, the error already
 * there by the fraction beta per step, as with a contact's depth; there is no
 * slop (a joint has no resting contact to keep touching).
 *
 * Warm starting: a row starts from the impulse of its part's row of the last
 * step, when that was taut and holding (not for a slack rope or a rebound).
 */
import type { StepContext } from '../stepContext.ts';
import type { PgsJointRows } from '../constraints.ts';
import { applyRow, ROW_FLOATS, rowVel, setRow } from '../contactRows.ts';
import { addCollisionMatrix, integrateQuat, quatToMat3 } from '../math.ts';
import { DIST, type JointParts } from './parts.ts';
import { rodGap } from './rod.ts';
import { ROPE_SLACK } from './solve.ts';
import * as det from '../../util/detmath.ts';

const DIR = ROW_FLOATS;
const ROT = new Float64Array(9);
/** World arms of A and B (scratch). */
const ARM = new Float64Array(6);
/** A slack rope's row direction (scratch). */
const NOW = new Float64Array(3);

export class DistanceRows implements PgsJointRows {
  /** Rows of the last solve (parts whose bodies can move and that have a direction: anchors apart now or at the step's end). */
  count = 0;
  /** The DIST parts, in part order. */
  readonly parts: Int32Array;
  /** Per DIST part k: the accumulated impulse of its row in the last solve (N s; > 0 pulls). */
  readonly lam: Float64Array;
  /** Per DIST part: the pseudo impulse of the last solve. */
  readonly plam: Float64Array;
  private readonly row: Int32Array;
  private readonly jac: Float64Array;
  private readonly pjac: Float64Array;
  private readonly mass: Float64Array;
  private readonly pmass: Float64Array;
  private readonly target: Float64Array;
  private readonly ptarget: Float64Array;
  private readonly rope: Uint8Array;
  /** d - L at the step's start. */
  private readonly err0: Float64Array;
  /** The separating speed a rope went taut with in the last step (0: none). */
  private readonly impact: Float64Array;
  /** Whether the row held (taut, no rebound) in the last step: its impulse warm-starts the next. */
  private readonly held: Uint8Array;

  constructor(private readonly P: JointParts) {
    const ks: number[] = [];
    for (let p = 0; p < P.count; p++) if (P.kind[p] === DIST) ks.push(p);
    const n = ks.length;
    this.parts = Int32Array.from(ks);
    this.lam = new Float64Array(n);
    this.plam = new Float64Array(n);
    this.row = new Int32Array(n);
    this.jac = new Float64Array(DIR * n);
    this.pjac = new Float64Array(DIR * n);
    this.mass = new Float64Array(n);
    this.pmass = new Float64Array(n);
    this.target = new Float64Array(n);
    this.ptarget = new Float64Array(n);
    this.rope = new Uint8Array(n);
    this.err0 = new Float64Array(n);
    this.impact = new Float64Array(n);
    this.held = new Uint8Array(n);
    for (let k = 0; k < n; k++) this.rope[k] = P.ref[4 * ks[k]! + 1]! !== 0 ? 1 : 0;
  }

  /** Forgets the last step's impulses and pending rebounds. */
  reset(): void {
    this.lam.fill(0);
    this.impact.fill(0);
    this.held.fill(0);
  }

  build(ctx: StepContext, warmStart: boolean): void {
    const P = this.P, B = ctx.bodies, dt = ctx.dt;
    const v = B.vel, w = B.angVel, im = ctx.invMass, II = ctx.invInertia;
    let rows = 0;
    for (let k = 0; k < this.parts.length; k++) {
      const p = this.parts[k]!, a = P.a[p]!, b = P.b[p]!;
      const lamPrev = this.lam[k]!, held = this.held[k]!, impact = this.impact[k]!;
      this.lam[k] = 0;
      this.plam[k] = 0;
      this.held[k] = 0;
      this.impact[k] = 0;
      const ima = im[a]!, imb = im[b]!;
      if (ima === 0 && imb === 0) continue;
      const g = anchorGap(P, p, B.pos, B.quat, B.pos, B.quat);
      const L = P.ref[4 * p]!;
      const d = GAP.d, o = DIR * k;
      const slack = this.rope[k] === 1 && d < L - ROPE_SLACK;
      // The row's direction: the anchors' direction now for a slack rope
      // (a speculative row: they may reach the length, no more) and for a
      // rod or taut rope that turns little within the step; for one that
      // turns far (a short rod, anchors that coincide now) the rod's
      // direction at the step's end (rowDirection, rod.ts).
      let n: Float64Array | null = null;
      if (g !== null) {
        NOW[0] = g.nx;
        NOW[1] = g.ny;
        NOW[2] = g.nz;
        n = NOW;
      }
      if (!slack) n = rowDirection(n, d, this.rope[k] === 1, a, b, v, w, im, II, dt);
      if (n === null) continue;
      setRow(this.jac, o, -n[0]!, -n[1]!, -n[2]!, ARM[0]!, ARM[1]!, ARM[2]!, ARM[3]!, ARM[4]!, ARM[5]!, a, b, II, ima, imb);
      this.mass[k] = effectiveMass(this.jac, o, ima, imb);
      this.err0[k] = d - L;
      // Along a direction n other than now's the rod keeps its length d when
      // the end gap's part along n is d: the anchors separate along n by
      // d - n . g, what the turn from g to n takes (second order in it).
      // Along now's direction the rod keeps its length d when the anchors
      // approach along it by what their motion across it turns the rod:
      // |g + dt u| = d with u's part across n as it is (SHAKE's rule, to
      // second order in the turn). Held at 0 instead, each step's turn took
      // the swing's speed by the cosine of its angle: a 1 m pendulum let go
      // at 60 degrees lost 5.3 % of its energy in 10 s.
      // (A slack rope's target is set below.)
      let target = n !== NOW ? -(d - (n[0]! * GAP.gx + n[1]! * GAP.gy + n[2]! * GAP.gz)) / dt : slack ? 0 : acrossTurn(d, n, dt);
      let warm = true;
      if (this.rope[k]) {
        const e = P.ref[4 * p + 2]!;
        const sep = -rowVel(this.jac, o, v, w, a, b);
        if (slack) {
          // Slack: speculative; remember the speed if it goes taut within the step.
          target = -(L - d) / dt;
          warm = false;
          if (e > 0 && sep > 0 && d + dt * sep >= L - ROPE_SLACK) this.impact[k] = sep;
        } else if (impact > 0) {
          target = e * impact;
          warm = false;
        }
      }
      this.target[k] = target;
      this.row[rows++] = k;
      if (warmStart && warm && held && lamPrev !== 0) {
        this.lam[k] = lamPrev;
        applyRow(this.jac, o, lamPrev, v, w, im, a, b);
      }
      if (warm) this.held[k] = 1;
    }
    this.count = rows;
  }

  sweep(ctx: StepContext): number {
    const P = this.P, B = ctx.bodies, v = B.vel, w = B.angVel, im = ctx.invMass;
    let change = 0;
    for (let r = 0; r < this.count; r++) {
      const k = this.row[r]!, p = this.parts[k]!, a = P.a[p]!, b = P.b[p]!, o = DIR * k;
      const old = this.lam[k]!;
      let l = old + this.mass[k]! * (this.target[k]! - rowVel(this.jac, o, v, w, a, b));
      if (this.rope[k] && l < 0) l = 0;
      this.lam[k] = l;
      if (l !== old) {
        applyRow(this.jac, o, l - old, v, w, im, a, b);
        change = Math.max(change, Math.abs(l - old) / this.mass[k]!);
      }
    }
    return change;
  }

  prepareBias(ctx: StepContext, beta: number): boolean {
    const P = this.P, B = ctx.bodies, dt = ctx.dt;
    const im = ctx.invMass, II = ctx.invInertia;
    const X = B.pos, v = B.vel, w = B.angVel;
    const free = ctx.freeVel, gr = ctx.gravity, acc = ctx.extAcc, half = 0.5 * dt * dt;
    const XE = this.endPos, QE = this.endQuat;
    let any = false;
    for (let r = 0; r < this.count; r++) {
      const k = this.row[r]!, p = this.parts[k]!, a = P.a[p]!, b = P.b[p]!;
      // The end-of-step poses integratePositions will give (free flight: the parabola).
      for (let s = 0; s < 2; s++) {
        const i = s === 0 ? a : b;
        const fl = v[3 * i] === free[3 * i] && v[3 * i + 1] === free[3 * i + 1] && v[3 * i + 2] === free[3 * i + 2];
        for (let c = 0; c < 3; c++) {
          XE[3 * s + c] = X[3 * i + c]! + (im[i] === 0 ? 0 : dt * v[3 * i + c]! - (fl ? half * (gr[c]! + acc[3 * i + c]!) : 0));
        }
        if (im[i] === 0) for (let c = 0; c < 4; c++) QE[4 * s + c] = B.quat[4 * i + c]!;
        else integrateQuat(B.quat, 4 * i, w[3 * i]!, w[3 * i + 1]!, w[3 * i + 2]!, dt, QE, 4 * s);
      }
      this.ptarget[k] = 0;
      this.pmass[k] = 0;
      const g = anchorGapAt(P, p, XE, QE);
      if (g === null) continue;
      const e0 = this.rope[k] ? Math.max(this.err0[k]!, 0) : this.err0[k]!;
      const Lt = P.ref[4 * p]! + (1 - beta) * e0;
      // The row's direction: the rod's at the end of the correction
      // (rod.ts), not the end-of-step gap's. Along the gap, the pseudo
      // impulse on an anchor off a light body's centre moves it mostly across
      // the rod, and the step's correction of a short rod fell short by the
      // square of that motion over the length (a 0.1 m rod to a 5 cm ball's
      // anchor 1 m off its centre: 0.3 mm of a 1 mm correction left, step
      // after step, until it let the ball fall).
      const n = rodDirection(g, Lt, this.rope[k] === 1, a, b, im, II);
      const pt = (n[0]! * g.gx + n[1]! * g.gy + n[2]! * g.gz - Lt) / dt;
      if (this.rope[k] && !(pt > 0)) continue;
      const o = DIR * k;
      setRow(this.pjac, o, -n[0]!, -n[1]!, -n[2]!, ARM[0]!, ARM[1]!, ARM[2]!, ARM[3]!, ARM[4]!, ARM[5]!, a, b, II, im[a]!, im[b]!);
      this.pmass[k] = effectiveMass(this.pjac, o, im[a]!, im[b]!);
      this.ptarget[k] = pt;
      if (pt !== 0) any = true;
    }
    return any;
  }

  pseudoSweep(ctx: StepContext, pv: Float64Array, pw: Float64Array): number {
    const P = this.P, im = ctx.invMass;
    let change = 0;
    for (let r = 0; r < this.count; r++) {
      const k = this.row[r]!;
      if (this.pmass[k] === 0) continue;
      const p = this.parts[k]!, a = P.a[p]!, b = P.b[p]!, o = DIR * k;
      const old = this.plam[k]!;
      let l = old + this.pmass[k]! * (this.ptarget[k]! - rowVel(this.pjac, o, pv, pw, a, b));
      if (this.rope[k] && l < 0) l = 0;
      this.plam[k] = l;
      if (l !== old) {
        applyRow(this.pjac, o, l - old, pv, pw, im, a, b);
        change = Math.max(change, Math.abs(l - old) / this.pmass[k]!);
      }
    }
    return change;
  }

  finish(ctx: StepContext): void {
    const P = this.P;
    for (let r = 0; r < this.count; r++) {
      const k = this.row[r]!;
      if (this.lam[k] === 0 && this.plam[k] === 0) continue;
      ctx.markMoved(P.a[this.parts[k]!]!);
      ctx.markMoved(P.b[this.parts[k]!]!);
    }
  }

  private readonly endPos = new Float64Array(6);
  private readonly endQuat = new Float64Array(8);
}

/**
 * The row velocity (-n . u, u the anchors' relative velocity at their arms,
 * UREL as rowDirection left it) that keeps a rod of length d at d over the step: the anchors'
 * motion across n, u_t, turns the rod, and |g + dt u| = d takes an approach
 * along n of (d - sqrt(d^2 - dt^2 |u_t|^2)) / dt. 0 where the turn is past
 * TURN_START.
 */
function acrossTurn(d: number, n: Float64Array, dt: number): number {
  const ux = UREL[0]!, uy = UREL[1]!, uz = UREL[2]!;
  const un = ux * n[0]! + uy * n[1]! + uz * n[2]!;
  const across = Math.max(0, ux * ux + uy * uy + uz * uz - un * un) * dt * dt;
  // Only for a turn the direction now resolves (below TURN_START); a rod
  // far shorter than its anchors' motion (lengths down to 1e-300) is a ball
  // joint, which the row holds at 0.
  if (!(across <= TURN_START * TURN_START * d * d)) return 0;
  return (d - Math.sqrt(d * d - across)) / dt;
}

/** The gap of part p, its length and direction (null where the anchors coincide: no direction; GAP holds the gap still); the world arms are left in ARM. */
interface Gap { d: number; nx: number; ny: number; nz: number; gx: number; gy: number; gz: number }
const GAP: Gap = { d: 0, nx: 0, ny: 0, nz: 0, gx: 0, gy: 0, gz: 0 };

function anchorGap(P: JointParts, p: number, XA: Float64Array, QA: Float64Array, XB: Float64Array, QB: Float64Array): Gap | null {
  const a = P.a[p]!, b = P.b[p]!;
  return gapOf(P, p, XA, 3 * a, QA, 4 * a, XB, 3 * b, QB, 4 * b);
}

/** The same at the end-of-step poses XE (A at 0, B at 3) and QE (A at 0, B at 4). */
function anchorGapAt(P: JointParts, p: number, XE: Float64Array, QE: Float64Array): Gap | null {
  return gapOf(P, p, XE, 0, QE, 0, XE, 3, QE, 4);
}

function gapOf(P: JointParts, p: number, XA: Float64Array, xa: number, QA: Float64Array, qa: number,
  XB: Float64Array, xb: number, QB: Float64Array, qb: number): Gap | null {
  quatToMat3(QA, qa, ROT);
  rotate(ROT, P.rA, 3 * p, ARM, 0);
  quatToMat3(QB, qb, ROT);
  rotate(ROT, P.rB, 3 * p, ARM, 3);
  const gx = XA[xa]! + ARM[0]! - XB[xb]! - ARM[3]!;
  const gy = XA[xa + 1]! + ARM[1]! - XB[xb + 1]! - ARM[4]!;
  const gz = XA[xa + 2]! + ARM[2]! - XB[xb + 2]! - ARM[5]!;
  const d = Math.hypot(gx, gy, gz);
  GAP.d = d;
  GAP.gx = gx;
  GAP.gy = gy;
  GAP.gz = gz;
  // Coincident anchors give no direction: nothing to hold this step.
  if (!(d > 1e-12)) return null;
  GAP.nx = gx / d;
  GAP.ny = gy / d;
  GAP.nz = gz / d;
  return GAP;
}

const KM = new Float64Array(9);
const G3 = new Float64Array(3);
const N3 = new Float64Array(3);
const D3 = new Float64Array(3);
const Z3 = new Float64Array(3);

/**
 * The unit direction of the gap g (arms in ARM) once an impulse along the
 * rod's final direction has set its length to L (rod.ts); g's own direction
 * where there is none (a rope not longer than L).
 */
function rodDirection(g: Gap, L: number, rope: boolean, a: number, b: number, im: Float64Array, II: Float64Array): Float64Array {
  N3[0] = g.nx;
  N3[1] = g.ny;
  N3[2] = g.nz;
  KM.fill(0);
  if (im[a] !== 0) addCollisionMatrix(im[a]!, II, 9 * a, ARM, 0, KM);
  if (im[b] !== 0) addCollisionMatrix(im[b]!, II, 9 * b, ARM, 3, KM);
  G3[0] = g.gx;
  G3[1] = g.gy;
  G3[2] = g.gz;
  if (!rodGap(KM, G3, L, rope, D3, Z3)) return N3;
  return D3;
}

const GE: Gap = { d: 0, nx: 0, ny: 0, nz: 0, gx: 0, gy: 0, gz: 0 };
const UREL = new Float64Array(3);

/** Rows turning less than this within the step (rad) keep the direction now (rowDirection). */
const TURN_START = 0.05;
/** Rows turning more than this take the rod's direction at the step's end (rad). */
const TURN_FULL = 0.2;

/**
 * The direction of a taut row (`now`: the anchors' direction now, null where
 * they coincide; gap in GAP, arms in ARM): the direction now while the gap
 * the anchors' relative velocity predicts at the step's end (the linear
 * prediction the row makes) has turned by less than TURN_START, the rod's
 * direction at the step's end (rod.ts) once it turns by TURN_FULL, and
 * between the two a blend. Null where neither exists.
 */
function rowDirection(now: Float64Array | null, L: number, rope: boolean, a: number, b: number, v: Float64Array, w: Float64Array,
  im: Float64Array, II: Float64Array, dt: number): Float64Array | null {
  for (let c = 0; c < 3; c++) {
    const c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    // u = vA + wA x rA - vB - wB x rB
    UREL[c] = v[3 * a + c]! + w[3 * a + c1]! * ARM[c2]! - w[3 * a + c2]! * ARM[c1]!
      - v[3 * b + c]! - (w[3 * b + c1]! * ARM[3 + c2]! - w[3 * b + c2]! * ARM[3 + c1]!);
  }
  GE.gx = GAP.gx + dt * UREL[0]!;
  GE.gy = GAP.gy + dt * UREL[1]!;
  GE.gz = GAP.gz + dt * UREL[2]!;
  const d = Math.hypot(GE.gx, GE.gy, GE.gz);
  if (!(d > 1e-12)) return now;
  GE.d = d;
  GE.nx = GE.gx / d;
  GE.ny = GE.gy / d;
  GE.nz = GE.gz / d;
  let f = 1;
  if (now !== null) {
    const turn = det.acos(Math.min(1, Math.max(-1, now[0]! * GE.nx + now[1]! * GE.ny + now[2]! * GE.nz)));
    if (!(turn > TURN_START)) return now;
    f = Math.min(1, (turn - TURN_START) / (TURN_FULL - TURN_START));
  }
  const end = rodDirection(GE, L, rope, a, b, im, II);
  if (f === 1 || now === null) return end;
  const mx = (1 - f) * now[0]! + f * end[0]!, my = (1 - f) * now[1]! + f * end[1]!, mz = (1 - f) * now[2]! + f * end[2]!;
  const m = Math.hypot(mx, my, mz);
  if (!(m > 1e-6)) return end;
  end[0] = mx / m;
  end[1] = my / m;
  end[2] = mz / m;
  return end;
}

function rotate(R: Float64Array, u: Float64Array, o: number, out: Float64Array, oo: number): void {
  const x = u[o]!, y = u[o + 1]!, z = u[o + 2]!;
  out[oo] = R[0]! * x + R[1]! * y + R[2]! * z;
  out[oo + 1] = R[3]! * x + R[4]! * y + R[5]! * z;
  out[oo + 2] = R[6]! * x + R[7]! * y + R[8]! * z;
}

/** 1 / (J M^-1 J^T) of the row at o (d a unit vector): 1 / (m_a^-1 + m_b^-1 + (r_a x d) . I_a^-1 (r_a x d) + ...), 0 if nothing can move. */
function effectiveMass(j: Float64Array, o: number, ima: number, imb: number): number {
  const q = ima + imb
    + j[o + 3]! * j[o + 9]! + j[o + 4]! * j[o + 10]! + j[o + 5]! * j[o + 11]!
    + j[o + 6]! * j[o + 12]! + j[o + 7]! * j[o + 13]! + j[o + 8]! * j[o + 14]!;
  return q > 0 ? 1 / q : 0;
}
