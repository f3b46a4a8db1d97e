/**
 * src/gpu/layout.ts against the WGSL sources, two ways:
 *  1. parse every `struct` in shaders/*.wgsl and recompute member offsets and
 *     sizes with WGSL's layout rules (catches a member added on one side);
 *  2. let the real shader compiler read a buffer that the host filled at the
 *     layout.ts offsets and write every scalar back (catches a wrong rule in
 *     step 1, e.g. vec3 padding).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { checkErrors, requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { TRIANGLE_STRIDE, TRIANGLE_VEC4S, WGSL_STRUCTS, type StructLayout } from '../../src/gpu/layout.ts';
import { shaderSource } from '../../src/gpu/shaders.ts';
import * as pointTriangle from '../../src/sdf/pointTriangle.ts';
import { TRIANGLE_TABLE_ROWS } from '../../src/sdf/pseudonormals.ts';

const SHADER_FILES = ['common.wgsl', 'penetration.wgsl', 'sdf_bake.wgsl'];

interface Member {
  name: string;
  type: string;
}

interface ParsedStruct {
  name: string;
  file: string;
  members: Member[];
  /** The declaration text, to rebuild the struct in a test shader. */
  text: string;
}

function parseStructs(): Map<string, ParsedStruct> {
  const out = new Map<string, ParsedStruct>();
  for (const file of SHADER_FILES) {
    const src = shaderSource(file, false).replace(/\/\/[^\n]*/g, '');
    const re = /struct\s+(\w+)\s*\{([^}]*)\}/g;
    for (let m = re.exec(src); m; m = re.exec(src)) {
      const members: Member[] = [];
      for (const part of splitTopLevel(m[2]!)) {
        const decl = part.trim();
        if (!decl) continue;
        const colon = decl.indexOf(':');
        members.push({ name: decl.slice(0, colon).trim(), type: decl.slice(colon + 1).replace(/\s+/g, '') });
      }
      expect(out.has(m[1]!), `struct ${m[1]} is declared twice`).toBe(false);
      out.set(m[1]!, { name: m[1]!, file, members, text: m[0] });
    }
  }
  return out;
}

/** Splits at commas that are not inside <...>. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '<') depth++;
    else if (s[i] === '>') depth--;
    else if (s[i] === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

const VEC_SHORT: Record<string, string> = { f: 'f32', u: 'u32', i: 'i32' };

/** Vector width and scalar of a vecN type (vec3f or vec3<f32>), or null. */
function vecType(t: string): { n: number; scalar: string } | null {
  let m = /^vec([234])([fui])$/.exec(t);
  if (m) return { n: Number(m[1]), scalar: VEC_SHORT[m[2]!]! };
  m = /^vec([234])<(f32|u32|i32)>$/.exec(t);
  if (m) return { n: Number(m[1]), scalar: m[2]! };
  return null;
}

/** WGSL alignment and size of a type (size null for runtime-sized). */
function wgslLayout(t: string, structs: Map<string, ParsedStruct>): { align: number; size: number | null } {
  if (t === 'f32' || t === 'u32' || t === 'i32' || t === 'atomic<u32>' || t === 'atomic<i32>') return { align: 4, size: 4 };
  const v = vecType(t);
  if (v) return { align: v.n === 2 ? 8 : 16, size: v.n * 4 };
  let m = /^array<(.+),(\d+)u?>$/.exec(t);
  if (m) {
    const e = wgslLayout(m[1]!, structs);
    const stride = roundUp(e.size!, e.align);
    return { align: e.align, size: stride * Number(m[2]) };
  }
  m = /^array<(.+)>$/.exec(t);
  if (m) return { align: wgslLayout(m[1]!, structs).align, size: null };
  const s = structs.get(t);
  if (!s) throw new Error(`unknown WGSL type ${t}`);
  return structLayout(s, structs);
}

function structLayout(s: ParsedStruct, structs: Map<string, ParsedStruct>): { align: number; size: number | null; offsets: Record<string, number> } {
  let offset = 0;
  let align = 1;
  const offsets: Record<string, number> = {};
  let runtime = false;
  for (const m of s.members) {
    const l = wgslLayout(m.type, structs);
    offset = roundUp(offset, l.align);
    offsets[m.name] = offset;
    align = Math.max(align, l.align);
    if (l.size === null) runtime = true;
    else offset += l.size;
  }
  return { align, size: runtime ? null : roundUp(offset, align), offsets };
}

function roundUp(n: number, m: number): number {
  return Math.ceil(n / m) * m;
}

/** Host-side size (array stride) of a type per layout.ts. */
function tsSize(t: string): number {
  if (t === 'f32' || t === 'u32' || t === 'i32') return 4;
  const v = vecType(t);
  if (v) return v.n === 3 ? 16 : v.n * 4;
  const s = WGSL_STRUCTS[t];
  if (!s) throw new Error(`layout.ts has no layout for ${t}`);
  return s.layout.size;
}

