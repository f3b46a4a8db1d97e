/**
 * The seed's sequential impulses (docs/ALGORITHM.md 4.3-4.5, seed ch. 6-8): the
 * collision pass, the contact pass and shock propagation, on the contact
 * patches of each pair (patches.ts), one impulse per patch (contactImpulse.ts,
 * flatPatch.ts, rowImpulse.ts).
 *
 * A pair's geometry (points, normals, depths) is the snapshot the narrow
 * phase made at the start of the pass (narrowphase.ts beginPass) and stays
 * fixed while the pass runs: impulses change velocities only. Per pair,
 * patches are visited deepest first and each gets at most one impulse per
 * pass, applied only if it is approaching at its turn; this is the seed's
 * "until every point was once separating" rule without a GPU round trip per
 * impulse. A collision pass that applies no impulse at all ends the
 * collision phase: every later pass would see the same velocities and the
 * same points. Shock propagation is the exception: it sweeps each level's
 * pairs several times with impulses accumulated per patch (shockPass).
 */
import type { ConstraintSystem } from './constraints.ts';
import type { ContactPhase, Contacts, ContactSolver } from './contactSolver.ts';
import type { ContactSet } from './contacts.ts';
import { applyContactImpulse, applyRollingFriction, surfaceRestitution } from './contactImpulse.ts';
import { EnergyBound } from './energyBound.ts';
import { applyFlatAccumulated, applyFlatStick, FACE_SLIDES, faceNeed } from './flatPatch.ts';
import { normalVelocity, type ImpulseResult, type ImpulseState, type Material } from './impulse.ts';
import { applyPatchTorque, spinFriction, torqueLoad } from './patchTorque.ts';
import { applyPseudoImpulse } from './pseudoImpulse.ts';
import { applyNormalAccumulated, applyTangentialAccumulated, applyTangentialStick } from './rowImpulse.ts';
import { grown } from '../util/growable.ts';
import { pairCell, pairMaterial } from './material.ts';
import { norm3, type Rng } from './math.ts';
import { PAIR_SPHERES, type PairList } from './pairs.ts';
import { CONTACT_SOLVER_STAGES } from './profile.ts';
import { PATCH_FLAT, PATCH_FLOATS, PATCH_GAP, PATCH_POINT, PatchCache, SPREAD_FLOATS } from './patches.ts';
import { restoreSolverMass } from './predict.ts';
import type { StepContext } from './stepContext.ts';

/**
 * Most sweeps over a level's pairs in the shock-propagation pass (a level
 * stops as soon as a sweep changes no velocity by more than round-off).
 * Face patches are solved whole (applyFlatAccumulated), so a stack of boxes
 * comes to rest in one sweep a level and the next finds nothing to do; the
 * cap is for what cannot converge. Solved row by row, a box resting
 * off-centre on another needed some 50 sweeps (with 10 every step ended
 * with the pair tipping at 50 urad/s toward the overhang: 4 mm of creep in
 * 10 s, a pyramid of 55 boxes 8 mm), and every level of a resting stack ran
 * all of them, since rows one by one never stop changing by round-off. What
 * still uses the cap: ring stacks (point and spin patches, converging
 * geometrically) and a body wedged between frozen ones that close on it
 * (no velocity satisfies all its contacts, so its normal totals grow by the
 * same amount every sweep: more sweeps only pump more into the wedge). 20
 * against 10 or 50: the same sleeping times over 10 ring piles and 9 box
 * heaps, within their scatter.
 */
const SHOCK_SWEEPS = 20;
/** Per patch, the running totals of a shock pass: normal (1), tangential (3, world), torque about e1, e2, N (3). */
const ACC_FLOATS = 7;
/**
 * Per pair, what the contact passes of this step gave it (PASS_FLOATS): the
 * normal impulse, the friction impulse (sum of sizes), the normal impulse
 * its patch torques needed (torqueLoad, summed), the normal impulse as a
 * vector (toward the pair's first body; mainFace) and the friction its
 * patches' spins used (spinFriction, summed: shock propagation's spin may
 * spend only the rest, or a flat ring spun down twice as fast as its
 * friction allows). Shock propagation bounds
 * the friction and torque of a pair's main face by the step's normal impulse,
 * not its own alone: after the contact passes a resting contact barely
 * approaches, so shock propagation's own normal total is a small part of the
 * weight it carries, and its friction and torque (bounded by that total)
 * could not take back the slip and tilt the contact passes leave. Heaps of
 * boxes then never came to rest (columns of stacked boxes swayed at
 * 1-10 cm/s for as long as they ran). The sums of sizes bound what the
 * passes used from above, so the step's total friction stays inside its
 * cone, and its torque inside the faces' octagons.
 */
const PASS_FLOATS = 7;
/**
 * A support moving faster than this many |g| dt (1 m/s at dt 0.01) is
 * travelling, not resting or jittering (a resting contact's velocity errors
 * are a few |g| dt), and the pairs on it get no spare friction in shock
 * propagation. After the contact passes a block riding on a sliding block
 * still slips on it (1.6 mm/s; the one-shot passes do not converge on a
 * sticking pair above a sliding one); shock propagation froze the lower
 * block and, drawing on the spare, stopped the upper one on it: the momentum
 * it took went into a body of infinite mass, out of the system. A 2 kg block
 * with a 1 kg one on it slid down a 30 degree slope (friction 0.2) at 3.114
 * m/s^2 instead of g (sin - 0.2 cos) = 3.206. Withheld only while the lower
 * block travels: at half of |g| dt, ring piles slept a fifth later (their
 * rings rock at about 0.1 m/s); at 10 |g| dt the slide is exact once past
 * 1 m/s (0.9 % behind at 1 s) and ring piles and heaps sleep as before,
 * within their scatter.
 */
