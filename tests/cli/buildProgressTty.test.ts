/**
 * `stackfield run` and `stackfield sdf` name a mesh's steps before its bake
 * (parsing, checking, what it encloses) and after it (collision samples) on
 * the progress line when standard error is a terminal: an 80 000-triangle
 * mesh spent a second and more there with no line at all; `stackfield check`
 * names the same steps before its bake-free summary. The terminal is a
 * pseudo-terminal from util-linux `script`; the delay is 0
 * (STACKFIELD_PROGRESS_AFTER_MS), so a cube's steps show. A pipe, as the other
 * tests and CI logs read standard error, gets none of these lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, stackfield } from './cliHelpers.ts';
import { checkFile } from '../../src/cli/check.ts';
import type { BuildStage } from '../../src/scene/shapeBuild.ts';

const CUBE = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 1 1 0', 'v 0 0 1', 'v 1 0 1', 'v 0 1 1', 'v 1 1 1', 'f 1 5 7 3', 'f 2 4 8 6', 'f 1 2 6 5', 'f 3 7 8 4', 'f 1 3 4 2', 'f 5 6 8 7'].join('\n');

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What the terminal received while `stackfield ARGS` ran on one, its standard output discarded; the progress delay is `delayMs`. */
function onTerminal(args: string[], delayMs = 0): { status: number | null; screen: string } {
  const command = `${[process.execPath, BIN, ...args].map(sh).join(' ')} >/dev/null`;
  const r = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, STACKFIELD_PROGRESS_AFTER_MS: String(delayMs) },
  });
  return { status: r.status, screen: r.stdout };
}

