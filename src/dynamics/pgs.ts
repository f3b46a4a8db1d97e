/**
 * The alternative contact solver (docs/EXTRAS.md "Constraint solver alternative"):
 * projected Gauss-Seidel on the contact points the penetration query found,
 * with warm starting and split impulses. It replaces the sequential contact
 * phase (contact iterations + shock propagation) of World.step() when
 * `solver.contactSolver` is "pgs"; detection and the collision phase are the
 * same, so the two solvers can be compared on the same scenes.
 *
 * Every contact point is one constraint with three rows, a normal row and two
 * friction rows along a tangent basis t1, t2 of the normal:
 *
 *   normal     J_n v >= target, lambda_n >= 0 (accumulated)
 *   friction   J_t v  = 0,      |(lambda_t1, lambda_t2)| <= mu_s lambda_n
 *
 * The friction cone's radius is mu_s lambda_n for a contact that sticks and
 * mu_d lambda_n for one that slides (seed 003, 2.4.4): a contact slides from
 * the step after the solve left its point slipping (faster than SLIP_SPEED:
 * the cone could not stop it) and sticks again from the step after it held. The state travels with the warm-start cache; a
 * new contact starts sticking.
 *
 * A face pressed on a static body (a pair with flat mesh triangles among its
 * points, patches.ts faceSpinRadius) has its points' friction act with no
 * lever about the normal through the face's centre, and one spin row per
 * pair holds the spin up to mu_s r_s sum(lambda_n), r_s the pressed area's
 * mean distance from its centre (spinRow).
 *
 * with the effective mass 1 / (d^T K d) of each row direction d, K the
 * collision matrix of the two bodies at the point (addCollisionMatrix).
 * `target` is 0 for a penetrating point and -phi/dt for a point that is still
 * apart now (phi > 0, only predicted to touch): it may close the gap within
 * the step, no more (a speculative contact, so a falling box is not stopped
 * short of the ground).
 *
 * Position error is removed by a separate pass on pseudo velocities (split
 * impulse): rows with the same Jacobians drive the pseudo normal velocity to
 * beta/dt * max(-(phi + slop), 0), beta and slop (in cells of the pair's
 * SDF) the solver settings pgsBeta and pgsSlop.
 *
 * Sweeps: at most contactIterations; with a tolerance pgsErrMax > 0 the
 * velocity sweeps stop after the first that changed no row's relative
 * velocity by more than it (seed 002's projectedGS, `abs(x - x0) < errMax`,
 * with each lambda change taken as the velocity change it makes, so one
 * tolerance fits light and heavy bodies alike). The pseudo sweeps stop the
 * same way. Pseudo velocities only move positions in
 * applyPositionCorrection() and are then dropped, so the correction never
 * enters the real velocities and adds no kinetic energy.
 *
 * Warm starting: the accumulated impulses of the last step are kept in the
 * contact store (contactStore.ts), the accumulated stage's: each row's
 * under its pair and its point's side and sample (samples are fixed
 * body-local points), found again by a merge over the pairs and a search
 * within each, and applied before the first iteration. Friction impulses
 * are kept as world vectors, so a changed tangent basis does not matter.
 *
 * Joint rows: distance and rope joints (joints/pgsRows.ts) are rows of the
 * same solve, an equality and a one-sided row; they are handed in as
 * `jointRows` and swept after the contact rows in every velocity and pseudo
 * sweep (PgsJointRows).
 */
import type { BodyStore } from './bodies.ts';
import type { ContactSet } from './contacts.ts';
import type { Material } from './impulse.ts';
import { pairCell, pairMaterial } from './material.ts';
import { applyRow, ROW_FLOATS, rowVel, setRow } from './contactRows.ts';
import { addCollisionMatrix, integrateQuat, norm2, tangentBasis } from './math.ts';
import type { StepContext } from './stepContext.ts';
import type { ContactPhase, ContactSolver } from './contactSolver.ts';
import type { PgsJointRows } from './constraints.ts';
import { CONTACT_SOLVER_STAGES, type StepProfile } from './profile.ts';
import { grown, sizeColumns } from '../util/growable.ts';
import { faceLever } from './patches.ts';
import { BALL_CONE, ballField, meshBall } from './fieldPoint.ts';
import { contactKey, ContactStore, STORE_IMPULSE } from './contactStore.ts';
import type { PairList } from './pairs.ts';

/** Floats per row direction (contactRows.ts). */
const DIR = ROW_FLOATS;
/** Three directions per contact: normal, t1, t2. */
const JAC = 3 * DIR;
/** A row's columns (PgsSolver's fields of the same names). */
const ROW_COLUMNS = { b1: 1, b2: 1, jac: JAC, mass: 3, mu: 1, target: 1, ptarget: 1, lam: 4, rowKey: 1, muS: 1, slid: 1, impact: 1 } as const;
/** A stored impulse's flags (ContactStore.flags): its row slid; it stopped an impact (not warm-started: see IMPACT_STEPS). */
const STORED_SLID = 1;
const STORED_IMPACT = 2;
/**
 * Tangential speed (m/s) above which a contact point counts as sliding after
 * the solve (it takes the dynamic cone next step); at or below, it sticks.
 */
