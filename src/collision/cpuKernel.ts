/**
 * The CPU query kernel: the one function that evaluates a task (or a range of
 * its samples) for every CPU path. The single-thread twin
 * (CpuPenetrationBackend, cpuQuery.ts) runs it over whole tasks; the worker
 * pool (parallelQuery.ts, queryWorker.ts) runs it over pieces of tasks on
 * several threads, with the shapes in shared memory. Because every path
 * calls this function with the same Float32 inputs, the records are the
 * same bit for bit whichever thread computed them.
 *
 * This module is loaded inside the workers too: keep its imports to the
 * sample and grid helpers (no DOM, no Node, nothing of the world).
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
 * Side A may be a sample set (query.ts, SAMPLE_SET) instead of a shape: the
 * same points-and-clusters form (KernelSamples), rebuilt by its owner on every
 * setSampleSet (O(points)); its whole-task sphere is about its own centre,
 * posed, since its points need not lie near the frame's origin.
 */
import { samplesBoundingSphere, type CollisionSamples } from '../geometry/samples.ts';
import { sampleSdf, sdfPhiGrid, sdfPhiInside, type SdfGrid } from '../sdf/grid.ts';

/**
 * Samples per cluster for the conservative SDF cull. A range given to
 * queryRange starts on a multiple of it, so a task cut into pieces culls the
 * same clusters (and evaluates the same samples) as the whole task.
 */
export const CLUSTER_SAMPLES = 32;
const SQRT3 = Math.sqrt(3);
const ORIGIN = [0, 0, 0];

/**
 * Side A of a task as the kernel sees it: sample points and their cull data.
 * A shape's, or a sample set's (query.ts, SAMPLE_SET: points replaced every
 * call, with no field of their own).
 */
export interface KernelSamples {
  /** x, y, z, 0 per sample (the CollisionSamples layout). */
  points: Float32Array;
  /** Samples (vertices, face samples, edge samples). */
  count: number;
  /** Radius of the samples about `centre` (the whole-task cull). */
  radius: number;
  /**
   * The centre of that sphere in A's frame: null for a shape, whose sphere is
   * about its local origin (posed, the task's translation); a sample set's
   * own bounding box centre, since its points need not lie near the frame's
   * origin (a soft body's particles in world coordinates).
   */
  centre: readonly [number, number, number] | null;
  /** x, y, z, radius per cluster of CLUSTER_SAMPLES samples (A's frame). */
  clusters: Float64Array;
}

/** A shape prepared for the kernel: its samples with their cull data, and its field (side B). */
export interface KernelShape extends KernelSamples {
  grid: SdfGrid;
}

/**
 * Cull data of `count` sample points: the clusters' spheres, and the
 * whole-task sphere about the origin (`aboutOrigin`, a shape) or about the
 * points' own centre (a sample set). `points` is used as given, not copied.
 */
export function prepareKernelSamples(points: Float32Array, count: number, aboutOrigin: boolean): KernelSamples {
  const s: CollisionSamples = { points, vertexCount: count, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) };
  const nc = Math.ceil(count / CLUSTER_SAMPLES);
  const clusters = new Float64Array(4 * nc);
  for (let c = 0; c < nc; c++) {
    const sph = samplesBoundingSphere(s, c * CLUSTER_SAMPLES, Math.min(count, (c + 1) * CLUSTER_SAMPLES));
    clusters.set(sph, 4 * c);
    if (!Number.isFinite(sph[3])) clusters[4 * c + 3] = 0;
  }
  if (aboutOrigin) return { points, count, radius: samplesBoundingSphere(s, 0, count, ORIGIN)[3], centre: null, clusters };
  const [cx, cy, cz, radius] = samplesBoundingSphere(s, 0, count);
  return { points, count, radius, centre: [cx, cy, cz], clusters };
}

/**
 * Cull data of a shape. `points` and `grid.values` are used as given, not
 * copied (the pool passes views of shared memory).
 */
export function prepareKernelShape(points: Float32Array, count: number, grid: SdfGrid): KernelShape {
  return { ...prepareKernelSamples(points, count, true), grid };
}

/** Where the kernel appends records: it writes at out.count and advances it. */
export interface RecordOut {
  count: number;
  sample: Uint32Array;
  phi: Float32Array;
  normal: Float32Array;
}

/**
 * Whether A's bounding sphere, posed by the task at `o` (POSE_STRIDE floats
 * into `poses`), reaches B's grid box grown by the margin (the field beyond
 * the box grows with the distance to it). A task that fails this has no
 * records; the pool's planner uses the same test to leave such tasks out.
 */