const MOVING_SUPPORT = 10;
/**
 * Position correction (not in the seed, where a resting contact keeps
 * whatever depth it settled at, and bodies that start interpenetrated stay
 * so): after shock propagation, one level-by-level pass over the patches on
 * *pseudo velocities* (ctx.pseudoVel / pseudoAngVel), lower levels frozen as
 * in shock propagation, so a stack is lifted from the ground up in one pass.
 * A patch deeper than SLOP cells gets the pseudo normal velocity that removes
 * RATE of the excess in this step, at most MAX_STEP cells; integration then
 * moves positions by dt times them and drops them (a split impulse): the
 * correction moves bodies but gives them no velocity, so nothing is
 * catapulted and no energy is added.
 *
 * RATE is a tenth: a tall stack takes its corrections level on level (the
 * level below is frozen with its pseudo velocity, so a push's sideways part,
 * along a normal a hair off the vertical, is carried up the stack), and at
 * 0.3 a tower of 100 touching one-metre boxes at 60 Hz rocked itself over
 * within 2 s; at 0.1 it stands with no drift at all, 8 mm below its ideal
 * height. Taller towers and 100 boxes that land on each other stand too,
 * once only a pair's main face draws on shock propagation's spare friction
 * (mainFace; docs/DESIGN.md, "Tall towers"). A tangle (untangle) is no stack:
 * it comes apart at UNTANGLE_RATE.
 */
const SLOP = 0.002;
const RATE = 0.1;
const UNTANGLE_RATE = 0.3;
const MAX_STEP = 0.25;
/** How many |g| dt^2 a stopped pair's gap may be for positionPass to close it (closeGap). */
const HOVER_STEPS = 1;
/** Cells of a stopped pair's gap that closeGap leaves open. */
const HOVER_SLOP = 0.05;
/** Depth, in cells, beyond which a pair whose pushes cancel is untangled as a whole (untangle). */
const TANGLED = 0.5;
/**
 * Approach speeds (m/s) below this are round-off: a flat patch stopped
 * exactly by applyFlatStick reads back a relative normal velocity of +-1e-17,
 * and taking the negative ones for approach made the collision phase run
 * an extra pass on one backend and not the other. Shock propagation also
 * takes velocity changes (m/s, rad/s) below it for "nothing changed".
 */
const ROUNDOFF_SPEED = 1e-12;

/**
 * The seed's scheme. Its collision pass (collide) serves World's collision
 * phase whatever the contact solver; as the contact solver (ContactSolver,
 * `"contactSolver": "sequential"`) it runs contactIterations contact passes,
 * shock propagation and the position correction, each pass after the first
 * on the pairs brought up to date (ContactPhase.requery).
 */
export class SequentialSolver implements ContactSolver {
  readonly stages = CONTACT_SOLVER_STAGES.sequential;
  /** Sleeping reads the raw contact points. */
  readonly pairDepth = null;
  /** Every smoothly accelerated body takes the trapezoid. */
  readonly trapezoidSpeed = 0;
  /** Position correction leaves a hair (its slop is far below the crossed depth). */
  restingSlop(): number {
    return 0;
  }
  /** The patches of each pair, rebuilt only when its points change. */
  readonly patches = new PatchCache();
  private readonly spread = new Float64Array(SPREAD_FLOATS);
  /** A contact site made here (point, normal; impulse.ts), not read from a patch. */
  private readonly site = new Float64Array(6);
  /** An impact patch with its point moved to the moving body's surface (resolvePair). */
  private readonly impactPatch = new Float64Array(PATCH_FLOATS);
  /** Per body, its candidate pairs with other moving bodies in the present collision pass (touchTime). */
  private partners = new Int32Array(0);
  /** Two balls' linear velocities and positions before a blow where they touch (resolvePair). */
  private readonly held = new Float64Array(12);
  /** The angular impulse a patch's torque has applied so far in its alternation with friction (resolvePair). */
  private readonly torqueAcc = new Float64Array(3);
  /** ACC_FLOATS per patch (PatchCache index): the shock pass's accumulated impulses. */
  private acc = new Float64Array(0);
  private readonly mat: Material = { restitution: 0, friction: 0, staticFriction: 0, rolling: 0, spinning: 0 };
  /** A sliding face's material (slidingMaterial). */
  private readonly slideMat: Material = { restitution: 0, friction: 0, staticFriction: 0, rolling: 0, spinning: 0 };

  /** `m` with its static friction taken down to the dynamic one (a face that slides as a whole). */
  private slidingMaterial(m: Material): Material {
    const s = this.slideMat;
    s.restitution = m.restitution;
    s.friction = m.friction;
    s.staticFriction = Math.min(m.staticFriction, m.friction);
    s.rolling = m.rolling;
    s.spinning = m.spinning;
    return s;
  }
  /** What the last impulse reported (ImpulseResult), passed to every impulse that reports. */
  private readonly impulse: ImpulseResult = { sticking: false, jt: 0, torqueLoad: 0, spin: 0 };
  private readonly state: ImpulseState = {
    centre: new Float64Array(0), vel: new Float64Array(0), angVel: new Float64Array(0),
    invMass: new Float64Array(0), invInertiaW: new Float64Array(0),
  };
  /** Bodies sorted by contact-graph level (for freezing level by level in shock propagation). */
  private byLevel = new Int32Array(0);
  private frozenUpTo = 0;
  /** PASS_FLOATS per pair: what this step's contact passes applied (see PASS_FLOATS). */
  private pass = new Float64Array(0);
  private levelCounts = new Int32Array(0);
  /** Per pair: whether this step's contact passes or shock propagation stopped an approach of it (positionPass closes its gap). */
  private stopped = new Uint8Array(0);
  /** Two bodies' velocities, linear and angular (keep / moved). */
  private readonly kept = new Float64Array(12);

  /** Keeps shock propagation from adding kinetic energy (energyBound.ts; `enabled` off only for comparison). */
  readonly shockEnergy = new EnergyBound();

  /** Nothing to set up: patches are made per pair as its points change (PatchCache). */
  prepare(): void {}

  /** The contact passes (stage contactSolve), shock propagation and the position correction. */
  async solve(phase: ContactPhase): Promise<void> {
    const { ctx, pairs, contacts, levels, constraints, profile } = phase;
    const S = ctx.settings;
    for (let it = 0; it < S.contactIterations; it++) {
      if (it > 0) await phase.requery();
      this.contactPass(ctx, pairs, contacts, it, levels, constraints);
      profile.end('contactSolve');
    }
    if (S.shockPropagation && S.contactGraph) {
      await phase.requery();
      this.shockEnergy.snapshot(ctx);
      profile.shockSweeps = this.shockPass(ctx, pairs, contacts, levels, constraints);
      const cs = contacts.cur;
      this.shockEnergy.limit(ctx, pairs.count, pairs.a, pairs.b, (k) => cs.start[k]! < cs.end[k]!, constraints);
      profile.end('shockPropagation');
    }
    await phase.requery();
    this.positionPass(ctx, pairs, contacts, levels);
    profile.end('positionCorrection');
  }

