// The penetration query (ALGORITHM.md 4.3), GPU twin of CpuPenetrationBackend
// (src/collision/cpuQuery.ts); host side in src/gpu/penetrationPass.ts.
//
// One dispatch runs every task of a batch. A task is "the samples of shape A,
// posed in B's frame, against B's SDF". Its work items are A's vertices
// (one sample each), then A's edges (edgeSamples consecutive samples each,
// of which only the deepest inside sample is reported). The host cuts every
// task into chunks of WORKGROUP_SIZE items; one workgroup runs one chunk, so
// no thread searches for its task and tasks of any size share one dispatch.
// Records are appended in arbitrary order with an atomic counter; the host
// sorts them by (task, sample).
//
// Byte layouts: src/gpu/layout.ts (checked by tests/gpu/layout.test.ts).

override WORKGROUP_SIZE: u32 = 64u;

struct ShapeInfo {
  sdf: SdfInfo,          // offset  0
  sampleOffset: u32,     // offset 32: first sample of the shape in `samples`
  vertexCount: u32,      // offset 36
  edgeCount: u32,        // offset 40
  edgeSamples: u32,      // offset 44: interior samples per edge
}                        // size 48

struct Task {
  pose: Pose,            // offset  0: A's frame in B's frame
  shapeA: u32,           // offset 32
  shapeB: u32,           // offset 36
  pad0: u32,             // offset 40
  pad1: u32,             // offset 44
}                        // size 48

struct Chunk {
  task: u32,             // offset 0
  firstItem: u32,        // offset 4
}                        // size 8

struct QueryParams {
  chunkCount: u32,       // offset  0
  capacity: u32,         // offset  4: records that fit in out.records
  groupsX: u32,          // offset  8: workgroups along x (chunks = x + y * groupsX)
  pad0: u32,             // offset 12
}                        // size 16

struct Record {
  task: u32,             // offset  0
  sample: u32,           // offset  4: index within A's samples
  phi: f32,              // offset  8
  nx: f32,               // offset 12: unit normal in B's frame
  ny: f32,               // offset 16
  nz: f32,               // offset 20
}                        // size 24

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

const NO_SAMPLE: u32 = 0xffffffffu;

fn emit(task: u32, sample: u32, s: vec4f) {
  let i = atomicAdd(&out.count, 1u);
  // Past the capacity only the count grows; the host re-runs with more room.
  if (i < params.capacity) {
    out.records[i] = Record(task, sample, s.x, s.y, s.z, s.w);
  }
}

// phi_B and normal of A's sample `index`, or OUTSIDE_DISTANCE when the posed
// sample misses B's grid box (checked before any value is fetched).
fn probe(task: Task, a: ShapeInfo, b: ShapeInfo, index: u32) -> vec4f {
  let p = pose_apply(task.pose, samples[a.sampleOffset + index].xyz);
  if (!in_grid_box(b.sdf, p)) {
    return vec4f(OUTSIDE_DISTANCE, 0.0, 0.0, 0.0);
  }
  return sample_sdf(b.sdf, p);
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
  let item = chunk.firstItem + lane;

  if (item < a.vertexCount) {
    let s = probe(task, a, b, item);
    if (s.x < 0.0) {
      emit(chunk.task, item, s);
    }
    return;
  }

  let edge = item - a.vertexCount;
  if (edge >= a.edgeCount) {
    return;
  }
  // Deepest inside sample of the edge; strict < keeps the first of equal depths.
  let first = a.vertexCount + edge * a.edgeSamples;
  var best = vec4f(0.0);
  var bestSample = NO_SAMPLE;
  for (var k = 0u; k < a.edgeSamples; k++) {
    let s = probe(task, a, b, first + k);
    if (s.x < best.x) {
      best = s;
      bestSample = first + k;
    }
  }
  if (bestSample != NO_SAMPLE) {
    emit(chunk.task, bestSample, best);
  }
}
