/**
 * Byte layouts of every struct the host writes into or reads out of a GPU
 * buffer, in one place. Each matches a WGSL struct (named in `WGSL_STRUCTS`
 * below) under WGSL's layout rules: f32/u32 align 4, vec3 aligns 16 but
 * occupies 12 (so a scalar right after it fills the gap), vec4 aligns 16, a
 * struct's size is rounded up to its largest member alignment.
 * tests/gpu/layout.test.ts parses the shaders, recomputes every offset and
 * also reads a buffer filled at these offsets back through the real shader
 * compiler, so the two sides cannot drift apart.
 *
 * Offsets are in bytes; the `*_WORDS` helpers divide by 4 for typed-array
 * indexing.
 */

export interface StructLayout {
  /** Size in bytes, which is also the array stride (every struct here has size % align == 0). */
  readonly size: number;
  /** Byte offset of each member, in declaration order. */
  readonly offsets: Readonly<Record<string, number>>;
}

/** common.wgsl `SdfInfo`: one grid inside the shared value array. */
export const SDF_INFO = {
  offsets: {
    origin: 0, //      vec3f: 0 + 12
    cellSize: 12, //   f32 in origin's padding: 12 + 4
    dims: 16, //       vec3u: 16 + 12
    valueOffset: 28, // u32 in dims' padding: 28 + 4
  },
  size: 32, // = 28 + 4, already a multiple of 16
} as const satisfies StructLayout;

/** common.wgsl `Pose`: quaternion (x, y, z, w) then translation (x, y, z, unused). */
export const POSE = {
  offsets: {
    q: 0, // vec4f: 0 + 16
    t: 16, // vec4f: 16 + 16
  },
  size: 32,
} as const satisfies StructLayout;

/** penetration.wgsl `ShapeInfo`: one shape of the query (samples + SDF). */
export const SHAPE_INFO = {
  offsets: {
    sdf: 0, //           SdfInfo: 0 + 32
    sampleOffset: 32, // u32: first sample (vec4f index) in the shared sample buffer
    sampleCount: 36, //  u32: vertices, face samples and edge samples (sampleCount in samples.ts)
    pad0: 40, //         u32
    pad1: 44, //         u32
  },
  size: 48, // = 44 + 4, multiple of 16 (SdfInfo's alignment)
} as const satisfies StructLayout;

/** penetration.wgsl `Task`: one direction of one pair. */
export const TASK = {
  offsets: {
    pose: 0, //    Pose: 0 + 32, A's frame in B's frame
    shapeA: 32, // u32
    shapeB: 36, // u32
    margin: 40, // f32: report samples with phi_B below this
    pad1: 44, //   u32, explicit padding
  },
  size: 48,
} as const satisfies StructLayout;

/** penetration.wgsl `Chunk`: WORKGROUP_SIZE consecutive samples of one task. */
export const CHUNK = {
  offsets: {
    task: 0, //      u32
    firstSample: 4, // u32
  },
  size: 8,
} as const satisfies StructLayout;

/** penetration.wgsl `QueryParams` (uniform). */
export const QUERY_PARAMS = {
  offsets: {
    chunkCount: 0, // u32
    capacity: 4, //   u32: records the output buffer holds
    groupsX: 8, //    u32: workgroups along x of the 2D dispatch
    pad0: 12, //      u32
  },
  size: 16,
} as const satisfies StructLayout;

/**
 * penetration.wgsl `Record`: one sample below the task's margin, keyed by
 * its chunk and lane (chunk index * WORKGROUP_SIZE + lane), which name its
 * task and sample.
 */
export const RECORD = {
  offsets: {
    key: 0, // u32
    phi: 4, // f32
    nx: 8, //  f32, normal in B's frame (three scalars, not a vec3f, to keep the stride 20)
    ny: 12,
    nz: 16,
  },
  size: 20,
} as const satisfies StructLayout;

/**
 * penetration.wgsl `QueryOutput`: an atomic record counter, padding, then the
 * records. The counter keeps counting past the capacity so the host learns how
 * much room a re-run needs.
 */
export const QUERY_OUTPUT = {
  offsets: {
    count: 0, //    atomic<u32>
    pad0: 4, //     u32
    pad1: 8, //     u32
    pad2: 12, //    u32
    records: 16, // array<Record>, stride RECORD.size
  },
  /** Header bytes before the first record. */
  size: 16,
} as const satisfies StructLayout;

/** sdf_bake.wgsl `BakeParams` (uniform): the grid and the node range of one dispatch. */
export const BAKE_PARAMS = {
  offsets: {
    grid: 0, //           SdfInfo: 0 + 32 (valueOffset unused)
    triangleCount: 32, // u32
    firstNode: 36, //     u32: first node (linear index) of this dispatch
    nodeCount: 40, //     u32: nodes in this dispatch
    pad0: 44, //          u32
  },
  size: 48,
} as const satisfies StructLayout;

/**
 * sdf_bake.wgsl triangle table: 10 vec4f per triangle as produced by
 * packTriangleTable (src/sdf/pseudonormals.ts): a, b, c, face normal, edge
 * pseudonormals ab, bc, ca, vertex pseudonormals a, b, c.
 */
export const TRIANGLE_VEC4S = 10;
export const TRIANGLE_STRIDE = TRIANGLE_VEC4S * 16; // 160 bytes

/** Samples travel as vec4f (x, y, z, 0). */
export const SAMPLE_STRIDE = 16;

/** Which WGSL struct each layout describes, for the layout test. */
export const WGSL_STRUCTS: Readonly<Record<string, { file: string; layout: StructLayout }>> = {
  SdfInfo: { file: 'common.wgsl', layout: SDF_INFO },
  Pose: { file: 'common.wgsl', layout: POSE },
  ShapeInfo: { file: 'penetration.wgsl', layout: SHAPE_INFO },
  Task: { file: 'penetration.wgsl', layout: TASK },
  Chunk: { file: 'penetration.wgsl', layout: CHUNK },
  QueryParams: { file: 'penetration.wgsl', layout: QUERY_PARAMS },
  Record: { file: 'penetration.wgsl', layout: RECORD },
  QueryOutput: { file: 'penetration.wgsl', layout: QUERY_OUTPUT },
  BakeParams: { file: 'sdf_bake.wgsl', layout: BAKE_PARAMS },
};

/** Workgroup size of both passes (also an `override` in the shaders); a power of two (a record's key holds its lane in the low bits). */
export const WORKGROUP_SIZE = 64;
