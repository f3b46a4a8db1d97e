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
 * sample, grid and sort helpers (no DOM, no Node, nothing of the world).
 *
 * Cost model: per task, one bounding-sphere-vs-grid-box test; then per
 * *block* of BLOCK_SAMPLES samples, within a block that passes per *group*
 * of GROUP_SAMPLES, and within a group that passes per *cluster* of
 * CLUSTER_SAMPLES, one SDF lookup at the sphere's centre. A shape's blocks,
 * groups and clusters are spatial: its samples are ordered by
 * recursive median splits along the longest axis (KernelSamples.order), so
 * each is a compact patch of surface (in mesh order, 64 consecutive samples
 * of a torus span half the ring). The trilinear interpolant of a distance
 * field changes by at most sqrt(3) per unit length (each partial derivative
 * is a blend of node differences of a 1-Lipschitz function), and the field's
 * extension beyond the grid box by at most 1 + sqrt(3) (query.ts), so
 * phi(centre) > L * radius + margin proves every sample of the sphere at or
 * beyond the margin and skips it. The cull is exact (it never drops a
 * record), so the result equals the GPU's, which tests every sample. A
 * task's records come out sorted by sample index (the contract), whatever
 * order the clusters visit them in (sortRecords). Measured on the landing
 * of 60 rings (1080 samples each): the kernel's time per step 16.8 -> 12.5
 * ms against consecutive clusters of 32.
 *
 * Side A may be a sample set (query.ts, SAMPLE_SET) instead of a shape: the
 * same points-and-clusters form (KernelSamples), rebuilt by its owner on every
 * setSampleSet (O(points)); its whole-task sphere is about its own centre,
 * posed, since its points need not lie near the frame's origin.
 */
import { samplesBoundingSphere, type CollisionSamples } from '../geometry/samples.ts';
import { sdfNormal, sdfPhiGrid, type SdfGrid } from '../sdf/grid.ts';

/** Samples per cluster for the conservative SDF cull. */
export const CLUSTER_SAMPLES = 8;
/**
 * Samples per *group* of clusters (a whole number of clusters), culled as one
 * before its clusters are: small clusters cull tightly near a surface, groups
 * keep the number of lookups down far from it. A range given to queryRange
 * starts on a multiple of it, so a task cut into pieces culls the same
 * groups and clusters (and evaluates the same samples) as the whole task.
 */
export const GROUP_SAMPLES = 64;
const GROUP_CLUSTERS = GROUP_SAMPLES / CLUSTER_SAMPLES;
/**
 * Samples per *block* of groups, culled as one before its groups are: a
 * bunny's 18 000 samples are 288 groups, and on the landing of 50 of them
 * 95 % of the group tests failed (119 000 field lookups a step).
 */
export const BLOCK_SAMPLES = 512;
const BLOCK_GROUPS = BLOCK_SAMPLES / GROUP_SAMPLES;
const SQRT3 = Math.sqrt(3);
/** Lipschitz constant of the field extended beyond the grid box (query.ts). */
const L_EXT = 1 + SQRT3;
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
  /**
   * Which sample stands at each position: cluster c is the samples at
   * positions [c, c + 1) * CLUSTER_SAMPLES. A shape's is a spatial grouping
   * (spatialOrder); null is the identity (a sample set, rebuilt every call,
   * keeps its points' own order).
   */
  order: Uint32Array | null;
  /**
   * Bounding spheres (x, y, z, radius; A's frame): one per cluster of
   * CLUSTER_SAMPLES positions, then one per group of GROUP_SAMPLES, then one
   * per block of BLOCK_SAMPLES (sphereFloats).
   */
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
  const ng = Math.ceil(count / GROUP_SAMPLES);
  const nb = Math.ceil(count / BLOCK_SAMPLES);
  const clusters = new Float64Array(4 * (nc + ng + nb));
  // A shape is prepared once: group its samples spatially. A sample set
  // changes every call: its own order, at no cost.
  const order = aboutOrigin ? spatialOrder(points, count) : null;
  const tmp = order ? new Float32Array(4 * BLOCK_SAMPLES) : null;
  const sphere = (first: number, end: number, at: number): void => {
    let sph: [number, number, number, number];
    if (order && tmp) {
      // The points at these positions, gathered.
      for (let i = first; i < end; i++) {
        const d = 4 * (i - first), o = 4 * order[i]!;
        tmp[d] = points[o]!; tmp[d + 1] = points[o + 1]!; tmp[d + 2] = points[o + 2]!;
      }
      sph = samplesBoundingSphere({ ...s, points: tmp }, 0, end - first);
    } else {
      sph = samplesBoundingSphere(s, first, end);
    }
    clusters.set(sph, 4 * at);
    if (!Number.isFinite(sph[3])) clusters[4 * at + 3] = 0;
  };
  for (let c = 0; c < nc; c++) sphere(c * CLUSTER_SAMPLES, Math.min(count, (c + 1) * CLUSTER_SAMPLES), c);
  for (let g = 0; g < ng; g++) sphere(g * GROUP_SAMPLES, Math.min(count, (g + 1) * GROUP_SAMPLES), nc + g);
  for (let q = 0; q < nb; q++) sphere(q * BLOCK_SAMPLES, Math.min(count, (q + 1) * BLOCK_SAMPLES), nc + ng + q);
  if (aboutOrigin) return { points, count, radius: samplesBoundingSphere(s, 0, count, ORIGIN)[3], centre: null, order, clusters };
  const [cx, cy, cz, radius] = samplesBoundingSphere(s, 0, count);
  return { points, count, radius, centre: [cx, cy, cz], order, clusters };
}