  /** Nothing is kept for the next step (the one-shot impulses start from zero). */
  finish(): void {}

  /** The position correction's pseudo velocities were integrated with the velocities. */
  integrated(): void {}

  reset(): void {}

  /**
   * One collision pass: every pair once, in shuffled order (the seed swaps
   * random pairs of the list), with the pair's own restitution.
   */
  collide(ctx: StepContext, pairs: PairList, con: Contacts, rng: Rng): boolean {
    const n = pairs.count;
    const order = pairs.order;
    for (let k = 0; k < n; k++) order[k] = k;
    for (let k = n - 1; k > 0; k--) {
      const j = Math.floor(rng.next() * (k + 1));
      const t = order[k]!;
      order[k] = order[j]!;
      order[j] = t;
    }
    // Each body's candidate pairs with other moving bodies (touchTime).
    if (this.partners.length < ctx.count) this.partners = new Int32Array(ctx.count);
    const partners = this.partners, im = ctx.invMass;
    partners.fill(0, 0, ctx.count);
    for (let k = 0; k < n; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (im[a]! > 0 && im[b]! > 0) {
        partners[a]++;
        partners[b]++;
      }
    }
    let any = false;
    for (let k = 0; k < n; k++) {
      const p = order[k]!;
      if (!this.resolvePair(ctx, pairs, con, p, 0, true)) continue;
      pairs.impactStep[p] = ctx.serial;
      any = true;
    }
    return any;
  }

  /**
   * Contact pass `it` of `iterations` (restitution -0.9 + 0.9 it / (n - 1)).
   * Pairs go level by level (pairs.order holds them sorted by level,
   * levels.ts); joints are stabilised per level in between.
   */
  contactPass(ctx: StepContext, pairs: PairList, con: Contacts, it: number, levels: number, c: ConstraintSystem | null): void {
    const n = pairs.count;
    const order = pairs.order;
    const iters = ctx.settings.contactIterations;
    const eps = iters > 1 ? -0.9 + (0.9 * it) / (iters - 1) : 0;
    if (it === 0) {
      this.clearPassTotals(n);
      if (this.stopped.length < n) this.stopped = new Uint8Array(2 * n);
      this.stopped.fill(0, 0, n);
    }
    const jointLevels = c !== null && ctx.settings.contactGraph;
    let curLevel = -1;
    for (let k = 0; k < n; k++) {
      const p = order[k]!;
      const L = pairs.level[p]!;
      if (L !== curLevel) {
        // Joints of the level just resolved, and of every level below L that
        // has no contacts of its own (e.g. a chain hanging in the air under a
        // stack that only starts at level 1).
        if (jointLevels) this.jointPass(ctx, c, Math.max(0, curLevel), L, false);
        curLevel = L;
      }
      this.resolvePair(ctx, pairs, con, p, eps, false);
    }
    this.jointTail(ctx, c, curLevel, levels, false);
  }

  /**
   * Shock propagation (seed 8.1): level by level from the ground up, the
   * levels below frozen (infinite mass), the pairs of a level swept together
   * until a sweep changes no velocity beyond round-off (at most SHOCK_SWEEPS
   * sweeps; returns how many ran, over all levels). The impulses of
   * a level are accumulated per patch (projected Gauss-Seidel): a later sweep
   * may take back part of what an earlier one gave, as long as the patch's
   * total stays a push. The seed's one-shot impulses can only add: a ring
   * resting on another at two patches is stopped at the first, pivots, and
   * the second stop lifts the first side, so every step ended with the body
   * rocking a little (the stacks jittered at ~0.05 m/s and never slept).
   */
  shockPass(ctx: StepContext, pairs: PairList, con: Contacts, levels: number, c: ConstraintSystem | null): number {
    const n = pairs.count;
    const order = pairs.order;
    const jointLevels = c !== null && ctx.settings.contactGraph;
    this.beginFreezing(ctx, levels);
    this.acc.fill(0);
    let curLevel = -1;
    let g = 0, sweeps = 0;
    while (g < n) {
      const L = pairs.level[order[g]!]!;
      let e = g + 1;
      while (e < n && pairs.level[order[e]!] === L) e++;
      if (jointLevels) this.jointPass(ctx, c, Math.max(0, curLevel), L, true);
      this.freezeBelow(ctx, L);
      curLevel = L;
      // The levels below are final now: this level's pairs see them where
      // they will be, not where the pass's snapshot had them.
      for (let o = g; o < e; o++) con.update(ctx, pairs, order[o]!);
      for (let sweep = 0; sweep < SHOCK_SWEEPS; sweep++) {
        let changed = false;
        for (let o = g; o < e; o++) if (this.resolvePairAccumulated(ctx, pairs, con, order[o]!)) changed = true;
        sweeps++;
        if (!changed) break;
      }
      g = e;
    }
    this.jointTail(ctx, c, curLevel, levels, true);
    this.endFreezing(ctx);
    // Spent: a step without contact passes must not read this one's.
    this.clearPassTotals(n);
    return sweeps;
  }

  /** Joints after the last contact level: the levels above it, or without contacts or a graph, every joint. */
  private jointTail(ctx: StepContext, c: ConstraintSystem | null, curLevel: number, levels: number, shock: boolean): void {
    if (!c) return;
    if (ctx.settings.contactGraph && curLevel >= 0) this.jointPass(ctx, c, curLevel, levels, shock);
    else c.positionStabilize(ctx, -1);
  }

