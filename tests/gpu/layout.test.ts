/**
 * src/gpu/layout.ts against the compute shaders (tests/gpu/wgslStructs.ts:
 * offsets recomputed from the parsed structs, then read back through the
 * real shader compiler).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { TRIANGLE_STRIDE, TRIANGLE_VEC4S, WGSL_STRUCTS } from '../../src/gpu/layout.ts';
import { shaderSource } from '../../src/gpu/shaders.ts';
import * as pointTriangle from '../../src/sdf/pointTriangle.ts';
import { TRIANGLE_TABLE_ROWS } from '../../src/sdf/pseudonormals.ts';
import { expectShaderReadsTableOffsets, expectTableMatchesShaders, parseStructs, structLayout, type ParsedStruct } from './wgslStructs.ts';

const SHADER_FILES = ['common.wgsl', 'penetration.wgsl', 'sdf_bake.wgsl'];

describe('GPU struct layouts', () => {
  let structs: Map<string, ParsedStruct>;
  beforeAll(() => {
    structs = parseStructs(SHADER_FILES);
  });

  it('every layout.ts struct exists in its WGSL file with the same members, in order, at the offsets WGSL\'s rules give', () => {
    expectTableMatchesShaders(WGSL_STRUCTS, structs);
  });

  it('the layout rules used above are WGSL\'s own (checked on known cases)', () => {
    const known = new Map<string, ParsedStruct>([
      ['A', { name: 'A', file: '', text: '', members: [{ name: 'a', type: 'vec3f' }, { name: 'b', type: 'f32' }, { name: 'c', type: 'vec2f' }, { name: 'd', type: 'vec3<u32>' }] }],
    ]);
    expect(structLayout(known.get('A')!, known)).toEqual({ align: 16, size: 48, offsets: { a: 0, b: 12, c: 16, d: 32 } });
    const withMatrix = new Map<string, ParsedStruct>([
      ['M', { name: 'M', file: '', text: '', members: [{ name: 'a', type: 'f32' }, { name: 'm', type: 'mat4x4f' }, { name: 'b', type: 'mat3x3<f32>' }, { name: 'c', type: 'f32' }] }],
    ]);
    // mat3x3f is three vec3f columns of stride 16: 48 bytes, align 16.
    expect(structLayout(withMatrix.get('M')!, withMatrix)).toEqual({ align: 16, size: 144, offsets: { a: 0, m: 16, b: 80, c: 128 } });
  });

  it('the bake shader reads the triangle table rows where packTriangleTable writes them', () => {
    const src = shaderSource('sdf_bake.wgsl', false);
    const constant = (name: string): number => {
      const m = new RegExp(`const\\s+${name}\\s*:\\s*u32\\s*=\\s*(\\d+)u\\s*;`).exec(src);
      expect(m, `${name} in sdf_bake.wgsl`).not.toBeNull();
      return Number(m![1]);
    };
    expect(TRIANGLE_VEC4S).toBe(TRIANGLE_TABLE_ROWS);
    expect(TRIANGLE_STRIDE).toBe(TRIANGLE_TABLE_ROWS * 16);
    expect(constant('TRIANGLE_VEC4S')).toBe(TRIANGLE_TABLE_ROWS);
    // Feature f of pointTriangle.ts has its pseudonormal in row 3 + f; the shader's feature codes are those rows.
    const pairs: [string, number][] = [
      ['FEATURE_FACE', pointTriangle.FEATURE_FACE],
      ['FEATURE_EDGE_AB', pointTriangle.FEATURE_EDGE_AB],
      ['FEATURE_EDGE_BC', pointTriangle.FEATURE_EDGE_BC],
      ['FEATURE_EDGE_CA', pointTriangle.FEATURE_EDGE_CA],
      ['FEATURE_VERT_A', pointTriangle.FEATURE_VERTEX_A],
      ['FEATURE_VERT_B', pointTriangle.FEATURE_VERTEX_B],
      ['FEATURE_VERT_C', pointTriangle.FEATURE_VERTEX_C],
    ];
    for (const [wgsl, code] of pairs) expect(constant(wgsl), wgsl).toBe(3 + code);
  });

  describe('on the GPU', () => {
    let gpu: GpuContext;
    beforeAll(async () => {
      gpu = await requireGpuFromEnv();
    });

    it('a buffer filled at the layout.ts offsets reads back member by member in WGSL', async () => {
      await expectShaderReadsTableOffsets(gpu.device, WGSL_STRUCTS, structs);
    });
  });
});
