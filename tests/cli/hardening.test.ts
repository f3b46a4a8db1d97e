/**
 * Issue 14's defect classes through the real executable: every bad input a
 * clean error (exit code 2, a message naming the place, no stack trace, no
 * control character), output that never loses data, nothing non-finite
 * written, sizes refused before they run for ever, and messages that say
 * what is wrong.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadInput, expectClean, pipeline, stackfield, BIN } from './cliHelpers.ts';

const FORMAT = 'stackfield-scene/1';
const CUBE_OBJ = ['v -1 -1 -1', 'v 1 -1 -1', 'v 1 1 -1', 'v -1 1 -1', 'v -1 -1 1', 'v 1 -1 1', 'v 1 1 1', 'v -1 1 1',
  'f 1 4 3 2', 'f 5 6 7 8', 'f 1 2 6 5', 'f 2 3 7 6', 'f 3 4 8 7', 'f 4 1 5 8'].join('\n') + '\n';

function scene(bodies: unknown[], shapes: Record<string, unknown> = { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } }): string {
  return JSON.stringify({ format: FORMAT, shapes, bodies });
}

const box = (extra: Record<string, unknown> = {}) => ({ name: 'box', shape: 'box', position: [0, 1, 0], ...extra });
const ground = { name: 'ground', shape: 'floor', static: true };

describe('output never loses data', () => {
  let dir = '';
  let good = '';
  let badMesh = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-out-'));
    good = join(dir, 'good.json');
    writeFileSync(good, scene([ground, box()]));
    writeFileSync(join(dir, 'cube.obj'), CUBE_OBJ);
    writeFileSync(join(dir, 'open.obj'), CUBE_OBJ.split('\n').slice(0, -2).join('\n') + '\n');
    badMesh = join(dir, 'bad.json');
    writeFileSync(badMesh, scene([ground, { name: 'c', shape: 'c' }], { floor: { type: 'plane' }, c: { type: 'mesh', path: 'open.obj' } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** No temporary file may be left beside the target. */
  const noTemps = () => expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

  it('writes to an output whose name is as long as the file system allows (the temporary name beside it is short)', () => {
    const out = join(dir, `${'o'.repeat(245)}.jsonl`);
    const r = stackfield(['run', good, '--steps', '1', '--threads', '1', '--summary', 'none', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    const lib = join(dir, `${'l'.repeat(240)}.library.json`);
    writeFileSync(lib, '{"format": "stackfield-library/1"}\n');
    const e = stackfield(['lib', 'add', lib, 'shape', 'b', '{"type": "box"}']);
    expect(e.status, e.stderr).toBe(0);
    expect(JSON.parse(readFileSync(lib, 'utf8')).shapes.b.type).toBe('box');
    rmSync(out);
    rmSync(lib);
    noTemps();
  });

  it('`run ... | head -1` stops quietly: exit 0, one line, nothing on standard error', () => {
    const r = pipeline(`"${process.execPath}" "${BIN}" run --builtin tower --steps 300 | head -1`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout).step).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('an interrupted run says that nothing was written, and the file it would replace keeps what it held', async () => {
    const out = join(dir, 'kept.json');
    writeFileSync(out, 'before\n');
    const child = spawn(process.execPath, [BIN, 'run', '--builtin', 'rings', '--steps', '100000', '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Interrupted once the run writes: its temporary file stands beside the target.
    for (let i = 0; i < 600 && !readdirSync(dir).some((f) => f.endsWith('.tmp')); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(`stackfield: interrupted (SIGINT): nothing was written to "${out}", which keeps what it held`);
    expectClean(stderr);
    expect(readFileSync(out, 'utf8')).toBe('before\n');
    noTemps();
  });

  it('--out /dev/full is a write error naming the path, exit 2', () => {
    expectBadInput(stackfield(['run', good, '--steps', '5', '--out', '/dev/full']), '--out', '"/dev/full"', 'no space left on the device (ENOSPC)');
    expectBadInput(stackfield(['sdf', join(dir, 'cube.obj'), '--cells', '8', '--out', '/dev/full']), '"/dev/full"', 'ENOSPC');
  });

  it('standard output on a full disk (/dev/full) is a write error, exit 2, for the lines, --dump and --help alike', () => {
    for (const args of [`run "${good}" --steps 5 --summary none`, `run "${good}" --dump`, 'run --help', '--help']) {
      const r = pipeline(`"${process.execPath}" "${BIN}" ${args} > /dev/full`);
      expect(r.status, args).toBe(2);
      expect(r.stderr, args).toContain('cannot write to standard output: no space left on the device (ENOSPC)');
      expectClean(r.stderr);
    }
  });

  it('an --out that is an input (the scene, a mesh, the same file through a link) is refused before anything is written', () => {
    const before = readFileSync(good, 'utf8');
    expectBadInput(stackfield(['run', good, '--out', good]), 'is the scene file', 'overwrite the input');
    const link = join(dir, 'link.json');
    symlinkSync(good, link);
    expectBadInput(stackfield(['run', good, '--out', link]), 'is the scene file');
    expect(readFileSync(good, 'utf8')).toBe(before);
    const withMesh = join(dir, 'mesh.json');
    writeFileSync(withMesh, scene([ground, { name: 'c', shape: 'c' }], { floor: { type: 'plane' }, c: { type: 'mesh', path: 'cube.obj' } }));
    expectBadInput(stackfield(['run', withMesh, '--out', join(dir, 'cube.obj')]), 'is the mesh file of shapes.c');
    expectBadInput(stackfield(['sdf', join(dir, 'cube.obj'), '--out', join(dir, 'cube.obj')]), 'is the mesh file');
    // "-" is not a file named "-" (many tools read it as standard output).
    expectBadInput(stackfield(['run', good, '--steps', '1', '--out', '-']), '--out: expected a file name, got "-" (standard output is where run writes without --out; or give /dev/stdout)');
    // bench too: it had checked the scene file alone, and wrote its results over the mesh.
    expectBadInput(stackfield(['bench', withMesh, '--steps', '1', '--out', join(dir, 'cube.obj')]), 'is the mesh file of shapes.c');
    expectBadInput(stackfield(['bench', good, '--steps', '1', '--out', good]), 'is the scene file');
    expect(readFileSync(join(dir, 'cube.obj'), 'utf8')).toBe(CUBE_OBJ);
    noTemps();
  });

  it('a failing run leaves an existing --out as it was, and a successful one replaces it whole', () => {
    const out = join(dir, 'states.jsonl');
    writeFileSync(out, 'precious\n');
    expectBadInput(stackfield(['run', badMesh, '--out', out]), 'open.obj', 'not closed');
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
    noTemps();
    const ok = stackfield(['run', good, '--steps', '4', '--out', out, '--summary', 'none']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('');
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([0, 1, 2, 3, 4]);
    noTemps();
  });

  it('an --out that is a symbolic link is written through: the file it leads to is replaced, the link stays', () => {
    const real = join(dir, 'real.jsonl');
    writeFileSync(real, 'old\n');
    mkdirSync(join(dir, 'links'), { recursive: true });
    // A relative link in another directory, and a link to that link.
    const link = join(dir, 'links', 'sl.jsonl');
    symlinkSync('../real.jsonl', link);
    const link2 = join(dir, 'sl2.jsonl');
    symlinkSync(link, link2);
    for (const target of [link, link2]) {
      const r = stackfield(['run', good, '--steps', '1', '--out', target, '--summary', 'none']);
      expect(r.status, r.stderr).toBe(0);
      expect(lstatSync(target).isSymbolicLink()).toBe(true);
      expect(readFileSync(real, 'utf8').trim().split('\n')).toHaveLength(2);
      writeFileSync(real, 'old\n');
    }
    // A dangling link creates the file it names.
    const dangling = join(dir, 'dangling.jsonl');
    symlinkSync('created.jsonl', dangling);
    expect(stackfield(['run', good, '--steps', '1', '--out', dangling, '--summary', 'none']).status).toBe(0);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'created.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    noTemps();
    expect(readdirSync(join(dir, 'links'))).toEqual(['sl.jsonl']);
    // A link to the scene through a link is still refused.
    const toScene = join(dir, 'links', 'scene-link.json');
    symlinkSync(join(dir, 'link.json'), toScene);
    expectBadInput(stackfield(['run', good, '--out', toScene]), 'is the scene file');
    // A loop of links is a write error, not a crash.
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    expectBadInput(stackfield(['run', good, '--steps', '1', '--out', join(dir, 'loop-a')]), '"' + join(dir, 'loop-a') + '"', 'ELOOP');
  });

  it('--out /dev/stdout, /dev/stderr or /dev/fd/N leading to a file is written through the descriptor: what the file held, and what the shell writes around it, stays', () => {
    const run = `"${process.execPath}" "${BIN}" run "${good}" --steps 1 --threads 1`;
    const log = join(dir, 'appended.log');
    writeFileSync(log, 'previous line\n');
    expect(pipeline(`${run} --summary none --out /dev/stdout >> "${log}"`).status).toBe(0);
    let lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('previous line');
    expect(lines.slice(1).map((l) => JSON.parse(l).step)).toEqual([0, 1]);
    // The shell's own writes before and after, through the same descriptor.
    const group = join(dir, 'group.log');
    expect(pipeline(`{ echo '# header'; ${run} --summary none --out /dev/fd/1; echo '# footer'; } > "${group}"`).status).toBe(0);
    lines = readFileSync(group, 'utf8').trim().split('\n');
    expect([lines[0], lines.length, lines[3]]).toEqual(['# header', 4, '# footer']);
    // Standard error: the states, then the run's summary, after what it held.
    const err = join(dir, 'err.log');
    writeFileSync(err, 'previous err line\n');
    expect(pipeline(`${run} --out /dev/stderr 2>> "${err}"`).status).toBe(0);
    const text = readFileSync(err, 'utf8');
    expect(text.startsWith('previous err line\n{"step":0,')).toBe(true);
    expect(text).toContain('stackfield: ');
    // sdf writes its grid through /proc/self/fd/3.
    const grid = join(dir, 'grid.log');
    writeFileSync(grid, 'previous\n');
    expect(pipeline(`"${process.execPath}" "${BIN}" sdf "${join(dir, 'cube.obj')}" --cells 8 --out /proc/self/fd/3 3>> "${grid}"`).status).toBe(0);
    const g = readFileSync(grid, 'utf8');
    expect(g.startsWith('previous\n{"origin":')).toBe(true);
    noTemps();
  });

  it('--out naming another process\'s descriptor that leads to a file is refused, and the file kept', () => {
    const held = join(dir, 'held.log');
    const r = pipeline(`exec 7> "${held}"; echo kept >&7; "${process.execPath}" "${BIN}" run "${good}" --steps 1 --out /proc/$$/fd/7 7>&-`);
    expectBadInput(r, `--out: cannot write "/proc/`, 'it is descriptor 7 of another process (PID ', 'open on a regular file; replacing that file would lose what it held (name the file itself)');
    expect(readFileSync(held, 'utf8')).toBe('kept\n');
    noTemps();
  });

  it('a missing directory or a directory as --out is named, exit 2 (by bench before it runs)', () => {
    expectBadInput(stackfield(['run', good, '--out', join(dir, 'nope', 'x.jsonl')]), 'nope', 'the directory does not exist (ENOENT)');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    expectBadInput(stackfield(['run', good, '--out', join(dir, 'sub')]), 'it is a directory');
    // bench says so before it runs (a million steps would outlast the timeout), not after.
    const b = stackfield(['bench', '--builtin', 'rings', '--steps', '1000000', '--out', join(dir, 'nope', 'b.json')], { timeout: 30_000 });
    expectBadInput(b, 'nope', 'the directory does not exist (ENOENT)');
    expectBadInput(stackfield(['bench', '--sdf', '--out', join(dir, 'sub')], { timeout: 30_000 }), 'it is a directory');
  });

  it('a scene file\'s --dump (after defaults) is a scene run loads, with the same states, its mesh paths relative to the dump', () => {
    const sub = join(dir, 'dumps');
    mkdirSync(sub, { recursive: true });
    const withMesh = join(dir, 'dump-mesh.json');
    writeFileSync(withMesh, JSON.stringify({ format: FORMAT, sleep: false, shapes: { floor: { type: 'plane' }, c: { type: 'mesh', path: 'cube.obj', scale: 0.5, sdf: { cells: 8 } } },
      bodies: [ground, { name: 'c', shape: 'c', position: [0, 1, 0], angularVelocity: [0, 1, 0] }] }));
    const out = join(sub, 'dumped.json');
    const d = stackfield(['run', withMesh, '--dump', '--out', out]);
    expect(d.status, d.stderr).toBe(0);
    const dumped = JSON.parse(readFileSync(out, 'utf8'));
    // It was the internal form: "file", no "format", solver.sleep ("file: unknown key").
    expect(dumped.format).toBe(FORMAT);
    expect(dumped).not.toHaveProperty('file');
    expect(dumped.sleep).toBe(false);
    expect(dumped.solver).not.toHaveProperty('sleep');
    expect(dumped.shapes.c.path).toBe('../cube.obj');
    const a = stackfield(['run', withMesh, '--steps', '5', '--summary', 'none']);
    const b = stackfield(['run', out, '--steps', '5', '--summary', 'none']);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(stackfield(['check', out]).status).toBe(0);
  });

  it('a write-protected --out (chmod 444) is refused naming it, exit 2, and left as it was (for root too, whom open() lets write)', () => {
    const ro = join(dir, 'protected.jsonl');
    writeFileSync(ro, 'precious\n');
    chmodSync(ro, 0o444);
    const before = statSync(ro);
    const runs = [
      ['run', good, '--steps', '1', '--out', ro],
      ['run', good, '--dump', '--out', ro],
      ['sdf', join(dir, 'cube.obj'), '--cells', '8', '--out', ro],
      ['bench', good, '--steps', '1', '--warmup', '0', '--repeats', '1', '--backend', 'cpu', '--out', ro],
    ];
    for (const args of runs) {
      expectBadInput(stackfield(args, { timeout: 60_000 }), '--out', `cannot write "${ro}"`, 'not writable', 'mode 444');
      expect(readFileSync(ro, 'utf8'), args[0]).toBe('precious\n');
      const after = statSync(ro);
      expect([after.ino, after.mode, after.uid, after.mtimeMs]).toEqual([before.ino, before.mode, before.uid, before.mtimeMs]);
    }
    // Through a link, the file it leads to is the one protected.
    const link = join(dir, 'protected-link.jsonl');
    symlinkSync(ro, link);
    expectBadInput(stackfield(['run', good, '--steps', '1', '--out', link]), 'not writable');
    expect(readFileSync(ro, 'utf8')).toBe('precious\n');
    noTemps();
  });

  it('--dump writes to --out when one is given', () => {
    const out = join(dir, 'dump.json');
    const r = stackfield(['run', '--builtin', 'tower', '--param', 'height=2', '--dump', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).bodies).toHaveLength(3);
  });
});

describe('--dump reloads bit for bit', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-dump-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a body turned by "rotation" starts in the dump exactly where it starts in the scene (the quaternion is not normalised again)', () => {
    const file = join(dir, 'rot.json');
    writeFileSync(file, scene([ground, box({ rotation: { axis: [1, 0, 0], degrees: 10 } }), box({ name: 'b2', position: [3, 1, 0], rotation: { axis: [1, 2, 3], degrees: 77 } }),
      box({ name: 'b3', position: [-3, 1, 0], orientation: [0.1, 0.2, 0.3, 0.9] })]));
    const out = join(dir, 'rot.dump.json');
    const d = stackfield(['run', file, '--dump', '--out', out]);
    expect(d.status, d.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).bodies[1].orientation).toEqual([0.08715574274765817, 0, 0, 0.9961946980917454]);
    const a = stackfield(['run', file, '--steps', '0', '--summary', 'none']);
    const b = stackfield(['run', out, '--steps', '0', '--summary', 'none']);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(JSON.parse(a.stdout).bodies[1].q).toEqual([0.08715574274765817, 0, 0, 0.9961946980917454]);
    // The dump of the dump is the dump.
    const again = join(dir, 'rot.dump2.json');
    expect(stackfield(['run', out, '--dump', '--out', again]).status).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(out, 'utf8'));
  });
});