  /**
   * The position correction pass (see SLOP): pairs level by level (the order
   * contactPass uses), lower levels frozen, one pseudo impulse per patch
   * deeper than the slop.
   */
  positionPass(ctx: StepContext, pairs: PairList, con: Contacts, levels: number): void {
    const n = pairs.count;
    const order = pairs.order;
    this.beginFreezing(ctx, levels);
    const st = this.bind(ctx);
    const pc = this.patches;
    const cs = con.cur;
    let curLevel = -1;
    for (let o = 0; o < n; o++) {
      const k = order[o]!;
      const L = pairs.level[k]!;
      if (L !== curLevel) {
        this.freezeBelow(ctx, L);
        curLevel = L;
      }
      con.ensure(ctx, pairs, k);
      if (cs.start[k] === cs.end[k]) {
        if (k < this.stopped.length && this.stopped[k]) this.closeGap(ctx, st, pairs, con, k);
        continue;
      }
      const cell = pairCell(ctx.shapes, ctx.bodies, pairs.a[k]!, pairs.b[k]!);
      if (this.untangle(ctx, st, pairs, cs, k, cell)) continue;
      const mu = pairMaterial(ctx.bodies, pairs.a[k]!, pairs.b[k]!, this.mat).staticFriction;
      pc.ensure(ctx, cs, k, cell);
      if (pc.first[k] === pc.last[k]) {
        if (k < this.stopped.length && this.stopped[k]) this.closeGap(ctx, st, pairs, con, k);
        continue;
      }
      const d = pc.data;
      for (let q = pc.first[k]!; q < pc.last[k]!; q++) {
        const i = pc.leader[q]!;
        const excess = -cs.phi[i]! - SLOP * cell;
        if (excess <= 0) continue;
        const target = Math.min(RATE * excess, MAX_STEP * cell) / ctx.dt;
        const o = q * PATCH_FLOATS;
        applyPseudoImpulse(st, ctx.pseudoVel, ctx.pseudoAngVel, cs.b1[i]!, cs.b2[i]!, d, o, target, mu);
      }
    }
    this.endFreezing(ctx);
    // Spent: a step without contact passes must not read this one's.
    this.stopped.fill(0);
  }

  /**
   * A pair stopped this step that no point of penetrates at the end of it
   * hovers: the contact rule stops an approach wherever the predicted pose
   * first penetrates, which leaves the bodies anywhere up to |g| dt^2 apart
   * (a 1 cm die dropped at 60 Hz came to rest 1.8 mm above the floor, 18 %
   * of its edge). Its closest point's gap, up to HOVER_STEPS |g| dt^2, is
   * closed here down to HOVER_SLOP cells by a pseudo velocity along the
   * point's normal (linear only, so no tilt is made), lower levels frozen as
   * for depths: the bodies end the step touching, and no velocity is given.
   * The slop leaves alone what stacks and heaps hover by (hundredths of a
   * cell, along normals the field rounds at a face's rim): closing those
   * too rocked towers of one-metre boxes over and kept heaps awake.
   */
  private closeGap(ctx: StepContext, st: ImpulseState, pairs: PairList, con: Contacts, k: number): void {
    const g = ctx.gravity;
    const reach = HOVER_STEPS * Math.hypot(g[0], g[1], g[2]) * ctx.dt * ctx.dt;
    if (!(reach > 0) || !con.nearest(ctx, pairs, k, reach)) return;
    const { gap: g0, owner: b1, other: b2, nx, ny, nz } = con.near;
    const gap = g0 - HOVER_SLOP * pairCell(ctx.shapes, ctx.bodies, pairs.a[k]!, pairs.b[k]!);
    if (!(gap > 0)) return;
    const im1 = st.invMass[b1]!, im2 = st.invMass[b2]!;
    if (im1 + im2 === 0) return;
    const pv = ctx.pseudoVel;
    const un = (pv[3 * b1]! - pv[3 * b2]!) * nx + (pv[3 * b1 + 1]! - pv[3 * b2 + 1]!) * ny + (pv[3 * b1 + 2]! - pv[3 * b2 + 2]!) * nz;
    const target = -gap / ctx.dt;
    if (!(un > target)) return;
    const j = (target - un) / (im1 + im2);
    pv[3 * b1] += j * im1 * nx; pv[3 * b1 + 1] += j * im1 * ny; pv[3 * b1 + 2] += j * im1 * nz;
    pv[3 * b2] -= j * im2 * nx; pv[3 * b2 + 1] -= j * im2 * ny; pv[3 * b2 + 2] -= j * im2 * nz;
  }

  /**
   * Bodies that start (or end up) deeply interpenetrated: inside a thin wall
   * the distance field points to the nearer face, so the deep points of a
   * tangled pair push both ways and cancel, and the pair never comes apart.
   * When the pair's depth-weighted normals mostly cancel (their sum is under
   * half their total) and it is deeper than TANGLED cells, it is pushed apart
   * as a whole instead: along the line from one centre of mass to the other
   * (or against gravity if they coincide), by the pair's deepest depth, at
   * UNTANGLE_RATE. Returns whether it did.
   */
  private untangle(ctx: StepContext, st: ImpulseState, pairs: PairList, cs: ContactSet, k: number, cell: number): boolean {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    let nx = 0, ny = 0, nz = 0, total = 0, deepest = 0, px = 0, py = 0, pz = 0;
    for (let i = cs.start[k]!; i < cs.end[k]!; i++) {
      const d = -cs.phi[i]!;
      if (!(d > 0)) continue;
      // Normals as "push a away from b".
      const sign = cs.b1[i] === a ? d : -d;
      nx += sign * cs.n[3 * i]!; ny += sign * cs.n[3 * i + 1]!; nz += sign * cs.n[3 * i + 2]!;
      px += d * cs.p[3 * i]!; py += d * cs.p[3 * i + 1]!; pz += d * cs.p[3 * i + 2]!;
      total += d;
      if (d > deepest) deepest = d;
    }
    if (!(deepest > TANGLED * cell) || Math.hypot(nx, ny, nz) >= 0.5 * total) return false;
    const X = ctx.bodies.pos;
    let dx = X[3 * a]! - X[3 * b]!, dy = X[3 * a + 1]! - X[3 * b + 1]!, dz = X[3 * a + 2]! - X[3 * b + 2]!;
    let l = Math.hypot(dx, dy, dz);
    if (!(l > 1e-3 * cell)) {
      const g = ctx.gravity;
      // a above b, against gravity (or along +y without it).
      const gl = Math.hypot(g[0], g[1], g[2]);
      if (gl > 0) { dx = -g[0]; dy = -g[1]; dz = -g[2]; l = gl; } else { dx = 0; dy = 1; dz = 0; l = 1; }
    }
    const target = Math.min(UNTANGLE_RATE * deepest, MAX_STEP * cell) / ctx.dt;
    // No friction here: a tangle comes apart in whatever direction it can.
    const at = this.site;
    at[0] = px / total; at[1] = py / total; at[2] = pz / total; at[3] = dx / l; at[4] = dy / l; at[5] = dz / l;
    applyPseudoImpulse(st, ctx.pseudoVel, ctx.pseudoAngVel, a, b, at, 0, target, 0);
    return true;
  }

