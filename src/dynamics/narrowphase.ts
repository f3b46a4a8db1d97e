/**
 * The narrow phase (stages "collisionQuery" and "contactQuery"): the contact
 * points of every candidate pair at the current predicted poses.
 *
 * Query once, evaluate many times. A pair is queried with a *margin*: the
 * penetration query (src/collision/query.ts) returns every sample of A whose
 * phi_B is below the margin, not only the penetrating ones, and the reverse.
 * Those samples are cached with the relative pose they were found at, and
 * every later evaluation of the pair (each pass of both phases, and later
 * steps) evaluates them at the current relative pose to first order,
 *
 *   phi = phi_0 + n_0 . (p - p_0)      (p: the sample in B's frame now),
 *
 * exact for a flat face (the cache and that evaluation: sampleCache.ts). The
 * margin grows with the pair's speed, and bounds how far the pair may move
 * before a sample the query did not return could matter (margins.ts): the
 * pair is queried again only then, or once it has moved REQUERY_CELLS (the
 * first-order values drift with the motion, and so does what an evaluation
 * has to look at). Since the cached samples are sorted by phi_0 and a
 * first-order value moves by at most the motion, an evaluation stops at the
 * first sample too far out to matter.
 *
 * Each pass of a phase sees one snapshot of the geometry, as the seed's
 * iterations do: a pair's points are made at the start of the pass
 * (beginPass) and hold while impulses change velocities during it. Only the
 * pairs whose bodies' velocities changed since their points were made
 * (StepContext.version) are evaluated again, checked against their limits,
 * and queried again in one batched call if they are past them: a resting
 * pile that no impulse touches costs a check per pair. (Evaluating a pair
 * afresh when the pass reaches it, with the velocities of earlier impulses
 * of the same pass, was tried: hard landings in ring piles then left rings
 * threaded through each other and through pegs in most runs, against one in
 * six with snapshots.)
 *
 * Continuous collision (solver.ccd, sweep.ts): a pair whose relative motion
 * over the step exceeds the half thickness of its thinner body is queried at
 * poses along the motion in the same batch, and cached at the first pose
 * where it touches, its points evaluated to first order from there.
 *
 * A plane pair caches the samples of its body below the plane plus the
 * margin, evaluated exactly (the distance to a plane is linear). Under the
 * warm-started solvers (accumulated, PGS) it leaves out the samples on the
 * seams between coplanar faces (planeFlatOut): never deeper than the face's
 * vertices nor outside the polygon they span, they were 2 240 of the 3 265
 * points of a cup standing on the floor. The seed's passes weigh every
 * sample by its area in a patch's centre, and keep them (a hemisphere
 * rocking without the samples on its flat facets' diagonals stopped within
 * five swings). Two true
 * spheres, a sphere and a convex solid (a box, capsule or cylinder), and a
 * sphere and a plane have one exact point instead, computed at every
 * evaluation, never queried or cached (spherePoint, sphereConvexPoint,
 * spherePlanePoint).
 *
 * With solver.contactPose "current" (the default), the contact phase takes a
 * touching pair's samples within a band of its closest one *where they are
 * now*: the point at the current poses, the other field's value and gradient
 * there (looked up, not first order), and that value as the depth
 * (ContactSet.now; patches.ts leads with them). On a curved support the
 * predicted pose's normal leans back by v dt / rho, a drag (docs/DESIGN.md 4,
 * "Ball in a bowl"). The pair's other samples stay at the predicted pose: a
 * sample ahead of a rolling contact moves on a circle, and holding it to a
 * straight-line approach brakes the roll. Only pairs with a static body
 * (floor, peg, bowl, slope) do this: between two moving bodies (rings
 * stacked on rings) it kept the stack jittering at 0.1-0.2 m/s. And only
 * where the other field is smooth: at a sharp rim or corner the gradient
 * just outside fans out (up to 45 degrees where two cubes' edges line up), so
 * a point whose normal there and at its predicted position disagree
 * (NOW_NORMAL_COS) stays predicted.
 */
import { CLUSTER_SAMPLES, GROUP_SAMPLES, prepareKernelSamples } from '../collision/cpuKernel.ts';
import { QueryBatchBuilder, type PenetrationBackend, type QueryResult, type QueryShape } from '../collision/query.ts';
import { OUTSIDE_DISTANCE, sampleSdf } from '../sdf/grid.ts';
import { growColumns, grown } from '../util/growable.ts';
import { contactShift, ContactSet } from './contacts.ts';
import { chooseMargins, closingSpeed, MotionGauge, shapeInfo, sortCutoff, type ShapeInfo } from './margins.ts';
import { bodyPoint, quatToMat3 } from './math.ts';
import { pairCell } from './material.ts';
import { PAIR_PLANE, PAIR_SPHERE_CONVEX, PAIR_SPHERES, REF_STRIDE, type PairList } from './pairs.ts';
import { PATCH_BAND } from './patches.ts';
import { ensurePredicted } from './predict.ts';
import type { StepProfile } from './profile.ts';
import { RelPose } from './relPose.ts';
import { SampleCache } from './sampleCache.ts';
import { exactOnPlane, type ConvexSolid, type RigidShape } from './shape.ts';
import { edgeSampleStart, type CollisionSamples } from '../geometry/samples.ts';
import { meshEdges } from '../geometry/edges.ts';
import type { TriMesh } from '../geometry/mesh.ts';
import type { StepContext } from './stepContext.ts';
import { firstTouch, movesFast, sweepFraction, sweepPoses } from './sweep.ts';
import { sortIndicesByKey } from '../util/sort.ts';

/**
 * Within a phase, a pair whose bodies' predictions moved by less than this
 * many cells since its points were made keeps them: they would come out the
 * same to that accuracy (a resting stack's later contact passes change its
 * velocities by hairs).
 */
const EVAL_EPS_CELLS = 0.002;
/** A pair is queried again at the start of a phase once its samples moved this many cells since its query. */
const REQUERY_CELLS = 0.5;
/**
 * The most samples reserveCache sizes the cache for ahead (61 bytes a
 * sample, in each of two buffers: 32 MB of address space, whose pages no
 * step has written take up no memory). Beyond it the cache grows by
 * doubling.
 */
const CACHE_PRESIZE_ROWS = 1 << 19;

const enum Fresh {
  Keep = 0,
  Plane = 1,
  Query = 2,
}

/** The narrow phase's own per-pair columns. */
const PAIR_COLUMNS = { fresh: 1, early: 1, firstTask: 1, poses: 1, sweepFrom: 1, sweepTo: 1, sweepStep: 1, evalPhase: 1, evalVa: 1, evalVb: 1, dirty: 1, evalRef: REF_STRIDE } as const;

export class NarrowPhase {
  /** Contact points of the current pairs (each made current by ensure()). */
  readonly cur = new ContactSet();
  // The per-pair columns (PAIR_COLUMNS) are the narrow phase's own; they are not private only so the column helpers (growable.ts) reach them.
  /** Per pair: whether beginPass found it out of date. */
  dirty = new Uint8Array(64);
  /** Per pair: the relative pose its points were made at (REF_STRIDE floats). */
  evalRef = new Float64Array(64 * REF_STRIDE);
  /** Per pair of the current refresh: what it needs (Fresh) and, when queried, its first task and sweep poses. */
  fresh = new Uint8Array(64);
  /** Per pair of the current refresh: 1 where it was evaluated while the backend ran (refresh's overlap). */
  early = new Uint8Array(64);
  firstTask = new Int32Array(64);
  poses = new Int32Array(64);
  /** Per pair of the current refresh that is swept: the window its poses span, as fractions of the step's motion (sweep.ts). */
  sweepFrom = new Float64Array(64);
  sweepTo = new Float64Array(64);
  /** ... and the fraction of the motion its first poses lie apart. */
  sweepStep = new Float64Array(64);
  /** Per pair: the phase and body versions its points were evaluated at (-1: never in this step). */
  evalPhase = new Int32Array(64);
  evalVa = new Uint32Array(64);
  evalVb = new Uint32Array(64);
  private cache = new SampleCache();
  private next = new SampleCache();
  private readonly batch = new QueryBatchBuilder();
  /** Query shape index per world shape (-1 for planes). */
  private queryIndex: number[] = [];
  private info: ShapeInfo[] = [];
  /** Per shape, built on its first plane pair: its samples' groups for planeSamples' cull. */
  private planeCull: (PlaneCull | null)[] = [];
  private queryShapes: QueryShape[] = [];
  private readonly rel = new RelPose();
  /** How far a pair moved since its query or its points (margins.ts). */
  private readonly gauge = new MotionGauge();
  /** The evaluated pair's relative pose at the current (not predicted) poses, for the points' gaps. */
  private readonly relNow = new RelPose();
  private readonly now = new RelPose();
  /** The other field's normal at a point's predicted position (evaluatePair, solver.contactPose "current"). */
  private readonly predGrad = new Float64Array(3);
  /** Per cached sample of the pair being evaluated: its gap at the current poses (solver.contactPose "current"). */
  private gaps = new Float64Array(64);
  private readonly sub = new RelPose();
  /** sweepPoses' window (scratch). */
  private readonly window = new Float64Array(3);
  private readonly shift = new Float64Array(3);
  private readonly curRot = new Float64Array(18);
  /** A cached sample at the current poses (SampleCache.evaluate: position in the other frame, value), then the field's normal there. */
  private readonly gradScratch = new Float64Array(4);
  /** A cached sample at the predicted poses (SampleCache.evaluate: position in the other frame, value). */
  private readonly sampleAt = new Float64Array(4);
  /**
   * Impacts only (World sets it for the accumulated stage's collision
   * phase, 0 otherwise): a pair that cannot close faster than this (m/s) is
   * neither queried nor evaluated, and has no points in the phase; its
   * resting contact is the stage's.
   */
  impactSpeed = 0;
  /**
   * Plane pairs leave out the samples on seams between coplanar faces
   * (PlaneCull.unflat; World sets it under the accumulated stage and PGS,
   * which read a face's spin lever from its triangles). A change takes effect as each pair's cache is refreshed;
   * either set of samples is a valid one.
   */
  planeFlatOut = false;
  /** Samples evaluated from the caches since the step began (World books them into the profile). */
  cacheEvaluations = 0;
  /** Pairs queried again between passes of a phase since the step began (moved past their limits). */
  pairRequeries = 0;

