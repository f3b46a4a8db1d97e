/**
 * `stackfield sdf` end to end, through the real executable (cliHelpers BIN):
 * the JSON document of docs/SCENE_FORMAT.md for a unit cube, and exit code 2
 * with a message naming the file for bad input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { float32JsonList } from '../../src/cli/sdf.ts';
import { BIN } from './cliHelpers.ts';

/** A unit cube centred at (2, 0, -1), quads counter-clockwise from outside. */
const CUBE_OBJ = `# unit cube
v 1.5 -0.5 -1.5
v 2.5 -0.5 -1.5
v 1.5 0.5 -1.5
v 2.5 0.5 -1.5
v 1.5 -0.5 -0.5
v 2.5 -0.5 -0.5
v 1.5 0.5 -0.5
v 2.5 0.5 -0.5
f 1 5 7 3
f 2 4 8 6
f 1 2 6 5
f 3 7 8 4
f 1 3 4 2
f 5 6 8 7
`;

function stackfield(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('stackfield sdf', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-sdf-'));
    writeFileSync(join(dir, 'cube.obj'), CUBE_OBJ);
    writeFileSync(join(dir, 'bad.obj'), 'v 0 0 0\nv 1 0 0\nv 0 one 0\nf 1 2 3\n');
    // The cube without its last face: parses, but is not closed.
    writeFileSync(join(dir, 'open.obj'), CUBE_OBJ.split('\n').slice(0, -2).join('\n') + '\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the grid, values x-fastest in the mesh frame, and the cube mass properties', () => {
    const out = join(dir, 'cube.json');
    const r = stackfield('sdf', join(dir, 'cube.obj'), '--cells', '16', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as {
      origin: number[]; cellSize: number; dims: number[]; values: number[];
      mass: number; centerOfMass: number[]; inertia: number[][];
    };
    // 16 cells over the unit side plus 2 padding cells each side: 21 nodes, cube centre in the middle.
    expect(doc.cellSize).toBe(1 / 16);
    expect(doc.dims).toEqual([21, 21, 21]);
    expect(doc.origin).toEqual([2 - 0.625, -0.625, -1 - 0.625]);
    expect(doc.values.length).toBe(21 ** 3);
    const at = (i: number, j: number, k: number): number => doc.values[i + 21 * (j + 21 * k)]!;
    expect(at(10, 10, 10)).toBeCloseTo(-0.5, 6); // centre: half a side inside
    for (const [i, j, k] of [[0, 0, 0], [20, 0, 0], [0, 20, 0], [0, 0, 20], [20, 20, 20]]) {
      expect(at(i!, j!, k!)).toBeCloseTo(Math.sqrt(3) * 0.125, 6); // corners: 2 padding cells off each face
    }
    // x fastest: one step in x from the centre of the +x face region moves 1/16 outwards.
    expect(at(19, 10, 10) - at(18, 10, 10)).toBeCloseTo(1 / 16, 6);
    expect(doc.mass).toBeCloseTo(1, 12);
    expect(doc.centerOfMass.map((c, k) => c - [2, 0, -1][k]!).every((d) => Math.abs(d) < 1e-12)).toBe(true);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) expect(doc.inertia[a]![b]!).toBeCloseTo(a === b ? 1 / 6 : 0, 12);
    }
  });

  it('exits with 2 and names the file when the mesh file is missing', () => {
    const missing = join(dir, 'nope.obj');
    const r = stackfield('sdf', missing, '--out', join(dir, 'x.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(missing);
    expect(r.stderr).toContain('not found');
  });

  it('exits with 2 and names the file and line for a malformed OBJ', () => {
    const bad = join(dir, 'bad.obj');
    const r = stackfield('sdf', bad, '--out', join(dir, 'x.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(bad);
    expect(r.stderr).toMatch(/line 3/);
  });

  it('exits with 2 and names the file for a mesh that is not closed', () => {
    const open = join(dir, 'open.obj');
    const r = stackfield('sdf', open, '--out', join(dir, 'x.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(open);
  });

  it('bakes the same field with --backend gpu (loaded only then)', () => {
    const cpu = join(dir, 'cpu.json');
    const gpu = join(dir, 'gpu.json');
    expect(stackfield('sdf', join(dir, 'cube.obj'), '--cells', '12', '--out', cpu).status).toBe(0);
    const r = stackfield('sdf', join(dir, 'cube.obj'), '--cells', '12', '--backend', 'gpu', '--out', gpu);
    expect(r.status, r.stderr).toBe(0);
    const a = JSON.parse(readFileSync(cpu, 'utf8')) as { dims: number[]; cellSize: number; values: number[]; mass: number };
    const b = JSON.parse(readFileSync(gpu, 'utf8')) as typeof a;
    expect(b.dims).toEqual(a.dims);
    expect(b.mass).toBe(a.mass);
    let worst = 0;
    for (let i = 0; i < a.values.length; i++) worst = Math.max(worst, Math.abs(a.values[i]! - b.values[i]!));
    expect(worst).toBeLessThanOrEqual(1e-4 * a.cellSize);
  });

  it('exits with 2 without --out, and lists every option with its default in --help', () => {
    const r = stackfield('sdf', join(dir, 'cube.obj'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--out');
    const h = stackfield('sdf', '--help');
    expect(h.status).toBe(0);
    for (const opt of ['--out', '--cells N', '(default 64)', '--padding N', '(default 2)', '--backend cpu|gpu', '(default cpu)']) {
      expect(h.stdout).toContain(opt);
    }
  });

  it('writes values as JSON numbers that read back as the same float32, at every magnitude', () => {
    const v = new Float32Array(20000);
    for (let i = 0; i < v.length; i++) v[i] = Math.sin(i) * 1.7 * Math.pow(10, (i % 17) - 9);
    v.set([0, -0, 1, -2, 0.1, 1e-7, 9.99999e-8, 123456789, 1e9, 3.4e38, 1e-30, 1.4e-45, -3e-42], 0);
    const text = new TextDecoder().decode(float32JsonList(v));
    const back = JSON.parse(`[${text}]`) as number[];
    expect(back.length).toBe(v.length);
    for (let i = 0; i < v.length; i++) expect(Math.fround(back[i]!)).toBe(v[i] === 0 ? 0 : v[i]);
    expect(text.startsWith('0,0,1,-2,0.100000001,')).toBe(true);
  });
});