const SLIP_SPEED = 1e-3;
/**
 * A row whose bodies approached faster than this many steps of gravity when
 * the step began stopped an impact: its impulse is not warm-started the next
 * step. Re-applied, the impulses of landings pushed apart rows that no longer
 * needed them, more than the sweeps through a pile could take back: 200 rings
 * onto pegs threw one at 290 m/s and 529 m high (free fall gives 21 m/s).
 * Resting contacts (a tower) keep their whole warm start.
 */
/** A pair whose rows' impulses hold it apart by less than this fraction of their sum is squeezed (PgsSolver.unsqueeze). */
const SQUEEZE = 0.5;
const IMPACT_STEPS = 2;
/** The two lever arms of a row, r1 then r2 (addCollisionMatrix). */
const ARMS = new Float64Array(6);
/** buildRows' scratch: the mesh's field at a true sphere's centre (gradient, value), then the centre (ballField). */
const BALL_N = new Float64Array(7);

export class PgsSolver implements ContactSolver {
  readonly stages = CONTACT_SOLVER_STAGES.pgs;
  /** Sleeping reads the raw contact points. */
  readonly pairDepth = null;
  /**
   * Only bodies faster than the sleep test's speed scale take the trapezoid:
   * in a settling heap the warm-started rows leave each body's velocity
   * jittering from step to step, and half of each jitter taken as a move
   * kept 207 of 250 boxes awake at 15 s (all asleep from 7.8 s without the
   * trapezoid, from 7.5 s with this bound). Moved by dt v' alone, a box
   * sliding down a ramp ran 2.1 % ahead of its path at 60 Hz.
   */
  readonly trapezoidSpeed = 0.05;
  /** Its resting contacts lie solver.pgsSlop deep and a little more under load (0.11-0.13 cells in a still pile of 60 rings at the default 0.1). */
  restingSlop(ctx: StepContext): number {
    return ctx.settings.pgsSlop;
  }
  /** Start from last step's impulses (off only to measure what warm starting buys). */
  warmStart = true;
  /** Rows of the last solve and how many of them were warm started (for tests and monitors). */
  rows = 0;
  warmRows = 0;
  /** Velocity sweeps of the last solve (0 with no rows; StepProfile.pgsSweeps). */
  sweeps = 0;
  /** The joint rows swept with the contacts (set by World before each solve; null: none). */
  jointRows: PgsJointRows | null = null;

  // The columns of the rows (ROW_COLUMNS) are the solver's own: they are
  // not private only so the column helpers (growable.ts) reach them.

  // ---- rows of the current solve ----
  private cap = 0;
  b1 = new Int32Array(0);
  b2 = new Int32Array(0);
  jac = new Float64Array(0);
  /** Effective masses: normal, t1, t2 per row. */
  mass = new Float64Array(0);
  /** Dynamic and static friction coefficients per row. */
  mu = new Float64Array(0);
  muS = new Float64Array(0);
  /** 1 for a row that slides this step (dynamic cone), 0 for one that sticks; then whether it reached its cone. */
  slid = new Uint8Array(0);
  /** 1 for a row whose bodies approached faster than IMPACT_STEPS steps of gravity when it was built. */
  impact = new Uint8Array(0);
  /** Lower bound of the normal velocity; target of the pseudo normal velocity. */
  target = new Float64Array(0);
  ptarget = new Float64Array(0);
  /** Accumulated impulses: normal, t1, t2, pseudo normal. */
  lam = new Float64Array(0);
  /** The row's point's key within its pair in the store (contactKey). */
  rowKey = new Float64Array(0);

  // ---- pseudo velocities (3 per body, linear and angular) ----
  private pv = new Float64Array(0);
  private pw = new Float64Array(0);
  private pseudoActive = false;
  /** Whether a row needs a pseudo velocity (prepare to solve). */
  private anyBias = false;

  /** Last step's impulses (the warm start). */
  private readonly store = new ContactStore();
  /** Pair k's rows are [pairFirst[k], pairEnd[k]) (rows are made pair by pair; none: equal). */
  /**
   * Spin rows: a face pressed on a static body (its points' friction rows
   * then act with no lever about the normal through its centre) is held
   * against spinning about its normal by one row, up to mu r_s times the
   * pair's normal impulse, r_s the lever of the area it presses
   * (patches.ts faceSpinRadius): the points' own friction held a disc
   * resting on a plane not at all (its load all on one point) and a cube at
   * its corners. Per row: the pair's rows [first, end), the bodies, the
   * normal and each body's I^-1 n, the effective mass, the bound per unit
   * normal impulse, the impulse (from 0 each step).
   */
  private spinCount = 0;
  private spinRows = new Int32Array(0);
  private spinBodies = new Int32Array(0);
  private spinJac = new Float64Array(0);
  private spinMass = new Float64Array(0);
  private spinBound = new Float64Array(0);
  private spinLam = new Float64Array(0);
  private spinMembers = new Int32Array(0);
  private readonly faceCentre = new Float64Array(3);
  private pairFirst = new Int32Array(0);
  private pairEnd = new Int32Array(0);
  private readonly K = new Float64Array(9);
  private readonly basis = new Float64Array(6);
  private readonly mat: Material = { restitution: 0, friction: 0, staticFriction: 0, rolling: 0, spinning: 0 };