  /** Uploads the shapes (those with an SDF) to the backend and measures what the cache needs of each. */
  upload(shapes: readonly RigidShape[], backend: PenetrationBackend): void {
    const qs: QueryShape[] = [];
    this.queryIndex = shapes.map((s) => {
      if (!s.sdf) return -1;
      qs.push({ samples: s.samples, sdf: s.sdf });
      return qs.length - 1;
    });
    this.info = shapes.map(shapeInfo);
    this.planeCull = shapes.map(() => null);
    this.queryShapes = qs;
    backend.setShapes(qs);
    this.cache.clear();
  }

  /**
   * Sizes the sample cache and its spare buffer for `rows` samples (World:
   * twice the dynamic bodies' samples, up to CACHE_PRESIZE_ROWS). Grown by
   * doubling from empty instead, the 200-ring landing copied the cache 23
   * times, 0.23 s in all and up to 47 ms in one step; sized ahead, its
   * pages are only touched as the landing fills them. The same trajectories
   * to the bit.
   */
  reserveCache(rows: number): void {
    const n = Math.min(rows, CACHE_PRESIZE_ROWS);
    this.cache.reserveTotal(n);
    this.next.reserveTotal(n);
  }

  /** Whether upload() saw this many shapes. */
  uploaded(shapeCount: number): boolean {
    return this.queryIndex.length === shapeCount;
  }

  /** A new pair list (the broad phase ran): no pair has points yet; caches carried by the list stay. */
  beginStep(pairs: PairList): void {
    const n = pairs.count;
    if (this.fresh.length < n) growColumns(this, PAIR_COLUMNS, 2 * n);
    this.evalPhase.fill(-1, 0, n);
    this.cur.clear(n);
    this.compact(pairs);
  }

  /**
   * The start of a phase: every pair's cache checked against its limit at
   * the new predicted poses; the pairs that need it are queried in one
   * batched backend call (one GPU round trip). With `only`, just the pairs it
   * marks; with `noQuery`, no backend call: only plane pairs are refreshed.
   */
  async refresh(ctx: StepContext, pairs: PairList, backend: PenetrationBackend, prof: StepProfile, only: Uint8Array | null = null, noQuery = false): Promise<void> {
    const B = ctx.bodies;
    const P = ctx.predPos, Q = ctx.predQuat;
    const batch = this.batch;
    batch.clear();
    const n = pairs.count;
    let refresh = 0;
    const ccd = ctx.settings.ccd;
    this.early.fill(0, 0, n);
    for (let k = 0; k < n; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if ((only && !only[k]) || this.leftOut(ctx, pairs, k)) {
        this.fresh[k] = Fresh.Keep;
        continue;
      }
      // Two spheres, and a sphere on a plane, are never queried: evaluatePair computes their point.
      if (this.exact(ctx, pairs, k)) {
        this.fresh[k] = Fresh.Keep;
        continue;
      }
      ensurePredicted(ctx, a);
      ensurePredicted(ctx, b);
      const ia = this.info[B.shape[a]!]!, ib = this.info[B.shape[b]!]!;
      const rel = this.rel;
      rel.set(P, Q, a, b);
      const plane = pairs.kind[k] === PAIR_PLANE;
      // Kept while its samples moved less than the limit, and less than
      // REQUERY_CELLS: what an evaluation screens grows with the motion since
      // the query, so a pair that was queried fast (a large margin) and has
      // since come to rest is queried again, small. A swept pair keeps the
      // cache of the pose where it first touched only while it still moves
      // fast: once an impulse has slowed it to less than its thinner body's
      // half thickness in the step, the rest of it (the far side of a ring
      // that pivots about where it landed) is queried at the new prediction.
      if (pairs.valid[k]) {
        if (pairs.swept[k]) {
          this.now.set(B.pos, B.quat, a, b);
          if (movesFast(this.now, rel, ia, ib)) {
            this.fresh[k] = Fresh.Keep;
            continue;
          }
        } else if (this.gauge.motion(pairs, k, rel, ia, ib, plane) < 1 && this.gauge.last < REQUERY_CELLS * pairs.band[k]! / PATCH_BAND) {
          this.fresh[k] = Fresh.Keep;
          continue;
        }
      }
      // noQuery: a pair the backend would have to query keeps what it has
      // (its cache evaluated to first order, or no points) until the next
      // phase's refresh.
      if (noQuery && !plane) {
        this.fresh[k] = Fresh.Keep;
        continue;
      }
      refresh++;
      chooseMargins(ctx, pairs, k, ia, ib, plane);
      if (plane) {
        this.fresh[k] = Fresh.Plane;
        continue;
      }
      this.fresh[k] = Fresh.Query;
      this.firstTask[k] = batch.count;
      const sa = this.queryIndex[B.shape[a]!]!, sb = this.queryIndex[B.shape[b]!]!;
      // Continuous collision: poses along the step's relative motion.
      let m = 1;
      if (ccd) {
        const now = this.now;
        now.set(B.pos, B.quat, a, b);
        const win = this.window;
        const swept = sweepPoses(now, rel, ia, ib, win);
        if (swept > 0) {
          this.sweepFrom[k] = win[0]!;
          this.sweepTo[k] = win[1]!;
          this.sweepStep[k] = win[2]!;
          m = swept;
          // A swept pair is cached at the pose where it first touches and
          // evaluated from there to first order (sweep.ts): only the
          // samples at the face it met belong in that cache. Samples from a
          // wide margin would include the far side of a thin wall, whose
          // extrapolation pushes the body on through it.
          chooseMargins(ctx, pairs, k, ia, ib, plane, true);
        }
        for (let j = 1; j < m; j++) {
          this.sub.lerp(now, rel, sweepFraction(win[0]!, win[1]!, win[2]!, m, j));
          this.pushTasks(batch, this.sub, sa, sb, pairs, k);
        }
      }
      this.poses[k] = m;
      this.pushTasks(batch, rel, sa, sb, pairs, k);
    }
    if (refresh === 0) return;
    let res: QueryResult | null = null;
    if (batch.count > 0) {
      // While the backend computes, the pairs that keep their caches are
      // evaluated (what the caller would do next anyway; a pair's evaluation
      // reads its own cache and the predictions, never the query's records).
      // Booked as the query stage's own work, not the backend's.
      let ran = false, overlapMs = 0;
      const overlap = (): void => {
        if (ran) return;
        ran = true;
        const o0 = performance.now();
        for (let k = 0; k < n; k++) {
          if (this.fresh[k] !== Fresh.Keep || (only && !only[k])) continue;
          this.evaluate(ctx, pairs, k);
          this.early[k] = 1;
        }
        overlapMs = performance.now() - o0;
      };
      const t0 = performance.now();
      res = await backend.query(batch, overlap);
      prof.backendMs += performance.now() - t0 - overlapMs;
      overlap();
      const gpuMs = (backend as { lastGpuMs?: number | null }).lastGpuMs;
      if (typeof gpuMs === 'number') prof.gpuQueryMs += gpuMs;
    }
    // Fresh samples go to the end of the cache; kept ranges stay where they
    // are (a refresh costs what it refreshes, not what the cache holds). The
    // ranges left behind are garbage, dropped by compact() between steps.
    const c = this.cache;
    for (let k = 0; k < n; k++) {
      const f = this.fresh[k]!;
      if (f === Fresh.Keep) continue;
      const start = c.count;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      this.rel.set(P, Q, a, b);
      if (f === Fresh.Plane) {
        this.planeSamples(ctx, a, b, this.rel, pairs.margin0[k]!, c);
        pairs.swept[k] = 0;
        this.rel.store(pairs.ref, REF_STRIDE * k);
      } else {
        const m = this.poses[k]!;
        const hit = firstTouch(res!, this.firstTask[k]!, m);
        const t0 = this.firstTask[k]! + 2 * hit;
        pairs.swept[k] = hit < m - 1 ? 1 : 0;
        this.pairSamples(batch, res!, t0, sortCutoff(pairs, k), c);
        if (hit < m - 1) {
          this.now.set(ctx.bodies.pos, ctx.bodies.quat, a, b);
          this.sub.lerp(this.now, this.rel, sweepFraction(this.sweepFrom[k]!, this.sweepTo[k]!, this.sweepStep[k]!, m, hit + 1));
          this.sub.store(pairs.ref, REF_STRIDE * k);
        } else {
          this.rel.store(pairs.ref, REF_STRIDE * k);
        }
      }
      pairs.valid[k] = 1;
      if (only) this.pairRequeries++;
      // (A queried pair's samples came in that order already: pairSamples.)
      if (f === Fresh.Plane) c.sortRange(start, c.count, sortCutoff(pairs, k));
      pairs.cacheStart[k] = start;
      pairs.cacheCount[k] = c.count - start;
      // Its points must come from the new samples.
      this.evalPhase[k] = -1;
    }
  }

  /**
   * Makes pair k's contact points current for this pass: they are made when
   * the pass begins (beginPass) and then hold for the whole pass, whatever
   * impulses do to the bodies meanwhile (each pass sees one snapshot of the
   * geometry), except where shock propagation reaches a level (update).
   * Only a pair never evaluated in this phase is evaluated here.
   */
  ensure(ctx: StepContext, pairs: PairList, k: number): void {
    if (this.evalPhase[k] === ctx.phase) return;
    this.evaluate(ctx, pairs, k);
  }

  /**
   * Whether pair k is left out of an impacts-only phase (impactSpeed): its
   * bodies' closing speed bound (closingSpeed) plus the step of gravity
   * between a moving body and a static or sleeping one is below it. A
   * moving body's pair with a sleeping one is never left out: the phase
   * wakes what it touches (World.wakeTouched), and the contact phase's query
   * takes in the woken bodies' pairs. A touch only the contact phase finds
   * wakes the sleeper when the next step begins (World.query).
   */
  private leftOut(ctx: StepContext, pairs: PairList, k: number): boolean {
    if (!(this.impactSpeed > 0)) return false;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const B = ctx.bodies;
    let s = closingSpeed(ctx, a, b, this.info[B.shape[a]!]!.radius, this.info[B.shape[b]!]!.radius);
    if (s > 0 && (B.asleep[a] || B.asleep[b])) return false;
    if (ctx.predGravity && (ctx.invMass[a] === 0 || ctx.invMass[b] === 0)) {
      const g = ctx.gravity;
      s += Math.hypot(g[0], g[1], g[2]) * ctx.predH;
    }
    return s < this.impactSpeed;
  }

