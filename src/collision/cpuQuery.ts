/**
 * CPU twin of shaders/penetration.wgsl (see src/collision/query.ts for the
 * contract). Float64 arithmetic on the same Float32 inputs the GPU gets.
 *
 * Cost model: per task, one bounding-sphere-vs-grid-box test; then per
 * *cluster* of CLUSTER_SAMPLES consecutive samples (vertices in mesh order,
 * then face and edge samples, which are spatially coherent) one SDF lookup at
 * the cluster's centre: the trilinear interpolant of a distance field changes
 * by at most sqrt(3) per unit length (each partial derivative is a blend of
 * node differences of a 1-Lipschitz function), so
 * phi(centre) > sqrt(3) * radius + margin proves every sample of the cluster
 * at or beyond the margin and skips it. The cull is exact (it never drops a
 * record), so the result equals the GPU's, which tests every sample.
 *
 * Sample sets (query.ts, SAMPLE_SET) are kept as copies with their clusters
 * rebuilt on every setSampleSet (O(points)); their whole-task cull uses the
 * set's own bounding sphere, posed, since its points need not lie near the
 * frame's origin.
 */
import { sampleCount, samplesBoundingSphere } from '../geometry/samples.ts';
import { sampleSdf, sdfPhiGrid, sdfPhiInside } from '../sdf/grid.ts';
import { grown } from '../util/growable.ts';
import type { CollisionSamples } from '../geometry/samples.ts';
import { newQueryCounters, POSE_STRIDE, SAMPLE_SET, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from './query.ts';

/** Samples per cluster for the conservative SDF cull. */
const CLUSTER_SAMPLES = 32;
const SQRT3 = Math.sqrt(3);
const ORIGIN = [0, 0, 0];

interface Clusters {
  count: number;
  /** x, y, z, radius per cluster (A's frame). */
  sphere: Float64Array;
}

function buildClusters(s: QueryShape['samples']): Clusters {
  const n = sampleCount(s);
  const count = Math.ceil(n / CLUSTER_SAMPLES);
  const sphere = new Float64Array(4 * count);
  for (let c = 0; c < count; c++) {
    const sph = samplesBoundingSphere(s, c * CLUSTER_SAMPLES, Math.min(n, (c + 1) * CLUSTER_SAMPLES));
    sphere.set(sph, 4 * c);
    if (!Number.isFinite(sph[3])) sphere[4 * c + 3] = 0;
  }
  return { count, sphere };
}

/** What a task's side A needs: samples, clusters, and a bounding sphere (centre, radius) in A's frame. */
interface Sampled {
  samples: CollisionSamples;
  clusters: Clusters;
  sphere: readonly number[];
}

export class CpuPenetrationBackend implements PenetrationBackend {
  readonly kind = 'cpu' as const;
  private shapes: readonly QueryShape[] = [];
  /** Each shape as side A: its samples about its local origin. */
  private sampled: Sampled[] = [];
  private sets: (Sampled | undefined)[] = [];
  private result: QueryResult = {
    count: 0,
    taskStart: new Uint32Array(1),
    sample: new Uint32Array(256),
    phi: new Float32Array(256),
    normal: new Float32Array(768),
  };
  private readonly n = new Float64Array(3);
  /** Samples whose SDF value the last query computed (after the culls). */
  evaluated = 0;
  readonly counters = newQueryCounters();

  setShapes(shapes: readonly QueryShape[]): void {
    this.shapes = shapes.slice();
    this.sampled = shapes.map((s) => ({
      samples: s.samples,
      clusters: buildClusters(s.samples),
      sphere: [0, 0, 0, samplesBoundingSphere(s.samples, 0, s.samples.points.length / 4, ORIGIN)[3]],
    }));
  }

  setSampleSet(set: number, points: Float32Array, count: number): void {
    if (!(Number.isInteger(set) && set >= 0 && set < SAMPLE_SET)) throw new RangeError(`sample set ${set} is not a valid set number`);
    if (points.length < 4 * count) throw new RangeError(`sample set ${set}: ${count} points need ${4 * count} floats, got ${points.length}`);
    const old = this.sets[set];
    const buf = old && old.samples.points.length >= 4 * count ? old.samples.points : new Float32Array(Math.max(4 * count, 2 * (old?.samples.points.length ?? 0)));
    buf.set(points.subarray(0, 4 * count));
    const samples: CollisionSamples = { points: buf, vertexCount: count, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) };
    this.sets[set] = { samples, clusters: buildClusters(samples), sphere: count > 0 ? samplesBoundingSphere(samples, 0, count) : [0, 0, 0, 0] };
  }

  /** Side A of a task: a shape, or a sample set (SAMPLE_SET). */
  private sideA(sa: number): Sampled | undefined {
    return sa & SAMPLE_SET ? this.sets[(sa & ~SAMPLE_SET) >>> 0] : this.sampled[sa];
  }

  async query(batch: QueryBatch): Promise<QueryResult> {
    return this.querySync(batch);
  }

  /** The same as query(), without the promise (for tests and the CPU timing path). */
  querySync(batch: QueryBatch): QueryResult {
    const res = this.result;
    if (res.taskStart.length < batch.count + 1) res.taskStart = new Uint32Array(batch.count + 1);
    res.count = 0;
    const poses = batch.poses;
    const nrm = this.n;
    this.evaluated = 0;
    for (let t = 0; t < batch.count; t++) {
      res.taskStart[t] = res.count;
      const sa = batch.shapeA[t]!;
      const A = this.sideA(sa);
      const B = this.shapes[batch.shapeB[t]!];
      if (!A) throw new RangeError(sa & SAMPLE_SET ? `query task ${t} names sample set ${(sa & ~SAMPLE_SET) >>> 0}, which was never set` : `query task ${t} names shape ${sa}, but only ${this.shapes.length} shapes are loaded`);
      if (!B) throw new RangeError(`query task ${t} names shape ${batch.shapeB[t]} as B, but only ${this.shapes.length} shapes are loaded (a sample set cannot be B)`);
      const o = t * POSE_STRIDE;
      const qx = poses[o]!, qy = poses[o + 1]!, qz = poses[o + 2]!, qw = poses[o + 3]!;
      const tx = poses[o + 4]!, ty = poses[o + 5]!, tz = poses[o + 6]!;
      const g = B.sdf;
      const h = g.cellSize;
      const x0 = g.origin[0], y0 = g.origin[1], z0 = g.origin[2];
      const x1 = x0 + h * (g.dims[0] - 1), y1 = y0 + h * (g.dims[1] - 1), z1 = z0 + h * (g.dims[2] - 1);
      const nxm = g.dims[0] - 1, nym = g.dims[1] - 1, nzm = g.dims[2] - 1;
      const margin = batch.margin[t]!;
      // Rotation matrix of q (row-major).
      const m00 = 1 - 2 * (qy * qy + qz * qz), m01 = 2 * (qx * qy - qz * qw), m02 = 2 * (qx * qz + qy * qw);
      const m10 = 2 * (qx * qy + qz * qw), m11 = 1 - 2 * (qx * qx + qz * qz), m12 = 2 * (qy * qz - qx * qw);
      const m20 = 2 * (qx * qz - qy * qw), m21 = 2 * (qy * qz + qx * qw), m22 = 1 - 2 * (qx * qx + qy * qy);
      // Whole-task cull: A's bounding sphere, posed, against B's grid box grown
      // by the margin (the field beyond the box grows with the distance to it).
      const [sx, sy, sz, sr] = A.sphere as [number, number, number, number];
      const r = sr + Math.max(0, margin);
      const scx = m00 * sx + m01 * sy + m02 * sz + tx, scy = m10 * sx + m11 * sy + m12 * sz + ty, scz = m20 * sx + m21 * sy + m22 * sz + tz;
      const dx = Math.max(x0 - scx, 0, scx - x1), dy = Math.max(y0 - scy, 0, scy - y1), dz = Math.max(z0 - scz, 0, scz - z1);
      if (dx * dx + dy * dy + dz * dz > r * r * (1 + 1e-9) + 1e-12) continue;
      const pts = A.samples.points;
      const n = sampleCount(A.samples);
      const cl = A.clusters;
      const mg = Math.max(0, margin);
      const inv = 1 / h;
      const sph = cl.sphere;
      for (let c = 0; c < cl.count; c++) {
        // Conservative cull of the whole cluster (see the file comment).
        const ax = sph[4 * c]!, ay = sph[4 * c + 1]!, az = sph[4 * c + 2]!, cr = sph[4 * c + 3]!;
        const cx = m00 * ax + m01 * ay + m02 * az + tx;
        const cy = m10 * ax + m11 * ay + m12 * az + ty;
        const cz = m20 * ax + m21 * ay + m22 * az + tz;
        const cm = cr + mg;
        if (cx < x0 - cm || cx > x1 + cm || cy < y0 - cm || cy > y1 + cm || cz < z0 - cm || cz > z1 + cm) continue;
        if (cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1 && cz >= z0 && cz <= z1) {
          if (sdfPhiInside(g, cx, cy, cz) > SQRT3 * cr * (1 + 1e-6) + margin + 1e-7 * h) continue;
        }
        const end = Math.min(n, (c + 1) * CLUSTER_SAMPLES);
        for (let si = c * CLUSTER_SAMPLES; si < end; si++) {
          const ps = si * 4;
          const ax = pts[ps]!, ay = pts[ps + 1]!, az = pts[ps + 2]!;
          const px = m00 * ax + m01 * ay + m02 * az + tx;
          const py = m10 * ax + m11 * ay + m12 * az + ty;
          const pz = m20 * ax + m21 * ay + m22 * az + tz;
          if (px >= x0 && px <= x1 && py >= y0 && py <= y1 && pz >= z0 && pz <= z1) {
            this.evaluated++;
            const phi = sdfPhiInside(g, px, py, pz);
            if (!(phi < margin)) continue;
            sampleSdf(g, px, py, pz, nrm);
            this.push(si, phi, nrm);
            continue;
          }
          // Beyond the grid box: the value at the nearest point of the box
          // plus the distance to it, the normal pointing away from the box
          // (the twin of `probe` in shaders/penetration.wgsl).
          const gx = (px - x0) * inv, gy = (py - y0) * inv, gz = (pz - z0) * inv;
          const cgx = Math.min(Math.max(gx, 0), nxm), cgy = Math.min(Math.max(gy, 0), nym), cgz = Math.min(Math.max(gz, 0), nzm);
          const awx = (gx - cgx) * h, awy = (gy - cgy) * h, awz = (gz - cgz) * h;
          const d = Math.sqrt(awx * awx + awy * awy + awz * awz);
          if (!(d < margin)) continue;
          this.evaluated++;
          const phi = sdfPhiGrid(g, cgx, cgy, cgz) + d;
          if (!(phi < margin)) continue;
          nrm[0] = awx / d; nrm[1] = awy / d; nrm[2] = awz / d;
          this.push(si, phi, nrm);
        }
      }
    }
    res.taskStart[batch.count] = res.count;
    const cn = this.counters;
    cn.calls++;
    cn.samplesEvaluated += this.evaluated;
    for (let t = 0; t < batch.count; t++) cn.samplesSent += sampleCount(this.sideA(batch.shapeA[t]!)!.samples);
    return res;
  }

  private push(sample: number, phi: number, n: Float64Array): void {
    const res = this.result;
    if (res.count === res.sample.length) {
      const c = res.sample.length * 2;
      res.sample = grown(res.sample, c);
      res.phi = grown(res.phi, c);
      res.normal = grown(res.normal, 3 * c);
    }
    const i = res.count++;
    res.sample[i] = sample;
    res.phi[i] = phi;
    res.normal[3 * i] = n[0]!;
    res.normal[3 * i + 1] = n[1]!;
    res.normal[3 * i + 2] = n[2]!;
  }

  destroy(): void {
    this.shapes = [];
    this.sampled = [];
    this.sets = [];
  }
}
