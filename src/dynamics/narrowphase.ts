/**
 * The narrow phase (stages "collisionQuery" and "contactQuery"): the contact
 * points of every candidate pair at the current predicted poses.
 *
 * Query once, evaluate many times. A pair is queried with a *margin*: the
 * penetration query (src/collision/query.ts) returns every sample of A whose
 * phi_B is below the margin (about one cell of B's grid), not only the
 * penetrating ones, and the reverse. Those samples are cached with the
 * relative pose they were found at. Every later collision or contact
 * iteration, and every later step, evaluates the cached samples at the
 * current relative pose to first order in the motion,
 *
 *   phi = phi_0 + n_0 . (p - p_0)      (p: the sample in B's frame now)
 *
 * exact for the cached sample set, and for a flat face. Samples that were
 * not cached had phi_B >= margin, and the trilinear field changes by at most
 * sqrt(3) per unit of motion, so none of them can come within the patch band
 * of a contact while every sample has moved less than
 * (margin - band) / sqrt(3) in B's frame: the pair is queried again only
 * then. A settled pile is queried almost never; in a falling or landing
 * pile the pairs whose bodies collide move past their margins, and each
 * iteration that has such pairs makes one batched query for them (one round
 * trip to a GPU).
 *
 * Continuous collision (solver.ccd): a pair whose relative motion over the
 * step exceeds the half thickness of its thinner body is queried at poses
 * along the motion (current to predicted, one batch), and cached at the first
 * pose where it touches. Its points evaluated at the predicted pose then
 * extrapolate the surface it met (a half-space through the touching face), so
 * a fast body is stopped at the face it reached instead of being pushed out
 * of the far side of a thin wall.
 *
 * A plane pair caches the samples of its body below the plane plus the
 * margin, evaluated exactly (the distance to a plane is linear).
 */
import { QueryBatchBuilder, type PenetrationBackend, type QueryResult, type QueryShape } from '../collision/query.ts';
import { grown } from '../util/growable.ts';
import { contactShift, ContactSet } from './contacts.ts';
import { pairCell } from './material.ts';
import { PAIR_PLANE, REF_STRIDE, type PairList } from './pairs.ts';
import { PATCH_BAND } from './patches.ts';
import type { StepProfile } from './profile.ts';
import type { RigidShape } from './shape.ts';
import type { StepContext } from './stepContext.ts';

const SQRT3 = Math.sqrt(3);
/** Query margin, in cells of the grid sampled. */
const MARGIN_CELLS = 1;
/** Most poses along a swept pair's motion. */
const MAX_SWEEP_POSES = 64;

/** Cached samples, flat: the samples of one pair are a contiguous range. */
class SampleCache {
  count = 0;
  /** 0: a sample of the pair's body a in b's frame; 1: of b in a's frame. */
  side = new Uint8Array(256);
  sample = new Int32Array(256);
  phi0 = new Float64Array(256);
  /** Normal (grad phi) in the other body's frame at the query. */
  n0 = new Float64Array(768);
  /** The sample's position in the other body's frame at the query. */
  p0 = new Float64Array(768);

  clear(): void {
    this.count = 0;
  }

  push(side: number, sample: number, phi: number, nx: number, ny: number, nz: number, px: number, py: number, pz: number): void {
    const i = this.count++;
    if (i === this.side.length) this.grow(2 * i);
    this.side[i] = side;
    this.sample[i] = sample;
    this.phi0[i] = phi;
    this.n0[3 * i] = nx; this.n0[3 * i + 1] = ny; this.n0[3 * i + 2] = nz;
    this.p0[3 * i] = px; this.p0[3 * i + 1] = py; this.p0[3 * i + 2] = pz;
  }