describe('nothing non-finite is written', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-nan-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a rotation of 1e308 degrees is a valid rotation: finite, unit quaternions, exit 0', () => {
    const file = join(dir, 'rot.json');
    writeFileSync(file, scene([box({ rotation: { axis: [0, 1, 0], degrees: 1e308 } })], { box: { type: 'box', sdf: { cells: 8 } } }));
    const r = stackfield(['run', file, '--steps', '2', '--summary', 'none']);
    expect(r.status, r.stderr).toBe(0);
    for (const line of r.stdout.trim().split('\n')) {
      expect(line).not.toContain('null');
      const q = JSON.parse(line).bodies[0].q as number[];
      expect(Math.hypot(...q)).toBeCloseTo(1, 12);
    }
    // 1e308 = 720 k + r exactly, so the angle is 1e308 mod 720 degrees.
    const deg = 1e308 % 720;
    const q0 = JSON.parse(r.stdout.split('\n')[0]!).bodies[0].q as number[];
    expect(q0[1]).toBeCloseTo(Math.sin((deg * Math.PI) / 360), 12);
  });

  it('a quaternion or an axis of 1e308 components normalises instead of overflowing to zero', () => {
    const file = join(dir, 'huge.json');
    writeFileSync(file, scene([
      box({ name: 'q', orientation: [1e308, 1e308, 1e308, 1e308] }),
      box({ name: 'axis', position: [3, 1, 0], rotation: { axis: [1e308, 1e308, 0], degrees: 90 } }),
    ], { box: { type: 'box', sdf: { cells: 8 } } }));
    const r = stackfield(['run', file, '--steps', '2', '--summary', 'none']);
    expect(r.status, r.stderr).toBe(0);
    const [q, axis] = JSON.parse(r.stdout.split('\n')[0]!).bodies.map((b: { q: number[] }) => b.q);
    expect(q).toEqual([0.5, 0.5, 0.5, 0.5]);
    const s = Math.sin(Math.PI / 4) / Math.SQRT2;
    [s, s, 0, Math.cos(Math.PI / 4)].forEach((x, k) => expect(axis[k]).toBeCloseTo(x, 12));
  });

  it('magnitudes that overflow are refused when the scene is read, naming the path and the accepted range (exit 2)', () => {
    const file = join(dir, 'big.json');
    const shapes = { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } };
    const write = (top: Record<string, unknown>, body: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ format: FORMAT, ...top, shapes, bodies: [ground, box(body)] }));
    // Each ran to "energy -Infinity J -> NaN J", "non-finite none" and exit code 0.
    write({ gravity: [1e308, 1e308, 0] }, {});
    expectBadInput(stackfield(['run', file, '--steps', '50']), 'big.json: gravity: expected an acceleration of at most 1e6 m/s^2', 'got [1e+308, 1e+308, 0]');
    write({ gravity: [0, 1e200, 0] }, {});
    expectBadInput(stackfield(['run', file, '--steps', '50']), 'big.json: gravity: expected an acceleration of at most 1e6 m/s^2');
    write({}, { velocity: [1e200, 0, 0] });
    expectBadInput(stackfield(['run', file, '--steps', '50']), 'big.json: bodies[1].velocity: expected a speed of at most 299792458 m/s (the speed of light), got [1e+200, 0, 0]');
    write({ dt: 0.01 }, { angularVelocity: [0, 400, 0] });
    expectBadInput(stackfield(['check', file]), 'big.json: bodies[1].angularVelocity: expected at most 314.2 rad/s (half a turn per step of "dt" 0.01 s; a faster spin needs a smaller "dt"), got [0, 400, 0]');
    // The limits themselves are accepted: a gravity of 1e6 m/s^2 runs, with a finite summary.
    write({ gravity: [0, -1e6, 0] }, { velocity: [0, 0, 299792458] });
    const ok = stackfield(['run', file, '--steps', '20', '--every', '20', '--summary', 'json']);
    expect(ok.status, ok.stderr).toBe(0);
    // (With a warning that nothing rests under such gravity at this dt: it moves a body 100 m a step.)
    const lines = ok.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('less than gravity moves a body in one step (|g| dt^2 = 100 m');
    const summary = JSON.parse(lines[1]!).summary;
    for (const k of ['start', 'end', 'change', 'kineticEnd']) expect(Number.isFinite(summary.energy[k]), k).toBe(true);
  });

  it('a body far from the origin: refused beyond 1e9 m, refused where doubles are coarser than a thousandth of its SDF cell, warned where coarser than a millionth', () => {
    const file = join(dir, 'far.json');
    const write = (position: number[], size = 1, cells = 8) =>
      writeFileSync(file, scene([ground, box({ position })], { floor: { type: 'plane' }, box: { type: 'box', size: [size, size, size], sdf: { cells } } }));
    // At 1e300 m the box sank into the floor silently.
    write([1e300, 2, 0]);
    expectBadInput(stackfield(['run', file, '--steps', '5']), 'far.json: bodies[1].position[0]: expected a coordinate from -1e9 to 1e9 m', 'got 1e+300');
    // A 0.5 mm box at 1e9 m: doubles 1.2e-7 m apart, its cell 6.25e-5 m.
    write([1e9, 2, 0], 0.0005);
    const tiny = stackfield(['run', file, '--steps', '5']);
    expectBadInput(tiny, 'far.json: bodies[1].position: expected coordinates within 5.37e8 m of the origin for this body (its SDF cell is 6.25e-5 m)');
    expectBadInput(stackfield(['check', file]), 'expected coordinates within 5.37e8 m of the origin');
    // A 1 m box there (cell 1/48 m) runs and settles on the floor, with a warning.
    write([1e9, 2, 0], 1, 48);
    const warned = stackfield(['run', file, '--steps', '200', '--every', '200', '--summary', 'none']);
    expect(warned.status, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('stackfield: warning: ');
    expect(warned.stderr).toContain('far.json: bodies[1].position: at 1e9 m from the origin 64-bit floats lie 1.19e-7 m apart, more than a millionth of the body\'s SDF cell (0.0208 m)');
    const end = JSON.parse(warned.stdout.trim().split('\n').pop()!).bodies[1].p as number[];
    expect(end[1]).toBeCloseTo(0.5, 2);
    // Near the origin: no warning.
    write([1e3, 2, 0]);
    const near = stackfield(['run', file, '--steps', '1', '--summary', 'none']);
    expect(near.status, near.stderr).toBe(0);
    expect(near.stderr).toBe('');
  });

  it('a mesh whose own coordinates lie far out is checked there, not at its "position": refused at 4e15 m, warned at 3e9 m', () => {
    // Its vertices (and so the body, re-centred on its centre of mass) lie
    // out there whatever "position" says: at 4e15 m doubles are 0.5 m apart,
    // and the 8 m cube passed the check at position [0, 2, 0].
    const cube = (o: number, size: number) => {
      const v = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]];
      const f = [[1, 4, 3, 2], [5, 6, 7, 8], [1, 2, 6, 5], [2, 3, 7, 6], [3, 4, 8, 7], [4, 1, 5, 8]];
      return v.map((p) => `v ${p[0]! * size + o} ${p[1]! * size} ${p[2]! * size}`).concat(f.map((q) => `f ${q.join(' ')}`)).join('\n') + '\n';
    };
    const file = join(dir, 'farmesh.json');
    const write = (o: number, size: number) => {
      writeFileSync(join(dir, 'farmesh.obj'), cube(o, size));
      writeFileSync(file, scene([ground, { name: 'b', shape: 'm', position: [0, 2, 0] }], { floor: { type: 'plane' }, m: { type: 'mesh', path: 'farmesh.obj' } }));
    };
    write(4e15, 8);
    for (const cmd of ['run', 'check']) {
      expectBadInput(
        stackfield(cmd === 'run' ? ['run', file, '--steps', '5'] : ['check', file]),
        'farmesh.json: bodies[1].position: expected coordinates within',
        "its shape's centre of mass lies 4e15 m from the shape's own origin",
      );
    }
    write(3e9, 1);
    const warned = stackfield(['run', file, '--steps', '1', '--summary', 'none']);
    expect(warned.status, warned.stderr).toBe(0);
    expect(warned.stderr).toContain("farmesh.json: bodies[1].position: at 3e9 m from the origin 64-bit floats lie 4.77e-7 m apart (its shape's centre of mass lies 3e9 m");
  });
});

