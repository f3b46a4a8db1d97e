// The penetration query (docs/ALGORITHM.md 4.3), GPU twin of CpuPenetrationBackend
// (src/collision/cpuQuery.ts); host side in src/gpu/penetrationPass.ts.
//
// One dispatch runs every task of a batch. A task is "the samples of shape A,
// posed in B's frame, against B's SDF"; every sample whose phi_B is below the
// task's margin is reported (a margin above 0 also returns the samples near
// B's surface, which the host evaluates again as the bodies move). The host
// cuts every task into chunks of WORKGROUP_SIZE samples; one workgroup runs
// one chunk, one thread one sample, so no thread searches for its task and
// tasks of any size share one dispatch. Records are appended in arbitrary
// order with an atomic counter, each keyed by its chunk and lane: the host
// buckets them by chunk (chunks run by task, then sample) and orders each
// bucket's few records by lane, which sorts them by (task, sample). (A
// workgroup that compacted its hits in lane order behind one atomic add
// needs barriers, and made SwiftShader, the tests' GPU, run this kernel
// 1.8-3.4 times slower.)
//
// Byte layouts: src/gpu/layout.ts (checked by tests/gpu/layout.test.ts).

override WORKGROUP_SIZE: u32 = 64u;

struct ShapeInfo {
  sdf: SdfInfo,          // offset  0
  sampleOffset: u32,     // offset 32: first sample of the shape in `samples`
  sampleCount: u32,      // offset 36: vertices, face samples and edge samples
  pad0: u32,             // offset 40
  pad1: u32,             // offset 44
}                        // size 48

struct Task {
  pose: Pose,            // offset  0: A's frame in B's frame
  shapeA: u32,           // offset 32
  shapeB: u32,           // offset 36
  margin: f32,           // offset 40: report samples with phi_B below this
  pad1: u32,             // offset 44
}                        // size 48

struct Chunk {
  task: u32,             // offset 0
  firstSample: u32,      // offset 4
}                        // size 8

struct QueryParams {
  chunkCount: u32,       // offset  0
  capacity: u32,         // offset  4: records that fit in out.records
  groupsX: u32,          // offset  8: workgroups along x (chunks = x + y * groupsX)
  pad0: u32,             // offset 12
}                        // size 16

struct Record {
  key: u32,              // offset  0: chunk index * WORKGROUP_SIZE + lane
  phi: f32,              // offset  4
  nx: f32,               // offset  8: unit normal in B's frame
  ny: f32,               // offset 12
  nz: f32,               // offset 16
}                        // size 20

struct QueryOutput {
  count: atomic<u32>,    // offset  0: records found (may exceed capacity)
  pad0: u32,             // offset  4
  pad1: u32,             // offset  8
  pad2: u32,             // offset 12
  records: array<Record>, // offset 16
}

// binding 0: sdf_values (common.wgsl)
@group(0) @binding(1) var<storage, read> samples: array<vec4f>;
@group(0) @binding(2) var<storage, read> shapes: array<ShapeInfo>;
@group(0) @binding(3) var<storage, read> tasks: array<Task>;
@group(0) @binding(4) var<storage, read> chunks: array<Chunk>;
@group(0) @binding(5) var<storage, read_write> out: QueryOutput;
@group(0) @binding(6) var<uniform> params: QueryParams;

fn emit(key: u32, s: vec4f) {
  let i = atomicAdd(&out.count, 1u);
  // Past the capacity only the count grows; the host re-runs with more room.
  if (i < params.capacity) {
    out.records[i] = Record(key, s.x, s.y, s.z, s.w);
  }
}

// phi_B and normal of A's sample `index` (B's frame). Beyond B's grid box the
// field continues as its value at the nearest point of the box plus the
// distance to that point, with the normal pointing away from the box: a
// Lipschitz extension, so a sample just outside the box is reported when the
// task's margin reaches past the grid's padding, and the narrow phase's motion
// bound (src/dynamics/narrowphase.ts) holds across the box's faces. A sample
// whose distance to the box alone reaches the margin is never fetched.
// Mirrors the CPU twin (src/collision/cpuQuery.ts) operation for operation.
fn probe(task: Task, a: ShapeInfo, b: ShapeInfo, index: u32) -> vec4f {
  let p = pose_apply(task.pose, samples[a.sampleOffset + index].xyz);
  if (in_grid_box(b.sdf, p)) {
    return sample_sdf(b.sdf, p);
  }
  let g = (p - b.sdf.origin) * (1.0 / b.sdf.cellSize);
  let gc = clamp(g, vec3f(0.0), vec3f(b.sdf.dims - vec3u(1u)));
  let away = (g - gc) * b.sdf.cellSize;
  let d = length(away);
  // The negated form also rejects NaN.
  if (!(d < task.margin)) {
    return vec4f(OUTSIDE_DISTANCE, 0.0, 0.0, 0.0);
  }
  return vec4f(sdf_phi_grid(b.sdf, gc) + d, away / d);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lane: u32) {
  let chunkIndex = wg.x + wg.y * params.groupsX;
  if (chunkIndex >= params.chunkCount) {
    return;
  }
  let chunk = chunks[chunkIndex];
  let task = tasks[chunk.task];
  let a = shapes[task.shapeA];
  let b = shapes[task.shapeB];
  let index = chunk.firstSample + lane;
  if (index >= a.sampleCount) {
    return;
  }
  let s = probe(task, a, b, index);
  if (s.x < task.margin) {
    emit(chunkIndex * WORKGROUP_SIZE + lane, s);
  }
}