  /**
   * Builds the rows of the contact phase from the pairs' current points
   * (pairs visited in `pairs.order`, bottom level first), each warm started
   * from last step's cache where it matches (stage contactPrepare).
   * Contacts were found at poses predicted dt ahead, with points moved back
   * to the current centres. The joint rows to sweep with them are the
   * scene's distance and rope joints (joints/pgsRows.ts).
   */
  prepare(phase: ContactPhase): void {
    const ctx = phase.ctx;
    this.jointRows = phase.constraints?.pgsRows ?? null;
    this.buildRows(ctx, phase.contacts.cur, phase.pairs, ctx.dt);
    phase.profile.end('contactPrepare');
  }

  /**
   * The warm start and the velocity sweeps (stage contactSolve), then the
   * split impulse's pseudo sweeps (positionCorrection); the joint rows'
   * share of both is booked as joints. Velocities change in place
   * (ctx.bodies.vel / angVel) with the solver masses ctx.invMass / invInertia.
   */
  async solve(phase: ContactPhase): Promise<void> {
    const prof = phase.profile;
    this.solveVelocities(phase.ctx, prof);
    prof.pgsSweeps += this.sweeps;
    prof.end('contactSolve');
    this.solvePositions(phase.ctx, prof);
    prof.end('positionCorrection');
  }

  /**
   * Keeps the impulses for the next step's warm start (stage contactStore),
   * and marks the bodies of every contact moved (their velocities changed:
   * their pairs must not reuse their points); then one position pass for
   * the joints that are not rows (stage joints).
   */
  finish(phase: ContactPhase): void {
    const ctx = phase.ctx, cs = phase.contacts.cur;
    this.storeImpulses(phase.pairs, this.rows);
    for (let i = 0; i < cs.count; i++) {
      ctx.markMoved(cs.b1[i]!);
      ctx.markMoved(cs.b2[i]!);
    }
    phase.profile.end('contactStore');
    if (phase.constraints) {
      phase.constraints.positionStabilize(ctx, -1);
      phase.profile.end('joints');
    }
  }

  /** The position half of the split impulse, after integration (stage pseudoPositions). */
  integrated(ctx: StepContext, profile: StepProfile): void {
    if (!this.pseudoActive) return;
    this.applyPositionCorrection(ctx.bodies, ctx.dt);
    profile.end('pseudoPositions');
  }

