/**
 * src/app/render/layout.ts against shaders/render_*.wgsl: the uniform and
 * storage structs as the compute layouts are checked (parsed offsets, then a
 * readback through the shader compiler), and every vertex entry point's
 * `@location` inputs against the vertex buffer layouts the passes build their
 * pipelines from.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { shaderSource } from '../../src/gpu/shaders.ts';
import { VertexList } from '../../src/app/overlays.ts';
import {
  OVERLAY_VERTEX_BYTES,
  POINT_REC_LAYOUT,
  RENDER_VERTEX_FLOATS,
  RENDER_WGSL_STRUCTS,
  VERTEX_INPUTS,
} from '../../src/app/render/layout.ts';
import { buildRenderMesh } from '../../src/app/renderMesh.ts';
import { boxMesh } from '../../src/geometry/shapes.ts';
import { expectShaderReadsTableOffsets, expectTableMatchesShaders, parseStructs, splitTopLevel, stripComments, vecType, type ParsedStruct } from './wgslStructs.ts';

const RENDER_FILES = ['render_common.wgsl', 'render_background.wgsl', 'render_ground.wgsl', 'render_mesh.wgsl', 'render_lines.wgsl', 'render_points.wgsl', 'render_slice.wgsl'];

/** The WGSL type a vertex format reaches the shader as, and its size in bytes. */
const FORMATS: Record<string, { type: string; bytes: number }> = {
  float32: { type: 'f32', bytes: 4 },
  float32x2: { type: 'vec2f', bytes: 8 },
  float32x3: { type: 'vec3f', bytes: 12 },
  float32x4: { type: 'vec4f', bytes: 16 },
  unorm8x4: { type: 'vec4f', bytes: 4 },
  uint32: { type: 'u32', bytes: 4 },
};

/** `@location(n) name: type` parameters of entry point `entry` in `file`, by location. */
function locationInputs(file: string, entry: string): Map<number, string> {
  const src = stripComments(shaderSource(file, false));
  const m = new RegExp(`fn\\s+${entry}\\s*\\(([^{]*)\\)\\s*(->[^{]*)?\\{`).exec(src);
  expect(m, `${entry} in ${file}`).not.toBeNull();
  const out = new Map<number, string>();
  for (const p of splitTopLevel(m![1]!)) {
    const loc = /@location\((\d+)\)\s*\w+\s*:\s*([\w<>]+)/.exec(p);
    if (loc) out.set(Number(loc[1]), normalise(loc[2]!));
  }
  return out;
}

function normalise(t: string): string {
  const v = vecType(t);
  return v ? `vec${v.n}${v.scalar[0]}` : t;
}

describe('render struct layouts', () => {
  let structs: Map<string, ParsedStruct>;
  beforeAll(() => {
    structs = parseStructs(RENDER_FILES);
  });

  it('every render/layout.ts struct exists in its WGSL file with the same members, in order, at the offsets WGSL\'s rules give', () => {
    expectTableMatchesShaders(RENDER_WGSL_STRUCTS, structs);
  });

  it('each vertex entry point reads exactly the attributes its buffers give, with matching types, inside the stride', () => {
    for (const [name, input] of Object.entries(VERTEX_INPUTS)) {
      const wanted = locationInputs(input.file, input.entryPoint);
      const given = new Map<number, string>();
      for (const b of input.buffers) {
        for (const a of b.attributes) {
          const f = FORMATS[a.format];
          expect(f, `${name}: format ${a.format}`).toBeDefined();
          expect(given.has(a.shaderLocation), `${name}: location ${a.shaderLocation} given twice`).toBe(false);
          given.set(a.shaderLocation, f!.type);
          expect(a.offset + f!.bytes, `${name}: location ${a.shaderLocation} ends past the stride`).toBeLessThanOrEqual(b.arrayStride);
          expect(a.offset % 4, name).toBe(0);
        }
      }
      expect([...given.entries()].sort(), name).toEqual([...wanted.entries()].sort());
    }
  });

  it('the buffers the host fills have the strides the vertex layouts read', () => {
    // Render meshes: RENDER_VERTEX_FLOATS floats per triangle corner.
    const m = buildRenderMesh(boxMesh([1, 2, 3]));
    expect(m.vertices.length).toBe(m.vertexCount * RENDER_VERTEX_FLOATS);
    for (const input of [VERTEX_INPUTS.ground, VERTEX_INPUTS.bodies, VERTEX_INPUTS.shadow]) {
      expect(input.buffers[0]!.arrayStride).toBe(RENDER_VERTEX_FLOATS * 4);
    }
    // Overlay vertices: the PointRec layout, position then packed colour.
    const list = new VertexList(4);
    list.push(1, 2, 3, 0xaabbccdd);
    expect(list.bytes().byteLength).toBe(OVERLAY_VERTEX_BYTES);
    expect(list.f32[POINT_REC_LAYOUT.offsets.pos / 4 + 2]).toBe(3);
    expect(list.u32[POINT_REC_LAYOUT.offsets.color / 4]).toBe(0xaabbccdd);
    expect(VERTEX_INPUTS.overlayLines.buffers[0]!.arrayStride).toBe(OVERLAY_VERTEX_BYTES);
    // Wireframes: the mesh's own Float32 positions.
    expect(VERTEX_INPUTS.wireframe.buffers[0]!.arrayStride).toBe(12);
  });

  describe('on the GPU', () => {
    let gpu: GpuContext;
    beforeAll(async () => {
      gpu = await requireGpuFromEnv();
    });

    it('a buffer filled at the render/layout.ts offsets reads back member by member in WGSL', async () => {
      await expectShaderReadsTableOffsets(gpu.device, RENDER_WGSL_STRUCTS, structs);
    });
  });
});
