/**
 * Library files and scenes of instances (docs/LIBRARY_FORMAT.md): a scene and
 * its flattened form build the same world bit for bit; instance poses move
 * anchors and axes; every reference error names its file and JSON path; a
 * robot whose parts are not all joined is refused.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { builtinWorld, pos, run } from '../dynamics/helpers.ts';
import { angleBetween, norm, quat, rotate, sub, worldPoint, type Q4, type V3 } from '../joints/geometry.ts';
import { loadSceneFile, loadSceneFileWithSources } from '../../src/scene/load.ts';
import { LIBRARY, EXAMPLES, expectSameBits, flattenedWorldOf, loadError, stateBytes, worldOfFile, writeFiles } from './helpers.ts';

const SCENE = 'stackfield-scene/1';
const LIB = 'stackfield-library/1';

/** Unit quaternion of a rotation by `deg` degrees about `axis`. */
function axisAngle(axis: V3, deg: number): Q4 {
  const l = norm(axis), h = (deg * Math.PI) / 360, s = Math.sin(h) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(h)];
}

describe('a scene and its flattened form', () => {
  it('give bit-identical states: rotated robots, overrides, programs, templates, materials and defaults', async () => {
    const dir = writeFiles({
      'scene.json': {
        format: SCENE,
        include: [LIBRARY],
        defaults: { rollingFriction: 0.01 },
        materials: { ice: { friction: 0.05 } },
        bodies: [
          { name: 'ground', template: 'ground' },
          { name: 'loose', template: 'plate', material: 'ice', position: [2, 0.3, 1.5], rotation: { axis: [0, 1, 0], degrees: 30 } },
        ],
        robots: [
          { name: 'a', robot: 'caterpillar', rotation: { axis: [0, 1, 0], degrees: 35 } },
          {
            name: 'b', robot: 'caterpillar', position: [0, 0, 2.2], rotation: { axis: [0, 1, 0], degrees: -20 },
            parts: { h2: { material: 'rubber', density: 700 } },
            motors: { drive: { axis: [0, 0, -1], program: [{ speed: 6, duration: 0.3 }, { speed: 2, duration: 0.2 }], repeat: true } },
          },
          { name: 'w', robot: 'inchworm', position: [-2, 0, 1] },
        ],
      },
    });
    const file = join(dir, 'scene.json');
    const w1 = await worldOfFile(file);
    const w2 = await flattenedWorldOf(file);
    expect(w2.bodies.names).toEqual(w1.bodies.names);
    expect(w1.bodies.names).toContain('b/h2');
    await run(w1, 150);
    await run(w2, 150);
    expectSameBits(stateBytes(w1), stateBytes(w2));
    // The robots did move (a comparison of two resting worlds would prove little).
    expect(Math.hypot(pos(w1, 'b/h0')[0] - 0, pos(w1, 'b/h0')[2] - 2.2)).toBeGreaterThan(0.05);
  });

  it('the caterpillar rebuilt from the example library moves exactly as the built-in one', async () => {
    const lib = await worldOfFile(join(EXAMPLES, 'caterpillar.scene.json'));
    const builtin = await builtinWorld('caterpillar');
    expect(lib.bodies.names).toEqual(['ground', 'cat/h0', 'cat/h1', 'cat/h2']);
    await run(lib, 300);
    await run(builtin, 300);
    expectSameBits(stateBytes(lib), stateBytes(builtin));
    expect(pos(lib, 'cat/h1')[0]).toBeGreaterThan(0.5);
  });

  it('a plain scene is its own flattened form', async () => {
    const json = { format: SCENE, shapes: { b: { type: 'box' } }, bodies: [{ shape: 'b', friction: 0.7 }], joints: [], motors: [] };
    const dir = writeFiles({ 'plain.json': json });
    expect((await loadSceneFileWithSources(join(dir, 'plain.json'))).flat).toEqual(json);
  });
});

