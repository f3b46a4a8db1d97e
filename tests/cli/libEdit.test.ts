/**
 * `stackfield lib add/remove` (docs/LIBRARY_FORMAT.md, "Editing a library"):
 * records created and removed by name, the result checked as `stackfield
 * check` checks it, and a file that is never lost (an edit that fails leaves
 * it byte for byte as it was, and no temporary file behind).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, existsSync, statSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFiles } from '../robots/helpers.ts';
import { BIN, expectBadInput, pipeline, stackfield } from './cliHelpers.ts';

const PLATE = { type: 'box', size: [0.5, 0.06, 0.4] };
const ROBOT = {
  description: 'two plates on a hinge',
  parts: [{ alias: 'a', template: 'plate' }, { alias: 'b', template: 'plate', position: [0.52, 0, 0] }],
  joints: [{ name: 'knee', type: 'hinge', bodyA: 'a', bodyB: 'b', anchorA: [0.26, 0, 0], anchorB: [-0.26, 0, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] }],
  motors: [{ name: 'm', joint: 'knee', speed: 2, maxTorque: 10 }],
};

const j = (v: unknown) => JSON.stringify(v);

describe('stackfield lib add', () => {
  it('creates a library record by record, each step checked, and check and lib accept the result', () => {
    const dir = writeFiles({});
    const lib = join(dir, 'my.library.json');
    const r1 = stackfield(['lib', 'add', lib, 'shape', 'plate', j(PLATE)]);
    expect(r1.status, r1.stderr).toBe(0);
    expect(r1.stdout).toBe(`${lib}: created, added shape "plate": ok: library, 1 shape, 0 materials, 0 body templates, 0 robots\n`);
    expect(stackfield(['lib', 'add', lib, 'material', 'plastic', j({ density: 500, friction: 0.3 })]).status).toBe(0);
    expect(stackfield(['lib', 'add', lib, 'body', 'plate', j({ shape: 'plate', material: 'plastic' })]).status).toBe(0);
    const r4 = stackfield(['lib', 'add', lib, 'robot', 'pair', j(ROBOT)]);
    expect(r4.status, r4.stderr).toBe(0);
    expect(r4.stdout).toBe(`${lib}: added robot "pair": ok: library, 1 shape, 1 material, 1 body template, 1 robot\n`);
    const check = stackfield(['check', lib]);
    expect(check.status, check.stderr).toBe(0);
    const listed = JSON.parse(stackfield(['lib', lib, '--json']).stdout);
    const robot = listed.files[0].robots[0];
    // Two plates of 0.5 x 0.06 x 0.4 m at 500 kg/m^3: 2 * 6 kg; 12 DOF less a hinge's 5.
    expect(robot.mass).toBeCloseTo(12, 9);
    expect(robot.dof).toBe(7);
    expect(robot.motorList.map((m: { name: string; kind: string }) => `${m.name} ${m.kind}`)).toEqual(['m hinge']);
    // The file holds exactly what was added, in the order added.
    const json = JSON.parse(readFileSync(lib, 'utf8'));
    expect(Object.keys(json)).toEqual(['format', 'shapes', 'materials', 'bodies', 'robots']);
    expect(json.robots.pair).toEqual(ROBOT);
    expect(readdirSync(dir)).toEqual(['my.library.json']);
  });

  it('refuses to replace a record without --force, and replaces it with it', () => {
    const dir = writeFiles({ 'l.json': { format: 'stackfield-library/1', shapes: { plate: PLATE }, bodies: { plate: { shape: 'plate' } } } });
    const lib = join(dir, 'l.json');
    const before = readFileSync(lib, 'utf8');
    expectBadInput(stackfield(['lib', 'add', lib, 'body', 'plate', j({ shape: 'plate', density: 10 })]), `${lib}: bodies.plate: body template "plate" is already defined here; give --force to replace it`);
    expect(readFileSync(lib, 'utf8')).toBe(before);
    const r = stackfield(['lib', 'add', lib, 'body', 'plate', j({ shape: 'plate', density: 10 }), '--force']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(lib, 'utf8')).bodies.plate).toEqual({ shape: 'plate', density: 10 });
    // 0.012 m^3 at 10 kg/m^3.
    expect(JSON.parse(stackfield(['lib', lib, '--json']).stdout).files[0].bodies[0].mass).toBeCloseTo(0.12, 12);
  });

  it('refuses a record that check would refuse, naming the file and JSON path, and leaves the file as it was', () => {
    const dir = writeFiles({ 'l.json': { format: 'stackfield-library/1', shapes: { plate: PLATE } } });
    const lib = join(dir, 'l.json');
    const before = readFileSync(lib, 'utf8');
    expectBadInput(stackfield(['lib', 'add', lib, 'material', 'rubber', j({ friction: 1, restitution: 3 })]),
      `${lib}: materials.rubber.restitution: expected a number from 0 to 1, got 3 (after adding material "rubber"; the file is unchanged)`);
    expectBadInput(stackfield(['lib', 'add', lib, 'body', 'b', j({ shape: 'plat' })]), `${lib}: bodies.b.shape: unknown shape "plat" (did you mean "plate"?)`);
    // A robot whose parts are not all joined (seed 003 4.1).
    const split = { parts: [{ alias: 'a', shape: 'plate' }, { alias: 'b', shape: 'plate', position: [1, 0, 0] }] };
    expectBadInput(stackfield(['lib', 'add', lib, 'robot', 'split', j(split)]), `${lib}: robots.split.parts[1]: part "b" is not joined to "a"`);
    expectBadInput(stackfield(['lib', 'add', lib, 'robot', 'x', '{"parts": [}']), '<command line VALUE>: line 1, column 12: invalid JSON');
    // A number that overflows when parsed is named as it was written, not as the null it would be saved as.
    expectBadInput(stackfield(['lib', 'add', lib, 'material', 'm', '{"density": [1e400]}']), '<command line VALUE>: density[0]: expected a number, got Infinity (the number is too large for a 64-bit float)');
    expectBadInput(stackfield(['lib', 'add', lib, 'robt', 'x', '{}']), 'unknown record kind "robt" (did you mean "robot"?)');
    expectBadInput(stackfield(['lib', 'add', lib, 'shape', 'x']), '"lib add" expects LIBRARY.json KIND NAME VALUE, got 3 arguments');
    expect(readFileSync(lib, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['l.json']);
    // A new file that would be invalid is not created.
    expectBadInput(stackfield(['lib', 'add', join(dir, 'new.json'), 'body', 'b', j({ shape: 'none' })]), 'nothing was written');
    expect(existsSync(join(dir, 'new.json'))).toBe(false);
    // A scene is not a library.
    writeFileSync(join(dir, 's.json'), j({ format: 'stackfield-scene/1', bodies: [] }));
    expectBadInput(stackfield(['lib', 'add', join(dir, 's.json'), 'shape', 'p', j(PLATE)]), 's.json: format: expected "stackfield-library/1" (records are added to libraries only');
  });

  it('reads the record from a file or standard input, resolves references through includes, and keeps a link a link', () => {
    const dir = writeFiles({
      'shared.json': { format: 'stackfield-library/1', shapes: { plate: PLATE }, bodies: { plate: { shape: 'plate', density: 500 } } },
      'robots.json': { format: 'stackfield-library/1', include: ['shared.json'] },
      'pair.json': ROBOT,
    });
    symlinkSync('robots.json', join(dir, 'link.json'));
    const r = stackfield(['lib', 'add', join(dir, 'link.json'), 'robot', 'pair', `@${join(dir, 'pair.json')}`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('ok: library, 0 shapes, 0 materials, 0 body templates, 1 robot (1 included file checked too)');
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'robots.json'), 'utf8')).robots.pair).toEqual(ROBOT);
    const s = spawnSync(process.execPath, [BIN, 'lib', 'add', join(dir, 'robots.json'), 'robot', 'pair2', '-'], { input: j(ROBOT), encoding: 'utf8', timeout: 120_000 });
    expect(s.status, s.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'robots.json'), 'utf8')).robots)).toEqual(['pair', 'pair2']);
  });
});

describe('lib add / remove: what may be replaced', () => {
  const lib0 = j({ format: 'stackfield-library/1' });

  it('a link to an open descriptor (as /dev/stdin is) is refused, and stays a link', () => {
    const dir = writeFiles({});
    const link = join(dir, 'mystdin.json');
    symlinkSync('/proc/self/fd/0', link);
    const s = spawnSync(process.execPath, [BIN, 'lib', 'add', link, 'shape', 'b', j(PLATE)], { input: lib0, encoding: 'utf8', timeout: 120_000 });
    expectBadInput({ status: s.status, stdout: s.stdout, stderr: s.stderr },
      `${link}: cannot write the library: it leads to this process's descriptor 0 (standard input), an open stream, not to a library file; name the file itself`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir)).toEqual(['mystdin.json']);
  });

  it('a dangling link creates the file it names and stays a link; one whose folder is missing is refused', () => {
    const dir = writeFiles({});
    const link = join(dir, 'dang.json');
    symlinkSync('made.json', link);
    const r = stackfield(['lib', 'add', link, 'shape', 'b', j(PLATE)]);
    expect(r.status, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'made.json'), 'utf8')).shapes.b).toEqual(PLATE);
    const lost = join(dir, 'lost.json');
    symlinkSync('nodir/x.json', lost);
    expectBadInput(stackfield(['lib', 'add', lost, 'shape', 'b', j(PLATE)]),
      `${lost}: cannot write the library: it is a symbolic link to "${join(dir, 'nodir', 'x.json')}", whose folder does not exist`);
    expect(lstatSync(lost).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['dang.json', 'lost.json', 'made.json']);
  });

  it('a named pipe or a device (also through a link) is refused before it is read, and left as it was', () => {
    const dir = writeFiles({});
    const pipe = join(dir, 'pipe.json');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    // Nothing writes to the pipe: reading it first would wait for ever.
    for (const args of [['add', pipe, 'shape', 'b', j(PLATE)], ['remove', pipe, 'shape', 'b']]) {
      expectBadInput(stackfield(['lib', ...args], { timeout: 20_000 }),
        `${pipe}: cannot write the library: it is a named pipe, not a regular file; only a library file is edited (replaced whole)`);
      expect(lstatSync(pipe).isFIFO()).toBe(true);
    }
    const toNull = join(dir, 'null.json');
    symlinkSync('/dev/null', toNull);
    expectBadInput(stackfield(['lib', 'add', toNull, 'shape', 'b', j(PLATE)]),
      `${toNull}: cannot write the library: it is a character device (the symbolic link leads to "/dev/null"), not a regular file`);
    expect(lstatSync(toNull).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['null.json', 'pipe.json']);
  });
});

describe('lib add ... - (the record on standard input)', () => {
  it('is read as a named pipe is: a device refused, past 256 MB refused, UTF-8 checked, a wait reported', () => {
    const dir = writeFiles({});
    const lib = join(dir, 'l.json');
    const add = `"${process.execPath}" "${BIN}" lib add "${lib}" shape z -`;
    expectBadInput(pipeline(`${add} < /dev/zero`, dir), '<stdin>: standard input is a character device, not a record (pipe the text in, or give it as a file)');
    expectBadInput(pipeline(`${add} < <(head -c 300000000 /dev/zero)`, dir), '<stdin>: the record is more than 256 MB; the largest read is 256 MB');
    expectBadInput(pipeline(`${add} < <(printf '{"type":"box","x\\xe9":1}')`, dir), '<stdin>: line 1, column 17: the file is not UTF-8 text (byte 0xe9): save it as UTF-8');
    expect(existsSync(lib)).toBe(false);
    // The record comes 4 s late: past the notice's second however long the command takes to
    // start on a loaded machine (2 s was not always: a start of over a second left no notice).
    const slow = pipeline(`${add} < <(sleep 4; echo '${j(PLATE)}')`, dir);
    expect(slow.status, slow.stderr).toBe(0);
    expect(slow.stderr).toBe('stackfield: waiting for data on standard input: nothing has written to it yet (Ctrl-C stops)\n');
    expect(JSON.parse(readFileSync(lib, 'utf8')).shapes.z).toEqual(PLATE);
  });
});

describe('stackfield lib remove', () => {
  it('removes a record by name; one still referenced, or unknown, is refused with the file unchanged', () => {
    const dir = writeFiles({ 'l.json': { format: 'stackfield-library/1', shapes: { plate: PLATE, spare: { type: 'sphere', radius: 0.1 } }, bodies: { plate: { shape: 'plate' } }, robots: { pair: ROBOT } } });
    const lib = join(dir, 'l.json');
    const before = readFileSync(lib, 'utf8');
    // Seed 003 4.3: deleting a body a robot refers to would leave the robot broken.
    expectBadInput(stackfield(['lib', 'remove', lib, 'body', 'plate']), `${lib}: robots.pair.parts[0].template: unknown body template "plate"`, 'after removing body "plate"; the file is unchanged');
    expectBadInput(stackfield(['lib', 'remove', lib, 'robots', 'pear']), `${lib}: robots.pear: unknown robot "pear" (defined robots: pair)`);
    expect(readFileSync(lib, 'utf8')).toBe(before);
    const r = stackfield(['lib', 'remove', lib, 'shape', 'spare']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${lib}: removed shape "spare": ok: library, 1 shape, 0 materials, 1 body template, 1 robot\n`);
    expect(stackfield(['lib', 'remove', lib, 'robot', 'pair']).status).toBe(0);
    const json = JSON.parse(readFileSync(lib, 'utf8'));
    expect(json).toEqual({ format: 'stackfield-library/1', shapes: { plate: PLATE }, bodies: { plate: { shape: 'plate' } } });
    const check = stackfield(['check', lib]);
    expect(check.status, check.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['l.json']);
  });

  it('a write-protected library (chmod 444) is neither added to nor removed from, for root too, and stays as it was', () => {
    const dir = writeFiles({ 'l.json': { format: 'stackfield-library/1', shapes: { plate: PLATE, spare: { type: 'sphere', radius: 0.1 } } } });
    const lib = join(dir, 'l.json');
    chmodSync(lib, 0o444);
    const before = readFileSync(lib, 'utf8');
    const st = statSync(lib);
    for (const args of [['add', lib, 'shape', 'more', j(PLATE)], ['remove', lib, 'shape', 'spare']]) {
      expectBadInput(stackfield(['lib', ...args]), `${lib}: cannot write the library: the file is not writable (read-only, mode 444`, 'the file is unchanged');
      expect(readFileSync(lib, 'utf8')).toBe(before);
      expect([statSync(lib).ino, statSync(lib).mode]).toEqual([st.ino, st.mode]);
    }
    expect(readdirSync(dir)).toEqual(['l.json']);
  });
});
