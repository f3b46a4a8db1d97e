/**
 * Candidate pairs and the broad phase (stage "broadphase").
 *
 * PairList holds the candidate pairs of the current step as columns: the two
 * bodies and the pair kind, then what the narrow phase keeps per pair to
 * decide whether its cached contacts still hold, then what the solvers keep
 * (visiting order, contact-graph level).
 *
 * BroadPhase finds the pairs once per step, before the collision phase: world
 * boxes of the predicted poses, grown by the displacement from the current
 * pose (so the list still holds after impulses change the prediction a
 * little, through every iteration of both phases), swept and pruned; plus
 * every dynamic body whose box reaches below an analytic plane.
 */
import { SweepAndPrune } from '../collision/broadphase.ts';
import { grown, growColumns, swapColumns } from '../util/growable.ts';
import type { RigidShape } from './shape.ts';
import type { StepContext } from './stepContext.ts';

/** A mesh-mesh pair: both directions go to the penetration query. */
export const PAIR_MESH = 0;
/** A mesh-plane pair (b is the plane): analytic distance, no query. */
export const PAIR_PLANE = 1;
/** Two true spheres (RigidShape.sphere): one exact point, no query. */
export const PAIR_SPHERES = 2;
/** A true sphere and a convex solid (RigidShape.convex: a box, capsule or cylinder), either way round: one exact point, no query. */
export const PAIR_SPHERE_CONVEX = 3;

/** Floats per pair of the cache's reference pose: A's frame in B's frame, quaternion (4) then translation (3). */
export const REF_STRIDE = 7;

/** A pair's columns (begin() swaps them between this step's list and last step's). */
const PAIR_COLUMNS = {
  a: 1, b: 1, kind: 1, cacheStart: 1, cacheCount: 1, valid: 1, swept: 1, ref: REF_STRIDE,
  band: 1, margin0: 1, margin1: 1, limit0: 1, limit1: 1, order: 1, level: 1, impactStep: 1,
} as const;

/**
 * The candidate pairs of a step, in canonical order (by a, then b), as
 * columns. Each pair carries the state of its cached samples
 * (narrowphase.ts), which survives from step to step while the pair stays a
 * candidate: rebuilding the list (begin(), then add() in canonical order)
 * merges the new pairs with last step's by key and keeps what they had.
 */
export class PairList {
  count = 0;
  a = new Int32Array(64);
  b = new Int32Array(64);
  kind = new Uint8Array(64);
  // ---- the pair's cached samples (narrowphase.ts) ----
  /** Its samples in the narrow phase's cache: [cacheStart, cacheStart + cacheCount). */
  cacheStart = new Int32Array(64);
  cacheCount = new Int32Array(64);
  /** 1 while the cache holds (until the pair moves past its margin). */
  valid = new Uint8Array(64);
  /** 1 if this step's cache was taken at a swept (sub-step) pose: it holds to the end of the step. */
  swept = new Uint8Array(64);
  /** Relative pose at the cache's query, REF_STRIDE floats. */
  ref = new Float64Array(REF_STRIDE * 64);
  /** The pair's patch band (world units), and its query's margins (side 0: a's samples in b's field; side 1: b's in a's) and the motion limits they give. */
  band = new Float64Array(64);
  margin0 = new Float64Array(64);
  margin1 = new Float64Array(64);
  limit0 = new Float64Array(64);
  limit1 = new Float64Array(64);
  // ---- solvers ----
  /** Visiting order (a permutation of 0..count-1). */
  order = new Int32Array(64);
  /** Contact-graph level of the pair (the higher of its bodies'). */
  level = new Int32Array(64);
  /**
   * The step (StepContext.serial) in which the collision phase last applied
   * an impulse to the pair, -1 for none; kept when the list is rebuilt
   * within a step (a body woke), so the accumulated stage knows which pairs
   * already bounced.
   */
  impactStep = new Int32Array(64);

  /** Last step's list while the new one is built. */
  private old: PairList | null = null;
  private oldAt = 0;
  private bodyCount = -1;

  /** Starts a new list for `bodyCount` bodies; add() then merges last step's cache state in. */
  begin(bodyCount: number): void {
    const o = this.old ?? new PairList();
    // Swap columns: `old` gets this list, this list reuses old's storage.
    swapColumns(this, o, PAIR_COLUMNS);
    o.count = this.count;
    this.old = o;
    this.oldAt = 0;
    // Keys change meaning with the body count: nothing carries over then.
    if (bodyCount !== this.bodyCount) o.count = 0;
    this.bodyCount = bodyCount;
    this.count = 0;
  }