  /** Evaluates pair k at the current predictions and records what it was evaluated at. */
  private evaluate(ctx: StepContext, pairs: PairList, k: number): void {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    ensurePredicted(ctx, a);
    ensurePredicted(ctx, b);
    if (this.leftOut(ctx, pairs, k)) {
      this.cur.open(k);
      this.cur.close();
      this.rel.set(ctx.predPos, ctx.predQuat, a, b);
    } else this.evaluatePair(ctx, pairs, k);
    this.evalPhase[k] = ctx.phase;
    this.evalVa[k] = ctx.version[a]!;
    this.evalVb[k] = ctx.version[b]!;
    // evaluatePair left the relative pose it evaluated at in this.rel.
    this.rel.store(this.evalRef, REF_STRIDE * k);
  }

  /**
   * The start of a pass within a phase: the pairs whose bodies' velocities
   * changed since their points were made (the others would get the same
   * points again) are checked against their limits, those past them queried
   * again in one batched call (unless `query` is false: then first order
   * from their caches however far they moved), and then evaluated at the
   * new predictions.
   */
  async beginPass(ctx: StepContext, pairs: PairList, backend: PenetrationBackend, prof: StepProfile, query = true): Promise<void> {
    let dirty = 0;
    const d = this.dirty;
    for (let k = 0; k < pairs.count; k++) {
      const x = this.stale(ctx, pairs, k) ? 1 : 0;
      d[k] = x;
      dirty += x;
    }
    if (dirty === 0) return;
    if (query) await this.refresh(ctx, pairs, backend, prof, d);
    // (Those refresh evaluated while the backend ran are current.)
    for (let k = 0; k < pairs.count; k++) if (d[k] && !(query && this.early[k])) this.evaluate(ctx, pairs, k);
  }

  /**
   * Makes pair k's points current within a pass, from its cached samples
   * alone (no query): shock propagation calls it as it reaches a level, so
   * the level sees the final velocities of the frozen levels below it
   * (SequentialSolver.shockPass). A pair whose prediction moved past its
   * margin's proof limit is still evaluated first order from the samples it
   * holds (the next pass start queries it again).
   */
  update(ctx: StepContext, pairs: PairList, k: number): void {
    if (this.stale(ctx, pairs, k)) this.evaluate(ctx, pairs, k);
  }

  /**
   * Whether pair k's points are out of date: never made in this phase, or
   * its bodies' velocities changed since and moved its prediction by
   * EVAL_EPS_CELLS or more (below that its points would come out the same to
   * that accuracy, and it keeps them).
   */
  private stale(ctx: StepContext, pairs: PairList, k: number): boolean {
    if (this.evalPhase[k] !== ctx.phase) return true;
    const v = ctx.version;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    if (this.evalVa[k] === v[a] && this.evalVb[k] === v[b]) return false;
    ensurePredicted(ctx, a);
    ensurePredicted(ctx, b);
    this.rel.set(ctx.predPos, ctx.predQuat, a, b);
    const B = ctx.bodies;
    const ia = this.info[B.shape[a]!]!, ib = this.info[B.shape[b]!]!;
    this.gauge.moved(this.evalRef, REF_STRIDE * k, this.rel, ia, ib, pairs.kind[k] === PAIR_PLANE);
    if (this.gauge.last < EVAL_EPS_CELLS * pairs.band[k]! / PATCH_BAND) {
      this.evalVa[k] = v[a]!;
      this.evalVb[k] = v[b]!;
      return false;
    }
    return true;
  }

  /** Every pair's points made current; returns the number of penetrating points. */
  evaluateAll(ctx: StepContext, pairs: PairList, prof: StepProfile): number {
    let inside = 0;
    const cs = this.cur;
    for (let k = 0; k < pairs.count; k++) {
      this.ensure(ctx, pairs, k);
      for (let i = cs.start[k]!; i < cs.end[k]!; i++) if (cs.phi[i]! < 0) inside++;
    }
    prof.contacts = Math.max(prof.contacts, inside);
    return inside;
  }

  /**
   * Packs the live ranges of the pairs' caches (call after the pair list was
   * rebuilt): once the garbage outweighs the live samples, copy the live
   * ranges, in pair order, into the spare buffer.
   */
  private compact(pairs: PairList): void {
    const old = this.cache;
    let live = 0;
    for (let k = 0; k < pairs.count; k++) if (pairs.valid[k]) live += pairs.cacheCount[k]!;
    if (old.count <= 2 * live + 1024) return;
    const nx = this.next;
    nx.clear();
    for (let k = 0; k < pairs.count; k++) {
      if (!pairs.valid[k]) {
        pairs.cacheCount[k] = 0;
        continue;
      }
      const start = nx.count;
      nx.copyRange(old, pairs.cacheStart[k]!, pairs.cacheCount[k]!);
      pairs.cacheStart[k] = start;
    }
    this.cache = nx;
    this.next = old;
  }

  /**
   * The contact points of pair k at the current predicted poses, from its
   * cached samples: those with phi below the patch band (the penetrating
   * points and the ones just outside, which patches take in).
   */
  private evaluatePair(ctx: StepContext, pairs: PairList, k: number): void {
    const B = ctx.bodies;
    const P = ctx.predPos, Q = ctx.predQuat, RW = ctx.predRot;
    const cs = this.cur;
    const c = this.cache;
    cs.open(k);
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const rel = this.rel;
    // Set even for an empty cache: evaluate() records it as the pose the
    // (empty) points were made at, and beginPass measures motion from it.
    rel.set(P, Q, a, b);
    if (this.exact(ctx, pairs, k)) {
      const kind = pairs.kind[k];
      if (kind === PAIR_SPHERES) this.spherePoint(ctx, pairs, k);
      else if (kind === PAIR_SPHERE_CONVEX) this.sphereConvexPoint(ctx, pairs, k);
      else if (ctx.shapeOf(a).sphere) this.spherePlanePoint(ctx, pairs, k);
      else this.roundPlanePoints(ctx, pairs, k);
      cs.close();
      return;
    }
    const cnt = pairs.valid[k] ? pairs.cacheCount[k]! : 0;
    if (cnt === 0) {
      cs.close();
      return;
    }
    const ia = this.info[B.shape[a]!]!, ib = this.info[B.shape[b]!]!;
    const plane = pairs.kind[k] === PAIR_PLANE;
    const swept = pairs.swept[k] === 1;
    let stop = Infinity;
    if (!swept) {
      // The cached samples are sorted by phi0 (up to sortCutoff), and a
      // sample's first-order value moves by at most the motion since the
      // query: past that, none can matter.
      this.gauge.motion(pairs, k, rel, ia, ib, plane);
      stop = pairs.band[k]! + this.gauge.last;
      // Only while the pair is within its limits (refresh made sure it is)
      // does the stop lie within the sorted part; beyond, look at them all.
      if (!(stop <= sortCutoff(pairs, k))) stop = Infinity;
    }
    const sh = this.shift;
    contactShift(P, B.pos, B.invMass, a, b, sh);
    const now = this.relNow;
    now.set(B.pos, B.quat, a, b);
    // solver.contactPose "current": in the contact phase, the points of a
    // touching pair where it touches now (see the class comment).
    const current = ctx.settings.contactPose === 'current' && !swept && ctx.predH > 0 && !ctx.predGravity && ctx.settings.contactSolver === 'sequential' &&
      (B.isStatic[a] === 1 || B.isStatic[b] === 1);
    if (current && stop !== Infinity) {
      // The current poses moved from the query too: stop past either motion.
      const s0 = stop;
      this.gauge.motion(pairs, k, now, ia, ib, plane);
      stop = Math.max(s0, pairs.band[k]! + this.gauge.last);
      if (!(stop <= sortCutoff(pairs, k))) stop = Infinity;
    }
    const CR = this.curRot;
    if (current) { quatToMat3(B.quat, 4 * a, CR, 0); quatToMat3(B.quat, 4 * b, CR, 9); }
    const gn = this.gradScratch;
    const band = pairs.band[k]!;
    const sa = ctx.shapeOf(a), sb = ctx.shapeOf(b);
    let evaluated = 0;
    // At the current poses: the points within a band of the pair's closest
    // (when that one touches); the rest at the predicted ones.
    let nowBelow = -Infinity;
    const start = pairs.cacheStart[k]!;
    // Each sample's gap, kept for the loop below (it looks at the same samples).
    let gaps = this.gaps;
    if (current) {
      if (gaps.length < cnt) gaps = this.gaps = new Float64Array(2 * cnt);
      let minGap = Infinity;
      for (let i = start, e = i + cnt; i < e; i++) {
        if (c.phi0[i]! > stop) break;
        const side = c.side[i]!;
        const pts = (side === 0 ? sa : sb).samples.points;
        c.evaluate(i, pts, now, plane, gn);
        const g = gn[3]!;
        gaps[i - start] = g;
        if (g < minGap) minGap = g;
      }
      if (minGap < band) nowBelow = minGap + band;
    }
    for (let i = pairs.cacheStart[k]!, e = i + cnt; i < e; i++) {
      if (c.phi0[i]! > stop) break;
      const side = c.side[i]!;
      const owner = side === 0 ? a : b, other = side === 0 ? b : a;
      const s = c.sample[i]!;
      const samples = side === 0 ? sa.samples : sb.samples;
      const pts = samples.points;
      const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
      // The sample in the other body's frame at the predicted poses, and its value there.
      const at = this.sampleAt;
      c.evaluate(i, pts, rel, plane, at);
      const px = at[0]!, py = at[1]!, pz = at[2]!, phi = at[3]!;
      evaluated++;
      // The normal in the other body's frame (a plane's, in its own frame, is the cached one).
      const o3 = 3 * i;
      const nlx = c.n0[o3]!, nly = c.n0[o3 + 1]!, nlz = c.n0[o3 + 2]!;
      // Neither near at the prediction nor taken now: nothing to add.
      if (!(phi < band) && !(current && gaps[i - start]! < nowBelow)) continue;
      const oo = 9 * other, ow = 9 * owner;
      const nx = RW[oo]! * nlx + RW[oo + 1]! * nly + RW[oo + 2]! * nlz;
      const ny = RW[oo + 3]! * nlx + RW[oo + 4]! * nly + RW[oo + 5]! * nlz;
      const nz = RW[oo + 6]! * nlx + RW[oo + 7]! * nly + RW[oo + 8]! * nlz;
      const sn = samples.normals;
      if (sn && !plane) {
        const ax = sn[4 * s]!, ay = sn[4 * s + 1]!, az = sn[4 * s + 2]!;
        const mx = RW[ow]! * ax + RW[ow + 1]! * ay + RW[ow + 2]! * az;
        const my = RW[ow + 3]! * ax + RW[ow + 4]! * ay + RW[ow + 5]! * az;
        const mz = RW[ow + 6]! * ax + RW[ow + 7]! * ay + RW[ow + 8]! * az;
        // A shallow hit where the owner's surface faces the same way as
        // the other's (dot > 0) is a grazing artefact: a rim sample lying
        // on the other's side face when two faces coincide edge to edge.
        // Its sideways normal would only spin the bodies; deep hits are
        // always kept.
        if (mx * nx + my * ny + mz * nz > 0 && phi > -(side === 0 ? ib.cell : ia.cell)) continue;
      }
      // The same sample's value at the current poses (the contact phase
      // lets an approach close this gap: SequentialSolver.resolvePair).
      // (Taken now, the sample's position at the current poses is needed in gn too.)
      let gap: number;
      if (current && !(gaps[i - start]! < nowBelow)) gap = gaps[i - start]!;
      else {
        c.evaluate(i, pts, now, plane, gn);
        gap = gn[3]!;
      }
      if (gap < nowBelow) {
        let clx = nlx, cly = nly, clz = nlz, taken = true;
        if (!plane) {
          // The field itself at the sample's current position: the cached
          // first-order value and normal belong to where the query found
          // it, up to REQUERY_CELLS away, and a curved field's normal there
          // leans by that motion over its radius (forward once the body has
          // passed it, which pumps energy in).
          // Only where the field is smooth: at a sharp rim or corner the
          // point stays at the predicted pose (NOW_NORMAL_COS).
          const g = (side === 0 ? sb : sa).sdf;
          const gp = this.predGrad;
          const v = g ? sampleSdf(g, gn[0]!, gn[1]!, gn[2]!, gn) : OUTSIDE_DISTANCE;
          taken = v !== OUTSIDE_DISTANCE && sampleSdf(g!, px, py, pz, gp) !== OUTSIDE_DISTANCE &&
            gn[0]! * gp[0]! + gn[1]! * gp[1]! + gn[2]! * gp[2]! > NOW_NORMAL_COS;
          if (taken) { gap = v; clx = gn[0]!; cly = gn[1]!; clz = gn[2]!; }
        }
        if (taken) {
          const ro = side === 0 ? 9 : 0, rw = side === 0 ? 0 : 9;
          const cx = CR[ro]! * clx + CR[ro + 1]! * cly + CR[ro + 2]! * clz;
          const cy = CR[ro + 3]! * clx + CR[ro + 4]! * cly + CR[ro + 5]! * clz;
          const cz = CR[ro + 6]! * clx + CR[ro + 7]! * cly + CR[ro + 8]! * clz;
          const qx = B.pos[3 * owner]! + CR[rw]! * lx + CR[rw + 1]! * ly + CR[rw + 2]! * lz;
          const qy = B.pos[3 * owner + 1]! + CR[rw + 3]! * lx + CR[rw + 4]! * ly + CR[rw + 5]! * lz;
          const qz = B.pos[3 * owner + 2]! + CR[rw + 6]! * lx + CR[rw + 7]! * ly + CR[rw + 8]! * lz;
          const v = cs.staged;
          v[0] = qx; v[1] = qy; v[2] = qz; v[3] = cx; v[4] = cy; v[5] = cz;
          v[6] = gap; v[7] = gap; v[8] = phi; v[9] = samples.areas ? samples.areas[s]! : 1;
          cs.pushStaged(owner, other, s, 1);
          continue;
        }
        if (!(phi < band)) continue;
      }
      const wx = P[3 * owner]! + RW[ow]! * lx + RW[ow + 1]! * ly + RW[ow + 2]! * lz;
      const wy = P[3 * owner + 1]! + RW[ow + 3]! * lx + RW[ow + 4]! * ly + RW[ow + 5]! * lz;
      const wz = P[3 * owner + 2]! + RW[ow + 6]! * lx + RW[ow + 7]! * ly + RW[ow + 8]! * lz;
      const v = cs.staged;
      v[0] = wx + sh[0]!; v[1] = wy + sh[1]!; v[2] = wz + sh[2]!; v[3] = nx; v[4] = ny; v[5] = nz;
      v[6] = phi; v[7] = gap; v[8] = phi; v[9] = samples.areas ? samples.areas[s]! : 1;
      cs.pushStaged(owner, other, s, 0);
    }
    cs.close();
    this.cacheEvaluations += evaluated;
  }

