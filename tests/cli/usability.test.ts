/**
 * Issue 15's command-line items through the real executable: the run summary
 * (its figures checked on a tower whose settled height is known, and against
 * the states the run wrote), --precision, --bodies only where a scene
 * declares a count, option suggestions, --version, --list with descriptions,
 * the incline moving at its defaults, and sdf's stated minimum of cells.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/cli/nodePlatform.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { expectBadInput, expectClean, stackfield } from './cliHelpers.ts';

interface StateLine {
  step: number;
  t: number;
  bodies: { name: string; p: number[]; q: number[]; v: number[]; w: number[] }[];
}

const lines = (stdout: string): StateLine[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as StateLine);

describe('the run summary', () => {
  it('reports a 10-box tower settled at its known height, at rest, its energy change matching the states written', () => {
    const params = ['--param', 'height=10', '--param', 'size=0.5', '--param', 'hz=100'];
    const r = stackfield(['run', '--builtin', 'tower', ...params, '--steps', '300', '--every', '300', '--summary', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const [first, last] = lines(r.stdout);
    const s = JSON.parse(r.stderr.trim().split('\n').pop()!).summary;
    expect(s.steps).toBe(300);
    expect(s.dt).toBe(0.01);
    expect(s.simulatedTime).toBeCloseTo(3, 12);
    expect(s.bodies).toBe(11);
    expect(s.dynamicBodies).toBe(10);
    expect(s.atRest).toBe(10);
    expect(s.belowGround).toEqual([]);
    expect(s.nonFinite).toBe(0);
    expect(s.backend).toBe('cpu');
    // The tower runs the seed's passes, its scene's own (no solver named: the format's default).
    expect(s.contactSolver).toBe('sequential');
    // Ten boxes 0.5 m high stacked on the ground: the top face at 5 m, the bottom face on the floor.
    expect(Math.abs(s.highestPoint - 5)).toBeLessThan(1e-3);
    expect(Math.abs(s.lowestPoint)).toBeLessThan(1e-3);
    // Energy from the written states: each cube is 0.5 m at 500 kg/m^3 = 62.5 kg; at rest at the end.
    const scene = builtinScene('tower', { height: 10, size: 0.5, hz: 100 }) as { shapes: { box: { size: number[] } }; bodies: { density?: number; position?: number[] }[] };
    expect(scene.shapes.box.size).toEqual([0.5, 0.5, 0.5]);
    expect(scene.bodies[1]!.density).toBe(500);
    const m = 500 * 0.125, g = 9.81;
    const height = (l: StateLine) => l.bodies.slice(1).reduce((sum, b) => sum + b.p[1]!, 0);
    expect(s.energy.kineticEnd).toBeLessThan(1e-9);
    expect(s.energy.start).toBeCloseTo(m * g * height(first!), 6);
    expect(s.energy.change).toBeCloseTo(m * g * (height(last!) - height(first!)) + s.energy.kineticEnd, 6);
    // The cubes start a hair apart: closing the gaps down to cubes resting on each other (centres at 0.25 + 0.5 i)
    // releases m g times the summed gaps; each cube may end within 1 mm of resting exactly on the one below.
    const released = scene.bodies.slice(1).reduce((sum, b, i) => sum + m * g * (b.position![1]! - (0.25 + 0.5 * i)), 0);
    // Gaps of 0.2 % of an edge (1 mm), the lowest half a gap above the floor: 0.5 + 1.5 + ... + 9.5 mm = 50 mm in all.
    expect(released).toBeCloseTo(m * g * 0.05, 9);
    expect(Math.abs(s.energy.change + released)).toBeLessThan(m * g * 10 * 1e-3);
    // Penetration within the contact tolerance, and the deepest at some step of the run.
    expect(s.penetration.max).toBeGreaterThan(0);
    expect(s.penetration.max).toBeLessThan(5e-3);
    expect(s.penetration.maxStep).toBeGreaterThan(0);
  });

  it('prints the same figures as text by default, on standard error only', () => {
    const r = stackfield(['run', '--builtin', 'tower', '--param', 'height=3', '--param', 'size=0.5', '--param', 'hz=100', '--steps', '150', '--every', '150']);
    expect(r.status, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => l.step)).toEqual([0, 150]);
    expect(r.stderr).toMatch(/^stackfield: built-in tower: 150 steps of 0\.01 s \(1\.5 s simulated\) in [\d.]+ m?s, [\d.]+ ms per step on the cpu backend( \(\d+ threads\))?, the seed's contact passes; world built in/);
    expect(r.stderr).toContain('  resting        3 of 3 dynamic bodies');
    expect(r.stderr).toMatch(/ {2}extent {9}lowest point [\d.]+ mm, highest 1\.5 m \(against gravity\)/);
    expect(r.stderr).toContain('  below ground   none');
    expect(r.stderr).toContain('  non-finite     none');
    expectClean(r.stderr);
    expect(stackfield(['run', '--builtin', 'tower', '--param', 'height=2', '--steps', '2', '--summary', 'none']).stderr).toBe('');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--summary', 'jsno']), '--summary expects text, json or none, got "jsno" (did you mean json?)');
  });

  it('names the bodies that ended below a ground plane', () => {
    const scene = JSON.stringify({
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'sunk', shape: 'box', position: [0, -3, 0] }, { name: 'fine', shape: 'box', position: [3, 0.5, 0] }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'stackfield-summary-'));
    writeFileSync(join(dir, 'sunk.json'), scene);
    const r = stackfield(['run', join(dir, 'sunk.json'), '--steps', '1', '--summary', 'json']);
    const text = stackfield(['run', join(dir, 'sunk.json'), '--steps', '1', '--summary', 'text']);
    rmSync(dir, { recursive: true, force: true });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!).summary;
    expect(summary.belowGround).toEqual(['sunk']);
    // The scene is the plain path in JSON (it was "\"...\"", quotes and all), quoted in the text summary.
    expect(summary.scene).toBe(join(dir, 'sunk.json'));
    expect(text.status, text.stderr).toBe(0);
    expect(text.stderr).toContain(`stackfield: "${join(dir, 'sunk.json')}": 1 step of`);
  });

  it('names a built-in scene as "built-in NAME" in the JSON summary', () => {
    const r = stackfield(['run', '--builtin', 'tower', '--param', 'height=2', '--steps', '1', '--summary', 'json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).summary.scene).toBe('built-in tower');
  });
});

describe('--precision', () => {
  it('rounds every number of the states to the given decimals', () => {
    const full = stackfield(['run', '--builtin', 'incline', '--steps', '20', '--every', '10', '--summary', 'none']);
    const r = stackfield(['run', '--builtin', 'incline', '--steps', '20', '--every', '10', '--summary', 'none', '--precision', '3']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/\d\.\d{4,}|e-/);
    const a = lines(full.stdout), b = lines(r.stdout);
    for (let k = 0; k < a.length; k++) {
      for (let i = 0; i < a[k]!.bodies.length; i++) {
        for (const key of ['p', 'q', 'v', 'w'] as const) {
          a[k]!.bodies[i]![key].forEach((x, j) => expect(Math.abs(b[k]!.bodies[i]![key][j]! - x)).toBeLessThanOrEqual(5e-4 + 1e-12));
        }
      }
    }
    // The time too: with no decimals, every t is a whole number.
    const whole = stackfield(['run', '--builtin', 'incline', '--steps', '300', '--every', '70', '--summary', 'none', '--precision', '0']);
    expect(lines(whole.stdout).map((l) => l.t)).toEqual([0, 1, 1, 2, 3, 3]);
    expectBadInput(stackfield(['run', '--builtin', 'incline', '--precision', '18']), '--precision expects an integer from 0 to 17');
  });
});

describe('built-in parameters on the command line', () => {
  it('bench --bodies sets the count a scene declares and refuses a scene without one', () => {
    const r = stackfield(['bench', '--builtin', 'tower', '--bodies', '3', '--steps', '1', '--warmup', '0', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.params).toEqual({ height: 3 });
    expect(result.bodies).toBe(4);
    // The seesaw's only parameter is a mass, the caterpillar's first a speed, the incline's first the scheme.
    expectBadInput(stackfield(['bench', '--builtin', 'seesaw', '--bodies', '50']), 'scene "seesaw" has no body-count parameter', 'its parameters: heavy');
    expectBadInput(stackfield(['bench', '--builtin', 'caterpillar', '--bodies', '5']), 'no body-count parameter', 'speed, maxTorque');
    expectBadInput(stackfield(['bench', '--builtin', 'incline', '--bodies', '1']), 'no body-count parameter');
    // Out of the scene's range: named as --bodies, with the range of the parameter it sets.
    for (const v of ['5000', '0', '3.5', '200000']) {
      expectBadInput(stackfield(['bench', '--bodies', v, '--steps', '1']), `command line: --bodies expects an integer from 1 to 2000 for scene "rings" (its parameter rings), got "${v}"`);
    }
  });

  it('run --list shows what each scene shows, its parameters described, and which one --bodies sets', () => {
    const r = stackfield(['run', '--list']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/\w+=[\d.]+ \[[\d.]+\.\.[\d.]+\]/); // the old "standard=0 [0..1]"
    expect(r.stdout).toContain('incline  Perfectly elastic box on an incline');
    expect(r.stdout).toContain('    --param standard=0  (0 to 1)\n        0: the separated scheme (the box slides in contact); 1: the standard scheme (it\n        bounces)\n');
    expect(r.stdout).toContain('    --param height=20  (1 to 400; the body count bench --bodies sets)\n        number of cubes\n');
    expect(r.stdout).toContain('shock propagation keeps');
  });

  it('--list and --dump refuse the options they would drop, naming them, and write nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-list-'));
    try {
      const out = join(dir, 'x.txt');
      expectBadInput(stackfield(['run', '--list', '--steps', '5', '--out', out]), 'command line: --list lists the built-in scenes and takes nothing else (got --steps, --out)');
      expectBadInput(stackfield(['run', '--list', '--param', 'rings=3']), '(got --param)');
      expectBadInput(stackfield(['run', 'scene.json', '--list']), '(got "scene.json")');
      expectBadInput(stackfield(['run', '--builtin', 'tower', '--dump', '--steps', '5', '--every', '3', '--precision', '2']),
        'command line: --steps, --every, --precision have no effect with --dump, which writes the scene and runs nothing');
      expectBadInput(stackfield(['run', '--builtin', 'tower', '--dump', '--threads', '2', '--out', out]), '--threads has no effect with --dump');
      expect(() => readFileSync(out)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the incline moves at its defaults: the box slides at g (sin 20 - 0.2 cos 20)', () => {
    const r = stackfield(['run', '--builtin', 'incline', '--steps', '100', '--every', '100', '--summary', 'none']);
    expect(r.status, r.stderr).toBe(0);
    const [a, b] = lines(r.stdout).map((l) => l.bodies[1]!.p);
    const moved = Math.hypot(b![0]! - a![0]!, b![1]! - a![1]!);
    const th = (20 * Math.PI) / 180;
    const acc = 9.81 * (Math.sin(th) - 0.2 * Math.cos(th));
    // 1 s of semi-implicit Euler in 100 steps: a t^2 (1 + 1/100) / 2.
    expect(moved / ((acc * 1.01) / 2)).toBeGreaterThan(0.97);
    expect(moved / ((acc * 1.01) / 2)).toBeLessThan(1.03);
    expect(b![0]).toBeLessThan(a![0]!); // down the slope (-x)
  });
});

describe('command-line details', () => {
  it('--version prints the package version', () => {
    const version = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const r = stackfield([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`stackfield ${version}\n`);
    }
    // Anything after it is refused, not ignored; "help COMMAND" is that command's help.
    expectBadInput(stackfield(['--version', '--bogus']), 'command line: --version takes no arguments, got "--bogus"');
    expect(stackfield(['help', 'sdf']).stdout).toBe(stackfield(['sdf', '--help']).stdout);
    expectBadInput(stackfield(['--help', 'x', 'y']), '--help takes no arguments or one command name');
    // No command at all: the usage and the error on standard error, nothing on standard output.
    const none = stackfield([]);
    expectBadInput(none, 'Usage: stackfield <command>', /stackfield: error: no command given; expected one of: run, .*\n$/);
    expect(none.stdout).toBe('');
    // Names an object literal holds but no command is: refused like any unknown name, not an internal error.
    expectBadInput(stackfield(['constructor']), 'unknown command "constructor"');
    expectBadInput(stackfield(['help', '__proto__']), 'help takes no arguments or one command name, got "__proto__"');
  });

  it('suggests the option, command, scene or parameter meant', () => {
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--stepz', '3']), 'unknown option "--stepz" (did you mean --steps?)');
    expectBadInput(stackfield(['sdf', 'x.obj', '--cell', '8']), 'unknown option "--cell" (did you mean --cells?)');
    expectBadInput(stackfield(['bench', '--bodys', '3']), '(did you mean --bodies?)');
    expectBadInput(stackfield(['run', '-steps', '3']), 'unknown option "-steps" (did you mean --steps?)');
    expectBadInput(stackfield(['rnu']), 'unknown command "rnu" (did you mean "run"?)');
    expectBadInput(stackfield(['--verison']), 'unknown option "--verison" (did you mean --version?)');
    expectBadInput(stackfield(['run', '--builtin', 'towr']), 'unknown built-in scene "towr" (did you mean "tower"?)');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--param', 'heigth=3']), 'no parameter "heigth" (did you mean "height"?)');
    // Nothing close: the options are listed instead.
    expectBadInput(stackfield(['run', '--zzzzzz']), 'unknown option "--zzzzzz" (options: --steps, --every');
  });

  it('repeated options, a fractional count, non-decimal integers and a doubled body count are refused; every refusal says "error:"', () => {
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--steps', '5', '--steps', '7']), 'stackfield: error: command line: --steps given twice');
    expectBadInput(stackfield(['run', '--builtin', 'tower', '--dump', '--dump']), '--dump given twice');
    expectBadInput(stackfield(['run', '--builtin', 'rings', '--param', 'rings=2', '--param', 'rings=3']), '--param rings given twice');
    // 2.5 was rounded to 3 rings without a word.
    expectBadInput(stackfield(['run', '--builtin', 'rings', '--param', 'rings=2.5', '--steps', '0']), '--param rings of scene "rings" expects an integer from 1 to 2000, got 2.5');
    for (const v of ['0x10', '1e1', '+5', ' 7']) expectBadInput(stackfield(['run', '--builtin', 'tower', '--steps', v]), `--steps expects an integer from 0 to 100000000, got "${v}"`);
    expectBadInput(stackfield(['bench', '--builtin', 'rings', '--param', 'rings=5', '--bodies', '6']), '--bodies 6 and --param rings=5 both set the body count of "rings"; give one');
    expectBadInput(stackfield(['frob']), 'stackfield: error: unknown command "frob"');
    // /proc exists; it takes no new file (the temporary file): not "the directory does not exist".
    const proc = stackfield(['run', '--builtin', 'tower', '--steps', '1', '--out', '/proc/version']);
    expectBadInput(proc, 'cannot write "/proc/version": the file system does not allow a new file in "/proc" (ENOENT)');
    expect(proc.stderr).not.toContain('does not exist');
  });

  it('sdf --cells below 8 is refused with the minimum and why', () => {
    expectBadInput(stackfield(['sdf', 'x.obj', '--cells', '2', '--out', 'g.json']), '--cells 2 is too coarse: the minimum is 8 cells', 'no grid node lies inside');
    expect(stackfield(['sdf', '--help']).stdout).toContain('8 to 1024');
  });

  it('an empty path says it is empty, not "not found"; --help=1 and --steps=--5 are named for what they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackfield-empty-'));
    try {
      const scene = join(dir, 'ok.json');
      writeFileSync(scene, JSON.stringify({ format: 'stackfield-scene/1', shapes: { b: { type: 'box' } }, bodies: [{ shape: 'b' }] }));
      expectBadInput(stackfield(['run', '']), 'stackfield: error: the scene file path is empty (""); expected a file name');
      expectBadInput(stackfield(['bench', '']), 'stackfield: error: the scene file path is empty (""); expected a file name');
      expectBadInput(stackfield(['check', '']), 'stackfield: error: the file path is empty (""); expected a file name');
      expectBadInput(stackfield(['sdf', '', '--out', join(dir, 'g.json')]), 'stackfield: error: the mesh file path is empty (""); expected a file name');
      expectBadInput(stackfield(['lib', 'add', '', 'shape', 'b', '{"type":"box"}']), 'stackfield: error: the library file path is empty (""); expected a file name');
      const noCommand = stackfield(['']);
      expectBadInput(noCommand, 'stackfield: error: command line: expected a command, got an empty argument ("")');
      expect(noCommand.stdout).toBe('');
      expectBadInput(stackfield(['run', scene, '--help=1']), 'stackfield: error: command line: --help takes no value (give --help alone)');
      expectBadInput(stackfield(['run', scene, '--steps=--5']), 'stackfield: error: command line: --steps expects an integer from 0 to 100000000, got "--5"');
      // Without "=", an option's value may not be the next option.
      expectBadInput(stackfield(['run', scene, '--steps', '--every', '5']), 'command line: --steps needs a value');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