describe('echoed user strings are escaped and capped', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-echo-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an unknown shape name with escape sequences and NUL is shown escaped', () => {
    const file = join(dir, 'ctl.json');
    writeFileSync(file, scene([{ name: 'a', shape: 'b\u001b[2J\u0000ok\u202e' }], { b: { type: 'box' } }));
    expectBadInput(stackfield(['run', file]), 'unknown shape "b\\u001b[2J\\u0000ok\\u202e"');
  });

  it('a duplicate name with control characters is shown escaped', () => {
    const file = join(dir, 'dup.json');
    const name = '\u001b[H\u001b[2Jok\r\u0007';
    writeFileSync(file, scene([{ name, shape: 'b' }, { name, shape: 'b' }], { b: { type: 'box' } }));
    expectBadInput(stackfield(['run', file]), 'duplicate name "\\u001b[H\\u001b[2Jok\\r\\u0007"');
  });

  it('a line break in a file name is escaped like any control character, in errors, warnings and check\'s ok line', () => {
    // No line of standard error or output may start with what followed the line break.
    const noForgedLine = (text: string) => expect(text.split('\n').filter((l) => l.startsWith('FAKE'))).toEqual([]);
    const missing = join(dir, 'nl\nFAKE.json');
    const r = stackfield(['check', missing]);
    expectBadInput(r, `${join(dir, 'nl\\nFAKE.json')}: file not found`);
    noForgedLine(r.stderr);
    const sub = join(dir, 'a\nFAKE');
    mkdirSync(sub);
    const file = join(sub, 's.json');
    writeFileSync(join(sub, 'm\nFAKE.obj'), CUBE_OBJ + 'xyz\n');
    writeFileSync(file, scene([ground, box(), { name: 'm', shape: 'm', position: [3, 1, 0] }],
      { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } }, spare: { type: 'box' }, m: { type: 'mesh', path: 'm\nFAKE.obj', sdf: { cells: 8 } } }));
    const c = stackfield(['check', file]);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout).toBe(`${join(dir, 'a\\nFAKE', 's.json')}: ok: scene, 3 bodies, 0 joints, 0 motors, 4 shapes\n`);
    expect(c.stderr).toContain(`${join(dir, 'a\\nFAKE', 's.json')}: shapes.spare: no body uses this shape`);
    expect(c.stderr).toContain('m\\nFAKE.obj: line 15: unsupported statement "xyz" ignored');
    for (const text of [c.stdout, c.stderr]) noForgedLine(text);
    const run = stackfield(['run', file, '--steps', '1', '--summary', 'none']);
    expect(run.status, run.stderr).toBe(0);
    noForgedLine(run.stderr);
  });

  it('a 1 MB unknown name or key is cut, with its length said', () => {
    const file = join(dir, 'big.json');
    writeFileSync(file, scene([{ name: 'a', shape: 'x'.repeat(1_000_000) }], { b: { type: 'box' } }));
    const r = stackfield(['run', file]);
    expectBadInput(r, '(1000000 characters)');
    expect(r.stderr.length).toBeLessThan(1000);
    const key = join(dir, 'bigkey.json');
    writeFileSync(key, scene([{ name: 'a', shape: 'b', ['k'.repeat(1_000_000)]: 1 }], { b: { type: 'box' } }));
    const k = stackfield(['run', key]);
    expectBadInput(k, 'unknown key', '(1000000 characters)');
    expect(k.stderr.length).toBeLessThan(1000);
  });

  it('an OBJ token with an escape sequence is escaped in a warning and in an error', () => {
    writeFileSync(join(dir, 'tok.obj'), `${CUBE_OBJ}xyz\u001b[31m foo\n`);
    const out = join(dir, 'g.json');
    const w = stackfield(['sdf', join(dir, 'tok.obj'), '--cells', '8', '--out', out]);
    expect(w.status, w.stderr).toBe(0);
    expect(w.stderr).toContain('unsupported statement "xyz\\u001b[31m" ignored');
    expectClean(w.stderr);
    writeFileSync(join(dir, 'num.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1\u001b[2J 0\nf 1 2 3\n');
    expectBadInput(stackfield(['sdf', join(dir, 'num.obj'), '--out', out]), 'num.obj: line 3', '"1\\u001b[2J"');
  });

  it('bench and sdf escape file and shape names on standard output', () => {
    const file = join(dir, '\u001b[34ms.json');
    writeFileSync(file, scene([{ name: 'a', shape: '\u001b[35mbox\u202e' }], { '\u001b[35mbox\u202e': { type: 'box', sdf: { cells: 8 } } }));
    for (const extra of [[], ['--json']]) {
      const r = stackfield(['bench', file, '--steps', '1', '--warmup', '0', '--repeats', '1', ...extra]);
      expect(r.status, r.stderr).toBe(0);
      expectClean(r.stdout);
      expect(r.stdout).toContain('\\u001b[35mbox\\u202e');
      if (extra.length === 0) expect(r.stdout).toContain('scene ' + join(dir, '\\u001b[34ms.json'));
      else expect(JSON.parse(r.stdout).shapes[0].name).toBe('\u001b[35mbox\u202e');
    }
    writeFileSync(join(dir, 'tet.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n');
    const sdf = stackfield(['sdf', join(dir, 'tet.obj'), '--cells', '8', '--out', join(dir, '\u001b[32mo\u0007.json')]);
    expect(sdf.status, sdf.stderr).toBe(0);
    expectClean(sdf.stdout);
    expect(sdf.stdout).toContain('\\u001b[32mo\\u0007.json: ');
  });

  it('option values and unknown options from the command line are escaped too', () => {
    expectBadInput(stackfield(['run', '--builtin', 'tower\u001b[2J']), 'unknown built-in scene "tower\\u001b[2J"');
    expectBadInput(stackfield(['run', '--st\u001beps', '3']), 'unknown option');
  });
});

