/**
 * The command line for libraries and robots (docs/LIBRARY_FORMAT.md, "Command
 * line"): `stackfield check`, `stackfield lib`, `stackfield run --flatten --dump`.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EXAMPLES, LIBRARY, writeFiles } from '../robots/helpers.ts';
import { BIN, expectBadInput, expectClean, stackfield } from './cliHelpers.ts';

const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });

describe('stackfield check', () => {
  it('validates a library whole and a scene with its includes, without running them', () => {
    const lib = cli(['check', LIBRARY]);
    expect(lib.status, lib.stderr).toBe(0);
    expect(lib.stdout).toBe(`${LIBRARY}: ok: library, 5 shapes, 2 materials, 5 body templates, 3 robots\n`);
    const scene = cli(['check', join(EXAMPLES, 'caterpillars.scene.json')]);
    expect(scene.status, scene.stderr).toBe(0);
    expect(scene.stdout).toContain('ok: scene, 16 bodies (5 robots), 10 joints, 5 motors, 2 shapes, 1 included file');
  });

  it('exits 2 naming the file and JSON path of the first problem, in an included library too', () => {
    const dir = writeFiles({
      'lib.json': { format: 'stackfield-library/1', shapes: { b: { type: 'box' } }, bodies: { t: { shape: 'b', frction: 1 } } },
      'scene.json': { format: 'stackfield-scene/1', include: ['lib.json'], bodies: [{ template: 't' }] },
    });
    for (const f of ['lib.json', 'scene.json']) {
      const r = cli(['check', join(dir, f)]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`stackfield: error: ${join(dir, 'lib.json')}: bodies.t.frction: unknown key (did you mean "friction"?)\n`);
    }
    expect(cli(['check']).status).toBe(2);
    expect(cli(['check', join(dir, 'none.json')]).stderr).toContain('none.json: file not found');
  });

  it('refuses a library material whose staticFriction is below its friction, used or not, where it is written', () => {
    // check had passed the library, and only a scene using the material was refused.
    const dir = writeFiles({
      'm.library.json': { format: 'stackfield-library/1', materials: { m: { friction: 1, staticFriction: 0.5 } } },
      'uses.json': { format: 'stackfield-scene/1', include: ['m.library.json'], shapes: { b: { type: 'box' } }, bodies: [{ shape: 'b', material: 'm' }] },
      'defaults.json': { format: 'stackfield-scene/1', shapes: { b: { type: 'box' } }, defaults: { friction: 0.8, staticFriction: 0.2 }, bodies: [{ shape: 'b' }] },
    });
    const message = 'materials.m.staticFriction: expected a static friction at least the dynamic "friction" (1), got 0.5';
    expectBadInput(stackfield(['check', join(dir, 'm.library.json')]), `stackfield: error: ${join(dir, 'm.library.json')}: ${message}`);
    expectBadInput(stackfield(['check', join(dir, 'uses.json')]), `stackfield: error: ${join(dir, 'm.library.json')}: ${message}`);
    expectBadInput(stackfield(['check', join(dir, 'defaults.json')]), `${join(dir, 'defaults.json')}: defaults.staticFriction: expected a static friction at least the dynamic "friction" (0.8), got 0.2`);
    // Equal, or only one of the two given: fine.
    writeFileSync(join(dir, 'm.library.json'), JSON.stringify({ format: 'stackfield-library/1', materials: { m: { friction: 1, staticFriction: 1 }, s: { staticFriction: 0.1 } } }));
    expect(cli(['check', join(dir, 'm.library.json')]).status).toBe(0);
  });

  it("blames a robot instance's override, not the unchanged library, for what the override breaks", () => {
    const dir = writeFiles({});
    copyFileSync(LIBRARY, join(dir, 'robots.library.json'));
    const lib = `${join(dir, 'robots.library.json')}: robots.caterpillar.motors[0]`;
    const cases: [string, unknown, string][] = [
      ['startTorque.json', { motors: { drive: { startTorque: 100 } } }, `robots[0].motors.drive.startTorque: expected maxTorque >= startTorque (100), got 60 ("maxTorque" from ${lib}.maxTorque)`],
      ['speed.json', { motors: { drive: { speed: 1e9 } } }, `robots[0].motors.drive.speed: "speed" replaces the motor's "targetAngularVelocity" (${lib}.targetAngularVelocity), and without it: missing required key "targetAngularVelocity"`],
      ['program.json', { motors: { drive: { program: [] } } }, `robots[0].motors.drive.program: "program" replaces the motor's "targetAngularVelocity"`],
      ['mass.json', { parts: { h0: { mass: 1e-300 } } }, 'robots[0].parts.h0.mass ("c/h0"): mass 1e-300 kg (from "mass") is outside the range'],
    ];
    for (const [file, override, where] of cases) {
      writeFileSync(join(dir, file), JSON.stringify({ format: 'stackfield-scene/1', include: ['robots.library.json'], bodies: [{ template: 'ground' }], robots: [{ robot: 'caterpillar', name: 'c', ...(override as object) }] }));
      for (const command of ['check', 'run']) {
        const r = stackfield([command, join(dir, file), '--steps', '1'].slice(0, command === 'check' ? 2 : 4));
        expectBadInput(r, `stackfield: error: ${join(dir, file)}: ${where}`);
        expect(r.stderr).not.toContain(`error: ${join(dir, 'robots.library.json')}`);
      }
    }
    // The library's own error is still the library's.
    expect(cli(['check', join(dir, 'robots.library.json')]).status).toBe(0);
  });

  it('loads every mesh and checks every body mass, as run would, without baking a field', () => {
    const dir = writeFiles({
      'lib.json': { format: 'stackfield-library/1', shapes: { m: { type: 'mesh', path: 'gone.obj' } }, bodies: { t: { shape: 'm' } } },
      'tiny.json': { format: 'stackfield-scene/1', shapes: { b: { type: 'box' } }, bodies: [{ shape: 'b', mass: 1e-120 }] },
    });
    const lib = cli(['check', join(dir, 'lib.json')]);
    expect(lib.status).toBe(2);
    expect(lib.stderr).toContain('lib.json: shapes.m.path');
    const tiny = cli(['check', join(dir, 'tiny.json')]);
    expect(tiny.status).toBe(2);
    expect(tiny.stderr).toContain('tiny.json: bodies[0] ("body0"): mass 1e-120 kg');
  });
});

describe('stackfield lib', () => {
  it("lists each robot's parts, joints, motors, mass and degrees of freedom", () => {
    const r = cli(['lib', LIBRARY, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [file] = JSON.parse(r.stdout).files;
    const robots = Object.fromEntries(file.robots.map((x: { name: string }) => [x.name, x]));
    // Three plates 0.5 x 0.06 x 0.4: the first at 1000 kg/m^3, two at the plastic's 500.
    expect(robots.caterpillar).toMatchObject({ parts: 3, joints: 2, motors: 1, dof: 8 });
    expect(robots.caterpillar.mass).toBeCloseTo(0.012 * (1000 + 2 * 500), 9);
    // A 1 x 0.1 x 0.5 chassis at 400 and four 24-sided wheels (r 0.25, 0.08 thick) at 600: 6 + 4 hinge spins = 10 DOF.
    const wheel = 0.5 * 24 * 0.25 ** 2 * Math.sin((2 * Math.PI) / 24) * 0.08;
    expect(robots.cart).toMatchObject({ parts: 5, joints: 4, motors: 4, dof: 10 });
    expect(robots.cart.mass).toBeCloseTo(0.05 * 400 + 4 * 600 * wheel, 9);
    expect(robots.inchworm).toMatchObject({ parts: 3, joints: 2, motors: 2, dof: 8 });
    expect(file.bodies.find((b: { name: string }) => b.name === 'ground')).toEqual({ name: 'ground', shape: 'floor', static: true, mass: null });
    const text = cli(['lib', LIBRARY]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/caterpillar\s+3\s+2\s+1\s+24 kg\s+8\s/);
  });

  it("lists each robot's joints and motors by name, with their kinds, axes, targets and torques (the cart's fl, fr, rl, rr)", () => {
    const r = cli(['lib', LIBRARY, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [file] = JSON.parse(r.stdout).files;
    const robots = Object.fromEntries(file.robots.map((x: { name: string }) => [x.name, x]));
    const cart = robots.cart;
    expect(cart.jointList.map((j: { name: string }) => j.name)).toEqual(['fl', 'fr', 'rl', 'rr']);
    expect(cart.jointList[0]).toEqual({ name: 'fl', type: 'hinge', bodyA: 'chassis', bodyB: 'fl', removes: 5, axisA: [0, 0, 1] });
    expect(cart.motorList.map((m: { name: string }) => m.name)).toEqual(['fl', 'fr', 'rl', 'rr']);
    expect(cart.motorList[3]).toEqual({
      name: 'rr', kind: 'hinge', joint: 'rr', body: '', speed: -4, programSegments: 0, repeat: false,
      startTorque: 5, torqueIncrement: 1, maxTorque: 40, from: 0, until: null,
    });
    // The caterpillar's body motor: its part, axis and frame; the inchworm's programs.
    expect(robots.caterpillar.motorList[0]).toMatchObject({ name: 'drive', kind: 'body', body: 'h0', joint: '', axis: [0, 0, -1], frame: 'world', speed: 4, maxTorque: 60 });
    expect(robots.inchworm.motorList.map((m: { programSegments: number; repeat: boolean; speed: null }) => [m.programSegments, m.repeat, m.speed])).toEqual([[2, true, null], [2, true, null]]);
    const text = cli(['lib', LIBRARY]).stdout;
    expect(text).toContain('  robot cart:\n   joints (axes in part A\'s shape frame):\n');
    expect(text).toMatch(/\n {4}fl +hinge +chassis -> fl +\[0, 0, 1\] +5\n/);
    expect(text).toMatch(/\n {4}rr +hinge +joint rr +-4 rad\/s +5 \+1\/step, max 40 N m\n/);
    expect(text).toMatch(/\n {4}drive +body +part h0 about \[0, 0, -1\] \(world frame\) +4 rad\/s +15 \+0.6\/step, max 60 N m\n/);
    expect(text).toMatch(/\n {4}hip +hinge +joint hip +program, 2 segments, repeated +max 8 N m\n/);
  });

  it('lists a slider motor in newtons and m/s, with its window, and a plane joint with both axes', () => {
    const dir = writeFiles({
      'lib.json': {
        format: 'stackfield-library/1',
        shapes: { b: { type: 'box', size: [0.2, 0.2, 0.2] } },
        robots: {
          rail: {
            parts: [{ alias: 'base', shape: 'b' }, { alias: 'car', shape: 'b', position: [0.3, 0, 0] }, { alias: 'tag', shape: 'b', position: [0, 0.3, 0] }],
            joints: [
              { name: 'track', type: 'slider', bodyA: 'base', bodyB: 'car', anchorA: [0.15, 0, 0], anchorB: [-0.15, 0, 0], axisA: [2, 0, 0] },
              { name: 'flat', type: 'plane', bodyA: 'base', bodyB: 'tag', anchorA: [0, 0.15, 0], anchorB: [0, -0.15, 0], axisA: [1, 0, 0], axis2A: [0, 0, 1] },
            ],
            motors: [{ name: 'push', joint: 'track', speed: 0.5, maxTorque: 30, from: 1, until: 3 }],
          },
        },
      },
    });
    const r = cli(['lib', join(dir, 'lib.json'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [rail] = JSON.parse(r.stdout).files[0].robots;
    expect(rail.jointList[0]).toMatchObject({ name: 'track', type: 'slider', axisA: [1, 0, 0], removes: 5 });
    expect(rail.jointList[1]).toMatchObject({ name: 'flat', type: 'plane', axisA: [1, 0, 0], axis2A: [0, 0, 1], removes: 1 });
    expect(rail.motorList[0]).toMatchObject({ name: 'push', kind: 'slider', joint: 'track', speed: 0.5, maxTorque: 30, from: 1, until: 3 });
    const text = cli(['lib', join(dir, 'lib.json')]).stdout;
    expect(text).toMatch(/\n {4}push +slider +joint track +0.5 m\/s; from 1 s until 3 s +max 30 N\n/);
    expect(text).toMatch(/\n {4}flat +plane +base -> tag +\[1, 0, 0\], \[0, 0, 1\] +1\n/);
  });

  it('names the included files in the listing', () => {
    const scene = join(EXAMPLES, 'inchworm.scene.json');
    const r = cli(['lib', scene]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`${scene} (scene; includes ${LIBRARY})`);
  });

  it('lists the libraries a scene includes', () => {
    const r = cli(['lib', join(EXAMPLES, 'inchworm.scene.json'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).files;
    expect(files.map((f: { kind: string }) => f.kind)).toEqual(['scene', 'library']);
    expect(files[1].robots.map((x: { name: string }) => x.name)).toEqual(['caterpillar', 'inchworm', 'cart']);
  });
});

describe('stackfield run --flatten --dump', () => {
  it('prints a self-contained scene that runs exactly as the scene of instances', () => {
    const scene = join(EXAMPLES, 'caterpillars.scene.json');
    const dump = cli(['run', scene, '--flatten', '--dump']);
    expect(dump.status, dump.stderr).toBe(0);
    const flat = JSON.parse(dump.stdout);
    expect(Object.keys(flat)).toEqual(['format', 'dt', 'shapes', 'bodies', 'joints', 'motors']);
    expect(flat.bodies.map((b: { name: string }) => b.name).slice(0, 4)).toEqual(['ground', 'steady/h0', 'steady/h1', 'steady/h2']);
    const file = join(writeFiles({}), 'flat.json');
    writeFileSync(file, dump.stdout);
    const a = cli(['run', scene, '--steps', '30', '--every', '30']);
    const b = cli(['run', file, '--steps', '30', '--every', '30']);
    expect(a.status, a.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('writes mesh paths relative to where the dump goes, flattened or not, for a file and a built-in', () => {
    const dir = writeFiles({});
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'out'));
    copyFileSync(join(EXAMPLES, '..', 'meshes', 'bunny.obj'), join(dir, 'src', 'bunny.obj'));
    const scene = join(dir, 'src', 'scene.json');
    writeFileSync(scene, JSON.stringify({
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane' }, bunny: { type: 'mesh', path: 'bunny.obj', sdf: { cells: 16 } } },
      bodies: [{ shape: 'floor', static: true }, { shape: 'bunny', position: [0, 1, 0] }],
    }));
    const dumps: [string[], string][] = [
      [['run', scene, '--dump'], '../src/bunny.obj'],
      [['run', scene, '--dump', '--flatten'], '../src/bunny.obj'],
      [['run', '--builtin', 'skulls', '--param', 'count=2', '--dump'], relative(join(dir, 'out'), join(EXAMPLES, '..', 'meshes', 'bunny.obj'))],
    ];
    for (const [args, path] of dumps) {
      const out = join(dir, 'out', 'dump.json');
      const r = cli([...args, '--out', out]);
      expect(r.status, r.stderr).toBe(0);
      const shapes = Object.values(JSON.parse(readFileSync(out, 'utf8')).shapes as Record<string, { type: string; path?: string }>);
      expect(shapes.filter((s) => s.type === 'mesh').map((s) => s.path)).toEqual([path]);
      const check = cli(['check', out]);
      expect(check.status, check.stderr).toBe(0);
    }
  });

  it('--flatten needs --dump', () => {
    const r = cli(['run', join(EXAMPLES, 'caterpillar.scene.json'), '--flatten']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--flatten only applies with --dump');
  });
});

describe("libraries keep the command line's guarantees (issue 14)", () => {
  // A name that would clear the terminal, 1000 characters long.
  const evil = `\u001b[2J\u202e${'x'.repeat(1000)}`;

  it('echoes names from a library escaped and cut, never raw', () => {
    const dir = writeFiles({
      'lib.json': {
        format: 'stackfield-library/1',
        shapes: { b: { type: 'box' } },
        robots: { r: { parts: [{ alias: evil, shape: 'b' }, { alias: evil, shape: 'b' }] } },
      },
    });
    for (const command of ['check', 'lib']) {
      const r = stackfield([command, join(dir, 'lib.json')]);
      expectBadInput(r, 'robots.r.parts[1].alias: duplicate alias "\\u001b[2J\\u202exxx', '..." (1005 characters) (already used by robots.r.parts[0])');
      expect(r.stderr.length).toBeLessThan(400);
    }
  });

  it('lists names with control characters escaped', () => {
    const dir = writeFiles({
      'lib.json': { format: 'stackfield-library/1', shapes: { b: { type: 'box' } }, bodies: { 'a\u001b[31mred': { shape: 'b' } } },
    });
    const r = stackfield(['lib', join(dir, 'lib.json')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('a\\u001b[31mred');
    expectClean(r.stdout);
  });

  it('refuses a device as an included file instead of reading it forever', () => {
    const dir = writeFiles({ 'scene.json': { format: 'stackfield-scene/1', include: ['/dev/zero'], bodies: [] } });
    for (const command of ['check', 'run']) {
      expectBadInput(stackfield([command, join(dir, 'scene.json')], { timeout: 30_000 }), 'include[0]: is a character device, not an included file: "/dev/zero"');
    }
  });

  it('passes over a named pipe among the *.library.json beside the scene when looking for a robot by name', () => {
    const dir = writeFiles({ 's.json': { format: 'stackfield-scene/1', shapes: { myfloor: { type: 'plane' } }, bodies: [{ name: 'ground', shape: 'myfloor', static: true }],
      robots: [{ name: 'c1', robot: 'caterpillar', position: [0, 0.2, 0] }] } });
    expect(spawnSync('mkfifo', [join(dir, 'pipe.library.json')]).status).toBe(0);
    // Nothing writes to the pipe: reading it would wait for ever.
    const r = stackfield(['check', join(dir, 's.json')], { timeout: 20_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${join(dir, 's.json')}: ok: scene, 4 bodies (1 robot), 2 joints, 1 motor, 2 shapes, 1 included file\n`);
  });

  it('--dump --flatten --out writes through a temporary file and refuses an included library as the target', () => {
    const scene = join(EXAMPLES, 'inchworm.scene.json');
    const dir = writeFiles({});
    const out = join(dir, 'flat.json');
    const ok = stackfield(['run', scene, '--flatten', '--dump', '--out', out]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).format).toBe('stackfield-scene/1');
    expect(readdirSync(dir)).toEqual(['flat.json']);
    const before = readFileSync(LIBRARY, 'utf8');
    expectBadInput(stackfield(['run', scene, '--flatten', '--dump', '--out', LIBRARY]), 'is a library the scene includes; writing there would overwrite the input');
    expect(readFileSync(LIBRARY, 'utf8')).toBe(before);
  });
});