/** Float64s of the spheres of `count` samples (KernelSamples.clusters). */
export function sphereFloats(count: number): number {
  return 4 * (Math.ceil(count / CLUSTER_SAMPLES) + Math.ceil(count / GROUP_SAMPLES) + Math.ceil(count / BLOCK_SAMPLES));
}

/**
 * A spatial grouping of `count` points into blocks of BLOCK_SAMPLES, those
 * into groups of GROUP_SAMPLES and those into clusters of CLUSTER_SAMPLES:
 * the positions of a range are split in two along the longest axis of their
 * box, at the whole block (within a block, the whole group; within a group,
 * the whole cluster) nearest the median, until a range is one cluster.
 * Deterministic (positions ordered by coordinate, the index as the last
 * key), so every thread that prepares the same points gets the same order.
 *
 * Each range is split by selection, not sorted: the positions below the
 * split are the smallest by (coordinate, index) whatever the order within
 * the two halves, and a range that is split again is ordered afresh along
 * its own axis, so only a final cluster keeps an order, its parent's
 * (coordinate, index), which it gets by a sort of its few positions. The
 * result is the same as sorting every range (the order a full sort per
 * range made), in expected linear time per level: for a mesh of a million
 * triangles (4.9 million samples) about 2.5 s instead of the 30 s that
 * sorting took.
 */