  /**
   * The closest cached sample of pair k at the predicted poses, first order as
   * evaluatePair, if its value lies in [0, reach): `near` holds its gap, the
   * world normal (the other body's outward normal), and the owner and the
   * other body. Returns false when the cache holds none (the solver's gap
   * closing, SequentialSolver.closeGap, reads it: a hovering pair has no
   * point within the contact band, which is a fraction of a cell).
   */
  nearest(ctx: StepContext, pairs: PairList, k: number, reach: number): boolean {
    if (this.exact(ctx, pairs, k)) return this.exactNearest(ctx, pairs, k, reach);
    const cnt = pairs.valid[k] ? pairs.cacheCount[k]! : 0;
    if (cnt === 0 || pairs.swept[k] === 1) return false;
    const P = ctx.predPos, Q = ctx.predQuat, RW = ctx.predRot;
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const rel = this.nearRel;
    rel.set(P, Q, a, b);
    const plane = pairs.kind[k] === PAIR_PLANE;
    const c = this.cache;
    const sa = ctx.shapeOf(a), sb = ctx.shapeOf(b);
    const at = this.sampleAt;
    let best = -1, bestPhi = reach;
    for (let i = pairs.cacheStart[k]!, e = i + cnt; i < e; i++) {
      const pts = (c.side[i] === 0 ? sa.samples : sb.samples).points;
      c.evaluate(i, pts, rel, plane, at);
      const phi = at[3]!;
      if (phi >= 0 && phi < bestPhi) {
        bestPhi = phi;
        best = i;
      }
    }
    if (best < 0) return false;
    const side = c.side[best]!;
    const owner = side === 0 ? a : b, other = side === 0 ? b : a;
    const o3 = 3 * best, oo = 9 * other;
    const nlx = c.n0[o3]!, nly = c.n0[o3 + 1]!, nlz = c.n0[o3 + 2]!;
    const near = this.near;
    near.gap = bestPhi;
    near.owner = owner;
    near.other = other;
    near.nx = RW[oo]! * nlx + RW[oo + 1]! * nly + RW[oo + 2]! * nlz;
    near.ny = RW[oo + 3]! * nlx + RW[oo + 4]! * nly + RW[oo + 5]! * nlz;
    near.nz = RW[oo + 6]! * nlx + RW[oo + 7]! * nly + RW[oo + 8]! * nlz;
    return true;
  }

  /** Whether pair k's points are computed, not queried: two spheres, a sphere and a convex solid, or a sphere, capsule or cylinder and a plane. */
  private exact(ctx: StepContext, pairs: PairList, k: number): boolean {
    const kind = pairs.kind[k];
    return kind === PAIR_SPHERES || kind === PAIR_SPHERE_CONVEX || (kind === PAIR_PLANE && exactOnPlane(ctx.shapeOf(pairs.a[k]!)));
  }

  /**
   * Pair k of a true sphere and a convex solid (PAIR_SPHERE_CONVEX, either
   * way round: a box, capsule or cylinder): its one point, exact, as
   * spherePoint's. The solid is convex, so the sphere meets it at one point,
   * nearest its centre: the feature (a box's face, edge or corner, a
   * cylinder's side, cap or rim, a capsule's surface) nearest the centre at
   * the current poses gives the normal (out of the solid) and the surface
   * point, and phi is the predicted centre's distance from that feature's
   * tangent plane less the radius, first order from now (exact on a flat
   * face). A pair apart now takes the feature from the centre's straight
   * path in the solid's frame (the signed distance to a convex body is
   * convex along a line, so the path's nearest approach is found by golden
   * sections): where it first comes within the radius, or where it passes
   * nearest, whose tangent plane the whole path stays clear of (a ball
   * flying past a box's edge onto its top face is struck by the face, or
   * not at all). The point lies on the sphere's surface at its current pose,
   * keyed as its sample 0 (spherePoint). Through samples, a ball of the
   * default segments rolled down a box ramp at 0.99 of (5/7) g sin(theta).
   */
  private sphereConvexPoint(ctx: StepContext, pairs: PairList, k: number): void {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const sIsA = ctx.shapeOf(a).sphere !== undefined;
    const s = sIsA ? a : b, x = sIsA ? b : a;
    const sp = ctx.shapeOf(s).sphere!, h = ctx.shapeOf(x).convex!;
    const band = exactPair(ctx, pairs, k);
    const L = this.centres, f = this.feature, r = sp.radius;
    sphereInSolid(ctx, s, sp.centre, x, h.centre, L);
    const c1x = L[0]!, c1y = L[1]!, c1z = L[2]!, c0x = L[3]!, c0y = L[4]!, c0z = L[5]!;
    const sd0 = convexFeature(c0x, c0y, c0z, h, f);
    const mx = c1x - c0x, my = c1y - c0y, mz = c1z - c0z;
    // Apart now by more than the path is long: the feature nearest now is
    // clear of the whole path (its tangent plane is within len of sd0).
    if (sd0 >= r && sd0 - Math.sqrt(mx * mx + my * my + mz * mz) < r) {
      // Apart now. The path's nearest approach, by golden sections (the
      // path runs straight from the current to the predicted centre): if it
      // comes within the radius, the feature where it first does; if not,
      // the feature nearest it, whose tangent plane the path never comes
      // within the radius of.
      const sd1 = convexFeature(c1x, c1y, c1z, h, this.feature2);
      const at = (t: number): number => convexFeature(c0x + t * mx, c0y + t * my, c0z + t * mz, h, this.feature2);
      let inn = sd1 < r ? 1 : -1, near = 1;
      if (inn < 0) {
        let lo = 0, hi = 1;
        let t1 = hi - GOLDEN * (hi - lo), t2 = lo + GOLDEN * (hi - lo);
        let f1 = at(t1), f2 = at(t2);
        for (let it = 0; it < 48 && f1 >= r && f2 >= r; it++) {
          if (f1 < f2) {
            hi = t2; t2 = t1; f2 = f1; t1 = hi - GOLDEN * (hi - lo); f1 = at(t1);
          } else {
            lo = t1; t1 = t2; f1 = f2; t2 = lo + GOLDEN * (hi - lo); f2 = at(t2);
          }
        }
        if (f1 < r) inn = t1;
        else if (f2 < r) inn = t2;
        else {
          near = f1 < f2 ? t1 : t2;
          const fNear = Math.min(f1, f2);
          if (sd0 <= fNear) near = 0;
          if (sd1 < Math.min(fNear, sd0)) near = 1;
        }
      }
      if (inn < 0) {
        convexFeature(c0x + near * mx, c0y + near * my, c0z + near * mz, h, f);
      } else {
        let out = 0;
        for (let it = 0; it < 48; it++) {
          const t = (out + inn) / 2;
          if (at(t) < r) inn = t;
          else out = t;
        }
        convexFeature(c0x + out * mx, c0y + out * my, c0z + out * mz, h, f);
      }
    }
    // Both values from the feature's tangent plane (exact on a face): the
    // accumulated stage moves a point's separation from gap to first order,
    // so phi must be where gap goes.
    const nlx = f[0]!, nly = f[1]!, nlz = f[2]!;
    const gap = nlx * (c0x - f[3]!) + nly * (c0y - f[4]!) + nlz * (c0z - f[5]!) - r;
    const phi = nlx * (c1x - f[3]!) + nly * (c1y - f[4]!) + nlz * (c1z - f[5]!) - r;
    if (!(phi < band)) return;
    // The solid's rotation now (sphereInSolid) takes the normal into the world.
    const R = solidRotScratch;
    const nx = R[0]! * nlx + R[1]! * nly + R[2]! * nlz;
    const ny = R[3]! * nlx + R[4]! * nly + R[5]! * nlz;
    const nz = R[6]! * nlx + R[7]! * nly + R[8]! * nlz;
    const areas = ctx.shapeOf(s).samples.areas;
    this.cur.push(s, x, L[9]! - r * nx, L[10]! - r * ny, L[11]! - r * nz,
      nx, ny, nz, phi, gap, 0, areas ? areas[0]! : 1);
  }

