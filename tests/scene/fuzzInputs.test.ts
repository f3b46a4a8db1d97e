/**
 * Three inputs a fuzzer sent (300 mutated scenes and meshes), each answered
 * as a user should be answered:
 * - an unknown key (or name) that is itself huge: refused at once, the
 *   "did you mean" search capped by length instead of an edit distance over
 *   50 million characters (it ran past 25 s);
 * - names that are JavaScript's special property names ("__proto__",
 *   "constructor"): names are data, so every section that defines names
 *   takes them, and every reference finds them;
 * - a body or pose with both "rotation" and "orientation": refused, naming
 *   the file and the JSON path, on every path a pose is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { closestMatch, SUGGEST_MAX_LENGTH } from '../../src/util/suggest.ts';
import { expectBadInput, expectClean, stackfield } from '../cli/cliHelpers.ts';

function refusal(text: string, file: string): { message: string; ms: number } {
  const t0 = performance.now();
  try {
    parseSceneText(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return { message: (e as Error).message, ms: performance.now() - t0 };
  }
  throw new Error('the scene was accepted');
}

describe('a huge unknown key or name', () => {
  it('a 50 MB scene whose unknown key is 50 million characters is refused within seconds', () => {
    // Under half a second alone; the bound is loose for a loaded CI machine (it took
    // over 1 s beside other test files on two cores), and a parse that went
    // quadratic in the key's length would take hours.
    const key = 'x'.repeat(50_000_000);
    const { message, ms } = refusal(`{"format": "stackfield-scene/1", "${key}": 1, "bodies": []}`, 'huge.json');
    expect(message).toMatch(/^huge\.json: \["x{80}\.\.\." \(50000000 characters\)\]: unknown key \(expected one of: format, gravity, /);
    expect(message.length).toBeLessThan(400);
    expect(ms).toBeLessThan(5000);
  });

  it('a huge unknown key in a body, and a huge unknown shape name among many long ones, are refused at once', () => {
    const body = refusal(`{"format": "stackfield-scene/1", "shapes": {"box": {"type": "box"}}, "bodies": [{"shape": "box", "${'b'.repeat(5_000_000)}": 1}]}`, 'body.json');
    expect(body.message).toMatch(/^body\.json: bodies\[0\]\["b{80}\.\.\." \(5000000 characters\)\]: unknown key \(expected one of: name, shape, /);
    expect(body.ms).toBeLessThan(1000);
    // 2000 shapes with 200-character names, a body naming a 1 MB one: no edit distance over them all.
    const shapes = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${'s'.repeat(196)}${String(i).padStart(4, '0')}`, { type: 'sphere' }]));
    const scene = { format: 'stackfield-scene/1', shapes, bodies: [{ shape: 's'.repeat(1_000_000) }] };
    const named = refusal(JSON.stringify(scene), 'names.json');
    expect(named.message).toMatch(/^names\.json: bodies\[0\]\.shape: unknown shape "s{80}\.\.\." \(1000000 characters\) \(defined shapes: /);
    expect(named.ms).toBeLessThan(1000);
  });

  it('suggestions still find typos, and give up on words past the length cap', () => {
    const keys = ['name', 'shape', 'position', 'orientation', 'friction'];
    expect(closestMatch('frction', keys)).toBe('friction');
    expect(closestMatch('orient', keys)).toBe('orientation');
    const long = 'q'.repeat(SUGGEST_MAX_LENGTH);
    expect(closestMatch(`${long}r`, [`${long}s`])).toBeUndefined();
    expect(closestMatch(long.slice(1) + 'r', [long])).toBe(long);
  });
});

describe('names are data', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-names-'));
    const P = '__proto__';
    writeFileSync(
      join(dir, 'plain.json'),
      JSON.stringify({
        format: 'stackfield-scene/1',
        shapes: { floor: { type: 'plane' }, [P]: { type: 'box', size: [0.4, 0.4, 0.4] }, constructor: { type: 'sphere', radius: 0.2 } },
        softMaterials: { [P]: { stiffness: 30000 } },
        bodies: [
          { name: 'ground', shape: 'floor', static: true },
          { name: P, shape: P, position: [0, 1, 0] },
          { name: 'constructor', shape: 'constructor', position: [2, 1, 0] },
        ],
        joints: [{ name: P, type: 'ball', bodyA: P, bodyB: 'constructor', anchorA: [0.5, 0, 0], anchorB: [-1.5, 0, 0] }],
        softBodies: [{ name: 'toString', shape: P, material: P, position: [-2, 1, 0] }],
      }),
    );
    writeFileSync(
      join(dir, 'names.library.json'),
      JSON.stringify({
        format: 'stackfield-library/1',
        shapes: { [P]: { type: 'box', size: [0.5, 0.1, 0.3] } },
        materials: { [P]: { friction: 0.3 } },
        bodies: { [P]: { shape: P, material: P } },
        robots: {
          [P]: {
            parts: [
              { alias: P, template: P, position: [0, 0.1, 0] },
              { alias: 'b', shape: P, position: [0.6, 0.1, 0] },
            ],
            joints: [{ name: P, type: 'hinge', bodyA: P, bodyB: 'b', anchorA: [0.3, 0, 0], anchorB: [-0.3, 0, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] }],
          },
        },
      }),
    );
    writeFileSync(
      join(dir, 'library.json'),
      JSON.stringify({
        format: 'stackfield-scene/1',
        include: ['names.library.json'],
        shapes: { floor: { type: 'plane' } },
        bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'one', template: P, position: [3, 1, 0] }],
        robots: [{ name: P, robot: P, position: [0, 0, 0], parts: { [P]: { friction: 0.2 } } }],
      }),
    );
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a shape, body, joint and soft material named "__proto__" (a shape "constructor", a soft body "toString") run', () => {
    const r = stackfield(['run', join(dir, 'plain.json'), '--steps', '2', '--every', '2', '--threads', '1', '--summary', 'none']);
    expect(r.status, r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!) as { bodies: { name: string }[]; soft: { name: string }[] };
    expect(last.bodies.map((b) => b.name)).toEqual(['ground', '__proto__', 'constructor']);
    expect(last.soft.map((b) => b.name)).toEqual(['toString']);
  });

  it('library shapes, materials, templates, robots, parts and instances named "__proto__" resolve', () => {
    const r = stackfield(['check', join(dir, 'library.json')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('ok: scene, 4 bodies (1 robot), 1 joint');
  });

  it('a built-in parameter named "__proto__" is unknown, not silently dropped', () => {
    const r = stackfield(['run', '--builtin', 'tower', '--param', '__proto__=3', '--steps', '1']);
    expectBadInput(r, '--builtin: scene "tower" has no parameter "__proto__"');
  });
});

describe('"rotation" and "orientation" together', () => {
  const both = { rotation: { axis: [0, 1, 0], degrees: 30 }, orientation: [0, 0, 0, 1] };
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-pose-'));
    const floor = { shapes: { floor: { type: 'plane' }, box: { type: 'box' } } };
    const ground = { name: 'ground', shape: 'floor', static: true };
    const scene = (o: object) => JSON.stringify({ format: 'stackfield-scene/1', ...floor, bodies: [ground], ...o });
    writeFileSync(join(dir, 'body.json'), scene({ bodies: [ground, { name: 'b', shape: 'box', position: [0, 1, 0], ...both }] }));
    writeFileSync(join(dir, 'soft.json'), scene({ softBodies: [{ name: 's', shape: 'box', position: [0, 1, 0], ...both }] }));
    writeFileSync(
      join(dir, 'parts.library.json'),
      JSON.stringify({
        format: 'stackfield-library/1',
        shapes: { plate: { type: 'box', size: [0.5, 0.1, 0.3] } },
        bodies: { plate: { shape: 'plate' } },
        robots: {
          pair: {
            parts: [{ alias: 'a', template: 'plate' }, { alias: 'b', template: 'plate', position: [0.6, 0, 0] }],
            joints: [{ type: 'ball', bodyA: 'a', bodyB: 'b', anchorA: [0.3, 0, 0], anchorB: [-0.3, 0, 0] }],
          },
        },
      }),
    );
    writeFileSync(
      join(dir, 'bad-part.library.json'),
      JSON.stringify({
        format: 'stackfield-library/1',
        shapes: { plate: { type: 'box', size: [0.5, 0.1, 0.3] } },
        robots: { pair: { parts: [{ alias: 'a', shape: 'plate' }, { alias: 'b', shape: 'plate', position: [1, 0, 0], ...both }] } },
      }),
    );
    writeFileSync(join(dir, 'template.json'), scene({ include: ['parts.library.json'], bodies: [ground, { name: 't', template: 'plate', ...both }] }));
    writeFileSync(join(dir, 'robot.json'), scene({ include: ['parts.library.json'], robots: [{ name: 'r', robot: 'pair', ...both }] }));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['body.json', 'bodies[1]'],
    ['soft.json', 'softBodies[0]'],
    ['template.json', 'bodies[1]'],
    ['robot.json', 'robots[0].rotation'],
    ['bad-part.library.json', 'robots.pair.parts[1].rotation'],
  ])('%s is refused at %s', (file, where) => {
    const r = stackfield(['check', join(dir, file)]);
    expectBadInput(r, `${join(dir, file)}: ${where}: "orientation" and "rotation" are alternatives; give only one`);
    expectClean(r.stderr);
  });
});
