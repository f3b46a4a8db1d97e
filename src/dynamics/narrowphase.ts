/**
 * The narrow phase (stages "collisionQuery" and "contactQuery"): contact
 * points of every candidate pair at the predicted poses.
 *
 * A mesh pair becomes two query *tasks* (A's samples in B's frame against
 * B's SDF, and the reverse), posed by the relative transform of the two
 * predicted poses; every task of a round goes to the backend in ONE batched
 * call (src/collision/query.ts). A plane pair is evaluated here, exactly.
 *
 * A pair whose bodies did not move since its last query keeps its points: its
 * bodies' versions are unchanged (no impulse touched them), or its predicted
 * poses drifted by less than `reuseTolerance` of a cell (an impulse of a
 * settling contact moves the prediction by dt * dv, far below what the grid
 * resolves).
 */
import { QueryBatchBuilder, type PenetrationBackend, type QueryResult, type QueryShape } from '../collision/query.ts';
import { ContactSet, contactShift } from './contacts.ts';
import { pairCell } from './material.ts';
import { PAIR_PLANE, REF_STRIDE, type PairList } from './pairs.ts';
import { planeContacts, type ContactSink } from './planeContacts.ts';
import type { StepProfile } from './profile.ts';
import type { RigidShape } from './shape.ts';
import type { StepContext } from './stepContext.ts';

export class NarrowPhase implements ContactSink {
  /** Contacts of the current pairs (valid after detect()). */
  cur = new ContactSet();
  /** The previous round's contacts, the source of cached pairs. */
  private prev = new ContactSet();
  private readonly batch = new QueryBatchBuilder();
  /** Query shape index per world shape (-1 for planes). */
  private queryIndex: number[] = [];
  /**
   * Re-query a touched pair only when its predicted poses drifted by this many
   * SDF cells since its last query (0: re-query whenever an impulse touched it).
   */
  reuseTolerance = 0.05;
  private ctx: StepContext | null = null;
  private readonly shift = new Float64Array(3);

  /** Uploads the shapes (those with an SDF) to the backend. */
  upload(shapes: readonly RigidShape[], backend: PenetrationBackend): void {
    const qs: QueryShape[] = [];
    this.queryIndex = shapes.map((s) => {
      if (!s.sdf) return -1;
      qs.push({ samples: s.samples, sdf: s.sdf });
      return qs.length - 1;
    });
    backend.setShapes(qs);
  }

  /** Whether upload() saw this many shapes. */
  uploaded(shapeCount: number): boolean {
    return this.queryIndex.length === shapeCount;
  }