  /** sphereConvexPoint's feature: the solid's outward normal (0-2) and the nearest surface point (3-5), in the solid's frame. */
  private readonly feature = new Float64Array(6);
  private readonly feature2 = new Float64Array(6);

  /**
   * Pair k of a true sphere (A) and a plane (B): its one point, exact, as
   * spherePoint's: the plane's normal, phi and gap the centre's height over
   * the plane less the radius at the predicted and the current pose (the
   * distance to a plane is linear, so first order is exact), the point under
   * the centre on A's surface at its current pose. Through samples the
   * pair was a patch of the samples within the band of the plane, sampled
   * again whenever the ball had rolled half a cell.
   */
  private spherePlanePoint(ctx: StepContext, pairs: PairList, k: number): void {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const sa = ctx.shapeOf(a).sphere!;
    const band = exactPair(ctx, pairs, k);
    const c = this.centres;
    planeGaps(ctx, a, b, sa.centre, c);
    const phi = c[0]! - sa.radius;
    if (!(phi < band)) return;
    const nx = c[3]!, ny = c[4]!, nz = c[5]!;
    const areas = ctx.shapeOf(a).samples.areas;
    this.cur.push(a, b, c[6]! - sa.radius * nx, c[7]! - sa.radius * ny, c[8]! - sa.radius * nz,
      nx, ny, nz, phi, c[1]! - sa.radius, 0, areas ? areas[0]! : 1);
  }

  /**
   * Pair k of a true capsule or cylinder (A) and a plane (B): its points,
   * exact, as spherePlanePoint's (roundPlanePoint): a capsule's two, one
   * under each end of its segment; a cylinder's four on each cap's rim, the
   * first where the rim reaches furthest down into the plane. Each is keyed
   * as A's sample j (the contact store's key). Through samples, a capsule
   * rolling down a 10 degree slope lost 1.5 % of (g sin) / (1 + k) under the
   * seed's passes, 8 % under the accumulated stage and 11 % under PGS: its
   * samples are a polyhedron's vertices, landing in turn.
   */
  private roundPlanePoints(ctx: StepContext, pairs: PairList, k: number): void {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const band = exactPair(ctx, pairs, k);
    const h = ctx.shapeOf(a).convex!, c = this.centres;
    const areas = ctx.shapeOf(a).samples.areas;
    roundPlaneSetup(ctx, a, b, c);
    for (let j = 0, n = roundPlaneCount(h); j < n; j++) {
      roundPlanePoint(ctx, a, b, j, c);
      if (!(c[0]! < band)) continue;
      this.cur.push(a, b, c[6]!, c[7]!, c[8]!, c[3]!, c[4]!, c[5]!, c[0]!, c[1]!, j, areas ? areas[0]! : 1);
    }
  }