  /** Joint position pass for levels [from, to), each after freezing the levels below it in shock propagation. */
  private jointPass(ctx: StepContext, c: ConstraintSystem, from: number, to: number, shock: boolean): void {
    for (let L = from; L < to; L++) {
      if (shock) this.freezeBelow(ctx, L);
      c.positionStabilize(ctx, L);
    }
  }

  /** Sorts the bodies by level once per shock pass, so freezing is incremental (O(bodies) per pass). */
  private beginFreezing(ctx: StepContext, levels: number): void {
    const n = ctx.bodies.count;
    const lv = ctx.level;
    if (this.byLevel.length < n) this.byLevel = new Int32Array(n);
    // Counting sort by level; static bodies (-1) are never frozen (their mass is already 0).
    if (this.levelCounts.length < levels + 1) this.levelCounts = new Int32Array(2 * levels + 2);
    const counts = this.levelCounts;
    counts.fill(0, 0, levels + 1);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const L = lv[i]!;
      if (L >= 0) { counts[Math.min(L, levels - 1) + 1]++; m++; }
    }
    for (let L = 0; L < levels; L++) counts[L + 1] += counts[L]!;
    for (let i = 0; i < n; i++) {
      const L = lv[i]!;
      if (L >= 0) this.byLevel[counts[Math.min(L, levels - 1)]!++] = i;
    }
    this.frozenCount = m;
    this.frozenUpTo = 0;
  }

  /** Bodies in byLevel[0 .. frozenUpTo) are frozen; frozenCount bodies have a level. */
  private frozenCount = 0;

  /** Shock propagation: bodies below `level` get infinite mass (K = 0). */
  private freezeBelow(ctx: StepContext, level: number): void {
    const lv = ctx.level;
    while (this.frozenUpTo < this.frozenCount) {
      const i = this.byLevel[this.frozenUpTo]!;
      if (lv[i]! >= level) break;
      ctx.invMass[i] = 0;
      ctx.invInertia.fill(0, 9 * i, 9 * i + 9);
      this.frozenUpTo++;
    }
  }

  /** Gives the frozen bodies their masses back. */
  private endFreezing(ctx: StepContext): void {
    for (let k = 0; k < this.frozenUpTo; k++) restoreSolverMass(ctx, this.byLevel[k]!);
    this.frozenUpTo = 0;
  }

  /**
   * Resolves pair k: one impulse per patch, deepest patch first, with
   * restitution `eps` (the pair's own when `useOwn`). Returns whether any
   * impulse was applied.
   */
  private resolvePair(ctx: StepContext, pairs: PairList, con: Contacts, k: number, eps: number, useOwn: boolean): boolean {
    con.ensure(ctx, pairs, k);
    const cs = con.cur;
    if (cs.start[k] === cs.end[k]) return false;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const m = pairMaterial(ctx.bodies, a, b, this.mat);
    const useEps = useOwn ? m.restitution : eps;
    const st = this.bind(ctx);
    const cell = pairCell(ctx.shapes, ctx.bodies, a, b);
    const pc = this.patches;
    pc.ensure(ctx, cs, k, cell);
    const first = pc.first[k]!, last = pc.last[k]!;
    const spread = this.spread;
    const res = this.impulse;
    // Two balls apart now that meet within the step are struck where they
    // touch: advanced there along their paths (touchTime), they take the
    // blow through both centres, and go back to where they were; at the
    // step's end, if it flew freely from the blow, each is moved by minus the
    // time to the touch times the velocity the blow gave (ctx.touchShift),
    // which puts it on its exact path. (Set back at once, they would start
    // the step's later passes apart from the balls they touch.)
    const touch = useOwn ? this.touchTime(ctx, pairs, cs, k) : 0;
    const held = this.held;
    if (touch > 0) {
      const x = ctx.bodies.pos, v = ctx.bodies.vel;
      for (let c = 0; c < 3; c++) {
        held[c] = v[3 * a + c]!;
        held[3 + c] = v[3 * b + c]!;
        held[6 + c] = x[3 * a + c]!;
        held[9 + c] = x[3 * b + c]!;
        x[3 * a + c] = held[6 + c]! + touch * held[c]!;
        x[3 * b + c] = held[9 + c]! + touch * held[3 + c]!;
      }
    }
    let any = false;
    for (let q = first; q < last; q++) {
      const i = pc.leader[q]!;
      const b1 = cs.b1[i]!, b2 = cs.b2[i]!;
      let d = pc.data, o = q * PATCH_FLOATS;
      const nx = d[o + 3]!, ny = d[o + 4]!, nz = d[o + 5]!;
      if (touch > 0) {
        // The point where they touch: A's surface point, moved with A.
        const at = this.impactPatch, v = ctx.bodies.vel;
        for (let c = 0; c < PATCH_FLOATS; c++) at[c] = d[o + c]!;
        for (let c = 0; c < 3; c++) at[c] = at[c]! + touch * v[3 * a + c]!;
        d = at;
        o = 0;
      }
      if (useOwn && pc.flat[q] === PATCH_POINT && !(ctx.bodies.invMass[b1]! > 0) && ctx.bodies.invMass[b2]! > 0) {
        // An impact led by a sample of a body that does not move, lying
        // inside the moving one at the predicted pose: the point is where
        // that body's surface is (the sample moved out along the normal by
        // its depth), not the sample, whose arm falls short by the depth. A
        // static wall's face sample 1 cm inside a ball spinning at 30 rad/s,
        // thrown at 2 m/s at the wall with friction, left it spinning at
        // 9.7 rad/s instead of the sticking impact's 8.6.
        const at = this.impactPatch;
        for (let c = 0; c < PATCH_FLOATS; c++) at[c] = d[o + c]!;
        const depth = -cs.phi[i]!;
        at[0] = at[0]! + depth * nx; at[1] = at[1]! + depth * ny; at[2] = at[2]! + depth * nz;
        d = at;
        o = 0;
      }
      // Only a flat patch holds a torque here; a spin patch's spin is held
      // by shock propagation alone (resolvePairAccumulated): one-shot spin
      // stops in every contact pass, about a mean normal a few degrees off
      // the rings' axis, set whole ring stacks rocking.
      const flat = pc.flat[q] === PATCH_FLAT;
      if (flat) for (let c = 0; c < SPREAD_FLOATS; c++) spread[c] = d[o + 6 + c]!;
      // The contact passes let an approach close the pair's present gap
      // (a body stops on its support, not wherever its prediction first
      // penetrates it); collisions bounce where the seed says.
      const close = useOwn ? 0 : Math.max(d[o + PATCH_GAP]!, 0) / ctx.dt;
      // A collision bounces with the pair's restitution where the surfaces
      // meet, the gap they are still apart closed under gravity first
      // (surfaceRestitution).
      const e = useOwn ? this.bounceRestitution(ctx, st, b1, b2, d, o, useEps) : useEps;
      let mq = m;
      if (flat && m.staticFriction > 0) {
        const un = normalVelocity(st, b1, b2, d, o);
        if (!(un < -close - ROUNDOFF_SPEED)) continue;
        const fs = applyFlatStick(st, b1, b2, d, o, Math.max(-e * (un + close), 0) - close, m.staticFriction, spread, res);
        if (fs > 0) {
          if (!useOwn) this.addPassTotals(k, fs, res.jt, res.torqueLoad, res.spin, b1 === a ? 1 : -1, nx, ny, nz);
          any = true;
          continue;
        }
        // A face that cannot stick as a whole slides: its friction is the
        // dynamic one, at the point and in the torque rounds alike. (Each
        // alone sticks where the other turns the box: a box on a slope a
        // degree past atan mu_s crept at mu_s until it went 2.5 cm/s, a
        // fifth of its correct acceleration.)
        if (fs === FACE_SLIDES && this.slidesOverStep(k, m, useOwn)) mq = this.slidingMaterial(m);
      }
      const jn = applyContactImpulse(st, b1, b2, d, o, e, mq, res, close);
      if (jn === 0) continue;
      any = true;
      let jt = res.jt, load = 0, spin = 0;
      if (flat) {
        // Torque and friction at the centroid interact (the centroid of
        // the samples is rarely the patch's true centre): alternate them
        // a few times so a sticking patch ends neither spinning nor
        // creeping, within what is left of its friction cone.
        const sticking = res.sticking;
        let budget = mq.staticFriction * jn - res.jt;
        const acc = this.torqueAcc;
        acc.fill(0);
        for (let r = 0; r < 3; r++) {
          applyPatchTorque(st, b1, b2, d, o, jn, spread, (sticking ? mq.staticFriction : mq.friction) * jn, acc);
          if (sticking && budget > 0) {
            const t = applyTangentialStick(st, b1, b2, d, o, budget);
            budget -= t;
            jt += t;
          }
        }
        load = torqueLoad(acc[0]!, acc[1]!, spread);
        spin = spinFriction(acc[2]!, spread);
      }
      if (!useOwn) this.addPassTotals(k, jn, jt, load, spin, b1 === a ? 1 : -1, nx, ny, nz);
    }
    if (touch > 0) {
      const x = ctx.bodies.pos, v = ctx.bodies.vel, shift = ctx.touchShift;
      for (let c = 0; c < 3; c++) {
        x[3 * a + c] = held[6 + c]!;
        x[3 * b + c] = held[9 + c]!;
        shift[3 * a + c] = shift[3 * a + c]! - touch * (v[3 * a + c]! - held[c]!);
        shift[3 * b + c] = shift[3 * b + c]! - touch * (v[3 * b + c]! - held[3 + c]!);
      }
    }
    if (any) {
      ctx.version[a]++;
      ctx.version[b]++;
      if (!useOwn && k < this.stopped.length) this.stopped[k] = 1;
    }
    return any;
  }

  /**
   * The time into the step (s) at which pair k's two balls touch, for a
   * pair of moving balls apart now that spherePoint found meeting within the
   * step (its point's gap >= 0 > phi, the step's approach along the normal
   * being gap - phi), each with no other moving body near (collide's
   * partners; static ones may be: a billiard ball on its table); 0 for any
   * other pair. A ball among others shares its blows at the step's start,
   * as the seed's passes do: taken where each pair touched, the passes'
   * blows in a falling ball pit went apart (343 balls at 60 Hz sank 27 mm
   * into each other in one step against 16) and a struck row of touching
   * balls started its later passes apart.
   */
  private touchTime(ctx: StepContext, pairs: PairList, cs: ContactSet, k: number): number {
    if (pairs.kind[k] !== PAIR_SPHERES || cs.end[k]! - cs.start[k]! !== 1) return 0;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    if (this.partners[a] !== 1 || this.partners[b] !== 1) return 0;
    const i = cs.start[k]!, gap = cs.gap[i]!, phi = cs.phi[i]!;
    if (!(gap > 0 && phi < 0)) return 0;
    return (ctx.dt * gap) / (gap - phi);
  }

  /**
   * One shock-propagation sweep over pair k's patches with accumulated
   * impulses (shockPass). A face patch with friction is first solved whole
   * (applyFlatAccumulated: normal, friction and torque at once, brought to
   * rest if its totals stay in bounds); otherwise, and for the other
   * patches, row by row: the normal row (total >= 0), the torque a flat
   * patch holds (bounded by the normal total), then the friction rows (total
   * within the cone of the normal total), and rolling friction for what was
   * added while sticking. Returns whether the pair's bodies' velocities
   * changed by more than round-off (ROUNDOFF_SPEED).
   */
  private resolvePairAccumulated(ctx: StepContext, pairs: PairList, con: Contacts, k: number): boolean {
    con.ensure(ctx, pairs, k);
    const cs = con.cur;
    if (cs.start[k] === cs.end[k]) return false;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const m = pairMaterial(ctx.bodies, a, b, this.mat);
    const st = this.bind(ctx);
    const cell = pairCell(ctx.shapes, ctx.bodies, a, b);
    const pc = this.patches;
    pc.ensure(ctx, cs, k, cell);
    const first = pc.first[k]!, last = pc.last[k]!;
    if (this.acc.length < ACC_FLOATS * pc.flat.length) this.acc = grown(this.acc, ACC_FLOATS * pc.flat.length);
    const acc = this.acc;
    const d = pc.data;
    const spread = this.spread;
    const tq = this.torqueAcc;
    const res = this.impulse;
    let any = false;
    this.keep(st, a, b);
    // What the contact passes left of the pair's friction cone and torque
    // octagon (PASS_FLOATS), all of it for the pair's main face (mainFace).
    let spareF = 0, spareD = 0, spareT = 0, spareS = 0, main = -1;
    const po = PASS_FLOATS * k;
    if (po < this.pass.length && this.pass[po]! > 0) {
      // Of the static cone (to stick) and of the dynamic one (to slide).
      spareF = Math.max(0, m.staticFriction * this.pass[po]! - this.pass[po + 1]!);
      spareD = Math.max(0, m.friction * this.pass[po]! - this.pass[po + 1]!);
      spareT = Math.max(0, this.pass[po]! - this.pass[po + 2]!);
      spareS = Math.max(0, m.friction * this.pass[po]! - this.pass[po + 6]!);
      main = mainFace(pc, cs, a, first, last, this.pass, po);
      // Not on a support that travels (MOVING_SUPPORT).
      if (spareF > 0 && !this.restingSupport(ctx, a, b)) spareF = spareD = 0;
    }
    for (let q = first; q < last; q++) {
      const i = pc.leader[q]!;
      const b1 = cs.b1[i]!, b2 = cs.b2[i]!;
      const o = q * PATCH_FLOATS, s = q * ACC_FLOATS;
      const close = Math.max(d[o + PATCH_GAP]!, 0) / ctx.dt;
      // A face patch's rows solved together, where the totals stay in bounds.
      const face = pc.flat[q] === PATCH_FLAT;
      let slides = false;
      const pF = q === main ? spareF : 0, pD = q === main ? spareD : 0, pT = q === main ? spareT : 0, pS = q === main ? spareS : 0;
      if (face && m.staticFriction > 0) {
        for (let c = 0; c < SPREAD_FLOATS; c++) spread[c] = d[o + 6 + c]!;
        const before = acc[s]!;
        const fr = applyFlatAccumulated(st, b1, b2, d, o, close, m.staticFriction, spread, acc, s, pF, pT, pS, ROUNDOFF_SPEED, res);
        if (fr >= 0) {
          if (fr > 0) any = true;
          const dj = acc[s]! - before;
          if (acc[s]! > 0 && k < this.stopped.length) this.stopped[k] = 1;
          if (dj > 0 && (m.rolling > 0 || m.spinning > 0)) applyRollingFriction(st, b1, b2, d, o, dj, m);
          continue;
        }
        // A face whose rest asks more of the static cone than it has slides:
        // its friction rows below take the dynamic cone (and what the passes
        // left of it), as resolvePair's do.
        slides = fr === FACE_SLIDES && (ctx.bodies.isStatic[a] === 1 || ctx.bodies.isStatic[b] === 1);
      }
      const dj = applyNormalAccumulated(st, b1, b2, d, o, acc, s, close);
      const jn = acc[s]!;
      if (dj === 0 && jn === 0 && pF === 0 && pT === 0 && pS === 0) continue;
      if (dj !== 0) any = true;
      if (jn > 0 && k < this.stopped.length) this.stopped[k] = 1;
      // A flat patch's torque, or a spin patch's spin (PatchBuilder.spinRadius).
      if (pc.flat[q] !== PATCH_POINT) {
        for (let c = 0; c < SPREAD_FLOATS; c++) spread[c] = d[o + 6 + c]!;
        tq[0] = acc[s + 4]!; tq[1] = acc[s + 5]!; tq[2] = acc[s + 6]!;
        applyPatchTorque(st, b1, b2, d, o, jn + pT, spread, m.friction * jn + pS, tq);
        if (tq[0] !== acc[s + 4] || tq[1] !== acc[s + 5] || tq[2] !== acc[s + 6]) any = true;
        acc[s + 4] = tq[0]!; acc[s + 5] = tq[1]!; acc[s + 6] = tq[2]!;
      }
      if (m.friction > 0 || m.staticFriction > 0) {
        // Sticking within mu_s, sliding on mu_d.
        const dynamic = m.friction * jn + pD;
        if (applyTangentialAccumulated(st, b1, b2, d, o, slides ? dynamic : m.staticFriction * jn + pF, acc, s + 1, res, dynamic) > 0) any = true;
        if (dj > 0 && res.sticking && (m.rolling > 0 || m.spinning > 0)) applyRollingFriction(st, b1, b2, d, o, dj, m);
      }
    }
    if (!any) return false;
    ctx.version[a]++;
    ctx.version[b]++;
    return this.moved(st, a, b);
  }

  /**
   * Whether the pair's lower body (the one shock propagation froze, or a
   * static or sleeping one) is not travelling: slower than MOVING_SUPPORT
   * |g| dt at its surface. True when neither is frozen (nothing is lower).
   */
  private restingSupport(ctx: StepContext, a: number, b: number): boolean {
    const B = ctx.bodies, im = ctx.invMass;
    const low = im[a] === 0 ? a : im[b] === 0 ? b : -1;
    if (low < 0 || B.isStatic[low]) return true;
    const g = ctx.gravity;
    const slide = MOVING_SUPPORT * norm3(g[0], g[1], g[2]) * ctx.dt;
    const r = ctx.shapeOf(low).radius;
    const v = B.vel, w = B.angVel;
    return norm3(v[3 * low]!, v[3 * low + 1]!, v[3 * low + 2]!) + r * norm3(w[3 * low]!, w[3 * low + 1]!, w[3 * low + 2]!) <= slide;
  }

  /** Keeps bodies a and b's velocities (resolvePairAccumulated), for moved(). */
  private keep(st: ImpulseState, a: number, b: number): void {
    const v = this.kept;
    for (let c = 0; c < 3; c++) {
      v[c] = st.vel[3 * a + c]!; v[3 + c] = st.angVel[3 * a + c]!;
      v[6 + c] = st.vel[3 * b + c]!; v[9 + c] = st.angVel[3 * b + c]!;
    }
  }

  /** Whether a or b's velocity changed since keep() by more than round-off (ROUNDOFF_SPEED, m/s or rad/s). */
  private moved(st: ImpulseState, a: number, b: number): boolean {
    const v = this.kept;
    for (let c = 0; c < 3; c++) {
      if (Math.abs(st.vel[3 * a + c]! - v[c]!) > ROUNDOFF_SPEED || Math.abs(st.angVel[3 * a + c]! - v[3 + c]!) > ROUNDOFF_SPEED) return true;
      if (Math.abs(st.vel[3 * b + c]! - v[6 + c]!) > ROUNDOFF_SPEED || Math.abs(st.angVel[3 * b + c]! - v[9 + c]!) > ROUNDOFF_SPEED) return true;
    }
    return false;
  }

  /**
   * Whether a face whose rest asks more than its static cone (FACE_SLIDES,
   * the request in faceNeed) slides: judged on the pair's totals over the
   * step's contact passes with the request added, not on the request alone.
   * A load arriving from above in a later pass can ask more of one impulse
   * than the cone gives while the step's totals stay inside it: a stack of
   * two boxes half a degree below atan mu_s slid away when each such pass
   * slid. The collision phase keeps no totals and judges the request alone.
   */
  private slidesOverStep(k: number, m: Material, useOwn: boolean): boolean {
    const jn = faceNeed[0]!, jt = faceNeed[1]!;
    const po = PASS_FLOATS * k;
    if (useOwn || po >= this.pass.length) return jt > m.staticFriction * jn;
    return this.pass[po + 1]! + jt > m.staticFriction * (this.pass[po]! + jn);
  }

  private clearPassTotals(n: number): void {
    if (this.pass.length < PASS_FLOATS * n) this.pass = new Float64Array(2 * PASS_FLOATS * n);
    this.pass.fill(0, 0, PASS_FLOATS * n);
  }

  private addPassTotals(k: number, jn: number, jt: number, load: number, spin: number, sign: number, nx: number, ny: number, nz: number): void {
    const o = PASS_FLOATS * k;
    if (o >= this.pass.length) return;
    this.pass[o] += jn;
    this.pass[o + 1] += jt;
    this.pass[o + 2] += load;
    this.pass[o + 6] += spin;
    const f = sign * jn;
    this.pass[o + 3] += f * nx;
    this.pass[o + 4] += f * ny;
    this.pass[o + 5] += f * nz;
  }

  /**
   * The restitution the collision phase gives patch o (PATCH_FLOATS at d[o])
   * of bodies b1, b2: the pair's `e` at the surface, the patch's gap at the
   * current poses closed under the gravity that accelerates the bodies
   * toward each other (only a body the solver moves falls: a static, asleep
   * or frozen one does not).
   */
  private bounceRestitution(ctx: StepContext, st: ImpulseState, b1: number, b2: number, d: Float64Array, o: number, e: number): number {
    const gap = d[o + PATCH_GAP]!;
    if (!(e > 0 && e < 1) || !(gap > 0)) return e;
    const f = (st.invMass[b1]! > 0 ? 1 : 0) - (st.invMass[b2]! > 0 ? 1 : 0);
    if (f === 0) return e;
    const g = ctx.gravity;
    const an = -f * (g[0] * d[o + 3]! + g[1] * d[o + 4]! + g[2] * d[o + 5]!);
    return surfaceRestitution(e, normalVelocity(st, b1, b2, d, o), gap, an, ctx.dt);
  }

  private bind(ctx: StepContext): ImpulseState {
    const st = this.state;
    const B = ctx.bodies;
    st.centre = B.pos;
    st.vel = B.vel;
    st.angVel = B.angVel;
    st.invMass = ctx.invMass;
    st.invInertiaW = ctx.invInertia;
    return st;
  }
}