  /**
   * Queries every pair whose bodies changed since its last query (all of them
   * when `all`), in one backend call, and rebuilds the contact set `cur`.
   */
  async detect(ctx: StepContext, pairs: PairList, backend: PenetrationBackend, prof: StepProfile, all: boolean): Promise<void> {
    this.ctx = ctx;
    const B = ctx.bodies;
    const batch = this.batch;
    batch.clear();
    const ver = ctx.version;
    let queries = 0;
    for (let k = 0; k < pairs.count; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      let stale = all || !pairs.fresh[k] || pairs.verA[k] !== ver[a] || pairs.verB[k] !== ver[b];
      if (stale && !all && pairs.fresh[k] && this.reuseTolerance > 0) {
        const tol = this.reuseTolerance * pairCell(ctx.shapes, B, a, b);
        if (this.drift(ctx, pairs, k, 0, a) + this.drift(ctx, pairs, k, 1, b) < tol) stale = false;
      }
      if (!stale) {
        pairs.task[k] = -2; // reuse cached contacts
        continue;
      }
      pairs.verA[k] = ver[a]!;
      pairs.verB[k] = ver[b]!;
      pairs.fresh[k] = 1;
      this.remember(ctx, pairs, k, 0, a);
      this.remember(ctx, pairs, k, 1, b);
      if (pairs.kind[k] === PAIR_PLANE) {
        pairs.task[k] = -1;
        continue;
      }
      const sa = this.queryIndex[B.shape[a]!]!, sb = this.queryIndex[B.shape[b]!]!;
      pairs.task[k] = batch.count;
      this.pushTask(ctx, a, b, sa, sb);
      this.pushTask(ctx, b, a, sb, sa);
      queries += ctx.shapeOf(a).samples.points.length / 4 + ctx.shapeOf(b).samples.points.length / 4;
    }
    // Swap contact buffers: prev keeps the last points (and their per-pair
    // start offsets) for cached pairs.
    const tmp = this.prev;
    this.prev = this.cur;
    this.cur = tmp;
    const oldStart = this.prev.start;
    let res: QueryResult | null = null;
    if (batch.count > 0) {
      res = await backend.query(batch);
      prof.queryCalls++;
      const gpuMs = (backend as { lastGpuMs?: number | null }).lastGpuMs;
      if (typeof gpuMs === 'number') prof.gpuQueryMs += gpuMs;
      prof.queries += queries;
    }
    const cs = this.cur;
    cs.beginPairs(pairs.count);
    const pts = this.prev;
    for (let k = 0; k < pairs.count; k++) {
      cs.openPair(k);
      const task = pairs.task[k]!;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (task === -2) {
        for (let i = oldStart[k]!; i < oldStart[k + 1]!; i++) cs.copyFrom(pts, i);
      } else if (task === -1) {
        planeContacts(ctx, a, b, this);
      } else if (res) {
        this.taskContacts(ctx, res, task, a, b);
        this.taskContacts(ctx, res, task + 1, b, a);
      }
      cs.sortPair(k);
    }
    cs.endPairs();
    prof.contacts = Math.max(prof.contacts, cs.count);
  }

  /** Stores body i's predicted pose as side `side` (0: A, 1: B) of pair k's reference. */
  private remember(ctx: StepContext, pairs: PairList, k: number, side: number, i: number): void {
    const o = REF_STRIDE * k + 7 * side;
    const P = ctx.predPos, Q = ctx.predQuat, r = pairs.ref;
    for (let c = 0; c < 3; c++) r[o + c] = P[3 * i + c]!;
    for (let c = 0; c < 4; c++) r[o + 3 + c] = Q[4 * i + c]!;
  }

  /** Upper bound of how far any point of body i moved from pair k's reference pose. */
  private drift(ctx: StepContext, pairs: PairList, k: number, side: number, i: number): number {
    const o = REF_STRIDE * k + 7 * side;
    const r = pairs.ref, P = ctx.predPos, Q = ctx.predQuat;
    const dx = P[3 * i]! - r[o]!, dy = P[3 * i + 1]! - r[o + 1]!, dz = P[3 * i + 2]! - r[o + 2]!;
    // Rotation angle between the two orientations: 2 asin |vec(q conj(q_ref))| (bounded above).
    const ax = Q[4 * i]!, ay = Q[4 * i + 1]!, az = Q[4 * i + 2]!, aw = Q[4 * i + 3]!;
    const bx = -r[o + 3]!, by = -r[o + 4]!, bz = -r[o + 5]!, bw = r[o + 6]!;
    const vx = aw * bx + ax * bw + ay * bz - az * by;
    const vy = aw * by - ax * bz + ay * bw + az * bx;
    const vz = aw * bz + ax * by - ay * bx + az * bw;
    // 2 asin(s) <= 2 s + s^3 for s <= 0.5; beyond that the pose moved a lot anyway.
    const s2 = vx * vx + vy * vy + vz * vz;
    const sv = Math.sqrt(s2);
    const angle = sv > 0.5 ? Math.PI : 2 * sv + sv * s2;
    return Math.sqrt(dx * dx + dy * dy + dz * dz) + angle * ctx.shapeOf(i).radius;
  }