  /**
   * Pair k of two true spheres (PAIR_SPHERES): its one point, exact, in
   * place of samples (no query, no cache: the distance between two spheres
   * is that of their centres less the radii). The normal, out of B, is the
   * line of centres where the balls touch: at the current poses for balls
   * touching or crossed now, else where their relative motion in the step (a
   * straight line between the centres, now and predicted) first comes within
   * reach, and phi is the predicted centres' distance along it less the
   * radii: first order from now, as a cached sample is from its query. So an
   * oblique blow is taken along the line it is struck along (along the line
   * now, balls of 0.5 m, one at 2 m/s struck a radius off centre, left 1.2 %
   * slow at dt = 0.01; along the predicted line, which the step's sideways
   * motion tilts, balls struck at 30 degrees left 89.975 degrees apart,
   * spinning at 0.09 rad/s), and the collision phase takes it where they
   * touch (SequentialSolver.resolvePair), through both centres: a
   * frictionless impact turns neither ball, and momentum and angular
   * momentum are kept. The point lies on A's surface at its current pose. A
   * pair whose relative motion never comes within reach takes the line of
   * centres at its nearest approach, so balls passing at speed feel no
   * contact the first-order value would invent; one that would pass through
   * the other within the step is struck where it would first touch it (a
   * ball at 150 m/s through another's side: momentum and energy kept, no
   * spin; through samples and a sweep, 12.4 degrees off, spinning at 300
   * rad/s and a third of the energy gone). gap is the distance along the
   * normal at the current poses (the exact one for balls touching now). The
   * point is keyed as A's sample 0 (the contact store's key): a sphere's
   * samples have no creases, and a single point reads nothing else of them.
   */
  private spherePoint(ctx: StepContext, pairs: PairList, k: number): void {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    const sa = ctx.shapeOf(a).sphere!, sb = ctx.shapeOf(b).sphere!;
    const band = exactPair(ctx, pairs, k);
    const c = this.centres;
    sphereCentres(ctx, a, b, sa.centre, sb.centre, c);
    const r = sa.radius + sb.radius;
    const e1x = c[0]!, e1y = c[1]!, e1z = c[2]!, e0x = c[3]!, e0y = c[4]!, e0z = c[5]!;
    const d1 = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z), d0 = Math.sqrt(e0x * e0x + e0y * e0y + e0z * e0z);
    // The line of centres now: a frictionless blow along it turns neither sphere.
    let nx = 0, ny = 1, nz = 0;
    if (d0 > 0) {
      nx = e0x / d0; ny = e0y / d0; nz = e0z / d0;
    } else if (d1 > 0) {
      nx = e1x / d1; ny = e1y / d1; nz = e1z / d1;
    }
    let phi = nx * e1x + ny * e1y + nz * e1z - r, gap = d0 - r;
    if (d0 > r) {
      // Apart now: the relative motion e0 -> e1, a straight line (both fall
      // alike), meets within the step where it first comes within r, and
      // the balls touch along the line of centres there: the normal an
      // oblique blow takes (along the line now, balls of 0.5 m, one at 2 m/s
      // struck a radius off centre, left 1.2 % slow at dt = 0.01). A path
      // that stays outside r is a miss: along the line of centres at its
      // nearest approach, which the whole path keeps at least that far (the
      // accumulated stage moves a point's separation from gap to first
      // order; along the line now, balls passing 1 mm apart at 20 m/s met
      // halfway). gap = n . e0 - r >= 0 then, and phi = n . e1 - r < 0 where
      // they meet, the fraction of the step they meet at gap / (gap - phi)
      // (SequentialSolver.resolvePair takes the blow there).
      const mx = e1x - e0x, my = e1y - e0y, mz = e1z - e0z;
      const mm = mx * mx + my * my + mz * mz;
      const em = e0x * mx + e0y * my + e0z * mz;
      const t = mm > 0 ? Math.min(1, Math.max(0, -em / mm)) : 0;
      const cx = e0x + t * mx, cy = e0y + t * my, cz = e0z + t * mz;
      const dc = Math.sqrt(cx * cx + cy * cy + cz * cz);
      if (!(dc < r)) {
        if (dc > 0) {
          nx = cx / dc; ny = cy / dc; nz = cz / dc;
        }
      } else {
        // The first root of |e0 + s m| = r (em < 0: closing), in the stable form.
        const c0 = d0 * d0 - r * r, q = -em + Math.sqrt(Math.max(0, em * em - mm * c0));
        const f = q > 0 ? Math.min(1, c0 / q) : 0;
        const tx = e0x + f * mx, ty = e0y + f * my, tz = e0z + f * mz;
        const dt = Math.sqrt(tx * tx + ty * ty + tz * tz);
        if (dt > 0) {
          nx = tx / dt; ny = ty / dt; nz = tz / dt;
        }
      }
      phi = nx * e1x + ny * e1y + nz * e1z - r;
      gap = nx * e0x + ny * e0y + nz * e0z - r;
    }
    if (!(phi < band)) return;
    const areas = ctx.shapeOf(a).samples.areas;
    this.cur.push(a, b, c[9]! - sa.radius * nx, c[10]! - sa.radius * ny, c[11]! - sa.radius * nz,
      nx, ny, nz, phi, gap, 0, areas ? areas[0]! : 1);
  }

  /** nearest() for a computed pair (exact()): two spheres, a sphere and a convex solid, or a sphere, capsule or cylinder and a plane: the exact gap at the predicted poses. */
  private exactNearest(ctx: StepContext, pairs: PairList, k: number, reach: number): boolean {
    const a = pairs.a[k]!, b = pairs.b[k]!;
    if (pairs.kind[k] === PAIR_SPHERE_CONVEX) {
      const sIsA = ctx.shapeOf(a).sphere !== undefined;
      const s = sIsA ? a : b, x = sIsA ? b : a;
      const sp = ctx.shapeOf(s).sphere!, h = ctx.shapeOf(x).convex!;
      const L = this.centres, f = this.feature;
      sphereInSolid(ctx, s, sp.centre, x, h.centre, L);
      const gap = convexFeature(L[0]!, L[1]!, L[2]!, h, f) - sp.radius;
      if (!(gap >= 0 && gap < reach)) return false;
      const R = ctx.predRot, o = 9 * x;
      const near = this.near;
      near.gap = gap;
      near.owner = s;
      near.other = x;
      near.nx = R[o]! * f[0]! + R[o + 1]! * f[1]! + R[o + 2]! * f[2]!;
      near.ny = R[o + 3]! * f[0]! + R[o + 4]! * f[1]! + R[o + 5]! * f[2]!;
      near.nz = R[o + 6]! * f[0]! + R[o + 7]! * f[1]! + R[o + 8]! * f[2]!;
      return true;
    }
    if (pairs.kind[k] === PAIR_PLANE) {
      // A sphere's one point, or the nearest of a capsule's or cylinder's.
      const c = this.centres, sa = ctx.shapeOf(a).sphere;
      let gap = Infinity;
      if (sa) {
        planeGaps(ctx, a, b, sa.centre, c);
        gap = c[0]! - sa.radius;
      } else {
        roundPlaneSetup(ctx, a, b, c);
        for (let j = 0, n = roundPlaneCount(ctx.shapeOf(a).convex!); j < n; j++) {
          roundPlanePoint(ctx, a, b, j, c);
          if (c[0]! >= 0 && c[0]! < gap) gap = c[0]!;
        }
      }
      if (!(gap >= 0 && gap < reach)) return false;
      const near = this.near;
      near.gap = gap;
      near.owner = a;
      near.other = b;
      near.nx = c[3]!;
      near.ny = c[4]!;
      near.nz = c[5]!;
      return true;
    }
    const sa = ctx.shapeOf(a).sphere!, sb = ctx.shapeOf(b).sphere!;
    const c = this.centres;
    sphereCentres(ctx, a, b, sa.centre, sb.centre, c);
    const d = Math.sqrt(c[0]! * c[0]! + c[1]! * c[1]! + c[2]! * c[2]!);
    const gap = d - sa.radius - sb.radius;
    if (!(gap >= 0 && gap < reach) || !(d > 0)) return false;
    const near = this.near;
    near.gap = gap;
    near.owner = a;
    near.other = b;
    near.nx = c[0]! / d;
    near.ny = c[1]! / d;
    near.nz = c[2]! / d;
    return true;
  }

  /** sphereCentres' output: A's centre less B's at the predicted poses (0-2) and at the current ones (3-5), then A's centre at each (6-8, 9-11). */
  private readonly centres = new Float64Array(12);

  /** What the last nearest() call found. */
  readonly near = { gap: 0, owner: 0, other: 0, nx: 0, ny: 0, nz: 0 };
  private readonly nearRel = new RelPose();

  /** Both tasks of a pose: A's samples in B (margin in B's field), B's in A. */
  private pushTasks(batch: QueryBatchBuilder, p: RelPose, sa: number, sb: number, pairs: PairList, k: number): void {
    batch.push(sa, sb, p.qx, p.qy, p.qz, p.qw, p.tx, p.ty, p.tz, pairs.margin0[k]!);
    batch.push(sb, sa, -p.qx, -p.qy, -p.qz, p.qw, p.ux, p.uy, p.uz, pairs.margin1[k]!);
  }

  /**
   * The records of one pose's two tasks (task t0: A's samples, side 0; t0 +
   * 1: B's, side 1) into the cache, each with its position in the other
   * frame at the query pose: those with phi <= `cutoff` first, sorted by phi
   * (stable), then the rest as they came. The order SampleCache.sortRange
   * gives (the evaluation's stop relies on it), made as the records go in
   * rather than by moving the cache's columns again afterwards.
   */
  private pairSamples(batch: QueryBatchBuilder, res: QueryResult, t0: number, cutoff: number, out: SampleCache): void {
    const r0 = res.taskStart[t0]!, r1 = res.taskStart[t0 + 1]!, n = res.taskStart[t0 + 2]! - r0;
    if (this.recKey.length < n) {
      this.recKey = new Float64Array(2 * n);
      this.recPerm = new Int32Array(2 * n);
      this.recTmp = new Int32Array(2 * n);
    }
    const key = this.recKey, perm = this.recPerm, phi = res.phi;
    let m = 0;
    for (let j = 0; j < n; j++) {
      const v = phi[r0 + j]!;
      key[j] = v;
      if (v <= cutoff) perm[m++] = j;
    }
    if (m < n) for (let j = 0, r = m; j < n; j++) if (!(key[j]! <= cutoff)) perm[r++] = j;
    sortIndicesByKey(perm, m, key, this.recTmp);
    const ps = batch.poses;
    const pts0 = this.queryShapes[batch.shapeA[t0]!]!.samples.points, pts1 = this.queryShapes[batch.shapeA[t0 + 1]!]!.samples.points;
    for (let q = 0; q < n; q++) {
      const r = r0 + perm[q]!;
      const side = r < r1 ? 0 : 1;
      const o = 8 * (t0 + side);
      const qx = ps[o]!, qy = ps[o + 1]!, qz = ps[o + 2]!, qw = ps[o + 3]!;
      const s = res.sample[r]!;
      const pts = side === 0 ? pts0 : pts1;
      const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
      // p = rotate(q, l) + t, the same pose the query used.
      const cx = qy * lz - qz * ly, cy = qz * lx - qx * lz, cz = qx * ly - qy * lx;
      const px = lx + 2 * (qw * cx + qy * cz - qz * cy) + ps[o + 4]!;
      const py = ly + 2 * (qw * cy + qz * cx - qx * cz) + ps[o + 5]!;
      const pz = lz + 2 * (qw * cz + qx * cy - qy * cx) + ps[o + 6]!;
      out.push(side, s, phi[r]!, res.normal[3 * r]!, res.normal[3 * r + 1]!, res.normal[3 * r + 2]!, px, py, pz);
    }
  }

  /** pairSamples' scratch: the records' phi, their order, and the sort's spare. */
  private recKey = new Float64Array(0);
  private recPerm = new Int32Array(0);
  private recTmp = new Int32Array(0);

  /** Every sample of body a within `margin` of plane body p, exactly, at relative pose `rel` (a in p). */
  private planeSamples(ctx: StepContext, a: number, p: number, rel: RelPose, margin: number, out: SampleCache): void {
    const nl = ctx.shapeOf(p).planeNormal!;
    const s = ctx.shapeOf(a).samples;
    const pts = s.points;
    const R = rel.R;
    const n = pts.length / 4;
    // Groups of samples whose bounding sphere lies wholly at or beyond the
    // margin are skipped (exact: a sample's height is at least its sphere's
    // centre's less the radius); on a bunny resting on the floor, most of its
    // samples.
    const si = ctx.bodies.shape[a]!;
    const cull = (this.planeCull[si] ??= planeCullOf(s, ctx.shapeOf(a), n));
    const sph = cull.spheres, pass = cull.pass;
    let any = false;
    for (let g = 0; g < cull.groups; g++) {
      const cx = sph[4 * g]!, cy = sph[4 * g + 1]!, cz = sph[4 * g + 2]!;
      const wx = R[0]! * cx + R[1]! * cy + R[2]! * cz + rel.tx;
      const wy = R[3]! * cx + R[4]! * cy + R[5]! * cz + rel.ty;
      const wz = R[6]! * cx + R[7]! * cy + R[8]! * cz + rel.tz;
      const low = nl[0] * wx + nl[1] * wy + nl[2] * wz - sph[4 * g + 3]!;
      pass[g] = low < margin ? 1 : 0;
      any ||= low < margin;
    }
    if (!any) return;
    // The passing groups' members (a group is a compact patch, its members
    // far apart in sample order): those within the margin are marked in a
    // bit set of the shape's samples, which is then read (and cleared) in
    // sample order, the order the cache takes them in. (Sorting the marked
    // indices instead was most of this function on resting cups: 1 250 of
    // a cup's 21 000 samples lie within the margin of the floor.)
    const members = this.planeFlatOut ? cull.unflat : cull.members, from = this.planeFlatOut ? cull.unflatStart : cull.start;
    const bits = (this.planeBits = grown(this.planeBits, (n + 31) >>> 5));
    let lo = n, hi = -1, marked = 0;
    for (let g = 0; g < cull.groups; g++) {
      if (!pass[g]) continue;
      for (let q = from[g]!, q1 = from[g + 1]!; q < q1; q++) {
        const i = members[q]!;
        const lx = pts[4 * i]!, ly = pts[4 * i + 1]!, lz = pts[4 * i + 2]!;
        const px = R[0]! * lx + R[1]! * ly + R[2]! * lz + rel.tx;
        const py = R[3]! * lx + R[4]! * ly + R[5]! * lz + rel.ty;
        const pz = R[6]! * lx + R[7]! * ly + R[8]! * lz + rel.tz;
        if (nl[0] * px + nl[1] * py + nl[2] * pz < margin) {
          bits[i >>> 5] |= 1 << (i & 31);
          marked++;
          if (i < lo) lo = i;
          if (i > hi) hi = i;
        }
      }
    }
    // Written straight into the cache's columns (SampleCache.reserve): a
    // resting bunny puts hundreds of samples a step here, and push() left a
    // call boxed its seven numbers (1.4 MB of garbage a step on 50 bunnies).
    let at = out.reserve(marked);
    const side = out.side, sample = out.sample, phi0 = out.phi0, n0 = out.n0, p0 = out.p0;
    const nx = nl[0], ny = nl[1], nz = nl[2];
    for (let wi = lo >>> 5, w1 = hi >>> 5; wi <= w1 && hi >= 0; wi++) {
      let word = bits[wi]!;
      bits[wi] = 0;
      while (word !== 0) {
        const low = word & -word;
        const i = (wi << 5) | (31 - Math.clz32(low));
        word ^= low;
        const lx = pts[4 * i]!, ly = pts[4 * i + 1]!, lz = pts[4 * i + 2]!;
        const px = R[0]! * lx + R[1]! * ly + R[2]! * lz + rel.tx;
        const py = R[3]! * lx + R[4]! * ly + R[5]! * lz + rel.ty;
        const pz = R[6]! * lx + R[7]! * ly + R[8]! * lz + rel.tz;
        side[at] = 0;
        sample[at] = i;
        phi0[at] = nx * px + ny * py + nz * pz;
        n0[3 * at] = nx; n0[3 * at + 1] = ny; n0[3 * at + 2] = nz;
        p0[3 * at] = px; p0[3 * at + 1] = py; p0[3 * at + 2] = pz;
        at++;
      }
    }
    out.count = at;
  }
  /** Scratch of planeSamples: one bit per sample of the shape, all clear between calls. */
  private planeBits = new Uint32Array(0);
}