describe('instances', () => {
  // A robot whose second part is an L-block (its centre of mass is off its shape origin),
  // turned and placed in the robot frame, with a hinge between the parts and two body motors.
  const link: Q4 = axisAngle([0, 1, 0], 30);
  const linkPos: V3 = [0.5, 0.2, 0];
  const hingeRobot: V3 = [0.3, 0.1, 0.05];
  // anchorB in the link's shape frame: R_link^-1 (hinge - linkPos).
  const anchorB = rotate([-link[0], -link[1], -link[2], link[3]], sub(hingeRobot, linkPos));
  const lib = {
    format: LIB,
    shapes: {
      block: { type: 'box', size: [0.4, 0.2, 0.3], sdf: { cells: 12 } },
      L: { type: 'extrude', polygon: [[0, 0], [0.4, 0], [0.4, 0.1], [0.1, 0.1], [0.1, 0.3], [0, 0.3]], depth: 0.1, sdf: { cells: 12 } },
    },
    bodies: { block: { shape: 'block' }, L: { shape: 'L', density: 500 } },
    robots: {
      arm: {
        parts: [
          { alias: 'base', template: 'block' },
          { alias: 'link', template: 'L', position: linkPos, orientation: link },
        ],
        joints: [{ name: 'elbow', type: 'hinge', bodyA: 'base', bodyB: 'link', anchorA: hingeRobot, anchorB, axisA: [0, 0, 1], axisB: rotate([-link[0], -link[1], -link[2], link[3]], [0, 0, 1]) }],
        motors: [
          { name: 'spinWorld', body: 'link', targetAngularVelocity: [0, 2, 0], maxTorque: 1 },
          { name: 'spinBody', body: 'link', frame: 'body', axis: [1, 0, 0], speed: 1, maxTorque: 1 },
          { name: 'elbow', joint: 'elbow', speed: 0.5, maxTorque: 1 },
        ],
      },
    },
  };
  const q: Q4 = axisAngle([1, 2, 0.5], 70);
  const t: V3 = [1, 2, -3];
  const dir = writeFiles({
    'lib.json': lib,
    'scene.json': { format: SCENE, gravity: [0, 0, 0], include: ['lib.json'], bodies: [], robots: [{ name: 'r', robot: 'arm', position: t, orientation: q }] },
  });

  it('rotation and position move every part, anchor and axis as one rigid body', async () => {
    const w = await worldOfFile(join(dir, 'scene.json'));
    const expected = (p: V3): V3 => {
      const r = rotate(q, p);
      return [r[0] + t[0], r[1] + t[1], r[2] + t[2]];
    };
    // The hinge's two anchors meet where the instance pose puts the robot-frame hinge point.
    const a = worldPoint(w, 'r/base', hingeRobot);
    const b = worldPoint(w, 'r/link', anchorB);
    const want = expected(hingeRobot);
    for (let k = 0; k < 3; k++) {
      expect(a[k]).toBeCloseTo(want[k]!, 12);
      expect(b[k]).toBeCloseTo(want[k]!, 12);
    }
    // The link's shape origin sits at the instance pose of its robot-frame position.
    const origin = worldPoint(w, 'r/link', [0, 0, 0]);
    const wantOrigin = expected(linkPos);
    for (let k = 0; k < 3; k++) expect(origin[k]).toBeCloseTo(wantOrigin[k]!, 12);
    // The hinge axis as each body carries it is the instance rotation of the robot's z axis.
    const axisWorld = rotate(q, [0, 0, 1]);
    const onBase = rotate(quat(w, 'r/base'), [0, 0, 1]);
    const onLink = rotate(quat(w, 'r/link'), lib.robots.arm.joints[0]!.axisB as V3);
    expect(angleBetween(onBase, axisWorld)).toBeLessThan(1e-12);
    expect(angleBetween(onLink, axisWorld)).toBeLessThan(1e-12);
  });

  it('a robot motor in the world frame turns with the instance; one in the body frame stays as written', async () => {
    const scene = await loadSceneFile(join(dir, 'scene.json'));
    const world = scene.motors.find((m) => m.name === 'r/spinWorld')!;
    const body = scene.motors.find((m) => m.name === 'r/spinBody')!;
    const want = rotate(q, [0, 1, 0]);
    for (let k = 0; k < 3; k++) expect(world.axis[k]).toBeCloseTo(want[k]!, 14);
    expect(world.program).toEqual([{ speed: 2, duration: Infinity }]);
    expect(body).toMatchObject({ frame: 'body', axis: [1, 0, 0] });
    expect(scene.motors.find((m) => m.name === 'r/elbow')).toMatchObject({ joint: 'r/elbow', body: '' });
    expect(scene.joints.map((j) => `${j.name}: ${j.bodyA} - ${j.bodyB}`)).toEqual(['r/elbow: r/base - r/link']);
  });

  it('layers: scene defaults, then template material and keys, part, override, in that order', async () => {
    const d = writeFiles({
      'lib.json': {
        format: LIB,
        shapes: { b: { type: 'box', sdf: { cells: 8 } } },
        materials: { soft: { friction: 0.9, restitution: 0.1, density: 300 }, hard: { restitution: 0.8 } },
        bodies: { t: { shape: 'b', material: 'soft', friction: 0.7 } },
        robots: { r: { parts: [{ alias: 'p', template: 't', material: 'hard', mass: 4 }, { alias: 'q', template: 't' }], joints: [{ type: 'ball', bodyA: 'p', bodyB: 'q', anchorA: [0, 0, 0], anchorB: [0, 0, 0] }] } },
      },
      'scene.json': {
        format: SCENE, include: ['lib.json'], defaults: { friction: 0.2, spinningFriction: 0.3 },
        bodies: [{ name: 'x', template: 't', friction: 0.4 }, { name: 'y', shape: 'b' }],
        robots: [{ name: 'i', robot: 'r', parts: { q: { density: 50 } } }],
      },
    });
    const s = await loadSceneFile(join(d, 'scene.json'));
    const body = (n: string) => s.bodies.find((b) => b.name === n)!;
    expect(body('x')).toMatchObject({ friction: 0.4, restitution: 0.1, density: 300, spinningFriction: 0.3 });
    expect(body('y')).toMatchObject({ friction: 0.2, restitution: 0.5, density: 1000, spinningFriction: 0.3 });
    // The part's mass replaces the material's density; its material's restitution replaces the template's.
    expect(body('i/p')).toMatchObject({ friction: 0.7, restitution: 0.8, mass: 4, spinningFriction: 0.3 });
    expect(body('i/p').density).toBeUndefined();
    expect(body('i/q')).toMatchObject({ friction: 0.7, restitution: 0.1, density: 50 });
  });
});