  private buildRows(ctx: StepContext, cs: ContactSet, pairs: PairList, h: number): void {
    const B = ctx.bodies;
    const n = B.count;
    if (this.pv.length !== 3 * n) {
      this.pv = new Float64Array(3 * n);
      this.pw = new Float64Array(3 * n);
      this.store.reset(); // body indices changed meaning
    }
    this.store.index(pairs);
    const order = pairs.order, pairCount = pairs.count;
    this.ensure(cs.count);
    const dt = ctx.dt;
    const v = B.vel, w = B.angVel;
    const im = ctx.invMass, II = ctx.invInertia;
    const X = B.pos;
    const t = this.basis;
    const jac = this.jac, K = this.K;
    let rows = 0;
    let warm = 0;
    let anyBias = false;
    const beta = ctx.settings.pgsBeta;
    const impactSpeed = IMPACT_STEPS * Math.hypot(ctx.gravity[0], ctx.gravity[1], ctx.gravity[2]) * ctx.dt;

    // ---- build rows (pair order: bottom levels first) ----
    if (this.pairFirst.length < pairCount) {
      this.pairFirst = new Int32Array(2 * pairCount + 16);
      this.pairEnd = new Int32Array(2 * pairCount + 16);
    }
    this.pairFirst.fill(0, 0, pairCount);
    this.pairEnd.fill(0, 0, pairCount);
    this.spinCount = 0;
    for (let o = 0; o < pairCount; o++) {
      const k = order[o]!;
      if (cs.start[k] === cs.end[k]) continue;
      this.pairFirst[k] = rows;
      const cell = pairCell(ctx.shapes, B, cs.b1[cs.start[k]!]!, cs.b2[cs.start[k]!]!);
      const slop = ctx.settings.pgsSlop * cell;
      // A true sphere against a mesh: its points within BALL_CONE of the
      // mesh's field gradient at its centre are one row along that gradient,
      // through the centre, with the field's value there less the radius as
      // its gap (docs/DESIGN.md 4, "Ball in a bowl"). A row per sample along
      // its own normal at the predicted pose, which leans back by
      // v dt / (R - r), let a ball swinging in a bowl lose 45 % of its
      // energy in 5 s, and spin. (Along the gradient half a step on, the
      // accumulated stage's choice, it lost 27 %: PGS moves the ball a whole
      // step on what it solves at the step's start, not in substeps.)
      const p1 = cs.b1[cs.start[k]!]!, p2 = cs.b2[cs.start[k]!]!;
      const ball = meshBall(ctx, p1, p2);
      const ballR = ball < 0 ? 0 : ctx.shapeOf(ball).sphere!.radius;
      const ballRow = ball >= 0 && ballField(ctx, ball, ball === p1 ? p2 : p1, BALL_N);
      const BN = BALL_N;
      let ballDone = false;
      for (let i = cs.start[k]!; i < cs.end[k]!; i++) {
        // Each penetrating point is a row; the points just outside that the
        // narrow phase lists for patches are not contacts here.
        if (!(cs.phi[i]! < 0)) continue;
        const a = cs.b1[i]!, b = cs.b2[i]!;
        const ima = im[a]!, imb = im[b]!;
        if (ima === 0 && imb === 0) continue;
        const r = rows;
        this.b1[r] = a;
        this.b2[r] = b;
        let px = cs.p[3 * i]!, py = cs.p[3 * i + 1]!, pz = cs.p[3 * i + 2]!;
        let nx = cs.n[3 * i]!, ny = cs.n[3 * i + 1]!, nz = cs.n[3 * i + 2]!;
        let own = false;
        if (ball >= 0) {
          // (The normal pushes body 1 off body 2.)
          const sg = a === ball ? 1 : -1;
          if (ballRow && sg * (BN[0]! * nx + BN[1]! * ny + BN[2]! * nz) >= BALL_CONE) {
            if (ballDone) continue;
            ballDone = true;
            own = true;
            nx = sg * BN[0]!; ny = sg * BN[1]!; nz = sg * BN[2]!;
          }
          // The point on its surface where the normal's line through its
          // centre leaves it, so no normal impulse turns it (at the sample,
          // a few millimetres to the side, a frictionless ball in a bowl
          // spun at 0.8 rad/s).
          const side = -sg * ballR;
          px = BN[4]! + side * nx; py = BN[5]! + side * ny; pz = BN[6]! + side * nz;
        }
        const r1x = px - X[3 * a]!, r1y = py - X[3 * a + 1]!, r1z = pz - X[3 * a + 2]!;
        const r2x = px - X[3 * b]!, r2y = py - X[3 * b + 1]!, r2z = pz - X[3 * b + 2]!;
        tangentBasis(nx, ny, nz, t);
        const t1x = t[0]!, t1y = t[1]!, t1z = t[2]!, t2x = t[3]!, t2y = t[4]!, t2z = t[5]!;
        K.fill(0);
        const arm = ARMS;
        arm[0] = r1x; arm[1] = r1y; arm[2] = r1z; arm[3] = r2x; arm[4] = r2y; arm[5] = r2z;
        if (ima !== 0) addCollisionMatrix(ima, II, 9 * a, arm, 0, K);
        if (imb !== 0) addCollisionMatrix(imb, II, 9 * b, arm, 3, K);
        const base = JAC * r;
        setRow(jac, base, nx, ny, nz, r1x, r1y, r1z, r2x, r2y, r2z, a, b, II, ima, imb);
        setRow(jac, base + DIR, t1x, t1y, t1z, r1x, r1y, r1z, r2x, r2y, r2z, a, b, II, ima, imb);
        setRow(jac, base + 2 * DIR, t2x, t2y, t2z, r1x, r1y, r1z, r2x, r2y, r2z, a, b, II, ima, imb);
        this.mass[3 * r] = invQuad(K, nx, ny, nz);
        this.mass[3 * r + 1] = invQuad(K, t1x, t1y, t1z);
        this.mass[3 * r + 2] = invQuad(K, t2x, t2y, t2z);
        const mat = pairMaterial(B, a, b, this.mat);
        this.mu[r] = mat.friction;
        this.muS[r] = mat.staticFriction;
        // Gap now: the query's phi was at the pose predicted h ahead with the
        // current velocities; undo that motion along the normal.
        const un0 = rowVel(jac, base, v, w, a, b);
        this.impact[r] = un0 < -impactSpeed ? 1 : 0;
        const phi = own ? BN[3]! - ballR : cs.phi[i]! - h * un0;
        this.target[r] = phi > 0 ? -phi / dt : 0;
        const pt = phi + slop < 0 ? (-beta * (phi + slop)) / dt : 0;
        this.ptarget[r] = pt;
        if (pt > 0) anyBias = true;
        this.rowKey[r] = contactKey(cs, pairs.a[k]!, i);
        this.lam[4 * r] = 0;
        this.lam[4 * r + 1] = 0;
        this.lam[4 * r + 2] = 0;
        this.lam[4 * r + 3] = 0;
        this.slid[r] = 0;
        this.spinMembers = grown(this.spinMembers, rows - this.pairFirst[k]! + 1);
        this.spinMembers[rows - this.pairFirst[k]!] = i;
        rows++;
      }
      this.pairEnd[k] = rows;
      if (rows - this.pairFirst[k]! >= 3) this.spinRow(ctx, cs, pairs, k, cell);
      for (let r = this.pairFirst[k]!; r < rows; r++) if (this.warmStart && this.warmRow(r, k)) warm++;
    }
    this.rows = rows;
    this.warmRows = warm;
    this.anyBias = anyBias;
  }