/**
 * Cosine below which the other field's normals at a point's current and
 * predicted positions disagree (a rim or corner, where the gradient fans out
 * and a point just outside gets a normal leaning up to 45 degrees): the point
 * stays predicted. A smooth support turns by v dt / radius in a step.
 */
const NOW_NORMAL_COS = 0.995;

/** A shape's samples in spatial groups (cpuKernel.ts's), with each group's members, for NarrowPhase.planeSamples. */
interface PlaneCull {
  groups: number;
  /** Bounding sphere per group (x, y, z, radius; the shape's frame), padded by a hair for Float32 points. */
  spheres: Float64Array;
  /** The samples of group g at [start[g], start[g + 1]) (start[g] = g GROUP_SAMPLES). */
  members: Uint32Array;
  start: Int32Array;
  /**
   * The same less the samples on seams between coplanar faces
   * (flatInterior), group g's at [unflatStart[g], unflatStart[g + 1]):
   * against a plane, whose distance is linear, such a sample is never deeper
   * than the face's vertices and never outside the polygon they span. Read
   * under NarrowPhase.planeFlatOut.
   */
  unflat: Uint32Array;
  unflatStart: Int32Array;
  /** Scratch: whether each group reaches below the margin this call. */
  pass: Uint8Array;
}

function planeCullOf(s: CollisionSamples, shape: RigidShape, n: number): PlaneCull {
  const k = prepareKernelSamples(s.points, n, true);
  const nc = Math.ceil(n / CLUSTER_SAMPLES), groups = Math.ceil(n / GROUP_SAMPLES);
  const spheres = k.clusters.slice(4 * nc, 4 * (nc + groups));
  for (let g = 0; g < groups; g++) spheres[4 * g + 3] = spheres[4 * g + 3]! * (1 + 1e-6) + 1e-9;
  const members = new Uint32Array(n);
  for (let pos = 0; pos < n; pos++) members[pos] = k.order === null ? pos : k.order[pos]!;
  const start = new Int32Array(groups + 1);
  for (let g = 0; g <= groups; g++) start[g] = Math.min(n, g * GROUP_SAMPLES);
  // A true solid's samples lie on its curved surface, not on its facets
  // (trueSolids.ts): none is a convex mix of the facets' vertices. (Such a
  // solid meets a plane at exact points and never comes here; kept apart
  // all the same.)
  const inFlat = exactOnPlane(shape) ? new Uint8Array(n) : flatInterior(s, shape.mesh, n);
  const unflatStart = new Int32Array(groups + 1);
  const unflat: number[] = [];
  for (let g = 0; g < groups; g++) {
    for (let q = start[g]!; q < start[g + 1]!; q++) if (!inFlat[members[q]!]) unflat.push(members[q]!);
    unflatStart[g + 1] = unflat.length;
  }
  return { groups, spheres, members, start, unflat: Uint32Array.from(unflat), unflatStart, pass: new Uint8Array(groups) };
}

/**
 * 1 for each of a shape's `n` samples that lies inside a seam between two
 * coplanar faces (within about 1 mrad; PlaneCull.unflat leaves them out).
 * The vertices stay, even inside a flat face: faceSpinRadius reads a face's
 * lever from the triangles whose three vertices press.
 */
function flatInterior(s: CollisionSamples, mesh: TriMesh, n: number): Uint8Array {
  const inFlat = new Uint8Array(n);
  // The samples' edges are meshEdges' (samples.ts), numbered alike.
  const me = meshEdges(mesh.indices, s.meshVertexCount ?? s.vertexCount);
  const p = mesh.positions, idx = mesh.indices, E = s.edgeCount;
  // Per edge, the sum of its faces' unit normals and their count.
  const sum = new Float64Array(3 * E), count = new Uint8Array(E);
  for (let t = 0; t < idx.length; t += 3) {
    const a = 3 * idx[t]!, b = 3 * idx[t + 1]!, c = 3 * idx[t + 2]!;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(l > 0)) continue;
    for (let k = 0; k < 3; k++) {
      const e = me.edgeOf[t + k]!;
      sum[3 * e] += nx / l; sum[3 * e + 1] += ny / l; sum[3 * e + 2] += nz / l;
      count[e]++;
    }
  }
  for (let e = 0; e < E; e++) {
    const x = sum[3 * e]!, y = sum[3 * e + 1]!, z = sum[3 * e + 2]!;
    // Two unit normals at angle a sum to |n1 + n2|^2 = 2 + 2 cos(a).
    if (count[e] === 2 && x * x + y * y + z * z >= FLAT_EDGE_SUM2) inFlat.fill(1, edgeSampleStart(s, e), edgeSampleStart(s, e + 1));
  }
  return inFlat;
}

/** The least |n1 + n2|^2 of two faces' unit normals whose shared edge lies inside one flat face: within about 1 mrad (a^2 = 1e-6). */
const FLAT_EDGE_SUM2 = 4 - 1e-6;

/**
 * The centres of two spheres (centre ca of body a's shape, cb of b's, each
 * in its body's frame): out[0..2] = A's less B's at the predicted poses,
 * out[3..5] the same at the current poses, out[6..8] and out[9..11] A's
 * centre at the predicted and the current pose.
 */
function sphereCentres(ctx: StepContext, a: number, b: number, ca: readonly number[], cb: readonly number[], out: Float64Array): void {
  const B = ctx.bodies;
  for (let pass = 0; pass < 2; pass++) {
    const pos = pass === 0 ? ctx.predPos : B.pos;
    const w = centreScratch;
    centreOf(ctx, pass, a, ca, pos, w, 0);
    centreOf(ctx, pass, b, cb, pos, w, 3);
    out[3 * pass] = w[0]! - w[3]!;
    out[3 * pass + 1] = w[1]! - w[4]!;
    out[3 * pass + 2] = w[2]! - w[5]!;
    out[6 + 3 * pass] = w[0]!;
    out[7 + 3 * pass] = w[1]!;
    out[8 + 3 * pass] = w[2]!;
  }
}