  /** Adds a pair (call in canonical order after begin()). */
  add(a: number, b: number, kind: number): void {
    const k = this.count++;
    if (k === this.a.length) growColumns(this, PAIR_COLUMNS, 2 * k);
    this.a[k] = a;
    this.b[k] = b;
    this.kind[k] = kind;
    this.level[k] = 0;
    this.valid[k] = 0;
    this.swept[k] = 0;
    this.cacheStart[k] = 0;
    this.cacheCount[k] = 0;
    this.impactStep[k] = -1;
    // Merge with last step's pairs (both in canonical order).
    const o = this.old;
    if (!o) return;
    while (this.oldAt < o.count && (o.a[this.oldAt]! < a || (o.a[this.oldAt] === a && o.b[this.oldAt]! < b))) this.oldAt++;
    const j = this.oldAt;
    if (j < o.count && o.a[j] === a && o.b[j] === b) this.impactStep[k] = o.impactStep[j]!;
    if (j < o.count && o.a[j] === a && o.b[j] === b && o.valid[j] && !o.swept[j]) {
      this.valid[k] = 1;
      this.cacheStart[k] = o.cacheStart[j]!;
      this.cacheCount[k] = o.cacheCount[j]!;
      for (let c = 0; c < REF_STRIDE; c++) this.ref[REF_STRIDE * k + c] = o.ref[REF_STRIDE * j + c]!;
      this.band[k] = o.band[j]!;
      this.margin0[k] = o.margin0[j]!;
      this.margin1[k] = o.margin1[j]!;
      this.limit0[k] = o.limit0[j]!;
      this.limit1[k] = o.limit1[j]!;
    }
  }

  /** Forgets every cached sample (after a backend switch or a restored state). */
  invalidate(): void {
    this.valid.fill(0);
    if (this.old) this.old.count = 0;
  }
}

export class BroadPhase {
  /** World boxes, 3 floats per body. */
  aabbMin = new Float64Array(0);
  aabbMax = new Float64Array(0);
  /** Bodies the sweep leaves out: planes, which pair analytically. */
  private skip = new Uint8Array(0);
  private planeBodies: number[] = [];
  private planePairs = new Int32Array(64);
  private readonly sap = new SweepAndPrune();

  /** Call when the body count changed. */
  resize(ctx: StepContext): void {
    const n = ctx.bodies.count;
    this.aabbMin = new Float64Array(3 * n);
    this.aabbMax = new Float64Array(3 * n);
    this.skip = new Uint8Array(n);
    this.planeBodies = [];
    for (let i = 0; i < n; i++) {
      if (ctx.shapeOf(i).kind === 'plane') {
        this.skip[i] = 1;
        this.planeBodies.push(i);
      }
    }
  }

