/**
 * Byte layouts the renderer shares with shaders/render_*.wgsl: the uniform
 * and storage structs (under WGSL's layout rules, as src/gpu/layout.ts does
 * for the compute passes) and the vertex buffers each vertex entry point
 * reads. The passes build their pipelines from `VERTEX_INPUTS`, and
 * tests/gpu/renderLayout.test.ts parses the shaders and checks both tables
 * against the structs and the entry points' `@location` inputs, and reads a
 * buffer filled at these offsets back through the shader compiler.
 */
import type { StructLayout } from '../../gpu/layout.ts';

/** render_common.wgsl `Frame` (uniform): one per frame. */
export const FRAME_LAYOUT = {
  offsets: {
    viewProj: 0, //    mat4x4f: 0 + 64
    shadowProj: 64, // mat4x4f: world -> its shadow on the shadow plane
    eye: 128, //       vec4f: xyz eye
    lightDir: 144, //  vec4f: xyz towards the key light
    viewport: 160, //  vec4f: width, height, 1/width, 1/height (device pixels)
    fog: 176, //       vec4f: fog start, fog end, shadow strength, unused
    focus: 192, //     vec4f: xyz camera target, w ground fade radius
  },
  size: 208,
} as const satisfies StructLayout;

/** render_common.wgsl `Instance` (storage array): one per body, slot 0 the identity. */
export const INSTANCE_LAYOUT = {
  offsets: {
    model: 0, //  mat4x4f: 0 + 64
    color: 64, // vec4f: rgb, a = INSTANCE_ALPHA
  },
  size: 80,
} as const satisfies StructLayout;

/**
 * What an instance's alpha says (render_common.wgsl reads it the same way):
 * a solid body, a body drawn as its wireframe only (the depth-field body, so
 * its slice is not hidden inside it), as faint edges without a shadow (the
 * other bodies while the depth field is on), or nothing.
 */
export const INSTANCE_ALPHA = { solid: 1, wireOnly: 0.5, faded: 0.15, hidden: 0 } as const;

/** render_points.wgsl `PointRec` (storage array): the overlay vertex (overlays.ts VertexList). */
export const POINT_REC_LAYOUT = {
  offsets: {
    pos: 0, //    vec3f: 0 + 12
    color: 12, // u32 in pos's padding: packed RGBA8
  },
  size: 16,
} as const satisfies StructLayout;

/** render_points.wgsl `PointStyle` (uniform). */
export const POINT_STYLE_LAYOUT = {
  offsets: {
    size: 0, // vec4f: x dot diameter in device pixels
  },
  size: 16,
} as const satisfies StructLayout;

/** render_slice.wgsl `Slice` (uniform): the slice quad and the grid it samples. */
export const SLICE_LAYOUT = {
  offsets: {
    corner: 0, //  vec4f: local-frame quad corner
    edgeU: 16, //  vec4f
    edgeV: 32, //  vec4f
    origin: 48, // vec4f: xyz grid origin, w cell size
    dims: 64, //   vec4u: node counts, w the body's instance slot
  },
  size: 80,
} as const satisfies StructLayout;

/** Which WGSL struct each layout describes, for the layout test. */
export const RENDER_WGSL_STRUCTS: Readonly<Record<string, { file: string; layout: StructLayout }>> = {
  Frame: { file: 'render_common.wgsl', layout: FRAME_LAYOUT },
  Instance: { file: 'render_common.wgsl', layout: INSTANCE_LAYOUT },
  PointRec: { file: 'render_points.wgsl', layout: POINT_REC_LAYOUT },
  PointStyle: { file: 'render_points.wgsl', layout: POINT_STYLE_LAYOUT },
  Slice: { file: 'render_slice.wgsl', layout: SLICE_LAYOUT },
};

/** Floats per render vertex: position xyz, crease normal xyz (renderMesh.ts). */
export const RENDER_VERTEX_FLOATS = 6;
/** Bytes per overlay vertex: position xyz, packed RGBA8 (the PointRec layout). */
export const OVERLAY_VERTEX_BYTES = POINT_REC_LAYOUT.size;