  /**
   * Sorts samples [start, end) by phi0 (stable), so evaluation can stop at
   * the first sample too far out to matter (NarrowPhase.evaluate).
   */
  sortRange(start: number, end: number): void {
    const n = end - start;
    if (n < 2) return;
    if (this.perm.length < n) this.perm = new Int32Array(2 * n);
    const perm = this.perm.subarray(0, n);
    for (let i = 0; i < n; i++) perm[i] = start + i;
    const phi = this.phi0;
    perm.sort((x, y) => phi[x]! - phi[y]! || x - y);
    let sorted = true;
    for (let i = 0; i < n && sorted; i++) if (perm[i] !== start + i) sorted = false;
    if (sorted) return;
    // Apply the permutation through scratch copies of the range.
    const t = this.tmp;
    if (t.side.length < n) t.grow(2 * n);
    t.side.set(this.side.subarray(start, end));
    t.sample.set(this.sample.subarray(start, end));
    t.phi0.set(this.phi0.subarray(start, end));
    t.n0.set(this.n0.subarray(3 * start, 3 * end));
    t.p0.set(this.p0.subarray(3 * start, 3 * end));
    for (let i = 0; i < n; i++) {
      const j = perm[i]! - start, d = start + i;
      this.side[d] = t.side[j]!;
      this.sample[d] = t.sample[j]!;
      this.phi0[d] = t.phi0[j]!;
      for (let c = 0; c < 3; c++) {
        this.n0[3 * d + c] = t.n0[3 * j + c]!;
        this.p0[3 * d + c] = t.p0[3 * j + c]!;
      }
    }
  }

  private perm = new Int32Array(0);
  private static scratch: SampleCache | null = null;
  private get tmp(): SampleCache {
    return (SampleCache.scratch ??= new SampleCache());
  }

  copyRange(from: SampleCache, start: number, n: number): void {
    const at = this.count;
    if (at + n > this.side.length) this.grow(2 * (at + n));
    this.side.set(from.side.subarray(start, start + n), at);
    this.sample.set(from.sample.subarray(start, start + n), at);
    this.phi0.set(from.phi0.subarray(start, start + n), at);
    this.n0.set(from.n0.subarray(3 * start, 3 * (start + n)), 3 * at);
    this.p0.set(from.p0.subarray(3 * start, 3 * (start + n)), 3 * at);
    this.count += n;
  }

  grow(n: number): void {
    this.side = grown(this.side, n);
    this.sample = grown(this.sample, n);
    this.phi0 = grown(this.phi0, n);
    this.n0 = grown(this.n0, 3 * n);
    this.p0 = grown(this.p0, 3 * n);
  }
}

/** Relative poses of one pair: A in B (q, t, R) and B in A (t; R is R_AB transposed). */
class RelPose {
  qx = 0; qy = 0; qz = 0; qw = 1;
  tx = 0; ty = 0; tz = 0;
  /** B in A: translation. */
  ux = 0; uy = 0; uz = 0;
  readonly R = new Float64Array(9);

  /** A's frame in B's frame from poses (pos, quat) of bodies a and b. */
  set(pos: Float64Array, quat: Float64Array, a: number, b: number): void {
    const bx = -quat[4 * b]!, by = -quat[4 * b + 1]!, bz = -quat[4 * b + 2]!, bw = quat[4 * b + 3]!;
    const ax = quat[4 * a]!, ay = quat[4 * a + 1]!, az = quat[4 * a + 2]!, aw = quat[4 * a + 3]!;
    // q = conj(qB) qA
    this.setQuat(
      bw * ax + bx * aw + by * az - bz * ay,
      bw * ay - bx * az + by * aw + bz * ax,
      bw * az + bx * ay - by * ax + bz * aw,
      bw * aw - bx * ax - by * ay - bz * az,
    );
    // t = R_B^T (x_A - x_B), with R_B from qB (un-conjugated).
    const dx = pos[3 * a]! - pos[3 * b]!, dy = pos[3 * a + 1]! - pos[3 * b + 1]!, dz = pos[3 * a + 2]! - pos[3 * b + 2]!;
    rotateConj(-bx, -by, -bz, bw, dx, dy, dz, this);
    this.finishInverse();
  }