describe('reference errors name their file and JSON path', () => {
  const shapes = { b: { type: 'box', sdf: { cells: 8 } }, floor: { type: 'plane' } };
  const plate = { shape: 'b', material: 'rubber' };
  const cat = {
    parts: [{ alias: 'h0', template: 'plate' }, { alias: 'h1', template: 'plate', position: [1, 0, 0] }, { alias: 'h2', template: 'plate', position: [2, 0, 0] }],
    joints: [
      { name: 'front', type: 'ball', bodyA: 'h0', bodyB: 'h1', anchorA: [0.5, 0, 0], anchorB: [-0.5, 0, 0] },
      { name: 'rear', type: 'hinge', bodyA: 'h1', bodyB: 'h2', anchorA: [0.5, 0, 0], anchorB: [-0.5, 0, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] },
    ],
    motors: [{ name: 'drive', body: 'h0', targetAngularVelocity: [0, 0, 1], maxTorque: 1 }],
  };
  const library = (patch: (l: any) => void = () => {}) => {
    const l: any = structuredClone({ format: LIB, shapes, materials: { rubber: { friction: 1 } }, bodies: { plate }, robots: { cat } });
    patch(l);
    return l;
  };
  const scene = (patch: (s: any) => void = () => {}) => {
    const s: any = { format: SCENE, include: ['lib.json'], bodies: [{ name: 'ground', shape: 'floor', static: true }], robots: [{ name: 'c', robot: 'cat' }] };
    patch(s);
    return s;
  };
  type Case = [string, Record<string, unknown>, string, string, string];
  const cases: Case[] = [
    ['an include cycle', { 'lib.json': library((l) => (l.include = ['more.json'])), 'more.json': { format: LIB, include: ['lib.json'] } },
      'more.json', 'include[0]', 'include cycle: DIR/lib.json -> DIR/more.json -> DIR/lib.json'],
    ['a missing include', { 'lib.json': library(), 'scene.json': scene((s) => s.include.push('libs/none.json')) },
      'scene.json', 'include[1]', 'included file not found: "libs/none.json"'],
    ['an included file that is not a library', { 'lib.json': { ...scene(), include: [] } }, 'lib.json', 'format', 'an included file must be a library'],
    ['an unknown body template', { 'lib.json': library(), 'scene.json': scene((s) => s.bodies.push({ template: 'plat' })) },
      'scene.json', 'bodies[1].template', 'unknown body template "plat" (did you mean "plate"?)'],
    ['an unknown robot', { 'lib.json': library(), 'scene.json': scene((s) => (s.robots[0].robot = 'cta')) },
      'scene.json', 'robots[0].robot', 'unknown robot "cta" (did you mean "cat"?)'],
    ['an unknown material in a template', { 'lib.json': library((l) => (l.bodies.plate.material = 'ruber')) },
      'lib.json', 'bodies.plate.material', 'unknown material "ruber" (did you mean "rubber"?)'],
    ['an unknown shape in a template', { 'lib.json': library((l) => (l.bodies.plate.shape = 'bb')) }, 'lib.json', 'bodies.plate.shape', 'unknown shape "bb" (did you mean "b"?)'],
    ['an unknown template in a part', { 'lib.json': library((l) => (l.robots.cat.parts[1].template = 'plates')) },
      'lib.json', 'robots.cat.parts[1].template', 'unknown body template "plates" (did you mean "plate"?)'],
    ['a joint naming a part outside its robot', { 'lib.json': library((l) => (l.robots.cat.joints[1].bodyB = 'h3')) },
      'lib.json', 'robots.cat.joints[1].bodyB', '"h3" is not a part of robot "cat" (did you mean "h0"?)'],
    ['a motor naming a part outside its robot', { 'lib.json': library((l) => (l.robots.cat.motors[0].body = 'ground')) },
      'lib.json', 'robots.cat.motors[0].body', '"ground" is not a part of robot "cat"'],
    ['a motor naming a joint outside its robot', { 'lib.json': library((l) => (l.robots.cat.motors[0] = { joint: 'reer', speed: 1, maxTorque: 1 })) },
      'lib.json', 'robots.cat.motors[0].joint', 'unknown joint "reer" (did you mean "rear"?)'],
    ['an override of an unknown part', { 'lib.json': library(), 'scene.json': scene((s) => (s.robots[0].parts = { h9: { friction: 1 } })) },
      'scene.json', 'robots[0].parts.h9', 'unknown part "h9"'],
    ['an override of an unknown motor', { 'lib.json': library(), 'scene.json': scene((s) => (s.robots[0].motors = { driv: { maxTorque: 2 } })) },
      'scene.json', 'robots[0].motors.driv', 'unknown motor "driv" (did you mean "drive"?)'],
    ['a scene joint naming an unknown instance part', { 'lib.json': library(), 'scene.json': scene((s) => (s.joints = [{ type: 'ball', bodyA: 'ground', bodyB: 'c/h00', anchorA: [0, 0, 0], anchorB: [0, 0, 0] }])) },
      'scene.json', 'joints[0].bodyB', 'unknown body "c/h00" (did you mean "c/h0"?)'],
    ['a bad value in a template', { 'lib.json': library((l) => (l.bodies.plate.friction = -1)) }, 'lib.json', 'bodies.plate.friction', 'expected a finite number >= 0, got -1'],
    ['a bad value in a material', { 'lib.json': library((l) => (l.materials.rubber.restitution = 2)) }, 'lib.json', 'materials.rubber.restitution', 'expected a number from 0 to 1, got 2'],
    ['a bad value in an override', { 'lib.json': library(), 'scene.json': scene((s) => (s.robots[0].parts = { h1: { density: 0 } })) },
      'scene.json', 'robots[0].parts.h1.density', 'expected a positive number'],
    ['a name defined twice', { 'lib.json': library((l) => (l.include = ['more.json'])), 'more.json': { format: LIB, materials: { rubber: {} } } },
      'more.json', 'materials.rubber', 'material "rubber" is already defined in DIR/lib.json (materials.rubber)'],
    ['a definition from a file not included', { 'lib.json': library((l) => (l.bodies.plate.material = 'wood')), 'wood.json': { format: LIB, materials: { wood: { friction: 0.4 } } }, 'scene.json': scene((s) => s.include.push('wood.json')) },
      'lib.json', 'bodies.plate.material', 'material "wood" is defined in DIR/wood.json, which DIR/lib.json does not include'],
    ['a duplicate instance name', { 'lib.json': library(), 'scene.json': scene((s) => s.robots.push({ name: 'c', robot: 'cat' })) },
      'scene.json', 'robots[1]', 'the body name "c/h0" is already used by robots[0]'],
    ['a mesh file missing for a library shape', { 'lib.json': library((l) => (l.shapes.b = { type: 'mesh', path: 'meshes/m.obj' })) },
      'lib.json', 'shapes.b.path', 'mesh file not found'],
  ];

  it.each(cases)('%s', async (_, files, file, where, message) => {
    const dir = writeFiles({ 'scene.json': scene(), ...files });
    const e = await loadError(join(dir, 'scene.json'));
    expect(e.file).toBe(join(dir, file));
    expect(e.where).toBe(where);
    expect(e.message).toContain(message.replaceAll('DIR', dir));
  });
});