  private solveVelocities(ctx: StepContext, prof: StepProfile): void {
    const B = ctx.bodies;
    const v = B.vel, w = B.angVel;
    const im = ctx.invMass;
    const jac = this.jac;
    const rows = this.rows;

    // ---- warm start: apply the cached impulses ----
    for (let r = 0; r < rows; r++) {
      const base = JAC * r;
      const a = this.b1[r]!, b = this.b2[r]!;
      const ln = this.lam[4 * r]!, l1 = this.lam[4 * r + 1]!, l2 = this.lam[4 * r + 2]!;
      if (ln !== 0) applyRow(jac, base, ln, v, w, im, a, b);
      if (l1 !== 0) applyRow(jac, base + DIR, l1, v, w, im, a, b);
      if (l2 !== 0) applyRow(jac, base + 2 * DIR, l2, v, w, im, a, b);
    }
    const jr = this.jointRows;
    if (jr) {
      prof.end('contactSolve');
      jr.build(ctx, this.warmStart);
      prof.end('joints');
    }

    // ---- velocity iterations ----
    // Locals: the loops below are the hot path.
    const lam = this.lam, mass = this.mass, mu = this.mu, muS = this.muS, slid = this.slid, tgt = this.target;
    const rb1 = this.b1, rb2 = this.b2;
    const iters = Math.max(1, ctx.settings.contactIterations);
    const errMax = ctx.settings.pgsErrMax;
    let sweeps = 0;
    for (let it = 0; it < iters && (rows > 0 || jr !== null); it++) {
      sweeps++;
      // The largest velocity change of a row in this sweep (m/s).
      let change = 0;
      for (let r = 0; r < rows; r++) {
        const base = JAC * r;
        const a = rb1[r]!, b = rb2[r]!;
        // Normal: accumulated impulse clamped at 0.
        const un = rowVel(jac, base, v, w, a, b);
        const old = lam[4 * r]!;
        const ln = Math.max(0, old + mass[3 * r]! * (tgt[r]! - un));
        lam[4 * r] = ln;
        if (ln !== old) {
          applyRow(jac, base, ln - old, v, w, im, a, b);
          const dv = Math.abs(ln - old) / mass[3 * r]!;
          if (dv > change) change = dv;
        }
        // Friction: both tangent rows, then the pair projected onto the disc
        // of radius mu_d lambda_n (the friction cone, not a box) when it
        // leaves the static one (mu_s lambda_n).
        const u1 = rowVel(jac, base + DIR, v, w, a, b);
        const u2 = rowVel(jac, base + 2 * DIR, v, w, a, b);
        const o1 = lam[4 * r + 1]!, o2 = lam[4 * r + 2]!;
        let n1 = o1 - mass[3 * r + 1]! * u1;
        let n2 = o2 - mass[3 * r + 2]! * u2;
        const len = norm2(n1, n2);
        const lim = (slid[r] === 1 ? mu[r]! : muS[r]!) * ln;
        if (len > lim) {
          const s = len > 0 ? lim / len : 0;
          n1 *= s;
          n2 *= s;
        }
        lam[4 * r + 1] = n1;
        lam[4 * r + 2] = n2;
        if (n1 !== o1) applyRow(jac, base + DIR, n1 - o1, v, w, im, a, b);
        if (n2 !== o2) applyRow(jac, base + 2 * DIR, n2 - o2, v, w, im, a, b);
        // (A row no body can move along, effective mass 0, changes nothing.)
        const m1 = mass[3 * r + 1]!, m2 = mass[3 * r + 2]!;
        const dt1 = m1 > 0 ? Math.abs(n1 - o1) / m1 : 0, dt2 = m2 > 0 ? Math.abs(n2 - o2) / m2 : 0;
        if (dt1 > change) change = dt1;
        if (dt2 > change) change = dt2;
      }
      const spinChange = this.sweepSpins(v, w);
      if (spinChange > change) change = spinChange;
      if (jr) {
        prof.end('contactSolve');
        // The joint rows' change counts too: without it a scene whose only
        // rows are joints' stopped after one sweep under pgsErrMax > 0.
        change = Math.max(change, jr.sweep(ctx));
        prof.end('joints');
      }
      if (errMax > 0 && change <= errMax) break;
    }
    this.sweeps = sweeps;

    // A row whose point still slips after the solve slides next step.
    for (let r = 0; r < rows; r++) {
      const base = JAC * r, a = rb1[r]!, b = rb2[r]!;
      slid[r] = norm2(rowVel(jac, base + DIR, v, w, a, b), rowVel(jac, base + 2 * DIR, v, w, a, b)) > SLIP_SPEED ? 1 : 0;
    }
  }