export function spatialOrder(points: Float32Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const key = new Float64Array(count);
  // (key, index) order: indices break ties, so no two positions compare equal.
  const less = (a: number, b: number): boolean => key[a]! < key[b]! || (key[a] === key[b] && a < b);
  // Pivots from a fixed sequence: the same order on every thread.
  let seed = 0x9e3779b9;
  const select = (l: number, r: number, k: number): void => {
    // Wirth's selection over order[l..r] (inclusive): order[k] the k-th
    // smallest, the smaller ones before it, the larger after.
    while (l < r) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const x = order[l + (seed % (r - l + 1))]!;
      let i = l, j = r;
      do {
        while (less(order[i]!, x)) i++;
        while (less(x, order[j]!)) j--;
        if (i <= j) {
          const t = order[i]!;
          order[i] = order[j]!;
          order[j] = t;
          i++;
          j--;
        }
      } while (i <= j);
      if (j < k) l = i;
      if (k < i) r = j;
    }
  };
  // A final cluster, in its parent's (key, index) order (insertion: a few positions).
  const sortLeaf = (lo: number, hi: number): void => {
    for (let i = lo + 1; i < hi; i++) {
      const v = order[i]!;
      let j = i - 1;
      while (j >= lo && less(v, order[j]!)) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = v;
    }
  };
  const split = (lo: number, hi: number): void => {
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let i = lo; i < hi; i++) {
      const o = 4 * order[i]!;
      const x = points[o]!, y = points[o + 1]!, z = points[o + 2]!;
      if (x < x0) x0 = x; if (x > x1) x1 = x;
      if (y < y0) y0 = y; if (y > y1) y1 = y;
      if (z < z0) z0 = z; if (z > z1) z1 = z;
    }
    const ex = x1 - x0, ey = y1 - y0, ez = z1 - z0;
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    for (let i = lo; i < hi; i++) key[order[i]!] = points[4 * order[i]! + axis]!;
    // lo is a multiple of the unit: a range longer than a block splits at a
    // whole block, one longer than a group at a whole group, so every block
    // and every group is one subtree.
    const unit = hi - lo > BLOCK_SAMPLES ? BLOCK_SAMPLES : hi - lo > GROUP_SAMPLES ? GROUP_SAMPLES : CLUSTER_SAMPLES;
    const mid = lo + unit * Math.ceil(Math.ceil((hi - lo) / unit) / 2);
    select(lo, hi - 1, mid);
    if (mid - lo > CLUSTER_SAMPLES) split(lo, mid);
    else sortLeaf(lo, mid);
    if (hi - mid > CLUSTER_SAMPLES) split(mid, hi);
    else sortLeaf(mid, hi);
  };
  if (count > CLUSTER_SAMPLES) split(0, count);
  return order;
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
 * The samples at positions [first, end) of A (first a multiple of
 * GROUP_SAMPLES; see KernelSamples.order), posed in B's frame by the
 * task's pose at `o`, against B's field: appends to `out`, sorted by sample
 * index, every sample with phi_B < margin (sample index, phi, unit
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
  const inv = 1 / h;
  // Rotation matrix of q (row-major).
  const m00 = 1 - 2 * (qy * qy + qz * qz), m01 = 2 * (qx * qy - qz * qw), m02 = 2 * (qx * qz + qy * qw);
  const m10 = 2 * (qx * qy + qz * qw), m11 = 1 - 2 * (qx * qx + qz * qz), m12 = 2 * (qy * qz - qx * qw);
  const m20 = 2 * (qx * qz - qy * qw), m21 = 2 * (qy * qz + qx * qw), m22 = 1 - 2 * (qx * qx + qy * qy);
  const pts = A.points;
  const sph = A.clusters;
  const sp = SPHERE_POSE;
  sp[0] = m00; sp[1] = m01; sp[2] = m02; sp[3] = m10; sp[4] = m11; sp[5] = m12;
  sp[6] = m20; sp[7] = m21; sp[8] = m22; sp[9] = tx; sp[10] = ty; sp[11] = tz; sp[12] = margin;
  const order = A.order;
  const osample = out.sample, ophi = out.phi, onormal = out.normal;
  const k0 = out.count;
  let k = k0;
  let evaluated = 0;
  const nc = Math.ceil(A.count / CLUSTER_SAMPLES);
  const g0 = first / GROUP_SAMPLES, g1 = Math.ceil(end / GROUP_SAMPLES);
  const ng = Math.ceil(A.count / GROUP_SAMPLES);
  for (let bi = Math.floor(g0 / BLOCK_GROUPS), b1 = Math.ceil(g1 / BLOCK_GROUPS); bi < b1; bi++) {
    if (!sphereReaches(sph, 4 * (nc + ng + bi), g)) continue;
    for (let gi = Math.max(g0, bi * BLOCK_GROUPS), ge = Math.min(g1, (bi + 1) * BLOCK_GROUPS); gi < ge; gi++) {
      if (!sphereReaches(sph, 4 * (nc + gi), g)) continue;
      const c1 = Math.min(Math.ceil(end / CLUSTER_SAMPLES), (gi + 1) * GROUP_CLUSTERS);
      for (let c = gi * GROUP_CLUSTERS; c < c1; c++) {
        if (!sphereReaches(sph, 4 * c, g)) continue;
        const e = Math.min(end, (c + 1) * CLUSTER_SAMPLES);
        for (let pos = c * CLUSTER_SAMPLES; pos < e; pos++) {
          const si = order === null ? pos : order[pos]!;
          const ps = si * 4;
          const ax = pts[ps]!, ay = pts[ps + 1]!, az = pts[ps + 2]!;
          const px = m00 * ax + m01 * ay + m02 * az + tx;
          const py = m10 * ax + m11 * ay + m12 * az + ty;
          const pz = m20 * ax + m21 * ay + m22 * az + tz;
          const gx = (px - x0) * inv, gy = (py - y0) * inv, gz = (pz - z0) * inv;
          const inside = px >= x0 && px <= x1 && py >= y0 && py <= y1 && pz >= z0 && pz <= z1;
          // Beyond the grid box: the value at the nearest point of the box
          // plus the distance to it, the normal pointing away from the box
          // (the twin of `probe` in shaders/penetration.wgsl).
          let cgx = gx, cgy = gy, cgz = gz, d = 0;
          if (!inside) {
            cgx = Math.min(Math.max(gx, 0), nxm); cgy = Math.min(Math.max(gy, 0), nym); cgz = Math.min(Math.max(gz, 0), nzm);
            const awx = (gx - cgx) * h, awy = (gy - cgy) * h, awz = (gz - cgz) * h;
            d = Math.sqrt(awx * awx + awy * awy + awz * awz);
            if (!(d < margin)) continue;
          }
          evaluated++;
          // One call site of the lookup for both cases: the optimiser inlines
          // it once (two sites overran its budget, and a call it does not
          // inline boxes each floating-point argument and result on the heap).
          const phi = sdfPhiGrid(g, cgx, cgy, cgz) + d;
          if (!(phi < margin)) continue;
          if (inside) {
            nrm[0] = px; nrm[1] = py; nrm[2] = pz;
            sdfNormal(g, nrm, nrm);
          } else {
            nrm[0] = (gx - cgx) * h / d;
            nrm[1] = (gy - cgy) * h / d;
            nrm[2] = (gz - cgz) * h / d;
          }
          osample[k] = si;
          ophi[k] = phi;
          onormal[3 * k] = nrm[0]!;
          onormal[3 * k + 1] = nrm[1]!;
          onormal[3 * k + 2] = nrm[2]!;
          k++;
        }
      }
    }
  }
  out.count = k;
  if (order !== null) sortRecords(out, k0, k);
  return evaluated;
}