  /** Interpolates between two relative poses (translation linear, rotation nlerp) at u in [0, 1]. */
  lerp(p: RelPose, q: RelPose, u: number): void {
    // The shorter way round: q and -q are the same rotation.
    const s = p.qx * q.qx + p.qy * q.qy + p.qz * q.qz + p.qw * q.qw < 0 ? -1 : 1;
    const x = p.qx + u * (s * q.qx - p.qx), y = p.qy + u * (s * q.qy - p.qy), z = p.qz + u * (s * q.qz - p.qz), w = p.qw + u * (s * q.qw - p.qw);
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    this.setQuat(x / l, y / l, z / l, w / l);
    this.tx = p.tx + u * (q.tx - p.tx);
    this.ty = p.ty + u * (q.ty - p.ty);
    this.tz = p.tz + u * (q.tz - p.tz);
    this.finishInverse();
  }

  private setQuat(x: number, y: number, z: number, w: number): void {
    this.qx = x; this.qy = y; this.qz = z; this.qw = w;
    const R = this.R;
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w); R[2] = 2 * (x * z + y * w);
    R[3] = 2 * (x * y + z * w); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (x * z - y * w); R[7] = 2 * (y * z + x * w); R[8] = 1 - 2 * (x * x + y * y);
  }

  /** u = -R^T t. */
  private finishInverse(): void {
    const R = this.R, t0 = this.tx, t1 = this.ty, t2 = this.tz;
    this.ux = -(R[0]! * t0 + R[3]! * t1 + R[6]! * t2);
    this.uy = -(R[1]! * t0 + R[4]! * t1 + R[7]! * t2);
    this.uz = -(R[2]! * t0 + R[5]! * t1 + R[8]! * t2);
  }
}

/** Writes R(q)^T v into out.tx/ty/tz for the unit quaternion (x, y, z, w). */
function rotateConj(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number, out: RelPose): void {
  // Rotation by the conjugate: v + 2w' (u' x v) + 2 u' x (u' x v), u' = -u.
  const ux = -x, uy = -y, uz = -z;
  const cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  out.tx = vx + 2 * (w * cx + uy * cz - uz * cy);
  out.ty = vy + 2 * (w * cy + uz * cx - ux * cz);
  out.tz = vz + 2 * (w * cz + ux * cy - uy * cx);
}

/** What the narrow phase keeps per world shape. */
interface ShapeInfo {
  /** Query margin for samples against this shape (its grid's units); 1 cell, within the grid's padding. */
  margin: number;
  /** Half its thinnest wall: the deepest point inside (-min phi); Infinity for a plane. */
  halfThickness: number;
  /** Largest distance of a sample from the shape's origin. */
  radius: number;
}

const enum Fresh {
  Keep = 0,
  Plane = 1,
  Query = 2,
}

export class NarrowPhase {
  /** Contact points of the current pairs at the current predicted poses (valid after evaluate()). */
  readonly cur = new ContactSet();
  private cache = new SampleCache();
  private next = new SampleCache();
  private readonly batch = new QueryBatchBuilder();
  /** Query shape index per world shape (-1 for planes). */
  private queryIndex: number[] = [];
  private info: ShapeInfo[] = [];
  /** Per pair of the current update: what it needs (Fresh) and, when queried, its first task and sweep poses. */
  private fresh = new Uint8Array(64);
  private firstTask = new Int32Array(64);
  private poses = new Int32Array(64);
  private readonly rel = new RelPose();
  private readonly now = new RelPose();
  private readonly sub = new RelPose();
  private readonly shift = new Float64Array(3);
  /** Per pair, this round: how far its cached samples have moved since their query (update() sets it). */
  private motion = new Float64Array(64);
  private garbage = 0;

  /** Uploads the shapes (those with an SDF) to the backend and measures what the cache needs of each. */
  upload(shapes: readonly RigidShape[], backend: PenetrationBackend): void {
    const qs: QueryShape[] = [];
    this.queryIndex = shapes.map((s) => {
      if (!s.sdf) return -1;
      qs.push({ samples: s.samples, sdf: s.sdf });
      return qs.length - 1;
    });
    this.info = shapes.map(shapeInfo);
    this.queryShapes = qs;
    backend.setShapes(qs);
    this.cache.clear();
  }

  /** Whether upload() saw this many shapes. */
  uploaded(shapeCount: number): boolean {
    return this.queryIndex.length === shapeCount;
  }