  /**
   * Pair k's spin row (spinRows above), if it presses a face on a static
   * body: the rows' friction moved to act with no lever about the normal
   * through the face's centre, and one row about the normal added.
   */
  private spinRow(ctx: StepContext, cs: ContactSet, pairs: PairList, k: number, cell: number): void {
    const B = ctx.bodies, a = pairs.a[k]!, b = pairs.b[k]!;
    if ((B.isStatic[a] === 1) === (B.isStatic[b] === 1)) return;
    const first = this.pairFirst[k]!, end = this.pairEnd[k]!, n = end - first, mem = this.spinMembers;
    let lead = mem[0]!;
    for (let q = 1; q < n; q++) if (cs.phi[mem[q]!]! < cs.phi[lead]!) lead = mem[q]!;
    const sg = cs.b1[lead] === a ? 1 : -1;
    const nx = sg * cs.n[3 * lead]!, ny = sg * cs.n[3 * lead + 1]!, nz = sg * cs.n[3 * lead + 2]!;
    const t = this.basis, c = this.faceCentre;
    tangentBasis(nx, ny, nz, t);
    const lever = faceLever(ctx, cs, mem, n, lead, cell, t, c);
    const cx = c[0]!, cy = c[1]!, cz = c[2]!;
    if (!(lever > 0)) return;
    const X = B.pos, im = ctx.invMass, II = ctx.invInertia, jac = this.jac;
    for (let r = first; r < end; r++) {
      const i = mem[r - first]!, ra = this.b1[r]!, rb = this.b2[r]!;
      const ima = im[ra]!, imb = im[rb]!;
      const px = cs.p[3 * i]!, py = cs.p[3 * i + 1]!, pz = cs.p[3 * i + 2]!;
      const dx = px - cx, dy = py - cy, dz = pz - cz;
      for (let d = 1; d <= 2; d++) {
        // The row along t_d, moved along the other tangent u onto the centre's line.
        const o = JAC * r + d * DIR;
        const tx = jac[o]!, ty = jac[o + 1]!, tz = jac[o + 2]!;
        // u = n_row x t (in the row's tangent plane, across t).
        const nrx = jac[JAC * r]!, nry = jac[JAC * r + 1]!, nrz = jac[JAC * r + 2]!;
        const ux = nry * tz - nrz * ty, uy = nrz * tx - nrx * tz, uz = nrx * ty - nry * tx;
        const su = dx * ux + dy * uy + dz * uz;
        const r1x = px - su * ux - X[3 * ra]!, r1y = py - su * uy - X[3 * ra + 1]!, r1z = pz - su * uz - X[3 * ra + 2]!;
        const r2x = px - su * ux - X[3 * rb]!, r2y = py - su * uy - X[3 * rb + 1]!, r2z = pz - su * uz - X[3 * rb + 2]!;
        setRow(jac, o, tx, ty, tz, r1x, r1y, r1z, r2x, r2y, r2z, ra, rb, II, ima, imb);
        const q = ima + imb + jac[o + 3]! * jac[o + 9]! + jac[o + 4]! * jac[o + 10]! + jac[o + 5]! * jac[o + 11]! +
          jac[o + 6]! * jac[o + 12]! + jac[o + 7]! * jac[o + 13]! + jac[o + 8]! * jac[o + 14]!;
        this.mass[3 * r + d] = q > 0 ? 1 / q : 0;
      }
    }
    const s = this.spinCount++;
    this.spinRows = grown(this.spinRows, 2 * (s + 1));
    this.spinBodies = grown(this.spinBodies, 2 * (s + 1));
    this.spinJac = grown(this.spinJac, 9 * (s + 1));
    this.spinMass = grown(this.spinMass, s + 1);
    this.spinBound = grown(this.spinBound, s + 1);
    this.spinLam = grown(this.spinLam, s + 1);
    this.spinRows[2 * s] = first; this.spinRows[2 * s + 1] = end;
    this.spinBodies[2 * s] = a; this.spinBodies[2 * s + 1] = b;
    const J = this.spinJac, o = 9 * s;
    J[o] = nx; J[o + 1] = ny; J[o + 2] = nz;
    let q = 0;
    for (let side = 0; side < 2; side++) {
      const body = side === 0 ? a : b, at = side === 0 ? 3 : 6;
      const m = im[body]! !== 0 ? 1 : 0, ib = 9 * body;
      J[o + at] = m * (II[ib]! * nx + II[ib + 1]! * ny + II[ib + 2]! * nz);
      J[o + at + 1] = m * (II[ib + 3]! * nx + II[ib + 4]! * ny + II[ib + 5]! * nz);
      J[o + at + 2] = m * (II[ib + 6]! * nx + II[ib + 7]! * ny + II[ib + 8]! * nz);
      q += nx * J[o + at]! + ny * J[o + at + 1]! + nz * J[o + at + 2]!;
    }
    this.spinMass[s] = q > 0 ? 1 / q : 0;
    this.spinBound[s] = lever * this.muS[first]!;
    this.spinLam[s] = 0;
  }