/** Up to this many records, sortRecords sorts by insertion; beyond, through a table indexed by sample. */
const INSERTION_MAX = 32;
/**
 * The task's pose for sphereReaches: rotation m (row major), translation t,
 * margin. An array rather than arguments: a call the optimiser does not
 * inline boxes each floating-point argument on the heap (13 per cluster).
 */
const SPHERE_POSE = new Float64Array(13);

/**
 * Whether any sample within the sphere at sph[o..o+4) (A's frame), posed by
 * SPHERE_POSE into B's frame, can have phi_B below the margin: the box cull,
 * then the field at the centre against its Lipschitz bound (the file
 * comment). Exact: false only when none can.
 */
function sphereReaches(sph: Float64Array, o: number, g: SdfGrid): boolean {
  const sp = SPHERE_POSE;
  const m00 = sp[0]!, m01 = sp[1]!, m02 = sp[2]!, m10 = sp[3]!, m11 = sp[4]!, m12 = sp[5]!;
  const m20 = sp[6]!, m21 = sp[7]!, m22 = sp[8]!, tx = sp[9]!, ty = sp[10]!, tz = sp[11]!, margin = sp[12]!;
  const ax = sph[o]!, ay = sph[o + 1]!, az = sph[o + 2]!, cr = sph[o + 3]!;
  const cx = m00 * ax + m01 * ay + m02 * az + tx;
  const cy = m10 * ax + m11 * ay + m12 * az + ty;
  const cz = m20 * ax + m21 * ay + m22 * az + tz;
  const h = g.cellSize;
  const x0 = g.origin[0], y0 = g.origin[1], z0 = g.origin[2];
  const x1 = x0 + h * (g.dims[0] - 1), y1 = y0 + h * (g.dims[1] - 1), z1 = z0 + h * (g.dims[2] - 1);
  const mg = Math.max(0, margin);
  const cm = cr + mg;
  if (cx < x0 - cm || cx > x1 + cm || cy < y0 - cm || cy > y1 + cm || cz < z0 - cm || cz > z1 + cm) return false;
  const inv = 1 / h;
  const gx = (cx - x0) * inv, gy = (cy - y0) * inv, gz = (cz - z0) * inv;
  // Inside the box the field changes by at most sqrt(3) per unit length;
  // beyond it, the extended field (the value at the nearest point of the box
  // plus the distance to it) by at most L_EXT.
  const inside = cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1 && cz >= z0 && cz <= z1;
  const nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  let cgx = gx, cgy = gy, cgz = gz, d = 0;
  if (!inside) {
    cgx = Math.min(Math.max(gx, 0), nx - 1); cgy = Math.min(Math.max(gy, 0), ny - 1); cgz = Math.min(Math.max(gz, 0), nz - 1);
    const awx = (gx - cgx) * h, awy = (gy - cgy) * h, awz = (gz - cgz) * h;
    d = Math.sqrt(awx * awx + awy * awy + awz * awz);
    if (d - cr > mg) return false;
  }
  // sdfPhiGrid(g, cgx, cgy, cgz), written out: the optimiser, which decides
  // from how often the lookup had run when it compiled this function, often
  // left it a call, and a call boxes its three coordinates and its result on
  // the heap (3.4 MB a step of garbage on the 50-bunny landing).
  let i = Math.floor(cgx), j = Math.floor(cgy), k = Math.floor(cgz);
  if (i > nx - 2) i = nx - 2;
  if (j > ny - 2) j = ny - 2;
  if (k > nz - 2) k = nz - 2;
  const fx = cgx - i, fy = cgy - j, fz = cgz - k;
  const v = g.values;
  const b = i + nx * (j + ny * k);
  const sz = nx * ny;
  const ex = 1 - fx, ey = 1 - fy;
  const c00 = ex * v[b]! + fx * v[b + 1]!;
  const c10 = ex * v[b + nx]! + fx * v[b + nx + 1]!;
  const c01 = ex * v[b + sz]! + fx * v[b + sz + 1]!;
  const c11 = ex * v[b + sz + nx]! + fx * v[b + sz + nx + 1]!;
  const phi = (1 - fz) * (ey * c00 + fy * c10) + fz * (ey * c01 + fy * c11);
  return !(phi + d > (inside ? SQRT3 : L_EXT) * cr * (1 + 1e-6) + margin + 1e-7 * h);
}