describe('robots', () => {
  it('a robot whose parts are not all joined is refused, naming the first part left out', async () => {
    const dir = writeFiles({
      'lib.json': {
        format: LIB,
        shapes: { b: { type: 'box' } },
        robots: {
          split: {
            parts: [{ alias: 'a', shape: 'b' }, { alias: 'b', shape: 'b', position: [1, 0, 0] }, { alias: 'c', shape: 'b', position: [3, 0, 0] }, { alias: 'd', shape: 'b', position: [4, 0, 0] }],
            // a-b and c-d: two pieces.
            joints: [
              { type: 'ball', bodyA: 'a', bodyB: 'b', anchorA: [0.5, 0, 0], anchorB: [-0.5, 0, 0] },
              { type: 'ball', bodyA: 'd', bodyB: 'c', anchorA: [-0.5, 0, 0], anchorB: [0.5, 0, 0] },
            ],
          },
        },
      },
      'scene.json': { format: SCENE, include: ['lib.json'], bodies: [] },
    });
    const e = await loadError(join(dir, 'scene.json'));
    expect(e.file).toBe(join(dir, 'lib.json'));
    expect(e.where).toBe('robots.split.parts[2]');
    expect(e.message).toContain('part "c" is not joined to "a": a robot\'s parts must all be connected by its joints');
  });

  it('a robot of one part needs no joint', async () => {
    const dir = writeFiles({
      'lib.json': { format: LIB, shapes: { b: { type: 'box', sdf: { cells: 8 } } }, robots: { one: { parts: [{ alias: 'only', shape: 'b' }] } } },
      'scene.json': { format: SCENE, include: ['lib.json'], bodies: [], robots: [{ name: 'x', robot: 'one', position: [0, 5, 0] }] },
    });
    const s = await loadSceneFile(join(dir, 'scene.json'));
    expect(s.bodies.map((b) => [b.name, b.position])).toEqual([['x/only', [0, 5, 0]]]);
  });

  it('a library mesh path is rewritten relative to the scene that flattens it', async () => {
    const cube = ['v -1 -1 -1', 'v 1 -1 -1', 'v 1 1 -1', 'v -1 1 -1', 'v -1 -1 1', 'v 1 -1 1', 'v 1 1 1', 'v -1 1 1',
      'f 1 4 3 2', 'f 5 6 7 8', 'f 1 2 6 5', 'f 2 3 7 6', 'f 3 4 8 7', 'f 4 1 5 8'].join('\n');
    const dir = writeFiles({
      'libs/meshes/cube.obj': cube,
      'libs/lib.json': { format: LIB, shapes: { cube: { type: 'mesh', path: 'meshes/cube.obj', scale: 0.1, sdf: { cells: 8 } } }, bodies: { c: { shape: 'cube' } } },
      'scenes/scene.json': { format: SCENE, include: ['../libs/lib.json'], bodies: [{ name: 'c', template: 'c' }] },
    });
    const { flat, scene } = await loadSceneFileWithSources(join(dir, 'scenes', 'scene.json'));
    expect((flat['shapes'] as any).cube.path).toBe('../libs/meshes/cube.obj');
    expect(scene.shapes['cube']).toMatchObject({ resolvedPath: join(dir, 'libs', 'meshes', 'cube.obj') });
    const w = await flattenedWorldOf(join(dir, 'scenes', 'scene.json'));
    expect(w.bodies.names).toEqual(['c']);
  });
});

describe('the example library', () => {
  it('lists the robots the examples use', async () => {
    const { flat } = await loadSceneFileWithSources(join(EXAMPLES, 'cart-rings.scene.json'));
    const names = (flat['bodies'] as { name: string }[]).map((b) => b.name);
    expect(names.filter((n) => n.startsWith('cart/'))).toEqual(['cart/chassis', 'cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
    // Four hinge joints, each with a joint motor in its own axis.
    const motors = flat['motors'] as { joint: string }[];
    expect(motors.map((m) => m.joint)).toEqual(['cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
  });
});
