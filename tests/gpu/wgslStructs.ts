/**
 * Checks a table of host-side struct layouts (src/gpu/layout.ts for the
 * compute passes, src/app/render/layout.ts for the renderer) against the
 * WGSL sources, two ways:
 *  1. parse every `struct` in the shaders and recompute member offsets and
 *     sizes with WGSL's layout rules (catches a member added on one side);
 *  2. let the real shader compiler read a buffer that the host filled at the
 *     table's offsets and write every scalar back (catches a wrong rule in
 *     step 1, e.g. vec3 padding).
 */
import { expect } from 'vitest';
import { checkErrors } from '../../src/gpu/device.ts';
import type { StructLayout } from '../../src/gpu/layout.ts';
import { shaderSource } from '../../src/gpu/shaders.ts';

export type LayoutTable = Readonly<Record<string, { file: string; layout: StructLayout }>>;

interface Member {
  name: string;
  type: string;
}

export interface ParsedStruct {
  name: string;
  file: string;
  members: Member[];
  /** The declaration text, to rebuild the struct in a test shader. */
  text: string;
}

/** WGSL source without comments. */
export function stripComments(src: string): string {
  return src.replace(/\/\/[^\n]*/g, '');
}

export function parseStructs(files: readonly string[]): Map<string, ParsedStruct> {
  const out = new Map<string, ParsedStruct>();
  for (const file of files) {
    const src = stripComments(shaderSource(file, false));
    const re = /struct\s+(\w+)\s*\{([^}]*)\}/g;
    for (let m = re.exec(src); m; m = re.exec(src)) {
      const members: Member[] = [];
      for (const part of splitTopLevel(m[2]!)) {
        // Drop attributes (@builtin(position), @location(0)) in front of the name.
        const decl = part.replace(/@\w+(\([^)]*\))?/g, '').trim();
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

/** Splits at commas that are not inside <...> or (...). */
export function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '<' || s[i] === '(') depth++;
    else if (s[i] === '>' || s[i] === ')') depth--;
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
export function vecType(t: string): { n: number; scalar: string } | null {
  let m = /^vec([234])([fui])$/.exec(t);
  if (m) return { n: Number(m[1]), scalar: VEC_SHORT[m[2]!]! };
  m = /^vec([234])<(f32|u32|i32)>$/.exec(t);
  if (m) return { n: Number(m[1]), scalar: m[2]! };
  return null;
}

/** Columns and rows of a matCxR f32 matrix (mat4x4f or mat4x4<f32>), or null. */
function matType(t: string): { cols: number; rows: number } | null {
  const m = /^mat([234])x([234])(f|<f32>)$/.exec(t);
  return m ? { cols: Number(m[1]), rows: Number(m[2]) } : null;
}

/** WGSL alignment and size of a type (size null for runtime-sized). */
function wgslLayout(t: string, structs: Map<string, ParsedStruct>): { align: number; size: number | null } {
  if (t === 'f32' || t === 'u32' || t === 'i32' || t === 'atomic<u32>' || t === 'atomic<i32>') return { align: 4, size: 4 };
  const v = vecType(t);
  if (v) return { align: v.n === 2 ? 8 : 16, size: v.n * 4 };
  const mt = matType(t);
  if (mt) {
    // A matrix is an array of column vectors of `rows` floats.
    const col = wgslLayout(`vec${mt.rows}f`, structs);
    return { align: col.align, size: mt.cols * roundUp(col.size!, col.align) };
  }
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

export function structLayout(
  s: ParsedStruct,
  structs: Map<string, ParsedStruct>,
): { align: number; size: number | null; offsets: Record<string, number> } {
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

/** Every table struct exists in its WGSL file with the same members, in order, at the offsets WGSL's rules give. */
export function expectTableMatchesShaders(table: LayoutTable, structs: Map<string, ParsedStruct>): void {
  for (const [name, { file, layout }] of Object.entries(table)) {
    const s = structs.get(name);
    expect(s, `${name} missing from the shaders`).toBeDefined();
    expect(s!.file, name).toBe(file);
    expect(s!.members.map((m) => m.name), name).toEqual(Object.keys(layout.offsets));
    const w = structLayout(s!, structs);
    expect(layout.offsets, name).toEqual(w.offsets);
    // Runtime-sized structs: the table's `size` is the header before the array.
    expect(layout.size, name).toBe(w.size ?? w.offsets[s!.members.at(-1)!.name]);
  }
}

/** Host-side size (array stride) of a type per the table. */
function tsSize(t: string, table: LayoutTable): number {
  if (t === 'f32' || t === 'u32' || t === 'i32') return 4;
  const v = vecType(t);
  if (v) return v.n === 3 ? 16 : v.n * 4;
  const s = table[t];
  if (!s) throw new Error(`the layout table has no layout for ${t}`);
  return s.layout.size;
}

interface Leaf {
  expr: string;
  offset: number;
}

/** Every scalar reachable from `expr` of type t: a WGSL expression yielding its bits as u32, and its byte offset per the table. */
function leaves(t: string, expr: string, base: number, structs: Map<string, ParsedStruct>, table: LayoutTable, out: Leaf[]): void {
  if (t === 'f32' || t === 'i32') out.push({ expr: `bitcast<u32>(${expr})`, offset: base });
  else if (t === 'u32') out.push({ expr, offset: base });
  else if (t === 'atomic<u32>') out.push({ expr: `atomicLoad(&${expr})`, offset: base });
  else if (vecType(t)) {
    const v = vecType(t)!;
    for (let k = 0; k < v.n; k++) leaves(v.scalar, `${expr}.${'xyzw'[k]}`, base + 4 * k, structs, table, out);
  } else if (matType(t)) {
    const mt = matType(t)!;
    const colBytes = mt.rows === 2 ? 8 : 16;
    for (let c = 0; c < mt.cols; c++) leaves(`vec${mt.rows}f`, `${expr}[${c}]`, base + c * colBytes, structs, table, out);
  } else if (/^array<(.+)>$/.test(t)) {
    const e = /^array<(.+)>$/.exec(t)![1]!;
    for (let k = 0; k < 2; k++) leaves(e, `${expr}[${k}]`, base + k * tsSize(e, table), structs, table, out);
  } else {
    const s = structs.get(t)!;
    const ts = table[t]!.layout;
    for (const m of s.members) leaves(m.type, `${expr}.${m.name}`, base + ts.offsets[m.name]!, structs, table, out);
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

/**
 * For every struct of the table: a compute kernel reads a buffer of distinct
 * floats as that struct (two of them, or one runtime-sized) and writes every
 * scalar back; each must be the word at the table's offset.
 */
export async function expectShaderReadsTableOffsets(device: GPUDevice, table: LayoutTable, structs: Map<string, ParsedStruct>): Promise<void> {
  for (const name of Object.keys(table)) {
    const s = structs.get(name)!;
    const runtimeSized = /^array<[^,]+>$/.test(s.members.at(-1)!.type);
    const list: Leaf[] = [];
    let binding: string;
    if (runtimeSized) {
      binding = `var<storage, read_write> src: ${name};`;
      leaves(name, 'src', 0, structs, table, list);
    } else {
      binding = `var<storage, read_write> src: array<${name}, 2>;`;
      leaves(name, 'src[0]', 0, structs, table, list);
      leaves(name, 'src[1]', table[name]!.layout.size, structs, table, list);
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
}