describe('sizes that would run almost for ever are refused up front', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-size-'));
    writeFileSync(join(dir, 'cube.obj'), CUBE_OBJ);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a mesh of a thousand cubes crossing each other (millions of crossing pairs) is refused as too tangled, for sdf and for a scene, without a crash', () => {
    const lines: string[] = [];
    let seed = 3;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let k = 0; k < 1000; k++) {
      const a = 6 * rnd(), b = 6 * rnd();
      for (const line of CUBE_OBJ.trim().split('\n')) {
        if (line.startsWith('v ')) {
          const [x0, y0, z0] = line.slice(2).split(' ').map(Number) as [number, number, number];
          const x = x0 * Math.cos(a) - y0 * Math.sin(a), y = x0 * Math.sin(a) + y0 * Math.cos(a);
          lines.push(`v ${x} ${y * Math.cos(b) - z0 * Math.sin(b)} ${y * Math.sin(b) + z0 * Math.cos(b)}`);
        } else lines.push('f ' + line.slice(2).split(' ').map((i) => Number(i) + 8 * k).join(' '));
      }
    }
    writeFileSync(join(dir, 'tangle.obj'), lines.join('\n') + '\n');
    const said = 'pairs of triangles, too tangled to tell what it encloses';
    expectBadInput(stackfield(['sdf', join(dir, 'tangle.obj'), '--out', join(dir, 't.json')]), `${join(dir, 'tangle.obj')}: the mesh intersects itself in more than`, said);
    expect(existsSync(join(dir, 't.json'))).toBe(false);
    writeFileSync(join(dir, 'tangle.json'), scene([ground, { name: 't', shape: 't', position: [0, 2, 0] }], { floor: { type: 'plane' }, t: { type: 'mesh', path: 'tangle.obj' } }));
    expectBadInput(stackfield(['check', join(dir, 'tangle.json')]), 'tangle.json: shapes.t: the mesh intersects itself', said);
  });

  it('sdf --cells 1024 is refused with the node count, the cost and the override', () => {
    const t0 = performance.now();
    const r = stackfield(['sdf', join(dir, 'cube.obj'), '--cells', '1024', '--out', join(dir, 'g.json')]);
    expectBadInput(r, '1029 x 1029 x 1029 = 1089547389 nodes', 'more than the limit of 33554432', '--max-sdf-nodes 1089547389');
    expect(r.stderr).toMatch(/about \d+ (min|h|s) to bake/);
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(existsSync(join(dir, 'g.json'))).toBe(false);
  });

  it('a sphere of [1024, 1024] segments is refused with its triangle count and the override', () => {
    const file = join(dir, 'sphere.json');
    writeFileSync(file, scene([{ name: 'ball', shape: 'ball' }], { ball: { type: 'sphere', segments: [1024, 1024] } }));
    const r = stackfield(['run', file]);
    expectBadInput(r, 'sphere.json: shapes.ball:', 'has 2095104 triangles', 'more than the limit of 1000000', 'fewer "segments"', '(--max-triangles 2095104)');
  });

  it('an SDF of 512 cells is refused; raising the limit is accepted by the option', () => {
    const file = join(dir, 'cells.json');
    writeFileSync(file, scene([{ name: 'b', shape: 'b' }], { b: { type: 'box', size: [1, 0.05, 0.05], sdf: { cells: 512 } } }));
    // A thin box: 517 x 30 x 30 nodes, under the default limit, is built.
    const ok = stackfield(['run', file, '--steps', '1', '--summary', 'none']);
    expect(ok.status, ok.stderr).toBe(0);
    writeFileSync(file, scene([{ name: 'b', shape: 'b' }], { b: { type: 'box', sdf: { cells: 512 } } }));
    expectBadInput(stackfield(['run', file, '--steps', '1']), 'would have 138188413 nodes', '(--max-sdf-nodes 138188413)');
    expectBadInput(stackfield(['run', file, '--max-sdf-nodes', 'lots']), '--max-sdf-nodes expects an integer');
  });

  it('progress is shown for work that takes longer than the delay (0 here)', () => {
    const r = stackfield(['run', '--builtin', 'tower', '--param', 'height=3', '--steps', '3', '--summary', 'none'], { env: { STACKFIELD_PROGRESS_AFTER_MS: '0' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('stackfield: building the world: shape 2 of 2 ("box"), SDF 0%');
    expect(r.stderr).toContain('stackfield: step 1 of 3 (33%)');
    const sdf = stackfield(['sdf', join(dir, 'cube.obj'), '--cells', '16', '--out', join(dir, 'g.json')], { env: { STACKFIELD_PROGRESS_AFTER_MS: '0' } });
    expect(sdf.status, sdf.stderr).toBe(0);
    expect(sdf.stderr).toMatch(/stackfield: baking \d+ nodes: \d+%/);
    // bench too, through a pipe as in a log (it showed progress on a terminal only: nothing for minutes).
    const bench = stackfield(['bench', '--builtin', 'tower', '--param', 'height=3', '--steps', '3', '--warmup', '0', '--threads', '1'], { env: { STACKFIELD_PROGRESS_AFTER_MS: '0' } });
    expect(bench.status, bench.stderr).toBe(0);
    expect(bench.stderr).toMatch(/stackfield: +\d+% cpu: /);
  });
});

describe('messages say what is wrong', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-msg-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a huge or tiny procedural box is refused for its size, not for triangles the user never wrote', () => {
    for (const size of [[1e30, 1e30, 1e30], [1e-30, 1e-30, 1e-30]]) {
      const file = join(dir, 'size.json');
      writeFileSync(file, scene([{ name: 'b', shape: 'b' }], { b: { type: 'box', size } }));
      const r = stackfield(['run', file]);
      expectBadInput(r, 'size.json: shapes.b:', 'across (bounding-box diagonal)');
      expect(r.stderr).not.toContain('triangle');
      // The scene file is named once.
      expect(r.stderr.split('size.json')).toHaveLength(2);
    }
  });

  it('a mesh path that is a device or a directory is named as such, not "not found"', () => {
    const file = join(dir, 'dev.json');
    writeFileSync(file, scene([{ name: 'b', shape: 'm' }], { m: { type: 'mesh', path: '/dev/null' } }));
    const dev = stackfield(['run', file]);
    expectBadInput(dev, 'shapes.m.path', 'mesh path "/dev/null" is a character device, not a mesh file');
    expect(dev.stderr).not.toContain('not found');
    writeFileSync(file, scene([{ name: 'b', shape: 'm' }], { m: { type: 'mesh', path: '.' } }));
    expectBadInput(stackfield(['run', file]), 'is a directory, not a mesh file');
    expectBadInput(stackfield(['run', '/dev/zero']), '/dev/zero: is a character device, not a scene file');
    expectBadInput(stackfield(['sdf', dir, '--out', join(dir, 'x.json')]), 'is a directory');
  });

  it('a mesh error names the scene file once and counts OBJ vertices from 1', () => {
    // Vertex 1 is used by no face; the open edge runs between OBJ vertices 2 and 4.
    writeFileSync(join(dir, 'open.obj'), 'v 9 9 9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.5 0.5 0\nf 2 4 3\nf 2 3 5\nf 3 4 5\nf 2 5 4\nf 2 3 6\n');
    const file = join(dir, 'obj.json');
    writeFileSync(file, scene([{ name: 'b', shape: 'm' }], { m: { type: 'mesh', path: 'open.obj' } }));
    const r = stackfield(['run', file]);
    expectBadInput(r, 'obj.json: shapes.m.path: open.obj: edge 2-6: mesh is not closed', 'vertex 2 (0, 0, 0) and vertex 6 (0.5, 0.5, 0)');
    const error = r.stderr.split('\n').find((l) => l.startsWith('stackfield: error:'))!;
    expect(error.split('obj.json')).toHaveLength(2);
  });

  it('--steps= (empty) is refused instead of read as 0', () => {
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--steps=']), '--steps needs a value (got an empty one)');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--steps', ' ']), '--steps expects an integer');
  });

  it('a file holding only null is refused at the top level by every command that reads one, exit 2', () => {
    const file = join(dir, 'n.json');
    writeFileSync(file, 'null\n');
    const scene = 'n.json: expected a JSON object at the top level ({"format": "stackfield-scene/1", ...}), got null';
    const either = 'n.json: expected a JSON object at the top level (a library {"format": "stackfield-library/1", ...} or a scene {"format": "stackfield-scene/1", ...}), got null';
    expectBadInput(stackfield(['run', file, '--steps', '1']), scene);
    expectBadInput(stackfield(['bench', file, '--steps', '1']), scene);
    expectBadInput(stackfield(['check', file]), either);
    expectBadInput(stackfield(['lib', file]), either);
    // A number was listed as "(no definitions)" with exit 0.
    writeFileSync(file, '42\n');
    expectBadInput(stackfield(['lib', file]), 'got 42');
  });

  it('check gives the warnings run gives that need no baked field, and its help names those it cannot give', () => {
    const file = join(dir, 'warned.json');
    writeFileSync(file, scene([ground, box(), box({ name: 'twin', position: [0.1, 1, 0] }), box({ name: 'hung', position: [5, 1, 0] })],
      { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } }, spare: { type: 'sphere' } }).replace(/}$/,
      ',"joints":[{"name":"hang","type":"ball","bodyA":"ground","bodyB":"hung","anchorA":[5,3,0],"anchorB":[0,0.5,0]}]}'));
    const unused = 'warned.json: shapes.spare: no body uses this shape';
    const open = 'warned.json: joints[0] ("hang"): its anchors are 1.5 m apart at the start';
    const run = stackfield(['run', file, '--steps', '1', '--summary', 'none']);
    expect(run.status, run.stderr).toBe(0);
    for (const w of [unused, open, 'starts deep inside']) expect(run.stderr).toContain(w);
    const c = stackfield(['check', file]);
    expect(c.status, c.stderr).toBe(0);
    for (const w of [unused, open]) expect(c.stderr).toContain(w);
    expect(c.stderr.split('\n').filter((l) => l.includes('warning:'))).toHaveLength(2);
    expect(stackfield(['check', '--help']).stdout).toMatch(/but for what needs a baked\s+field: bodies that start deep inside each other/);
  });

  it('check calls a library\'s unreadable mesh a mesh file, not an included file', () => {
    const lib = join(dir, 'meshes.library.json');
    writeFileSync(lib, JSON.stringify({ format: 'stackfield-library/1', shapes: { m: { type: 'mesh', path: 'missing.obj' } } }));
    const r = stackfield(['check', lib]);
    expectBadInput(r, 'shapes.m.path', 'mesh file not found');
    expect(r.stderr).not.toContain('included file');
    writeFileSync(lib, JSON.stringify({ format: 'stackfield-library/1', shapes: { m: { type: 'mesh', path: '.' } } }));
    expectBadInput(stackfield(['check', lib]), 'is a directory, not a mesh file');
  });

  it('a Vulkan driver setting that names no file is said without Dawn\'s native call site (exit 1)', () => {
    const file = join(dir, 'gpu.json');
    writeFileSync(file, scene([ground, box()]));
    const r = stackfield(['run', file, '--steps', '1', '--backend', 'gpu'], { env: { VK_ICD_FILENAMES: '/nonexistent.json' } });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('WebGPU is not available: no adapter found (VK_ICD_FILENAMES=/nonexistent.json: no such file');
    expect(r.stderr).not.toMatch(/\bat \w+ \(|\.cpp:\d+/);
    expectClean(r.stderr);
  });

  it('a shape no body uses is still loaded: its missing mesh is reported', () => {
    const file = join(dir, 'unused.json');
    writeFileSync(file, scene([{ name: 'b', shape: 'b' }], { b: { type: 'box' }, spare: { type: 'mesh', path: 'missing.obj' } }));
    expectBadInput(stackfield(['run', file]), 'unused.json: shapes.spare.path: mesh file not found: "missing.obj"');
  });
});