/** Lit meshes and the ground: position and normal per triangle corner. */
const RENDER_VERTEX: GPUVertexBufferLayout = {
  arrayStride: RENDER_VERTEX_FLOATS * 4,
  attributes: [
    { shaderLocation: 0, offset: 0, format: 'float32x3' },
    { shaderLocation: 1, offset: 12, format: 'float32x3' },
  ],
};
/** The same buffer read for positions only (shadows). */
const RENDER_VERTEX_POSITION: GPUVertexBufferLayout = {
  arrayStride: RENDER_VERTEX_FLOATS * 4,
  attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }],
};
/** Wireframes: the mesh's own positions, indexed by its edges. */
const WIRE_VERTEX: GPUVertexBufferLayout = {
  arrayStride: 12,
  attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }],
};
/** Overlay lines: the PointRec layout read as vertex attributes. */
const OVERLAY_VERTEX: GPUVertexBufferLayout = {
  arrayStride: OVERLAY_VERTEX_BYTES,
  attributes: [
    { shaderLocation: 0, offset: POINT_REC_LAYOUT.offsets.pos, format: 'float32x3' },
    { shaderLocation: 1, offset: POINT_REC_LAYOUT.offsets.color, format: 'unorm8x4' },
  ],
};

/** Floats per soft surface vertex: position xyz, normal xyz, packed RGBA8 as f32 bits (softGeometry.ts). */
export const SOFT_VERTEX_FLOATS = 7;
export const SOFT_VERTEX_BYTES = SOFT_VERTEX_FLOATS * 4;
/** Soft surfaces: world-space position, normal and colour per vertex, indexed by triangle. */
const SOFT_VERTEX: GPUVertexBufferLayout = {
  arrayStride: SOFT_VERTEX_BYTES,
  attributes: [
    { shaderLocation: 0, offset: 0, format: 'float32x3' },
    { shaderLocation: 1, offset: 12, format: 'float32x3' },
    { shaderLocation: 2, offset: 24, format: 'unorm8x4' },
  ],
};
/** The same buffer read for positions only (soft shadows). */
const SOFT_VERTEX_POSITION: GPUVertexBufferLayout = {
  arrayStride: SOFT_VERTEX_BYTES,
  attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }],
};

export interface VertexInput {
  /** The WGSL file (render_common.wgsl is joined in front of it). */
  readonly file: string;
  readonly entryPoint: string;
  readonly buffers: readonly GPUVertexBufferLayout[];
}

/** Every vertex entry point the passes use, with the buffers it reads. */
export const VERTEX_INPUTS = {
  background: { file: 'render_background.wgsl', entryPoint: 'vs_main', buffers: [] },
  ground: { file: 'render_ground.wgsl', entryPoint: 'vs_main', buffers: [RENDER_VERTEX] },
  shadow: { file: 'render_mesh.wgsl', entryPoint: 'vs_shadow', buffers: [RENDER_VERTEX_POSITION] },
  bodies: { file: 'render_mesh.wgsl', entryPoint: 'vs_main', buffers: [RENDER_VERTEX] },
  slice: { file: 'render_slice.wgsl', entryPoint: 'vs_main', buffers: [] },
  wireframe: { file: 'render_lines.wgsl', entryPoint: 'vs_wire', buffers: [WIRE_VERTEX] },
  overlayLines: { file: 'render_lines.wgsl', entryPoint: 'vs_world', buffers: [OVERLAY_VERTEX] },
  points: { file: 'render_points.wgsl', entryPoint: 'vs_main', buffers: [] },
  softSurface: { file: 'render_soft.wgsl', entryPoint: 'vs_surface', buffers: [SOFT_VERTEX] },
  softShadow: { file: 'render_soft.wgsl', entryPoint: 'vs_shadow', buffers: [SOFT_VERTEX_POSITION] },
} as const satisfies Record<string, VertexInput>;