  /** One sweep of the spin rows; returns the largest spin change (rad/s). */
  private sweepSpins(v: Float64Array, w: Float64Array): number {
    let change = 0;
    const J = this.spinJac, lam = this.lam;
    for (let s = 0; s < this.spinCount; s++) {
      const mass = this.spinMass[s]!;
      if (!(mass > 0)) continue;
      let total = 0;
      for (let r = this.spinRows[2 * s]!, e = this.spinRows[2 * s + 1]!; r < e; r++) total += lam[4 * r]!;
      const a = this.spinBodies[2 * s]!, b = this.spinBodies[2 * s + 1]!, o = 9 * s;
      const u = J[o]! * (w[3 * a]! - w[3 * b]!) + J[o + 1]! * (w[3 * a + 1]! - w[3 * b + 1]!) + J[o + 2]! * (w[3 * a + 2]! - w[3 * b + 2]!);
      const lim = this.spinBound[s]! * total, old = this.spinLam[s]!;
      const nl = Math.max(-lim, Math.min(lim, old - mass * u));
      if (nl === old) continue;
      const d = nl - old;
      this.spinLam[s] = nl;
      w[3 * a] += d * J[o + 3]!; w[3 * a + 1] += d * J[o + 4]!; w[3 * a + 2] += d * J[o + 5]!;
      w[3 * b] -= d * J[o + 6]!; w[3 * b + 1] -= d * J[o + 7]!; w[3 * b + 2] -= d * J[o + 8]!;
      const dw = Math.abs(d) / mass;
      if (dw > change) change = dw;
    }
    return change;
  }

  private solvePositions(ctx: StepContext, prof: StepProfile): void {
    const rows = this.rows, jr = this.jointRows;
    const jac = this.jac, lam = this.lam, mass = this.mass, ptgt = this.ptarget, rb1 = this.b1, rb2 = this.b2;
    const im = ctx.invMass;
    const iters = Math.max(1, ctx.settings.contactIterations);
    const errMax = ctx.settings.pgsErrMax;
    // ---- split impulse: position error on pseudo velocities ----
    const pv = this.pv, pw = this.pw;
    let jointBias = false;
    if (jr) {
      prof.end('positionCorrection');
      jointBias = jr.prepareBias(ctx, ctx.settings.pgsBeta);
      prof.end('joints');
    }
    if (this.anyBias || jointBias) {
      this.pseudoActive = true;
      for (let it = 0; it < iters; it++) {
        let change = 0;
        for (let r = 0; r < rows; r++) {
          const base = JAC * r;
          const a = rb1[r]!, b = rb2[r]!;
          const un = rowVel(jac, base, pv, pw, a, b);
          const old = lam[4 * r + 3]!;
          const ln = Math.max(0, old + mass[3 * r]! * (ptgt[r]! - un));
          lam[4 * r + 3] = ln;
          if (ln !== old) {
            applyRow(jac, base, ln - old, pv, pw, im, a, b);
            const dv = Math.abs(ln - old) / mass[3 * r]!;
            if (dv > change) change = dv;
          }
        }
        if (jr) {
          prof.end('positionCorrection');
          change = Math.max(change, jr.pseudoSweep(ctx, pv, pw));
          prof.end('joints');
        }
        if (errMax > 0 && change <= errMax) break;
      }
    }
    if (jr) {
      prof.end('positionCorrection');
      jr.finish(ctx);
      prof.end('joints');
    }
  }