const centreScratch = new Float64Array(6);
const solidRotScratch = new Float64Array(9);
/** The golden section's ratio, (sqrt(5) - 1) / 2. */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * A sphere's centre (c in body s's frame) in the frame of body x, about the
 * point cb of that frame (its convex solid's centre): out[0..2] at the
 * predicted poses, out[3..5] at the current ones; out[9..11] the sphere's
 * centre in the world at the current pose; solidRotScratch x's current
 * rotation.
 */
function sphereInSolid(ctx: StepContext, s: number, c: readonly number[], x: number, cb: readonly number[], out: Float64Array): void {
  const B = ctx.bodies, w = centreScratch;
  centreOf(ctx, 0, s, c, ctx.predPos, w, 0);
  centreOf(ctx, 1, s, c, B.pos, w, 3);
  quatToMat3(B.quat, 4 * x, solidRotScratch, 0);
  for (let pass = 0; pass < 2; pass++) {
    const pos = pass === 0 ? ctx.predPos : B.pos;
    const R = pass === 0 ? ctx.predRot : solidRotScratch, r = pass === 0 ? 9 * x : 0;
    const dx = w[3 * pass]! - pos[3 * x]!, dy = w[3 * pass + 1]! - pos[3 * x + 1]!, dz = w[3 * pass + 2]! - pos[3 * x + 2]!;
    // The transpose takes the world into x's frame.
    out[3 * pass] = R[r]! * dx + R[r + 3]! * dy + R[r + 6]! * dz - cb[0]!;
    out[3 * pass + 1] = R[r + 1]! * dx + R[r + 4]! * dy + R[r + 7]! * dz - cb[1]!;
    out[3 * pass + 2] = R[r + 2]! * dx + R[r + 5]! * dy + R[r + 8]! * dz - cb[2]!;
  }
  out[9] = w[3]!;
  out[10] = w[4]!;
  out[11] = w[5]!;
}

/**
 * The signed distance of point (x, y, z) (the solid's frame, about its
 * centre) to convex solid h, and the feature it is measured to: out[0..2]
 * the outward normal there, out[3..5] the nearest point of the surface.
 */
function convexFeature(x: number, y: number, z: number, h: ConvexSolid, out: Float64Array): number {
  if (h.type === 'box') return boxFeature(x, y, z, h.half, out);
  if (h.type === 'capsule') {
    // The nearest point of the axis segment, then out along the radius.
    const sy = Math.min(h.halfLength, Math.max(-h.halfLength, y));
    const vx = x, vy = y - sy, vz = z;
    const l = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (!(l > 0)) {
      // On the axis: any direction across it.
      out[0] = 1; out[1] = 0; out[2] = 0;
      out[3] = h.radius; out[4] = sy; out[5] = 0;
      return -h.radius;
    }
    out[0] = vx / l; out[1] = vy / l; out[2] = vz / l;
    out[3] = h.radius * out[0]!; out[4] = sy + h.radius * out[1]!; out[5] = h.radius * out[2]!;
    return l - h.radius;
  }
  return cylinderFeature(x, y, z, h.radius, h.halfLength, out);
}

/**
 * convexFeature of a box of half extents h: outside, the distance to the
 * point clamped into the box; inside (or on the surface), to the nearest
 * face.
 */
function boxFeature(x: number, y: number, z: number, h: readonly number[], out: Float64Array): number {
  const hx = h[0]!, hy = h[1]!, hz = h[2]!;
  const qx = Math.min(hx, Math.max(-hx, x)), qy = Math.min(hy, Math.max(-hy, y)), qz = Math.min(hz, Math.max(-hz, z));
  const vx = x - qx, vy = y - qy, vz = z - qz;
  const l2 = vx * vx + vy * vy + vz * vz;
  if (l2 > 0) {
    const l = Math.sqrt(l2);
    out[0] = vx / l; out[1] = vy / l; out[2] = vz / l;
    out[3] = qx; out[4] = qy; out[5] = qz;
    return l;
  }
  const ex = Math.abs(x) - hx, ey = Math.abs(y) - hy, ez = Math.abs(z) - hz;
  let axis = 0, e = ex;
  if (ey > e) { axis = 1; e = ey; }
  if (ez > e) { axis = 2; e = ez; }
  const along = axis === 0 ? x : axis === 1 ? y : z;
  const sign = along < 0 ? -1 : 1;
  out[0] = 0; out[1] = 0; out[2] = 0;
  out[axis] = sign;
  out[3] = x; out[4] = y; out[5] = z;
  out[3 + axis] = sign * h[axis]!;
  return e;
}

/**
 * convexFeature of a cylinder of radius rc and half height hh along y: its
 * side, a cap, or (outside both) its rim; inside, the nearer of the side and
 * the cap.
 */
function cylinderFeature(x: number, y: number, z: number, rc: number, hh: number, out: Float64Array): number {
  const rho = Math.sqrt(x * x + z * z);
  const ux = rho > 0 ? x / rho : 1, uz = rho > 0 ? z / rho : 0;
  const sign = y < 0 ? -1 : 1;
  const dr = rho - rc, dy = Math.abs(y) - hh;
  if (dr > 0 && dy > 0) {
    // The rim: the nearest point of its circle.
    const vx = x - rc * ux, vy = y - sign * hh, vz = z - rc * uz;
    const l = Math.sqrt(vx * vx + vy * vy + vz * vz);
    out[0] = vx / l; out[1] = vy / l; out[2] = vz / l;
    out[3] = rc * ux; out[4] = sign * hh; out[5] = rc * uz;
    return l;
  }
  if (dr > dy) {
    out[0] = ux; out[1] = 0; out[2] = uz;
    out[3] = rc * ux; out[4] = y; out[5] = rc * uz;
    return dr;
  }
  out[0] = 0; out[1] = sign; out[2] = 0;
  out[3] = x; out[4] = sign * hh; out[5] = z;
  return dy;
}

/**
 * Body i's point c (its frame) in the world, at the predicted pose (pass 0)
 * or the current one (pass 1), into out[o..o+2]. A sphere's centre is its
 * body's origin unless its mass came from the field.
 */
function centreOf(ctx: StepContext, pass: number, i: number, c: ArrayLike<number>, pos: Float64Array, out: Float64Array, o: number): void {
  if (pass === 1) {
    bodyPoint(pos, ctx.bodies.quat, i, c, out, o);
    return;
  }
  let x = pos[3 * i]!, y = pos[3 * i + 1]!, z = pos[3 * i + 2]!;
  if (c[0] !== 0 || c[1] !== 0 || c[2] !== 0) {
    const R = ctx.predRot, r = 9 * i;
    x += R[r]! * c[0]! + R[r + 1]! * c[1]! + R[r + 2]! * c[2]!;
    y += R[r + 3]! * c[0]! + R[r + 4]! * c[1]! + R[r + 5]! * c[2]!;
    z += R[r + 6]! * c[0]! + R[r + 7]! * c[1]! + R[r + 8]! * c[2]!;
  }
  out[o] = x;
  out[o + 1] = y;
  out[o + 2] = z;
}

/** How many points roundPlanePoint gives for solid h: a capsule's 2, a cylinder's 8. */
function roundPlaneCount(h: ConvexSolid): number {
  return h.type === 'capsule' ? 2 : 8;
}

/** The convex solids a plane meets at computed points besides a sphere (roundPlanePoint). */
type RoundSolid = Extract<ConvexSolid, { type: 'capsule' | 'cylinder' }>;

/**
 * A cylinder's rim points follow the direction its axis tilts away from the
 * plane's normal once it tilts by more than this (the sine): standing
 * within it, they are fixed in the body (a resting cylinder's jitter would
 * otherwise turn them about its axis from step to step).
 */
const RIM_TILT = 1e-3;
/** roundPlaneSetup's result: the direction -n in a's frame at the predicted pose (0-2) and the current one (3-5). */
const roundDir = new Float64Array(6);
const roundLocal = new Float64Array(3);

/**
 * For roundPlanePoint's calls on one pair (capsule or cylinder a, plane b):
 * plane b's normal into out[3..5] and the direction into the plane in a's
 * frame at each pose into roundDir.
 */
function roundPlaneSetup(ctx: StepContext, a: number, b: number, out: Float64Array): void {
  planeNormalInto(ctx, b, out);
  const nx = out[3]!, ny = out[4]!, nz = out[5]!;
  quatToMat3(ctx.bodies.quat, 4 * a, solidRotScratch, 0);
  for (let pass = 0; pass < 2; pass++) {
    const M = pass === 0 ? ctx.predRot : solidRotScratch, m = pass === 0 ? 9 * a : 0, o = 3 * pass;
    roundDir[o] = -(M[m]! * nx + M[m + 3]! * ny + M[m + 6]! * nz);
    roundDir[o + 1] = -(M[m + 1]! * nx + M[m + 4]! * ny + M[m + 7]! * nz);
    roundDir[o + 2] = -(M[m + 2]! * nx + M[m + 5]! * ny + M[m + 8]! * nz);
  }
}

/**
 * Point j of capsule or cylinder a (its convex solid) against plane b, after
 * roundPlaneSetup, at each pose the solid's point furthest into the plane of
 * its role: the capsule's ends (j = 0, 1) each lowered by the radius along
 * the plane's normal; the cylinder's rim points (j = 4 cap + q, cap 0 at
 * -y), q = 0 the rim's lowest, q = 1-3 a quarter turn apart from it. out[0]
 * its height over the plane at the predicted poses (phi), out[1] at the
 * current ones (gap), out[3..5] the plane's normal (left by the setup),
 * out[6..8] the point at the current pose.
 */
function roundPlanePoint(ctx: StepContext, a: number, b: number, j: number, out: Float64Array): void {
  const h = ctx.shapeOf(a).convex! as RoundSolid;
  const w = centreScratch, L = roundLocal;
  for (let pass = 0; pass < 2; pass++) {
    const dx = roundDir[3 * pass]!, dy = roundDir[3 * pass + 1]!, dz = roundDir[3 * pass + 2]!;
    if (h.type === 'capsule') {
      L[0] = h.centre[0] + h.radius * dx;
      L[1] = h.centre[1] + (j === 0 ? -h.halfLength : h.halfLength) + h.radius * dy;
      L[2] = h.centre[2] + h.radius * dz;
    } else {
      const t = Math.sqrt(dx * dx + dz * dz);
      let ex = 1, ez = 0;
      if (t > RIM_TILT) { ex = dx / t; ez = dz / t; }
      const q = j & 3;
      // A quarter turn about y: (x, z) -> (z, -x).
      const cx = q === 0 ? ex : q === 1 ? ez : q === 2 ? -ex : -ez;
      const cz = q === 0 ? ez : q === 1 ? -ex : q === 2 ? -ez : ex;
      L[0] = h.centre[0] + h.radius * cx;
      L[1] = h.centre[1] + (j < 4 ? -h.halfLength : h.halfLength);
      L[2] = h.centre[2] + h.radius * cz;
    }
    centreOf(ctx, pass, a, L, pass === 0 ? ctx.predPos : ctx.bodies.pos, w, 3 * pass);
  }
  planeHeights(ctx, b, w, out);
}

/**
 * A sphere's centre (c in body a's frame) over the plane of body b: out[0]
 * and out[1] its height above the plane at the predicted and the current
 * pose, out[3..5] the plane's world normal, out[6..8] the centre at the
 * current pose.
 */
function planeGaps(ctx: StepContext, a: number, b: number, c: readonly number[], out: Float64Array): void {
  const w = centreScratch;
  planeNormalInto(ctx, b, out);
  centreOf(ctx, 0, a, c, ctx.predPos, w, 0);
  centreOf(ctx, 1, a, c, ctx.bodies.pos, w, 3);
  planeHeights(ctx, b, w, out);
}

/** Plane b's normal in the world into out[3..5]. */
function planeNormalInto(ctx: StepContext, b: number, out: Float64Array): void {
  const R = ctx.predRot, o = 9 * b;
  const nl = ctx.shapeOf(b).planeNormal!;
  out[3] = R[o]! * nl[0] + R[o + 1]! * nl[1] + R[o + 2]! * nl[2];
  out[4] = R[o + 3]! * nl[0] + R[o + 4]! * nl[1] + R[o + 5]! * nl[2];
  out[5] = R[o + 6]! * nl[0] + R[o + 7]! * nl[1] + R[o + 8]! * nl[2];
}

/**
 * With out[3..5] plane b's normal (planeNormalInto) and w a point at the
 * predicted (0-2) and the current poses (3-5): its height over the plane at
 * each into out[0] and out[1], and the current point into out[6..8].
 */
function planeHeights(ctx: StepContext, b: number, w: Float64Array, out: Float64Array): void {
  const P = ctx.predPos, X = ctx.bodies.pos;
  const nx = out[3]!, ny = out[4]!, nz = out[5]!;
  out[0] = nx * (w[0]! - P[3 * b]!) + ny * (w[1]! - P[3 * b + 1]!) + nz * (w[2]! - P[3 * b + 2]!);
  out[1] = nx * (w[3]! - X[3 * b]!) + ny * (w[4]! - X[3 * b + 1]!) + nz * (w[5]! - X[3 * b + 2]!);
  out[6] = w[3]!;
  out[7] = w[4]!;
  out[8] = w[5]!;
}

/**
 * Marks pair k, whose one point is computed (two spheres, a sphere and a
 * plane), as holding: nothing cached, never swept. Returns its patch band.
 */
function exactPair(ctx: StepContext, pairs: PairList, k: number): number {
  const band = PATCH_BAND * pairCell(ctx.shapes, ctx.bodies, pairs.a[k]!, pairs.b[k]!);
  pairs.band[k] = band;
  pairs.valid[k] = 1;
  pairs.swept[k] = 0;
  pairs.cacheCount[k] = 0;
  return band;
}