  /**
   * Fills `pairs` with the candidate pairs at the predicted poses of `ctx`;
   * `ignore(a, b)` (a < b) drops joined pairs.
   */
  findPairs(ctx: StepContext, pairs: PairList, ignore: ((a: number, b: number) => boolean) | null): void {
    const B = ctx.bodies;
    const st = B.isStatic;
    // Two bodies that cannot move (static or asleep) need no pair.
    const zz = B.asleep;
    // With nothing awake there is none: a settled pile skips the boxes and
    // the sweep (the sweep's pairs depend on the boxes alone, so it resumes
    // from its last order).
    let awake = false;
    for (let i = 0; i < B.count && !awake; i++) awake = st[i] === 0 && zz[i] === 0;
    if (!awake) {
      pairs.begin(B.count);
      return;
    }
    this.computeAabbs(ctx);
    this.sap.update(B.count, this.aabbMin, this.aabbMax, this.skip, (a, b) => ((st[a] === 1 || zz[a] === 1) && (st[b] === 1 || zz[b] === 1)) || (ignore !== null && ignore(a, b)));
    pairs.begin(B.count);
    // Plane pairs (body, plane) in canonical order, then merged with the
    // sweep's (already canonical) pairs.
    const pp = this.planePairs;
    let np = 0;
    const R = ctx.predRot;
    for (let i = 0; i < B.count; i++) {
      if (this.skip[i] || st[i] || zz[i]) continue;
      for (const pb of this.planeBodies) {
        if (ignore !== null && ignore(Math.min(i, pb), Math.max(i, pb))) continue;
        const nl = ctx.shapeOf(pb).planeNormal!;
        const o = 9 * pb;
        const nx = R[o]! * nl[0] + R[o + 1]! * nl[1] + R[o + 2]! * nl[2];
        const ny = R[o + 3]! * nl[0] + R[o + 4]! * nl[1] + R[o + 5]! * nl[2];
        const nz = R[o + 6]! * nl[0] + R[o + 7]! * nl[1] + R[o + 8]! * nl[2];
        // Lowest point of the box along the normal.
        let lo = 0;
        for (let k = 0; k < 3; k++) {
          const nk = k === 0 ? nx : k === 1 ? ny : nz;
          lo += nk * (nk > 0 ? this.aabbMin[3 * i + k]! : this.aabbMax[3 * i + k]!);
        }
        if (lo - (nx * B.pos[3 * pb]! + ny * B.pos[3 * pb + 1]! + nz * B.pos[3 * pb + 2]!) < 0) {
          if (2 * np + 2 > pp.length) this.planePairs = grown(this.planePairs, 2 * np + 2);
          this.planePairs[2 * np] = i;
          this.planePairs[2 * np + 1] = pb;
          np++;
        }
      }
    }
    const sp = this.sap.pairs, ns = this.sap.pairCount;
    const P = this.planePairs;
    let i = 0, j = 0;
    while (i < ns || j < np) {
      const takeSap = j >= np || (i < ns && (sp[2 * i]! < P[2 * j]! || (sp[2 * i] === P[2 * j] && sp[2 * i + 1]! < P[2 * j + 1]!)));
      if (takeSap) {
        const a = sp[2 * i]!, b = sp[2 * i + 1]!;
        pairs.add(a, b, meshPairKind(ctx.shapeOf(a), ctx.shapeOf(b)));
        i++;
      } else {
        const a = P[2 * j]!, b = P[2 * j + 1]!;
        // A plane pair always has the plane as b (the query convention), even when its index is lower.
        pairs.add(a, b, PAIR_PLANE);
        j++;
      }
    }
  }

  /** World boxes of the predicted poses, grown to cover the current pose too. */
  private computeAabbs(ctx: StepContext): void {
    const B = ctx.bodies;
    const P = ctx.predPos, R = ctx.predRot;
    for (let i = 0; i < B.count; i++) {
      if (this.skip[i]) continue;
      const s = ctx.shapeOf(i);
      const lb = s.localBounds;
      const cx = 0.5 * (lb.min[0] + lb.max[0]), cy = 0.5 * (lb.min[1] + lb.max[1]), cz = 0.5 * (lb.min[2] + lb.max[2]);
      const hx = 0.5 * (lb.max[0] - lb.min[0]), hy = 0.5 * (lb.max[1] - lb.min[1]), hz = 0.5 * (lb.max[2] - lb.min[2]);
      const margin = s.sdf ? s.sdf.cellSize : 0;
      const o = 9 * i;
      for (let k = 0; k < 3; k++) {
        const c = P[3 * i + k]! + R[o + 3 * k]! * cx + R[o + 3 * k + 1]! * cy + R[o + 3 * k + 2]! * cz;
        const e = Math.abs(R[o + 3 * k]!) * hx + Math.abs(R[o + 3 * k + 1]!) * hy + Math.abs(R[o + 3 * k + 2]!) * hz + margin;
        // Reach back to the current pose (d is the predicted displacement),
        // so the box covers the whole motion of the step (swept pairs need
        // it), and half a displacement more either way, so the pair list of a
        // step still holds after impulses change the prediction.
        const d = P[3 * i + k]! - B.pos[3 * i + k]!;
        this.aabbMin[3 * i + k] = c - e - Math.max(0, d) - Math.abs(d) * 0.5;
        this.aabbMax[3 * i + k] = c + e + Math.max(0, -d) + Math.abs(d) * 0.5;
      }
    }
  }
}

/** The kind of a pair of two shapes that are not planes: two true spheres, and a sphere and a convex solid, are computed; the rest queried. */
function meshPairKind(sa: RigidShape, sb: RigidShape): number {
  if (sa.sphere) return sb.sphere ? PAIR_SPHERES : sb.convex ? PAIR_SPHERE_CONVEX : PAIR_MESH;
  return sa.convex && sb.sphere ? PAIR_SPHERE_CONVEX : PAIR_MESH;
}