describe('encodings, pipes, limits and magnitudes a hostile probe found', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-probe-'));
    writeFileSync(join(dir, 'cube.obj'), CUBE_OBJ);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a scene, library or mesh file that is not UTF-8 is refused naming the line, column and byte; UTF-16 and CR-only OBJ files are read or named', () => {
    const latin1 = join(dir, 'latin1.json');
    writeFileSync(latin1, Buffer.concat([Buffer.from(`{"format": "${FORMAT}",\n "shapes": {"b": {"type": "box"}},\n "bodies": [{"name": "a`), Buffer.from([0xe9]), Buffer.from('b", "shape": "b"}]}\n')]));
    for (const cmd of ['check', 'run', 'lib']) expectBadInput(stackfield([cmd, latin1]), 'latin1.json: line 3, column 24: the file is not UTF-8 text (byte 0xe9): save it as UTF-8');
    const utf16 = join(dir, 'utf16.obj');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(CUBE_OBJ, 'utf16le')]));
    expectBadInput(stackfield(['sdf', utf16, '--out', join(dir, 'g.json')]), 'utf16.obj: the file is UTF-16 text, not UTF-8: save it as UTF-8');
    // Without the byte-order mark: NULs between the characters.
    writeFileSync(utf16, Buffer.from(CUBE_OBJ, 'utf16le'));
    expectBadInput(stackfield(['sdf', utf16, '--out', join(dir, 'g.json')]), 'utf16.obj: the file is UTF-16 text, not UTF-8');
    // Through a scene: named as the scene names it, with the line and column.
    const latinObj = join(dir, 'latin1.obj');
    writeFileSync(latinObj, Buffer.concat([Buffer.from('v 0 0 0\nv 1 0 0 # caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const meshScene = join(dir, 'meshScene.json');
    writeFileSync(meshScene, JSON.stringify({ format: FORMAT, shapes: { m: { type: 'mesh', path: 'latin1.obj' } }, bodies: [{ name: 'a', shape: 'm' }] }));
    expectBadInput(stackfield(['run', meshScene]), 'meshScene.json: shapes.m.path: latin1.obj: line 2, column 14: the file is not UTF-8 text (byte 0xe9)');
    // Classic Mac OS line endings: a CR alone ends each line.
    const cr = join(dir, 'cr.obj');
    writeFileSync(cr, CUBE_OBJ.replace(/\n/g, '\r'));
    const ok = stackfield(['sdf', cr, '--cells', '8', '--out', join(dir, 'g.json')]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'g.json'), 'utf8')).mass).toBeCloseTo(8, 9);
  });

  it('a binary STL is named as one, and UTF-32 or zero-filled files are not called UTF-16', () => {
    // 80-byte header (starting "solid", as many do), a triangle count, 50 bytes a triangle.
    const stl = Buffer.alloc(84 + 50 * 2);
    stl.write('solid exported by MeshLab', 0, 'latin1');
    stl.fill(0x80, 100, 110);
    stl.writeUInt32LE(2, 80);
    writeFileSync(join(dir, 'bin.stl'), stl);
    writeFileSync(join(dir, 'zero.stl'), Buffer.concat([Buffer.alloc(80), Buffer.from([1, 0, 0, 0]), Buffer.alloc(50)]));
    for (const f of ['bin.stl', 'zero.stl']) {
      expectBadInput(stackfield(['sdf', join(dir, f), '--out', join(dir, 'g.json')]), `${join(dir, f)}: this is a binary STL file, not a Wavefront OBJ mesh: only OBJ is read (convert it, e.g. in Blender or MeshLab)`);
    }
    const text = scene([ground, box()]);
    const utf32le = Buffer.alloc(text.length * 4);
    for (let i = 0; i < text.length; i++) utf32le.writeUInt32LE(text.charCodeAt(i), i * 4);
    writeFileSync(join(dir, 'u32.json'), Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32le]));
    writeFileSync(join(dir, 'u32nobom.json'), utf32le);
    expectBadInput(stackfield(['check', join(dir, 'u32.json')]), `${join(dir, 'u32.json')}: the file is UTF-32 text, not UTF-8: save it as UTF-8`);
    expectBadInput(stackfield(['check', join(dir, 'u32nobom.json')]), `${join(dir, 'u32nobom.json')}: the file is UTF-32 text, not UTF-8: save it as UTF-8 (JSON files are UTF-8)`);
    writeFileSync(join(dir, 'nul.json'), Buffer.alloc(100));
    writeFileSync(join(dir, 'nul.obj'), Buffer.alloc(100));
    expectBadInput(stackfield(['check', join(dir, 'nul.json')]), `${join(dir, 'nul.json')}: the file holds only NUL bytes (zeros), not text`);
    expectBadInput(stackfield(['sdf', join(dir, 'nul.obj'), '--out', join(dir, 'g.json')]), `${join(dir, 'nul.obj')}: the file holds only NUL bytes (zeros), not text`);
  });

  it('check reads a scene from a pipe (a shell\'s <(...)) as run does, and names check\'s own options', () => {
    const r = pipeline(`"${process.execPath}" "${BIN}" check <(printf '%s' '${scene([ground, box()])}')`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: ok: scene, 2 bodies/);
    expectBadInput(stackfield(['check', 'x.json', '--steps', '5']), 'unknown option "--steps" (options: --max-triangles, --max-sdf-nodes, --help)');
  });

  it('a shape over the node limit says how to raise it, in check and run alike; a mesh scaled to nothing is refused for its size', () => {
    const file = join(dir, 'cells.json');
    writeFileSync(file, scene([{ name: 'b', shape: 'b' }], { b: { type: 'box', sdf: { cells: 512, padding: 16 } } }));
    for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), 'would have 161878625 nodes', '(--max-sdf-nodes 161878625)');
    const raised = stackfield(['check', file, '--max-sdf-nodes', '200000000']);
    expect(raised.status, raised.stderr).toBe(0);
    writeFileSync(file, scene([{ name: 'b', shape: 'm' }], { m: { type: 'mesh', path: 'cube.obj', scale: 5e-324 } }));
    expectBadInput(stackfield(['check', file]), 'shapes.m.path: cube.obj: the shape is 1.48e-323 across (bounding-box diagonal); expected a size between 1e-20 and 1e20');
  });

  it('a step under a microsecond, motor targets past half a turn a step or the speed of light, torques past 1e12 and anchors past 1e9 m are refused when read', () => {
    const file = join(dir, 'm.json');
    const hook = { name: 'hook', shape: 'box', static: true, position: [0, 5, 0] };
    const write = (extra: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 8 } } }, bodies: [hook, box({ position: [0, 4, 0] })], ...extra }));
    write({ dt: 1e-200 });
    expectBadInput(stackfield(['check', file]), 'm.json: dt: expected a number from 0.000001 to 0.1, got 1e-200');
    write({ motors: [{ body: 'box', axis: [0, 1, 0], speed: 1e300, maxTorque: 10 }] });
    expectBadInput(stackfield(['check', file]), 'motors[0].speed: expected a speed of at most 314.2 rad/s either way (half a turn per step of "dt" 0.01 s), got 1e+300');
    write({ motors: [{ body: 'box', targetAngularVelocity: [0, 400, 0], maxTorque: 10 }] });
    expectBadInput(stackfield(['check', file]), 'motors[0].targetAngularVelocity: expected at most 314.2 rad/s');
    write({ motors: [{ body: 'box', axis: [0, 1, 0], speed: 1, maxTorque: 1e300 }] });
    expectBadInput(stackfield(['check', file]), 'motors[0].maxTorque: expected a number from 0 to 1000000000000, got 1e+300');
    const slider = { type: 'slider', name: 's', bodyA: 'hook', bodyB: 'box', anchorA: [0, -0.5, 0], anchorB: [0, 0.5, 0], axisA: [0, 1, 0] };
    write({ joints: [slider], motors: [{ joint: 's', program: [{ speed: 1, duration: 1 }, { speed: -1e300, duration: 1 }], maxTorque: 10 }] });
    expectBadInput(stackfield(['check', file]), 'motors[0].program[1].speed: expected a speed of at most 2.998e8 m/s either way (the speed of light), got -1e+300');
    write({ joints: [{ type: 'ball', bodyA: 'hook', bodyB: 'box', anchorA: [0, 1e17, 0], anchorB: [0, 1e17, 0] }] });
    expectBadInput(stackfield(['check', file]), 'joints[0].anchorA[1]: expected a coordinate from -1e9 to 1e9 m');
  });

  it('a polygon far from the origin has its own area; a shape that then encloses nothing is an input error, not a crash', () => {
    const file = join(dir, 'far.json');
    writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { e: { type: 'revolve', profile: [[0, 1e12], [1, 1e12], [0, 1e12 + 1]] } }, bodies: [{ shape: 'e' }] }));
    expectBadInput(stackfield(['check', file]), 'far.json: shapes.e: mesh encloses volume 0');
    writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { e: { type: 'extrude', polygon: [[0, 1e6], [1, 1e6], [0, 1e6 + 1]], depth: 1 } }, bodies: [{ shape: 'e' }] }));
    const ok = stackfield(['check', file]);
    expect(ok.status, ok.stderr).toBe(0);
  });

  it('an impulse or force point past 1e9 m is refused when read, naming it', () => {
    const file = join(dir, 'point.json');
    for (const type of ['impulse', 'force']) {
      const f = type === 'impulse' ? { type, body: 'box', impulse: [0, 0, 1], point: [0, 1e300, 0], at: 0 } : { type, body: 'box', force: [0, 0, 1], point: [2e9, 0, 0] };
      writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } }, bodies: [ground, box()], forces: [f] }));
      for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), `point.json: forces[0].point[${type === 'impulse' ? 1 : 0}]: expected a coordinate from -1e9 to 1e9 m`);
    }
  });

  it('a force or impulse that would change a body\'s velocity by more than the speed of light is refused by check and run alike', () => {
    const file = join(dir, 'light.json');
    const write = (f: Record<string, unknown>, mass: number) => writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } },
      bodies: [ground, box({ mass })], forces: [f] }));
    write({ type: 'impulse', body: 'box', impulse: [0, 0, 1e12], at: 0 }, 1e-9);
    for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), 'light.json: forces[0].impulse: an impulse of 1e12 N s on body "box" (mass 1e-9 kg) changes its velocity by 1e21 m/s, more than the speed of light');
    write({ type: 'field', force: [0, 0, 1e12] }, 1);
    for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), 'light.json: forces[0].force: a force of 1e12 N on body "box" (mass 1 kg) changes its velocity by 1e10 m/s in one step of 0.01 s');
    // 1e6 N s on a 1 kg body is 1e6 m/s: fast, but allowed.
    write({ type: 'impulse', body: 'box', impulse: [0, 0, 1e6], at: 0 }, 1);
    const ok = stackfield(['check', file]);
    expect(ok.status, ok.stderr).toBe(0);
  });

  it('check refuses what run refuses for a soft body once its particles exist: its substep budget, a pin far from it, a shape too thin for any lattice', () => {
    const file = join(dir, 'soft.json');
    const write = (soft: Record<string, unknown>, shapes: Record<string, unknown> = { cube: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 16 } } }) =>
      writeFileSync(file, JSON.stringify({ format: FORMAT, shapes: { floor: { type: 'plane' }, hook: { type: 'box', sdf: { cells: 8 } }, ...shapes },
        bodies: [ground, { name: 'hook', shape: 'hook', static: true, position: [0, 3, 0] }], softBodies: [{ name: 'jelly', shape: 'cube', position: [0, 1, 0], ...soft }] }));
    write({ stiffness: 1e10 });
    for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), /soft\.json: softBodies\[0\]: soft body "jelly" needs \d+ substeps per step \(dt = 0\.01 s\) to stay stable, more than softSolver\.maxSubsteps = 512/);
    write({ pins: [{ body: 'hook', anchor: [0, 1e8, 0] }] });
    for (const cmd of ['check', 'run']) expectBadInput(stackfield([cmd, file]), 'soft.json: softBodies[0].pins[0]: the anchor (world [0, 100000003, 0])');
    write({ shape: 'sheet', construction: { method: 'lattice', resolution: 40 } }, { sheet: { type: 'box', size: [1, 0.001, 1], sdf: { cells: 16 } } });
    for (const cmd of ['check', 'run']) {
      expectBadInput(stackfield([cmd, file]), 'soft.json: softBodies[0].construction.resolution: soft body "jelly": no lattice cell lies inside the shape even at the finest resolution (40): the shape is too thin for a lattice');
    }
    write({});
    const ok = stackfield(['check', file]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/: ok: scene, 2 bodies, 0 joints, 0 motors, 3 shapes, 1 soft body/);
  });

  it('a path too long for the file system, or holding a NUL, is named (cut to its start and end) with what is wrong', () => {
    const long = join(dir, `\u001b[2J${'a'.repeat(5000)}.json`);
    const r = stackfield(['check', long]);
    expectBadInput(r, '.json (', 'characters): cannot read the file: its path (or a part of it) is longer than the file system allows');
    expect(r.stderr.length).toBeLessThan(600);
    const file = join(dir, 'nul.json');
    writeFileSync(file, scene([ground, { name: 'm', shape: 'm' }], { floor: { type: 'plane' }, m: { type: 'mesh', path: 'a\u0000b.obj' } }));
    expectBadInput(stackfield(['check', file]), 'nul.json: shapes.m.path: cannot read the mesh file: the path holds a NUL character (\\u0000)');
  });

  it('a pipe that never ends is refused past the largest text read, and a slow writer that has started is not called silent', () => {
    const endless = pipeline(`"${process.execPath}" "${BIN}" check <(cat /dev/zero)`);
    expectBadInput(endless, ': the file is more than 256 MB; the largest read is 256 MB');
    const file = join(dir, 'slow.json');
    writeFileSync(file, scene([ground, box()]));
    // The first half at once, the rest after two seconds: data has come, so there is no notice.
    const slow = pipeline(`"${process.execPath}" "${BIN}" check <(head -c 20 "${file}"; sleep 2; tail -c +21 "${file}")`);
    expect(slow.status, slow.stderr).toBe(0);
    expect(slow.stderr).toBe('');
    // A mesh from a pipe, as a scene from one.
    const out = join(dir, 'piped.json');
    const mesh = pipeline(`"${process.execPath}" "${BIN}" sdf <(cat "${join(dir, 'cube.obj')}") --cells 8 --out "${out}"`);
    expect(mesh.status, mesh.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).mass).toBeCloseTo(8, 9);
  });

  it('an STL file, a mesh of collinear points, a library in a missing folder and a bare "@" are named for what they are', () => {
    const stl = join(dir, 'part.stl');
    writeFileSync(stl, 'solid part\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid part\n');
    expectBadInput(stackfield(['sdf', stl, '--out', join(dir, 'g.json')]), 'part.stl: line 1: this is an STL file, not a Wavefront OBJ mesh: only OBJ is read');
    const line = join(dir, 'line.obj');
    writeFileSync(line, 'v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n');
    expectBadInput(stackfield(['sdf', line, '--out', join(dir, 'g.json')]), 'line.obj: line 5: all 4 triangles are degenerate (three points on one line)');
    // One such face, open: counted before a hole filling adds to it.
    const one = join(dir, 'one.obj');
    writeFileSync(one, 'v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n');
    expectBadInput(stackfield(['sdf', one, '--out', join(dir, 'g.json')]), 'one.obj: line 4: 1 degenerate triangle (three points on one line), first: triangle 1 (line 4)');
    expectBadInput(stackfield(['lib', 'add', join(dir, 'nowhere', 'x.library.json'), 'shape', 'b', '{"type": "box"}']), 'x.library.json: cannot write the library: its folder', 'nowhere" does not exist');
    expectBadInput(stackfield(['lib', 'add', join(dir, 'y.library.json'), 'shape', 'b', '@']), 'command line VALUE: expected @FILE (the record in a JSON file), got "@" alone');
  });

  it('bench refuses the options of the other benchmark instead of ignoring them', () => {
    expectBadInput(stackfield(['bench', '--sdf', '--steps', 'abc']), 'command line: --steps applies to scene benchmarks, not to --sdf');
    expectBadInput(stackfield(['bench', '--sdf', 'scene.json']), 'command line: a scene file ("scene.json") applies to scene benchmarks, not to --sdf');
    expectBadInput(stackfield(['bench', '--sdf', '--builtin', 'tower']), '--builtin applies to scene benchmarks');
    expectBadInput(stackfield(['bench', '--builtin', 'tower', '--cells', 'abc']), 'command line: --cells applies to --sdf only');
  });

  it('a named pipe nothing has written to yet is waited on with a line that says so, and read once written', () => {
    const fifo = join(dir, 'fifo.json'), file = join(dir, 'p.json');
    writeFileSync(file, scene([ground, box()]));
    expect(pipeline(`mkfifo "${fifo}"`).status).toBe(0);
    // The writer waits 4 s: the notice comes after 1 s of waiting, and a loaded machine can take
    // over a second to start node (with 1.5 s the writer came first in a CI run).
    const r = pipeline(`( sleep 4; cat "${file}" > "${fifo}" ) & "${process.execPath}" "${BIN}" check "${fifo}"`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('stackfield: waiting for data on the named pipe');
    expect(r.stdout).toMatch(/: ok: scene, 2 bodies/);
    // A pipe that is written at once says nothing.
    const quick = pipeline(`"${process.execPath}" "${BIN}" check <(cat "${file}")`);
    expect(quick.status, quick.stderr).toBe(0);
    expect(quick.stderr).toBe('');
  });

  it('an --out named pipe nothing reads yet is waited on with a line that says so, and written once read', () => {
    const fifo = join(dir, 'out-fifo'), got = join(dir, 'got.jsonl'), file = join(dir, 'q.json');
    writeFileSync(file, scene([ground, box()]));
    expect(pipeline(`mkfifo "${fifo}"`).status).toBe(0);
    // The reader comes after 4 s (the notice after 1 s of waiting; see the test above).
    const r = pipeline(`( sleep 4; cat "${fifo}" > "${got}" ) & "${process.execPath}" "${BIN}" run "${file}" --steps 1 --summary none --out "${fifo}"; s=$?; wait; exit $s`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`stackfield: waiting for a reader on the named pipe "${fifo}": nothing has opened it for reading yet (Ctrl-C stops)\n`);
    expect(readFileSync(got, 'utf8').trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([0, 1]);
  });

  it('a scene of more than a million bodies is refused as bad input, before its bodies are read (not a heap crash)', () => {
    const big = join(dir, 'million.json');
    writeFileSync(big, `{"format":"${FORMAT}","shapes":{"b":{"type":"box"}},"bodies":[${'{"shape":"b"},'.repeat(1_000_000)}{"shape":"b"}]}`);
    for (const command of ['check', 'run']) {
      expectBadInput(stackfield([command, big], { timeout: 60_000 }),
        `${big}: bodies[1000000]: more than 1000000 bodies: a scene holds at most 1000000 bodies (each takes memory as the scene is read; a larger scene would run out of it): split the scene`);
    }
    rmSync(big);
  });

  it('bench --sdf --cells reads each entry as sdf --cells does: decimal digits, 8 to 1024', () => {
    for (const v of ['0x10', '1e2', ' 64', '2000']) {
      expectBadInput(stackfield(['bench', '--sdf', '--cells', `64,${v}`, '--repeats', '1']), `command line: --cells expects an integer from 8 to 1024, got "${v}"`);
    }
    expectBadInput(stackfield(['bench', '--sdf', '--cells', '4', '--repeats', '1']), 'command line: --cells 4 is too coarse: the minimum is 8 cells along the longest side');
    expectBadInput(stackfield(['sdf', join(dir, 'cube.obj'), '--cells', '0x10', '--out', join(dir, 'g.json')]), 'command line: --cells expects an integer from 8 to 1024, got "0x10"');
  });

  it('bench --sdf refuses a grid over --max-sdf-nodes at once, as sdf does, before anything is baked', () => {
    // It had baked a 1029^3 grid for minutes while its memory climbed to gigabytes.
    const t0 = Date.now();
    expectBadInput(stackfield(['bench', '--sdf', '--cells', '64,1024', '--repeats', '1'], { timeout: 30_000 }),
      'command line: the grid of the sphere at --cells 1024 would have 1029 x 1029 x 1029 = 1089547389 nodes, more than the limit of 33554432 (about ',
      'lower --cells, or raise the limit with --max-sdf-nodes 1089547389');
    expect(Date.now() - t0).toBeLessThan(20_000);
    // The limit is --max-sdf-nodes, as sdf's and run's: 8 cells with 2 of padding on the sphere's cube are 13^3 nodes.
    expectBadInput(stackfield(['bench', '--sdf', '--cells', '8', '--repeats', '1', '--max-sdf-nodes', '2000']),
      'command line: the grid of the sphere at --cells 8 would have 13 x 13 x 13 = 2197 nodes, more than the limit of 2000');
    expectBadInput(stackfield(['bench', '--sdf', '--max-triangles', '10']), 'command line: --max-triangles applies to scene benchmarks, not to --sdf');
  });

  it('bench over a size limit names the options that raise it, as run does (--max-sdf-nodes, --max-triangles), and honours them', () => {
    // It had named the library's "limits.maxSdfNodes = N", which the command line cannot set.
    const cells = join(dir, 'cells512.json');
    writeFileSync(cells, scene([{ shape: 'b' }], { b: { type: 'box', sdf: { cells: 512 } } }));
    const segments = join(dir, 'segments1024.json');
    writeFileSync(segments, scene([{ shape: 'b' }], { b: { type: 'sphere', segments: [1024, 1024] } }));
    for (const command of ['run', 'bench']) {
      expectBadInput(stackfield([command, cells, '--steps', '1']), `${cells}: shapes.b: its SDF grid would have 138188413 nodes`, 'raise the limit (--max-sdf-nodes 138188413)');
      expectBadInput(stackfield([command, segments, '--steps', '1']), `${segments}: shapes.b: the shape has 2095104 triangles`, 'raise the limit (--max-triangles 2095104)');
      // A lower limit is the one in force: the 8-cell box of the usual scene (13^3 nodes) is over 1000.
      const small = join(dir, 'small-limit.json');
      writeFileSync(small, scene([box()]));
      expectBadInput(stackfield([command, small, '--steps', '1', '--max-sdf-nodes', '1000']), 'more than the limit of 1000 per shape', '(--max-sdf-nodes ');
    }
  });

  it('bench reads a scene\'s mesh files as run does: one that is not UTF-8 is refused', () => {
    writeFileSync(join(dir, 'latin.obj'), Buffer.concat([Buffer.from('# caf\xe9 mesh\n', 'latin1'), Buffer.from(CUBE_OBJ)]));
    const latin = join(dir, 'latin.json');
    writeFileSync(latin, scene([ground, { name: 'b', shape: 'm', position: [0, 2, 0] }], { floor: { type: 'plane' }, m: { type: 'mesh', path: 'latin.obj', sdf: { cells: 8 } } }));
    for (const command of ['run', 'bench']) {
      expectBadInput(stackfield([command, latin, '--steps', '2', '--threads', '1']), `${latin}: shapes.m.path: latin.obj: line 1, column 6: the file is not UTF-8 text (byte 0xe9): save it as UTF-8`);
    }
  });

  it('an option\'s bad value is a command-line error like every other, and a number that reads as 0 is named as typed', () => {
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--backend', 'tpu']), 'command line: --backend: expected "cpu" or "gpu", got "tpu"');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--param', 'size=1e-400']), 'command line: --param size: "1e-400" is too close to 0 for a double (it reads as 0)');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--param', 'size=1e3']), 'command line: --builtin: parameter size of scene "tower" must be a number in [0.001, 100], got 1000');
    // A parameter is a decimal number: Number() alone read "0x10" as 16, "0b11" as 3 and a blank as 0.
    for (const v of ['0x10', '0b11', ' ', 'Infinity']) {
      expectBadInput(stackfield(['run', '--builtin', 'rings', '--param', `rings=${v}`, '--dump']), `--param expects name=number (a decimal number such as 20, 0.5 or 1e-3), got "rings=${v}"`);
    }
  });

  it('bench refuses a backend listed twice or an empty entry', () => {
    expectBadInput(stackfield(['bench', '--builtin', 'tower', '--steps', '2', '--backend', 'cpu,cpu']), '--backend: backend "cpu" is listed twice');
    expectBadInput(stackfield(['bench', '--builtin', 'tower', '--steps', '2', '--backend', 'cpu,']), '--backend: expected a list like cpu,gpu, got "cpu,"');
  });
});
