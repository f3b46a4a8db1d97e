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
import { grown } from '../util/growable.ts';
import type { StepContext } from './stepContext.ts';

/** A mesh-mesh pair: both directions go to the penetration query. */
export const PAIR_MESH = 0;
/** A mesh-plane pair (b is the plane): analytic distance, no query. */
export const PAIR_PLANE = 1;

/** Floats per pair of the narrow phase's reference poses: A then B, xyz + quaternion each. */
export const REF_STRIDE = 14;

export class PairList {
  count = 0;
  a = new Int32Array(64);
  b = new Int32Array(64);
  kind = new Uint8Array(64);
  // ---- narrow phase: the state of the pair's cached contacts ----
  /** Body versions at the pair's last query. */
  verA = new Uint32Array(64);
  verB = new Uint32Array(64);
  /** 1 once the pair was queried this step. */
  fresh = new Uint8Array(64);
  /** Query task of the pair in the current batch (-1: plane, -2: reuse cached contacts). */
  task = new Int32Array(64);
  /** Predicted poses of A and B at the pair's last query (REF_STRIDE floats). */
  ref = new Float64Array(REF_STRIDE * 64);
  // ---- solvers ----
  /** Visiting order (a permutation of 0..count-1). */
  order = new Int32Array(64);
  /** Contact-graph level of the pair (the higher of its bodies'). */
  level = new Int32Array(64);

  clear(): void {
    this.count = 0;
  }

  add(a: number, b: number, kind: number): void {
    const k = this.count++;
    if (k === this.a.length) {
      const n = 2 * k;
      this.a = grown(this.a, n);
      this.b = grown(this.b, n);
      this.kind = grown(this.kind, n);
      this.verA = grown(this.verA, n);
      this.verB = grown(this.verB, n);
      this.fresh = grown(this.fresh, n);
      this.task = grown(this.task, n);
      this.ref = grown(this.ref, REF_STRIDE * n);
      this.order = grown(this.order, n);
      this.level = grown(this.level, n);
    }
    this.a[k] = a;
    this.b[k] = b;
    this.kind[k] = kind;
    this.fresh[k] = 0;
    this.level[k] = 0;
  }
}

export class BroadPhase {
  /** World boxes, 3 floats per body. */
  aabbMin = new Float64Array(0);
  aabbMax = new Float64Array(0);
  /** Bodies the sweep leaves out: planes, which pair analytically. */
  private skip = new Uint8Array(0);
  private planeBodies: number[] = [];
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
    this.computeAabbs(ctx);
    const st = B.isStatic;
    this.sap.update(B.count, this.aabbMin, this.aabbMax, this.skip, (a, b) => (st[a] === 1 && st[b] === 1) || (ignore !== null && ignore(a, b)));
    pairs.clear();
    const sp = this.sap.pairs;
    for (let k = 0; k < this.sap.pairCount; k++) pairs.add(sp[2 * k]!, sp[2 * k + 1]!, PAIR_MESH);
    for (const pb of this.planeBodies) {
      const nl = ctx.shapeOf(pb).planeNormal!;
      const R = ctx.predRot;
      const o = 9 * pb;
      const nx = R[o]! * nl[0] + R[o + 1]! * nl[1] + R[o + 2]! * nl[2];
      const ny = R[o + 3]! * nl[0] + R[o + 4]! * nl[1] + R[o + 5]! * nl[2];
      const nz = R[o + 6]! * nl[0] + R[o + 7]! * nl[1] + R[o + 8]! * nl[2];
      const px = B.pos[3 * pb]!, py = B.pos[3 * pb + 1]!, pz = B.pos[3 * pb + 2]!;
      for (let i = 0; i < B.count; i++) {
        if (this.skip[i] || st[i]) continue;
        if (ignore !== null && ignore(Math.min(i, pb), Math.max(i, pb))) continue;
        // Lowest point of the box along the normal.
        let lo = 0;
        for (let k = 0; k < 3; k++) {
          const nk = k === 0 ? nx : k === 1 ? ny : nz;
          lo += nk * (nk > 0 ? this.aabbMin[3 * i + k]! : this.aabbMax[3 * i + k]!);
        }
        if (lo - (nx * px + ny * py + nz * pz) < 0) pairs.add(i, pb, PAIR_PLANE);
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
        // Grow by the displacement from the current pose so the pair list of a
        // phase still holds after impulses change the prediction a little.
        const d = P[3 * i + k]! - B.pos[3 * i + k]!;
        this.aabbMin[3 * i + k] = c - e - Math.max(0, -d) - Math.abs(d) * 0.5;
        this.aabbMax[3 * i + k] = c + e + Math.max(0, d) + Math.abs(d) * 0.5;
      }
    }
  }
}