  /**
   * Refreshes the pairs' cached samples at the current predicted poses: the
   * pairs that moved past their margin (or have none yet) are queried again,
   * in one batched backend call; the others keep theirs.
   */
  async update(ctx: StepContext, pairs: PairList, backend: PenetrationBackend, prof: StepProfile): Promise<void> {
    const B = ctx.bodies;
    const P = ctx.predPos, Q = ctx.predQuat;
    const batch = this.batch;
    batch.clear();
    const n = pairs.count;
    if (this.fresh.length < n) {
      this.fresh = grown(this.fresh, n);
      this.firstTask = grown(this.firstTask, n);
      this.poses = grown(this.poses, n);
      this.motion = grown(this.motion, n);
    }
    let refresh = 0;
    const ccd = ctx.settings.ccd;
    for (let k = 0; k < n; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      const ia = this.info[B.shape[a]!]!, ib = this.info[B.shape[b]!]!;
      const rel = this.rel;
      rel.set(P, Q, a, b);
      const plane = pairs.kind[k] === PAIR_PLANE;
      if (pairs.valid[k] && (pairs.swept[k] || this.withinMargin(ctx, pairs, k, rel, ia, ib, plane))) {
        this.fresh[k] = Fresh.Keep;
        continue;
      }
      refresh++;
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
        const thin = Math.min(ia.halfThickness, ib.halfThickness);
        const move = motion(now, rel, ia.radius, ib.radius);
        if (move > thin) m = Math.min(MAX_SWEEP_POSES, Math.ceil(move / thin));
        for (let j = 1; j < m; j++) {
          this.sub.lerp(now, rel, j / m);
          this.pushTasks(this.sub, sa, sb, ia, ib);
        }
      }
      this.poses[k] = m;
      this.pushTasks(rel, sa, sb, ia, ib);
    }
    if (refresh === 0) return;
    let res: QueryResult | null = null;
    if (batch.count > 0) {
      res = await backend.query(batch);
      const gpuMs = (backend as { lastGpuMs?: number | null }).lastGpuMs;
      if (typeof gpuMs === 'number') prof.gpuQueryMs += gpuMs;
    }
    // Fresh samples go to the end of the cache; kept ranges stay where they
    // are (a round costs what it refreshes, not what the cache holds). The
    // ranges left behind are garbage, dropped by compact() between steps.
    const c = this.cache;
    for (let k = 0; k < n; k++) {
      const f = this.fresh[k]!;
      if (f === Fresh.Keep) continue;
      const start = c.count;
      this.garbage += pairs.valid[k] ? pairs.cacheCount[k]! : 0;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      this.rel.set(P, Q, a, b);
      if (f === Fresh.Plane) {
        this.planeSamples(ctx, a, b, this.rel, c);
        pairs.swept[k] = 0;
        this.remember(pairs, k, this.rel);
      } else {
        const m = this.poses[k]!;
        let hit = m - 1;
        for (let j = 0; j < m - 1; j++) {
          if (touches(res!, this.firstTask[k]! + 2 * j)) {
            hit = j;
            break;
          }
        }
        const t0 = this.firstTask[k]! + 2 * hit;
        this.taskSamples(res!, t0, 0, c);
        this.taskSamples(res!, t0 + 1, 1, c);
        pairs.swept[k] = hit < m - 1 ? 1 : 0;
        if (hit < m - 1) {
          this.now.set(ctx.bodies.pos, ctx.bodies.quat, a, b);
          this.sub.lerp(this.now, this.rel, (hit + 1) / m);
          this.remember(pairs, k, this.sub);
        } else {
          this.remember(pairs, k, this.rel);
        }
      }
      pairs.valid[k] = 1;
      this.motion[k] = 0;
      c.sortRange(start, c.count);
      pairs.cacheStart[k] = start;
      pairs.cacheCount[k] = c.count - start;
    }
  }

  /**
   * Packs the live ranges of the pairs' caches (call between steps, after
   * the pair list was rebuilt): once the garbage outweighs the live samples,
   * copy the live ranges, in pair order, into the spare buffer.
   */
  compact(pairs: PairList): void {
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
    this.garbage = 0;
  }

  /**
   * The contact points of every pair at the current predicted poses, from
   * the cached samples: those with phi below the patch band (the penetrating
   * points and the ones just outside, which patches take in).
   */
  evaluate(ctx: StepContext, pairs: PairList, prof: StepProfile): void {
    const B = ctx.bodies;
    const P = ctx.predPos, Q = ctx.predQuat, RW = ctx.predRot;
    const cs = this.cur;
    const c = this.cache;
    cs.beginPairs(pairs.count);
    const rel = this.rel, R = rel.R;
    const sh = this.shift;
    let inside = 0;
    for (let k = 0; k < pairs.count; k++) {
      cs.openPair(k);
      const a = pairs.a[k]!, b = pairs.b[k]!;
      const cnt = pairs.cacheCount[k]!;
      if (cnt === 0) continue;
      rel.set(P, Q, a, b);
      contactShift(P, B.pos, B.invMass, a, b, sh);
      const band = PATCH_BAND * pairCell(ctx.shapes, B, a, b);
      const plane = pairs.kind[k] === PAIR_PLANE;
      // The cached samples are sorted by phi0, and first-order phi moves by at
      // most the motion since the query: past band + motion, none can matter.
      const stop = band + (pairs.swept[k] ? Infinity : this.motion[k]!);
      for (let i = pairs.cacheStart[k]!, e = i + cnt; i < e; i++) {
        if (c.phi0[i]! > stop) break;
        const side = c.side[i]!;
        const owner = side === 0 ? a : b, other = side === 0 ? b : a;
        const s = c.sample[i]!;
        const samples = ctx.shapeOf(owner).samples;
        const pts = samples.points;
        const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
        // The sample in the other body's frame now.
        let px: number, py: number, pz: number;
        if (side === 0) {
          px = R[0]! * lx + R[1]! * ly + R[2]! * lz + rel.tx;
          py = R[3]! * lx + R[4]! * ly + R[5]! * lz + rel.ty;
          pz = R[6]! * lx + R[7]! * ly + R[8]! * lz + rel.tz;
        } else {
          px = R[0]! * lx + R[3]! * ly + R[6]! * lz + rel.ux;
          py = R[1]! * lx + R[4]! * ly + R[7]! * lz + rel.uy;
          pz = R[2]! * lx + R[5]! * ly + R[8]! * lz + rel.uz;
        }
        const o3 = 3 * i;
        const nlx = c.n0[o3]!, nly = c.n0[o3 + 1]!, nlz = c.n0[o3 + 2]!;
        const phi = c.phi0[i]! + nlx * (px - c.p0[o3]!) + nly * (py - c.p0[o3 + 1]!) + nlz * (pz - c.p0[o3 + 2]!);
        if (!(phi < band)) continue;
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
          const dot = mx * nx + my * ny + mz * nz;
          // A shallow hit where the owner's surface faces the same way as
          // the other's (dot > 0) is a grazing artefact: a rim sample lying
          // on the other's side face when two faces coincide edge to edge.
          // Its sideways normal would only spin the bodies; deep hits are
          // always kept.
          if (dot > 0 && phi > -ctx.shapeOf(other).sdf!.cellSize) continue;
        }
        const wx = P[3 * owner]! + RW[ow]! * lx + RW[ow + 1]! * ly + RW[ow + 2]! * lz;
        const wy = P[3 * owner + 1]! + RW[ow + 3]! * lx + RW[ow + 4]! * ly + RW[ow + 5]! * lz;
        const wz = P[3 * owner + 2]! + RW[ow + 6]! * lx + RW[ow + 7]! * ly + RW[ow + 8]! * lz;
        cs.push(owner, other, wx + sh[0]!, wy + sh[1]!, wz + sh[2]!, nx, ny, nz, phi, s, samples.areas ? samples.areas[s]! : 1);
        if (phi < 0) inside++;
      }
    }
    cs.endPairs();
    prof.contacts = Math.max(prof.contacts, inside);
  }

  /** Whether every cached sample of pair k has moved less than its margin allows since the query. */
  private withinMargin(ctx: StepContext, pairs: PairList, k: number, rel: RelPose, ia: ShapeInfo, ib: ShapeInfo, plane: boolean): boolean {
    const o = REF_STRIDE * k;
    const r = pairs.ref;
    const band = PATCH_BAND * pairCell(ctx.shapes, ctx.bodies, pairs.a[k]!, pairs.b[k]!);
    // Rotation angle between the poses: 2 asin |vec(q conj(q_ref))|, bounded above.
    const bx = -r[o]!, by = -r[o + 1]!, bz = -r[o + 2]!, bw = r[o + 3]!;
    const vx = rel.qw * bx + rel.qx * bw + rel.qy * bz - rel.qz * by;
    const vy = rel.qw * by - rel.qx * bz + rel.qy * bw + rel.qz * bx;
    const vz = rel.qw * bz + rel.qx * by - rel.qy * bx + rel.qz * bw;
    const s2 = vx * vx + vy * vy + vz * vz;
    const sv = Math.sqrt(s2);
    const angle = sv > 0.5 ? Math.PI : 2 * sv + sv * s2;
    // Side 0: A's samples in B's frame.
    const d0 = Math.hypot(rel.tx - r[o + 4]!, rel.ty - r[o + 5]!, rel.tz - r[o + 6]!) + angle * ia.radius;
    this.motion[k] = d0;
    if (plane) return d0 < ia.margin - band;
    if (d0 >= (ib.margin - band) / SQRT3) return false;
    // Side 1: B's samples in A's frame (translation -R^T t of each pose).
    const d1 = refInverseDistance(r, o, rel) + angle * ib.radius;
    if (d1 > d0) this.motion[k] = d1;
    return d1 < (ia.margin - band) / SQRT3;
  }

  private remember(pairs: PairList, k: number, p: RelPose): void {
    const o = REF_STRIDE * k, r = pairs.ref;
    r[o] = p.qx; r[o + 1] = p.qy; r[o + 2] = p.qz; r[o + 3] = p.qw;
    r[o + 4] = p.tx; r[o + 5] = p.ty; r[o + 6] = p.tz;
  }

  /** Both tasks of a pose: A's samples in B (margin of B's grid), B's in A. */
  private pushTasks(p: RelPose, sa: number, sb: number, ia: ShapeInfo, ib: ShapeInfo): void {
    this.batch.push(sa, sb, p.qx, p.qy, p.qz, p.qw, p.tx, p.ty, p.tz, ib.margin);
    this.batch.push(sb, sa, -p.qx, -p.qy, -p.qz, p.qw, p.ux, p.uy, p.uz, ia.margin);
  }

  /** The records of one task into the cache, with the sample's position in the other frame at the query pose. */
  private taskSamples(res: QueryResult, task: number, side: number, out: SampleCache): void {
    const batch = this.batch;
    const o = 8 * task;
    const ps = batch.poses;
    const qx = ps[o]!, qy = ps[o + 1]!, qz = ps[o + 2]!, qw = ps[o + 3]!, tx = ps[o + 4]!, ty = ps[o + 5]!, tz = ps[o + 6]!;
    const shape = this.shapeOfTask(batch.shapeA[task]!);
    const pts = shape.samples.points;
    for (let r = res.taskStart[task]!; r < res.taskStart[task + 1]!; r++) {
      const s = res.sample[r]!;
      const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
      // p = rotate(q, l) + t, the same pose the query used.
      const cx = qy * lz - qz * ly, cy = qz * lx - qx * lz, cz = qx * ly - qy * lx;
      const px = lx + 2 * (qw * cx + qy * cz - qz * cy) + tx;
      const py = ly + 2 * (qw * cy + qz * cx - qx * cz) + ty;
      const pz = lz + 2 * (qw * cz + qx * cy - qy * cx) + tz;
      out.push(side, s, res.phi[r]!, res.normal[3 * r]!, res.normal[3 * r + 1]!, res.normal[3 * r + 2]!, px, py, pz);
    }
  }

  private queryShapes: QueryShape[] = [];

  private shapeOfTask(queryShape: number): QueryShape {
    return this.queryShapes[queryShape]!;
  }

  /** Every sample of body a within the margin of plane body p, exactly, at relative pose `rel` (a in p). */
  private planeSamples(ctx: StepContext, a: number, p: number, rel: RelPose, out: SampleCache): void {
    const nl = ctx.shapeOf(p).planeNormal!;
    const margin = this.info[ctx.bodies.shape[a]!]!.margin;
    const s = ctx.shapeOf(a).samples;
    const pts = s.points;
    const R = rel.R;
    const n = pts.length / 4;
    for (let i = 0; i < n; i++) {
      const lx = pts[4 * i]!, ly = pts[4 * i + 1]!, lz = pts[4 * i + 2]!;
      const px = R[0]! * lx + R[1]! * ly + R[2]! * lz + rel.tx;
      const py = R[3]! * lx + R[4]! * ly + R[5]! * lz + rel.ty;
      const pz = R[6]! * lx + R[7]! * ly + R[8]! * lz + rel.tz;
      const phi = nl[0] * px + nl[1] * py + nl[2] * pz;
      if (phi < margin) out.push(0, i, phi, nl[0], nl[1], nl[2], px, py, pz);
    }
  }
}

