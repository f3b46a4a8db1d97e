import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, SOURCE_BIN } from './cliHelpers.ts';
import { scratchDir } from '../scratchDir.ts';

const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });

const scene = {
  format: 'stackfield-scene/1',
  dt: 0.01,
  shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [1, 1, 1], sdf: { cells: 8 } } },
  bodies: [
    { name: 'ground', shape: 'floor', static: true },
    { name: 'box0', shape: 'box', position: [0, 3, 0], velocity: [1, 0, 0] },
  ],
};

describe('stackfield run', () => {
  const dir = scratchDir('stackfield-run-');
  const file = join(dir, 'scene.json');
  writeFileSync(file, JSON.stringify(scene));

  it('writes one JSON line per recorded step with name, p, q, v, w', () => {
    const out = join(dir, 'out.jsonl');
    const r = run(['run', file, '--steps', '20', '--every', '10', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.step)).toEqual([0, 10, 20]);
    expect(lines[1].t).toBeCloseTo(0.1, 12);
    const box = lines[2].bodies.find((b: { name: string }) => b.name === 'box0');
    expect(Object.keys(box).sort()).toEqual(['name', 'p', 'q', 'v', 'w']);
    // Free fall for 0.2 s (the exact parabola) and the initial x velocity.
    expect(box.p[1]).toBeCloseTo(3 - 9.81 * 0.2 * 0.2 / 2, 9);
    expect(box.p[0]).toBeCloseTo(0.2, 9);
    expect(box.q).toHaveLength(4);
  });

  it('runs the same from the sources (bin/stackfield.mjs) as the command the tests use', () => {
    // The tests run lib/cli/bin.js while lib/ is current (cliHelpers BIN): the
    // development entry must print the same states, and name itself the same.
    const args = ['run', file, '--steps', '30', '--every', '10', '--summary', 'none'];
    const src = spawnSync(process.execPath, [SOURCE_BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
    expect(src.status, src.stderr).toBe(0);
    expect(src.stdout.trim().split('\n')).toHaveLength(4);
    expect(src.stdout).toBe(run(args).stdout);
    const bad = spawnSync(process.execPath, [SOURCE_BIN, 'run', join(dir, 'missing.json')], { encoding: 'utf8', timeout: 120_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(run(['run', join(dir, 'missing.json')]).stderr);
  });

  it('writes to standard output without --out', () => {
    const r = run(['run', file, '--steps', '3']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('exits 2 naming the file and the JSON path for a scene error', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...scene, bodies: [{ ...scene.bodies[1], frction: 1 }] }));
    const r = run(['run', bad, '--steps', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('bad.json');
    expect(r.stderr).toContain('bodies[0].frction');
    expect(r.stderr).toContain('friction');
  });

  it('exits 2 for a missing file, invalid JSON and a bad option', () => {
    expect(run(['run', join(dir, 'nope.json')]).status).toBe(2);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"format": "stackfield-scene/1",\n "bodies": [}');
    const r = run(['run', broken]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/broken\.json.*line 2/);
    expect(run(['run', file, '--steps', 'many']).status).toBe(2);
    expect(run(['run', '--builtin', 'nosuchscene']).status).toBe(2);
  });

  it('--threads: the same states bit for bit on one thread and on a pool; a bad count exits 2', () => {
    const args = ['run', '--builtin', 'pile', '--param', 'count=8', '--steps', '60', '--every', '20'];
    const one = run([...args, '--threads', '1']);
    const three = run([...args, '--threads', '3']);
    expect(one.status, one.stderr).toBe(0);
    expect(three.status, three.stderr).toBe(0);
    expect(three.stdout.trim().split('\n')).toHaveLength(4);
    expect(three.stdout).toBe(one.stdout);
    const bad = run([...args, '--threads', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--threads: expected a thread count in [1, 256], got "0"');
    // More than 8 a core is refused at once (on 2 cores, 256 waited 30 s
    // for workers that had not started, then failed).
    const cores = availableParallelism();
    const many = run([...args, '--threads', String(8 * cores + 1)]);
    expect(many.status).toBe(2);
    expect(many.stderr).toContain(8 * cores + 1 <= 256 ? `--threads: expected at most ${8 * cores} on this machine (8 per core, ${cores} core` : 'expected a thread count in [1, 256]');
  });

  it('--solver pgs and accumulated run the scene as its own "contactSolver" would, bit for bit; bench records the solver', () => {
    // A box sliding on the ground: its friction is the contact solver's.
    const slide = { ...scene, bodies: [scene.bodies[0], { name: 'box0', shape: 'box', position: [0, 0.5, 0], velocity: [2, 0, 0], restitution: 0 }] };
    const slideFile = join(dir, 'slide.json');
    const pgsFile = join(dir, 'slide-pgs.json');
    writeFileSync(slideFile, JSON.stringify(slide));
    writeFileSync(pgsFile, JSON.stringify({ ...slide, solver: { contactSolver: 'pgs' } }));
    const args = ['--steps', '100', '--every', '50'];
    const flag = run(['run', slideFile, ...args, '--solver', 'pgs']);
    const own = run(['run', pgsFile, ...args]);
    const seq = run(['run', pgsFile, ...args, '--solver', 'sequential']);
    const seed = run(['run', pgsFile, ...args, '--solver', 'seed']);
    const plain = run(['run', slideFile, ...args]);
    for (const r of [flag, own, seq, seed, plain]) expect(r.status, r.stderr).toBe(0);
    expect(flag.stdout).toBe(own.stdout);
    expect(seq.stdout).toBe(plain.stdout);
    expect(seed.stdout).toBe(plain.stdout);
    expect(flag.stdout).not.toBe(plain.stdout);
    // The accumulated contact stage, from the file and from the flag alike.
    const accFile = join(dir, 'slide-acc.json');
    writeFileSync(accFile, JSON.stringify({ ...slide, solver: { contactSolver: 'accumulated' } }));
    const accOwn = run(['run', accFile, ...args]);
    const accFlag = run(['run', slideFile, ...args, '--solver', 'accumulated']);
    for (const r of [accOwn, accFlag]) expect(r.status, r.stderr).toBe(0);
    expect(accFlag.stdout).toBe(accOwn.stdout);
    expect(accFlag.stdout).not.toBe(plain.stdout);
    const bad = run(['run', file, '--solver', 'pg']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--solver expects sequential, pgs, accumulated or seed, got "pg" (did you mean pgs?)');
    const b = run(['bench', '--builtin', 'tower', '--bodies', '3', '--steps', '2', '--warmup', '1', '--repeats', '1', '--solver', 'pgs', '--json']);
    expect(b.status, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).contactSolver).toBe('pgs');
  });

  it('bench reports the thread count in its JSON', () => {
    const r = run(['bench', '--builtin', 'tower', '--bodies', '3', '--steps', '2', '--warmup', '1', '--repeats', '1', '--threads', '2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout).results;
    expect(res).toHaveLength(1);
    expect(res[0].threads).toBe(2);
    expect(res[0].adapter).toBe('cpu, 2 threads');
    expect(res[0].stepMs.median).toBeGreaterThan(0);
  });

  it('runs built-in scenes by name and lists them', () => {
    const list = run(['run', '--list']);
    expect(list.status).toBe(0);
    for (const name of ['tower', 'rings', 'pile', 'incline', 'seesaw', 'topple', 'billiards', 'dominoes']) expect(list.stdout).toContain(name);
    const r = run(['run', '--builtin', 'tower', '--param', 'height=3', '--steps', '2']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n')[2]!).bodies).toHaveLength(4);
  });

  it('loads OBJ meshes relative to the scene file, and names scene, shape and mesh for a bad mesh', () => {
    const cube = ['v -1 -1 -1', 'v 1 -1 -1', 'v 1 1 -1', 'v -1 1 -1', 'v -1 -1 1', 'v 1 -1 1', 'v 1 1 1', 'v -1 1 1',
      'f 1 4 3 2', 'f 5 6 7 8', 'f 1 2 6 5', 'f 2 3 7 6', 'f 3 4 8 7', 'f 4 1 5 8'];
    writeFileSync(join(dir, 'cube.obj'), cube.join('\n'));
    writeFileSync(join(dir, 'open.obj'), cube.slice(0, -1).join('\n'));
    const meshScene = (path: string) => ({
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane' }, c: { type: 'mesh', path, scale: 0.25 } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'c', shape: 'c', position: [0, 1, 0] }],
    });
    writeFileSync(join(dir, 'mesh.json'), JSON.stringify(meshScene('cube.obj')));
    // Default restitution 0.5 on both: it bounces for about a second first.
    const ok = run(['run', join(dir, 'mesh.json'), '--steps', '200', '--every', '200']);
    expect(ok.status, ok.stderr).toBe(0);
    const last = JSON.parse(ok.stdout.trim().split('\n')[1]!);
    // A 0.5 m cube (the file's 2 m cube scaled by 0.25) comes to rest on the floor.
    expect(last.bodies[1].p[1]).toBeCloseTo(0.25, 2);
    writeFileSync(join(dir, 'open.json'), JSON.stringify(meshScene('open.obj')));
    const bad = run(['run', join(dir, 'open.json')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('open.json');
    expect(bad.stderr).toContain('shapes.c.path');
    expect(bad.stderr).toContain('open.obj');
    expect(bad.stderr).toContain('not closed');
  });
});