describe('a mesh\'s steps on the progress line of a terminal', () => {
  it('the pseudo-terminal is there (util-linux `script`, Debian\'s essential bsdutils)', () => {
    expect(hasScript, '`script` was not found: install bsdutils (util-linux)').toBe(true);
  });

  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-tty-'));
    writeFileSync(join(dir, 'cube.obj'), CUBE);
    writeFileSync(
      join(dir, 'scene.json'),
      JSON.stringify({
        format: 'stackfield-scene/1',
        shapes: { floor: { type: 'plane' }, cube: { type: 'mesh', path: 'cube.obj', sdf: { cells: 12 } } },
        bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'c', shape: 'cube', position: [0, 1, 0] }],
      }),
    );
    // A library whose include defines shapes of its own: check counts each file's shapes apart.
    writeFileSync(join(dir, 'top.library.json'), JSON.stringify({ format: 'stackfield-library/1', include: ['base.library.json'], shapes: { cube: { type: 'mesh', path: 'cube.obj' } } }));
    writeFileSync(
      join(dir, 'base.library.json'),
      JSON.stringify({ format: 'stackfield-library/1', shapes: { block: { type: 'mesh', path: 'cube.obj' }, ball: { type: 'sphere', radius: 0.2 } } }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('run: parsed, checked and analysed before the bake, sampled after it, the samples prepared; on one line, cleared at the end', () => {
    const r = onTerminal(['run', join(dir, 'scene.json'), '--steps', '1', '--summary', 'none']);
    expect(r.status, r.screen).toBe(0);
    const at = (s: string) => r.screen.indexOf(`\rstackfield: building the world: ${s}`);
    const order = [
      'shape 2 of 2 ("cube"), parsing the mesh file',
      'shape 2 of 2 ("cube"), checking 12 triangles',
      'shape 2 of 2 ("cube"), finding what 12 triangles enclose (BVH, self-intersections)',
      'shape 2 of 2 ("cube"), placing collision samples on 12 triangles',
      'preparing the collision samples of 12 triangles for the queries',
    ].map(at);
    expect(order.every((i) => i >= 0), r.screen).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Redrawn in place: no line break between them, and the line blanked at the end.
    expect(r.screen.slice(order[0], order.at(-1))).not.toContain('\n');
    expect(r.screen).toMatch(/\r +\r/);
  });

  it('sdf: parsed, checked and analysed before the bake', () => {
    const r = onTerminal(['sdf', join(dir, 'cube.obj'), '--cells', '12', '--out', join(dir, 'g.json')]);
    expect(r.status, r.screen).toBe(0);
    for (const s of ['parsing the mesh file', 'checking 12 triangles', 'finding what 12 triangles enclose (BVH, self-intersections)']) {
      expect(r.screen).toContain(`\rstackfield: preparing the bake: ${s}`);
    }
    expect(r.screen).toMatch(/\rstackfield: baking \d+ nodes: 0%/);
  });

  it('check: parsed, checked and analysed, named with the scene; on one line, cleared at the end', () => {
    const r = onTerminal(['check', join(dir, 'scene.json')]);
    expect(r.status, r.screen).toBe(0);
    const at = (s: string) => r.screen.indexOf(`\rstackfield: checking "scene.json": ${s}`);
    const order = [
      'shape 2 of 2 ("cube"), parsing the mesh file',
      'shape 2 of 2 ("cube"), checking 12 triangles',
      'shape 2 of 2 ("cube"), finding what 12 triangles enclose (BVH, self-intersections)',
    ].map(at);
    expect(order.every((i) => i >= 0), r.screen).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(r.screen.slice(order[0], order.at(-1))).not.toContain('\n');
    expect(r.screen).toMatch(/\r +\r/);
  });

  it('check: a cube\'s steps within the delay show nothing on a terminal, as in run', () => {
    const r = onTerminal(['check', join(dir, 'scene.json')], 60_000);
    expect(r.status, r.screen).toBe(0);
    expect(r.screen).not.toContain('stackfield:');
  });

  it('check tells its stage hook each shape\'s steps, with the file that defines the shape', async () => {
    const heard: string[] = [];
    const stage = (p: BuildStage, file: string) => heard.push(`${file.split('/').at(-1)} ${p.index + 1}/${p.count} ${p.shape} ${p.step} ${p.triangles}`);
    expect(await checkFile(join(dir, 'top.library.json'), () => {}, undefined, stage)).toMatch(/^library, 1 shape, /);
    expect(heard).toEqual([
      `top.library.json 1/1 cube parsing ${Math.round(CUBE.length / 40)}`,
      'top.library.json 1/1 cube validating 12',
      'top.library.json 1/1 cube analysing 12',
      `base.library.json 1/2 block parsing ${Math.round(CUBE.length / 40)}`,
      'base.library.json 1/2 block validating 12',
      'base.library.json 1/2 block analysing 12',
      // A procedural shape has no file to parse.
      'base.library.json 2/2 ball validating 352',
      'base.library.json 2/2 ball analysing 352',
    ]);
  });

  it('a pipe gets none of the build steps: only the bake\'s and the run\'s lines, as before', () => {
    const env = { STACKFIELD_PROGRESS_AFTER_MS: '0' };
    const run = stackfield(['run', join(dir, 'scene.json'), '--steps', '1', '--summary', 'none'], { env });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('stackfield: building the world: shape 2 of 2 ("cube"), SDF 0%');
    const sdf = stackfield(['sdf', join(dir, 'cube.obj'), '--cells', '12', '--out', join(dir, 'g.json')], { env });
    expect(sdf.status, sdf.stderr).toBe(0);
    for (const text of [run.stderr, sdf.stderr]) {
      expect(text).not.toMatch(/parsing|checking \d+ triangles|enclose|collision samples|preparing the bake/);
      expect(text).not.toContain('\r');
    }
    // check has no percentage of its own: nothing at all on a pipe.
    for (const f of ['scene.json', 'top.library.json']) {
      const check = stackfield(['check', join(dir, f)], { env });
      expect(check.status, check.stderr).toBe(0);
      expect(check.stderr).toBe('');
    }
  });
});