/**
 * |u - u_ref|, the distance between the translations of B in A's frame
 * (-R^T t) of the current relative pose and of the reference at ref[o..].
 */
function refInverseDistance(r: Float64Array, o: number, rel: RelPose): number {
  const x = r[o]!, y = r[o + 1]!, z = r[o + 2]!, w = r[o + 3]!;
  const tx = r[o + 4]!, ty = r[o + 5]!, tz = r[o + 6]!;
  // R^T t = rotation of t by the conjugate quaternion.
  const cx = -(y * tz - z * ty), cy = -(z * tx - x * tz), cz = -(x * ty - y * tx);
  const ux = -(tx + 2 * (w * cx - y * cz + z * cy));
  const uy = -(ty + 2 * (w * cy - z * cx + x * cz));
  const uz = -(tz + 2 * (w * cz - x * cy + y * cx));
  return Math.hypot(rel.ux - ux, rel.uy - uy, rel.uz - uz);
}

/** Whether a task reported a penetrating sample. */
function touches(res: QueryResult, task: number): boolean {
  for (let r = res.taskStart[task]!; r < res.taskStart[task + 2]!; r++) if (res.phi[r]! < 0) return true;
  return false;
}

/** Upper bound of how far any sample moves between two relative poses (either side). */
function motion(p: RelPose, q: RelPose, ra: number, rb: number): number {
  const dot = Math.abs(p.qx * q.qx + p.qy * q.qy + p.qz * q.qz + p.qw * q.qw);
  const angle = 2 * Math.acos(Math.min(1, dot));
  const d0 = Math.hypot(p.tx - q.tx, p.ty - q.ty, p.tz - q.tz) + angle * ra;
  const d1 = Math.hypot(p.ux - q.ux, p.uy - q.uy, p.uz - q.uz) + angle * rb;
  return Math.max(d0, d1);
}

function shapeInfo(s: RigidShape): ShapeInfo {
  let radius = 0;
  const p = s.samples.points;
  for (let i = 0; i < p.length; i += 4) radius = Math.max(radius, Math.hypot(p[i]!, p[i + 1]!, p[i + 2]!));
  const g = s.sdf;
  if (!g) return { margin: 0, halfThickness: Infinity, radius };
  let minPhi = 0;
  for (let i = 0; i < g.values.length; i++) if (g.values[i]! < minPhi) minPhi = g.values[i]!;
  // The grid reaches `pad` beyond the mesh on every side; a margin past it
  // would need samples outside the grid, which the query never reports.
  const lb = s.localBounds;
  let pad = Infinity;
  for (let k = 0; k < 3; k++) {
    pad = Math.min(pad, lb.min[k]! - g.origin[k]!, g.origin[k]! + g.cellSize * (g.dims[k]! - 1) - lb.max[k]!);
  }
  const margin = Math.max(0, Math.min(MARGIN_CELLS * g.cellSize, 0.9 * pad));
  return { margin, halfThickness: Math.max(-minPhi, 0.5 * g.cellSize), radius };
}