let sortPerm = new Int32Array(0);
/**
 * A large sort's table: the place of each record, indexed by its sample less
 * the task's lowest (written and read only where a record is).
 */
let sortSlot = new Int32Array(0);
/** One bit per sample of that range, set where a record is (all zero between sorts). */
let sortBits = new Int32Array(0);
let sortSample = new Uint32Array(0);
let sortPhi = new Float32Array(0);
let sortNormal = new Float32Array(0);

/**
 * Sorts records [start, end) of `out` by sample index (unique within a
 * task). The parallel backend sorts a task cut into pieces again once its
 * pieces are packed.
 */
export function sortRecords(out: RecordOut, start: number, end: number): void {
  const n = end - start;
  if (n < 2) return;
  const smp = out.sample;
  let sorted = true;
  for (let i = start + 1; i < end && sorted; i++) if (smp[i]! < smp[i - 1]!) sorted = false;
  if (sorted) return;
  if (sortPerm.length < n) {
    const c = 2 * n;
    sortPerm = new Int32Array(c);
    sortSample = new Uint32Array(c);
    sortPhi = new Float32Array(c);
    sortNormal = new Float32Array(3 * c);
  }
  const perm = sortPerm, ss = sortSample, sp = sortPhi, sn = sortNormal;
  const ph = out.phi, nm = out.normal;
  let lo = 0xffffffff, hi = 0;
  for (let i = 0; i < n; i++) {
    const r = start + i;
    const v = smp[r]!;
    ss[i] = v;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    sp[i] = ph[r]!;
    sn[3 * i] = nm[3 * r]!;
    sn[3 * i + 1] = nm[3 * r + 1]!;
    sn[3 * i + 2] = nm[3 * r + 2]!;
  }
  if (n <= INSERTION_MAX) {
    // Most tasks have a few records: insertion sort of the places.
    perm[0] = 0;
    for (let i = 1; i < n; i++) {
      const key = ss[i]!;
      let j = i - 1;
      while (j >= 0 && ss[perm[j]!]! > key) {
        perm[j + 1] = perm[j]!;
        j--;
      }
      perm[j + 1] = i;
    }
  } else {
    // Many (a big mesh's contact patch: 400 records among 18 000 samples):
    // each record's place in a table indexed by its sample (samples are
    // unique within a task) and a bit per sample, then the set bits read
    // back in order, 32 samples a word. O(n + range / 32).
    const range = hi - lo + 1;
    if (sortSlot.length < range) sortSlot = new Int32Array(Math.max(range, 2 * sortSlot.length));
    const words = (range + 31) >>> 5;
    if (sortBits.length < words) sortBits = new Int32Array(Math.max(words, 2 * sortBits.length));
    const slot = sortSlot, bits = sortBits;
    for (let i = 0; i < n; i++) {
      const v = ss[i]! - lo;
      slot[v] = i;
      bits[v >>> 5]! |= 1 << (v & 31);
    }
    let m = 0;
    for (let w = 0; w < words; w++) {
      let x = bits[w]!;
      if (x === 0) continue;
      bits[w] = 0;
      const base = w << 5;
      do {
        const low = x & -x;
        perm[m++] = slot[base + 31 - Math.clz32(low)]!;
        x ^= low;
      } while (x !== 0);
    }
  }
  for (let i = 0; i < n; i++) {
    const j = perm[i]!, d = start + i;
    smp[d] = ss[j]!;
    ph[d] = sp[j]!;
    nm[3 * d] = sn[3 * j]!;
    nm[3 * d + 1] = sn[3 * j + 1]!;
    nm[3 * d + 2] = sn[3 * j + 2]!;
  }
}