  /** Task: A's samples posed in B's frame, q = qB^-1 qA, t = RB^T (xA - xB). */
  private pushTask(ctx: StepContext, a: number, b: number, sa: number, sb: number): void {
    const q = ctx.predQuat;
    const bx = -q[4 * b]!, by = -q[4 * b + 1]!, bz = -q[4 * b + 2]!, bw = q[4 * b + 3]!;
    const ax = q[4 * a]!, ay = q[4 * a + 1]!, az = q[4 * a + 2]!, aw = q[4 * a + 3]!;
    const qx = bw * ax + bx * aw + by * az - bz * ay;
    const qy = bw * ay - bx * az + by * aw + bz * ax;
    const qz = bw * az + bx * ay - by * ax + bz * aw;
    const qw = bw * aw - bx * ax - by * ay - bz * az;
    const R = ctx.predRot, P = ctx.predPos;
    const o = 9 * b;
    const dx = P[3 * a]! - P[3 * b]!;
    const dy = P[3 * a + 1]! - P[3 * b + 1]!;
    const dz = P[3 * a + 2]! - P[3 * b + 2]!;
    const tx = R[o]! * dx + R[o + 3]! * dy + R[o + 6]! * dz;
    const ty = R[o + 1]! * dx + R[o + 4]! * dy + R[o + 7]! * dz;
    const tz = R[o + 2]! * dx + R[o + 5]! * dy + R[o + 8]! * dz;
    this.batch.push(sa, sb, qx, qy, qz, qw, tx, ty, tz);
  }

  /** Contacts of one query task: samples of body a inside body b. */
  private taskContacts(ctx: StepContext, res: QueryResult, task: number, a: number, b: number): void {
    const shapeA = ctx.shapeOf(a);
    const pts = shapeA.samples.points;
    const sn = shapeA.samples.normals;
    const shallow = -ctx.shapeOf(b).sdf!.cellSize;
    const R = ctx.predRot, P = ctx.predPos;
    const oa = 9 * a, ob = 9 * b;
    for (let r = res.taskStart[task]!; r < res.taskStart[task + 1]!; r++) {
      const s = res.sample[r]!;
      const phi = res.phi[r]!;
      const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
      const px = P[3 * a]! + R[oa]! * lx + R[oa + 1]! * ly + R[oa + 2]! * lz;
      const py = P[3 * a + 1]! + R[oa + 3]! * lx + R[oa + 4]! * ly + R[oa + 5]! * lz;
      const pz = P[3 * a + 2]! + R[oa + 6]! * lx + R[oa + 7]! * ly + R[oa + 8]! * lz;
      const nlx = res.normal[3 * r]!, nly = res.normal[3 * r + 1]!, nlz = res.normal[3 * r + 2]!;
      const nx = R[ob]! * nlx + R[ob + 1]! * nly + R[ob + 2]! * nlz;
      const ny = R[ob + 3]! * nlx + R[ob + 4]! * nly + R[ob + 5]! * nlz;
      const nz = R[ob + 6]! * nlx + R[ob + 7]! * nly + R[ob + 8]! * nlz;
      if (sn && phi > shallow) {
        // A shallow hit where A's surface faces the same way as B's (dot > 0)
        // is a grazing artefact: A's rim sample lying on B's side face when
        // two faces coincide edge to edge. Its sideways normal would only spin
        // the bodies; deep hits are always kept.
        const ax = sn[4 * s]!, ay = sn[4 * s + 1]!, az = sn[4 * s + 2]!;
        const wx = R[oa]! * ax + R[oa + 1]! * ay + R[oa + 2]! * az;
        const wy = R[oa + 3]! * ax + R[oa + 4]! * ay + R[oa + 5]! * az;
        const wz = R[oa + 6]! * ax + R[oa + 7]! * ay + R[oa + 8]! * az;
        if (wx * nx + wy * ny + wz * nz > 0) continue;
      }
      this.pushContact(a, b, px, py, pz, nx, ny, nz, phi);
    }
  }

  /** Adds a contact found at the predicted poses, stored moved back (contactShift). */
  pushContact(a: number, b: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number): void {
    const ctx = this.ctx!;
    const sh = this.shift;
    contactShift(ctx.predPos, ctx.bodies.pos, a, b, sh);
    this.cur.push(a, b, px + sh[0]!, py + sh[1]!, pz + sh[2]!, nx, ny, nz, phi);
  }
}