/** Every scalar reachable from `expr` of type t: a WGSL expression yielding its bits as u32, and its byte offset per layout.ts. */
function leaves(t: string, expr: string, base: number, structs: Map<string, ParsedStruct>, out: { expr: string; offset: number }[]): void {
  if (t === 'f32' || t === 'i32') out.push({ expr: `bitcast<u32>(${expr})`, offset: base });
  else if (t === 'u32') out.push({ expr, offset: base });
  else if (t === 'atomic<u32>') out.push({ expr: `atomicLoad(&${expr})`, offset: base });
  else if (vecType(t)) {
    const v = vecType(t)!;
    for (let k = 0; k < v.n; k++) leaves(v.scalar, `${expr}.${'xyzw'[k]}`, base + 4 * k, structs, out);
  } else if (/^array<(.+)>$/.test(t)) {
    const e = /^array<(.+)>$/.exec(t)![1]!;
    for (let k = 0; k < 2; k++) leaves(e, `${expr}[${k}]`, base + k * tsSize(e), structs, out);
  } else {
    const s = structs.get(t)!;
    const ts = WGSL_STRUCTS[t]!.layout;
    for (const m of s.members) leaves(m.type, `${expr}.${m.name}`, base + ts.offsets[m.name]!, structs, out);
  }
}

/** Struct declarations needed by `name` (dependencies first). */
function declarations(name: string, structs: Map<string, ParsedStruct>, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const s = structs.get(name)!;
  const deps: string[] = [];
  for (const m of s.members) {
    for (const word of m.type.split(/[<>,]/)) if (structs.has(word)) deps.push(...declarations(word, structs, seen));
  }
  return [...deps, s.text];
}

describe('GPU struct layouts', () => {
  let structs: Map<string, ParsedStruct>;
  beforeAll(() => {
    structs = parseStructs();
  });

  it('every layout.ts struct exists in its WGSL file with the same members in the same order', () => {
    for (const [name, { file, layout }] of Object.entries(WGSL_STRUCTS)) {
      const s = structs.get(name);
      expect(s, `${name} missing from the shaders`).toBeDefined();
      expect(s!.file, name).toBe(file);
      expect(s!.members.map((m) => m.name), name).toEqual(Object.keys(layout.offsets));
    }
  });

  it('layout.ts offsets and sizes follow the WGSL layout rules', () => {
    for (const [name, { layout }] of Object.entries(WGSL_STRUCTS)) {
      const w = structLayout(structs.get(name)!, structs);
      expect(layout.offsets, name).toEqual(w.offsets);
      // Runtime-sized structs: layout.ts `size` is the header before the array.
      const last = structs.get(name)!.members.at(-1)!;
      expect(layout.size, name).toBe(w.size ?? w.offsets[last.name]);
    }
  });

  it('the layout rules used above are WGSL\'s own (checked on known cases)', () => {
    const known = new Map<string, ParsedStruct>([
      ['A', { name: 'A', file: '', text: '', members: [{ name: 'a', type: 'vec3f' }, { name: 'b', type: 'f32' }, { name: 'c', type: 'vec2f' }, { name: 'd', type: 'vec3<u32>' }] }],
    ]);
    expect(structLayout(known.get('A')!, known)).toEqual({ align: 16, size: 48, offsets: { a: 0, b: 12, c: 16, d: 32 } });
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
      const device = gpu.device;
      for (const name of Object.keys(WGSL_STRUCTS)) {
        const s = structs.get(name)!;
        const runtimeSized = /^array<[^,]+>$/.test(s.members.at(-1)!.type);
        const list: { expr: string; offset: number }[] = [];
        let binding: string;
        if (runtimeSized) {
          binding = `var<storage, read_write> src: ${name};`;
          leaves(name, 'src', 0, structs, list);
        } else {
          binding = `var<storage, read_write> src: array<${name}, 2>;`;
          leaves(name, 'src[0]', 0, structs, list);
          leaves(name, 'src[1]', (WGSL_STRUCTS[name] as { layout: StructLayout }).layout.size, structs, list);
        }
        const code = [
          ...declarations(name, structs),
          `@group(0) @binding(0) ${binding}`,
          '@group(0) @binding(1) var<storage, read_write> dst: array<u32>;',
          '@compute @workgroup_size(1) fn main() {',
          ...list.map((l, i) => `  dst[${i}] = ${l.expr};`),
          '}',
        ].join('\n');

        const words = 256;
        const fill = new Float32Array(words);
        for (let i = 0; i < words; i++) fill[i] = i + 1; // distinct, exact, normal floats
        const got = await checkErrors(device, `layout kernel for ${name}`, async () => {
          const srcBuf = device.createBuffer({ size: words * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
          const dstBuf = device.createBuffer({ size: list.length * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
          const readBuf = device.createBuffer({ size: list.length * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
          device.queue.writeBuffer(srcBuf, 0, fill);
          const pipeline = await device.createComputePipelineAsync({
            layout: 'auto',
            compute: { module: device.createShaderModule({ code }), entryPoint: 'main' },
          });
          const bg = device.createBindGroup({
            layout: pipeline.getBindGroupLayout(0),
            entries: [
              { binding: 0, resource: { buffer: srcBuf } },
              { binding: 1, resource: { buffer: dstBuf } },
            ],
          });
          const enc = device.createCommandEncoder();
          const pass = enc.beginComputePass();
          pass.setPipeline(pipeline);
          pass.setBindGroup(0, bg);
          pass.dispatchWorkgroups(1);
          pass.end();
          enc.copyBufferToBuffer(dstBuf, 0, readBuf, 0, list.length * 4);
          device.queue.submit([enc.finish()]);
          await readBuf.mapAsync(GPUMapMode.READ);
          const r = new Uint32Array(readBuf.getMappedRange().slice(0));
          readBuf.unmap();
          for (const b of [srcBuf, dstBuf, readBuf]) b.destroy();
          return r;
        });
        const expected = new Uint32Array(fill.buffer);
        const want = list.map((l) => expected[l.offset / 4]);
        expect(Array.from(got), `${name}: ${list.map((l) => `${l.expr}@${l.offset}`).join(', ')}`).toEqual(want);
      }
    });
  });
});