/**
 * The flat patch of pair k (patches first..last, body a first) that takes
 * the spare of the contact passes in shock propagation
 * (resolvePairAccumulated): the one whose normal lies closest to the
 * direction of the normal impulse the passes gave the pair (pass[po+3..6),
 * toward a), or -1 when none is flat. Only a face draws on the spare: a
 * point patch holds no torque, and a spin patch given it held ring stacks'
 * spin so hard that they took longer to sleep. Only one face: a box resting
 * on another also has flat patches at the rim of its face, where the
 * field's rounded edge tilts the normal 26 degrees (and whose extent may
 * be wider than the face's), and with a share of the spare such a patch's
 * friction, in a tangent plane 26 degrees off, held the box up and pushed
 * it sideways, one rim patch first in each sweep: each box of a perfectly
 * straight tower left shock propagation moving sideways, and towers of 100
 * or 200 touching boxes blew apart within a second, pushed over from the
 * second box up. With the spare on the face they stand (drift 1e-19 m in
 * 10 s). The pair's patches together never draw more than the passes left.
 */
function mainFace(pc: PatchCache, cs: ContactSet, a: number, first: number, last: number, pass: Float64Array, po: number): number {
  let best = -1, along = -Infinity;
  for (let q = first; q < last; q++) {
    if (pc.flat[q] !== PATCH_FLAT) continue;
    const o = q * PATCH_FLOATS;
    const sign = cs.b1[pc.leader[q]!] === a ? 1 : -1;
    const c = sign * (pc.data[o + 3]! * pass[po + 3]! + pc.data[o + 4]! * pass[po + 4]! + pc.data[o + 5]! * pass[po + 5]!);
    if (c > along) { along = c; best = q; }
  }
  return best;
}