export function taskReaches(A: KernelSamples, B: KernelShape, poses: Float32Array, o: number, margin: number): boolean {
  const g = B.grid;
  const h = g.cellSize;
  const x0 = g.origin[0], y0 = g.origin[1], z0 = g.origin[2];
  const x1 = x0 + h * (g.dims[0] - 1), y1 = y0 + h * (g.dims[1] - 1), z1 = z0 + h * (g.dims[2] - 1);
  let tx = poses[o + 4]!, ty = poses[o + 5]!, tz = poses[o + 6]!;
  const c = A.centre;
  if (c !== null) {
    // A sample set's sphere is about its own centre: pose the centre.
    const qx = poses[o]!, qy = poses[o + 1]!, qz = poses[o + 2]!, qw = poses[o + 3]!;
    const [sx, sy, sz] = c;
    tx += (1 - 2 * (qy * qy + qz * qz)) * sx + 2 * (qx * qy - qz * qw) * sy + 2 * (qx * qz + qy * qw) * sz;
    ty += 2 * (qx * qy + qz * qw) * sx + (1 - 2 * (qx * qx + qz * qz)) * sy + 2 * (qy * qz - qx * qw) * sz;
    tz += 2 * (qx * qz - qy * qw) * sx + 2 * (qy * qz + qx * qw) * sy + (1 - 2 * (qx * qx + qy * qy)) * sz;
  }
  const r = A.radius + Math.max(0, margin);
  const dx = Math.max(x0 - tx, 0, tx - x1), dy = Math.max(y0 - ty, 0, ty - y1), dz = Math.max(z0 - tz, 0, tz - z1);
  const d2 = dx * dx + dy * dy + dz * dz;
  // The posed centre is rounded, while the samples are posed one by one: a
  // hair of slack keeps the cull exact (a shape's centre is the translation itself).
  return c === null ? d2 <= r * r : d2 <= r * r * (1 + 1e-9) + 1e-12;
}

/**
 * Samples [first, end) of A (first a multiple of CLUSTER_SAMPLES), posed in
 * B's frame by the task's pose at `o`, against B's field: appends to `out`,
 * in sample order, every sample with phi_B < margin (sample index, phi, unit
 * normal), beyond B's grid box through the field's extension (query.ts). The caller guarantees room for
 * end - first records past out.count. `nrm` is 3 floats of scratch. Returns
 * how many samples had their field value computed (after the culls).
 */
export function queryRange(
  A: KernelSamples,
  B: KernelShape,
  poses: Float32Array,
  o: number,
  margin: number,
  first: number,
  end: number,
  out: RecordOut,
  nrm: Float64Array,
): number {
  // Whole-task cull: A's bounding sphere against B's grid box grown by the margin.
  if (!taskReaches(A, B, poses, o, margin)) return 0;
  const qx = poses[o]!, qy = poses[o + 1]!, qz = poses[o + 2]!, qw = poses[o + 3]!;
  const tx = poses[o + 4]!, ty = poses[o + 5]!, tz = poses[o + 6]!;
  const g = B.grid;
  const h = g.cellSize;
  const x0 = g.origin[0], y0 = g.origin[1], z0 = g.origin[2];
  const x1 = x0 + h * (g.dims[0] - 1), y1 = y0 + h * (g.dims[1] - 1), z1 = z0 + h * (g.dims[2] - 1);
  const nxm = g.dims[0] - 1, nym = g.dims[1] - 1, nzm = g.dims[2] - 1;
  const mg = Math.max(0, margin);
  const inv = 1 / h;
  // Rotation matrix of q (row-major).
  const m00 = 1 - 2 * (qy * qy + qz * qz), m01 = 2 * (qx * qy - qz * qw), m02 = 2 * (qx * qz + qy * qw);
  const m10 = 2 * (qx * qy + qz * qw), m11 = 1 - 2 * (qx * qx + qz * qz), m12 = 2 * (qy * qz - qx * qw);
  const m20 = 2 * (qx * qz - qy * qw), m21 = 2 * (qy * qz + qx * qw), m22 = 1 - 2 * (qx * qx + qy * qy);
  const pts = A.points;
  const sph = A.clusters;
  const osample = out.sample, ophi = out.phi, onormal = out.normal;
  let k = out.count;
  let evaluated = 0;
  const c1 = Math.ceil(end / CLUSTER_SAMPLES);
  for (let c = first / CLUSTER_SAMPLES; c < c1; c++) {
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
    const e = Math.min(end, (c + 1) * CLUSTER_SAMPLES);
    for (let si = c * CLUSTER_SAMPLES; si < e; si++) {
      const ps = si * 4;
      const ax = pts[ps]!, ay = pts[ps + 1]!, az = pts[ps + 2]!;
      const px = m00 * ax + m01 * ay + m02 * az + tx;
      const py = m10 * ax + m11 * ay + m12 * az + ty;
      const pz = m20 * ax + m21 * ay + m22 * az + tz;
      let phi: number;
      if (px >= x0 && px <= x1 && py >= y0 && py <= y1 && pz >= z0 && pz <= z1) {
        evaluated++;
        phi = sdfPhiInside(g, px, py, pz);
        if (!(phi < margin)) continue;
        sampleSdf(g, px, py, pz, nrm);
      } else {
        // Beyond the grid box: the value at the nearest point of the box
        // plus the distance to it, the normal pointing away from the box
        // (the twin of `probe` in shaders/penetration.wgsl).
        const gx = (px - x0) * inv, gy = (py - y0) * inv, gz = (pz - z0) * inv;
        const cgx = Math.min(Math.max(gx, 0), nxm), cgy = Math.min(Math.max(gy, 0), nym), cgz = Math.min(Math.max(gz, 0), nzm);
        const awx = (gx - cgx) * h, awy = (gy - cgy) * h, awz = (gz - cgz) * h;
        const d = Math.sqrt(awx * awx + awy * awy + awz * awz);
        if (!(d < margin)) continue;
        evaluated++;
        phi = sdfPhiGrid(g, cgx, cgy, cgz) + d;
        if (!(phi < margin)) continue;
        nrm[0] = awx / d;
        nrm[1] = awy / d;
        nrm[2] = awz / d;
      }
      osample[k] = si;
      ophi[k] = phi;
      onormal[3 * k] = nrm[0]!;
      onormal[3 * k + 1] = nrm[1]!;
      onormal[3 * k + 2] = nrm[2]!;
      k++;
    }
  }
  out.count = k;
  return evaluated;
}