  /**
   * Moves positions by dt times the pseudo velocities of the last solve and
   * clears them (the position half of the split impulse). Call after the
   * velocity integration of the step.
   */
  applyPositionCorrection(B: BodyStore, dt: number): void {
    if (!this.pseudoActive) return;
    this.pseudoActive = false;
    const pv = this.pv, pw = this.pw;
    const q = B.quat;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      B.pos[3 * i] += dt * pv[3 * i]!;
      B.pos[3 * i + 1] += dt * pv[3 * i + 1]!;
      B.pos[3 * i + 2] += dt * pv[3 * i + 2]!;
      const wx = pw[3 * i]!, wy = pw[3 * i + 1]!, wz = pw[3 * i + 2]!;
      if (wx !== 0 || wy !== 0 || wz !== 0) integrateQuat(q, 4 * i, wx, wy, wz, dt, q, 4 * i);
    }
    pv.fill(0);
    pw.fill(0);
  }

  /** Forgets the warm start (e.g. after bodies were added or removed). */
  reset(): void {
    this.store.reset();
  }

  // ------------------------------------------------------------ internals

  /** Looks row r of pair k up in last step's impulses; sets its starting impulses and returns true on a match. */
  private warmRow(r: number, k: number): boolean {
    const st = this.store;
    const o = st.find(k, this.rowKey[r]!);
    if (o < 0 || st.flags[o]! & STORED_IMPACT) return false;
    const base = JAC * r;
    const imp = st.imp, io = STORE_IMPULSE * o;
    const jx = imp[io + 1]!, jy = imp[io + 2]!, jz = imp[io + 3]!;
    const ln = imp[io]!;
    this.lam[4 * r] = ln;
    this.slid[r] = st.flags[o]! & STORED_SLID ? 1 : 0;
    // Friction vector onto the new tangent basis, inside the cone.
    const j = this.jac;
    let l1 = jx * j[base + DIR]! + jy * j[base + DIR + 1]! + jz * j[base + DIR + 2]!;
    let l2 = jx * j[base + 2 * DIR]! + jy * j[base + 2 * DIR + 1]! + jz * j[base + 2 * DIR + 2]!;
    const lim = (this.slid[r] === 1 ? this.mu[r]! : this.muS[r]!) * ln, len = norm2(l1, l2);
    if (len > lim) {
      const s = len > 0 ? lim / len : 0;
      l1 *= s;
      l2 *= s;
    }
    this.lam[4 * r + 1] = l1;
    this.lam[4 * r + 2] = l2;
    return true;
  }

  /**
   * Keeps this solve's impulses in the store for the next step: rows in pair
   * order, each pair's scaled down when it is squeezed (below).
   *
   * A squeezed pair: one whose rows hold
   * it apart (|sum of lambda_i n_i|) by less than SQUEEZE of their sum
   * (sum of lambda_i), by that shortfall. A ring wedged tilted on a peg is
   * pressed from opposite sides: per-point rows squeeze it harder every
   * sweep, and carried from step to step the squeeze grew to 19 581 N s on a
   * 20 kg ring, which left at 114 m/s when the wedge let go (200 rings on 3
   * pegs; now none moves faster than its fall, 22.9 m/s). What cancels out
   * holds nothing up. A stack's or a face's rows agree (ratio near 1) and
   * keep their warm start whole; a 10-box tower needs it.
   */
  private storeImpulses(pairs: PairList, rows: number): void {
    const st = this.store, j = this.jac;
    st.reserve(rows);
    // Pairs in the list's (canonical) order, each pair's rows as they were made.
    let at = 0;
    for (let k = 0; k < pairs.count; k++) {
      const g = this.pairFirst[k]!, e = this.pairEnd[k]!;
      if (g === e) continue;
      const a = this.b1[g]!;
      let sum = 0, vx = 0, vy = 0, vz = 0;
      for (let r = g; r < e; r++) {
        const l = this.lam[4 * r]!, sign = this.b1[r] === a ? 1 : -1, base = JAC * r;
        sum += l;
        vx += sign * l * j[base]!; vy += sign * l * j[base + 1]!; vz += sign * l * j[base + 2]!;
      }
      const q = sum > 0 ? Math.min(1, Math.sqrt(vx * vx + vy * vy + vz * vz) / (SQUEEZE * sum)) : 1;
      for (let r = g; r < e; r++) {
        const base = JAC * r;
        const l1 = this.lam[4 * r + 1]!, l2 = this.lam[4 * r + 2]!;
        const flags = (this.slid[r] ? STORED_SLID : 0) | (this.impact[r] ? STORED_IMPACT : 0);
        st.set(at++, pairs.a[k]!, pairs.b[k]!, this.rowKey[r]!, this.lam[4 * r]! * q,
          (l1 * j[base + DIR]! + l2 * j[base + 2 * DIR]!) * q,
          (l1 * j[base + DIR + 1]! + l2 * j[base + 2 * DIR + 1]!) * q,
          (l1 * j[base + DIR + 2]! + l2 * j[base + 2 * DIR + 2]!) * q, flags);
      }
    }
    st.commit(at);
  }

  private ensure(count: number): void {
    if (count <= this.cap) return;
    this.cap = Math.max(64, 2 * count);
    sizeColumns(this, ROW_COLUMNS, this.cap);
  }
}

/** 1 / (d^T K d), or 0 when the direction cannot be pushed (both bodies fixed). */
function invQuad(K: Float64Array, dx: number, dy: number, dz: number): number {
  const q = dx * (K[0]! * dx + K[1]! * dy + K[2]! * dz) + dy * (K[3]! * dx + K[4]! * dy + K[5]! * dz) + dz * (K[6]! * dx + K[7]! * dy + K[8]! * dz);
  return q > 0 ? 1 / q : 0;
}
