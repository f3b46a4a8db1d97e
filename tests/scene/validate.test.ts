import { describe, expect, test } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { DEFAULT_SOLVER, validateScene } from '../../src/scene/validate.ts';

type Json = Record<string, any>;

/** A small valid scene touching every section; tests copy it and break one thing. */
function baseScene(): Json {
  return {
    format: 'stackfield-scene/1',
    shapes: {
      ring: { type: 'torus', majorRadius: 0.5, minorRadius: 0.12 },
      box: { type: 'box', size: [1, 1, 1] },
      floor: { type: 'plane', normal: [0, 2, 0] },
    },
    bodies: [
      { name: 'ground', shape: 'floor', static: true },
      { name: 'a', shape: 'box', position: [0, 1, 0] },
      { name: 'b', shape: 'ring', position: [0, 2, 0], mass: 2 },
    ],
    joints: [{ type: 'ball', bodyA: 'a', bodyB: 'b', anchorA: [0, 0.5, 0], anchorB: [0, -0.5, 0] }],
    motors: [{ body: 'a', targetAngularVelocity: [0, 0, 1], startTorque: 1, torqueIncrement: 0.1, maxTorque: 10 }],
  };
}

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof InputError)) throw new Error(`expected an InputError, got ${String(e)}`);
    return e;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

/** Validates a modified copy of the base scene and returns the error. */
function errorFor(edit: (s: Json) => void): InputError {
  const s = baseScene();
  edit(s);
  return inputError(() => validateScene(s, 'scene.json'));
}

function expectError(edit: (s: Json) => void, where: string | undefined, message: string | RegExp): void {
  const e = errorFor(edit);
  expect(e.file).toBe('scene.json');
  expect(e.where).toBe(where);
  if (typeof message === 'string') expect(e.message).toContain(message);
  else expect(e.message).toMatch(message);
}

describe('a valid scene', () => {
  test('round trips with every default filled in', () => {
    const scene = validateScene(baseScene(), 'scene.json');
    expect(scene.file).toBe('scene.json');
    expect(scene.gravity).toEqual([0, -9.81, 0]);
    expect(scene.dt).toBe(0.01);
    expect(scene.solver).toEqual({
      scheme: 'separated',
      contactSolver: 'sequential',
      contactPose: 'current',
      collisionIterations: 5,
      contactIterations: 10,
      pgsErrMax: 0,
      pgsBeta: 0.2,
      pgsSlop: 0.1,
      jointIterations: 10,
      contactGraph: true,
      shockPropagation: true,
      edgeSamples: 3,
      edgeSpacing: 0,
      ccd: true,
      jointPrestabilization: true,
      sleep: true,
    });
    expect(scene.shapes['ring']).toEqual({ type: 'torus', majorRadius: 0.5, minorRadius: 0.12, segments: [24, 9], sdf: { cells: 48, padding: 2 } });
    expect(scene.shapes['box']).toEqual({ type: 'box', size: [1, 1, 1], sdf: { cells: 48, padding: 2 } });
    expect(scene.shapes['floor']).toEqual({ type: 'plane', normal: [0, 1, 0] });
    expect(scene.bodies[1]).toEqual({
      name: 'a',
      shape: 'box',
      static: false,
      position: [0, 1, 0],
      orientation: [0, 0, 0, 1],
      velocity: [0, 0, 0],
      angularVelocity: [0, 0, 0],
      density: 1000,
      restitution: 0.5,
      friction: 0.5,
      staticFriction: 0.5,
      rollingFriction: 0,
      spinningFriction: 0,
      // Left at the defaults: a pair with a body that gives them takes that body's (material.ts).
      materialDefaults: ['restitution', 'friction', 'staticFriction', 'rollingFriction', 'spinningFriction'],
    });
    expect(scene.bodies[2]!.mass).toBe(2);
    expect(scene.bodies[2]!.density).toBeUndefined();
    expect(scene.joints[0]).toEqual({
      name: 'joint0',
      type: 'ball',
      bodyA: 'a',
      bodyB: 'b',
      anchorA: [0, 0.5, 0],
      anchorB: [0, -0.5, 0],
      axisA: [1, 0, 0],
      axisB: [1, 0, 0],
      axis2A: [0, 1, 0],
      collide: false,
      length: 0,
      restitution: 0,
    });
    // The seed's targetAngularVelocity is its axis and a constant program of its length.
    expect(scene.motors[0]).toEqual({
      name: 'motor0',
      body: 'a',
      joint: '',
      axis: [0, 0, 1],
      frame: 'world',
      program: [{ speed: 1, duration: Infinity }],
      repeat: false,
      startTorque: 1,
      torqueIncrement: 0.1,
      maxTorque: 10,
      from: 0,
      until: Infinity,
    });
  });

  test('a minimal scene gets the default solver, body name "body<i>" and no joints or motors', () => {
    const scene = parseSceneText('{"format": "stackfield-scene/1", "shapes": {"s": {"type": "sphere", "radius": 0.3}}, "bodies": [{"shape": "s"}]}', 'min.json');
    expect(scene.solver).toEqual(DEFAULT_SOLVER);
    expect(scene.bodies.map((b) => b.name)).toEqual(['body0']);
    expect(scene.shapes['s']).toEqual({ type: 'sphere', radius: 0.3, segments: [16, 12], sdf: { cells: 48, padding: 2 } });
    expect(scene.joints).toEqual([]);
    expect(scene.motors).toEqual([]);
  });

  test('explicit settings are kept as written', () => {
    const s = baseScene();
    s['gravity'] = [0, 0, -3];
    s['dt'] = 0.1;
    s['solver'] = { scheme: 'standard', contactSolver: 'pgs', contactPose: 'current', collisionIterations: 0, contactIterations: 1, pgsErrMax: 1e-4, pgsBeta: 0.3, pgsSlop: 0.05, jointIterations: 2, contactGraph: false, shockPropagation: false, edgeSamples: 16, edgeSpacing: 0.5, ccd: false, jointPrestabilization: false };
    s['sleep'] = false;
    s['shapes'].box.sdf = { cells: 512, padding: 16 };
    Object.assign(s['bodies'][1], { restitution: 1, friction: 0.9, rollingFriction: 0.01, spinningFriction: 0.02, velocity: [1, 2, 3], angularVelocity: [0, 5, 0] });
    const scene = validateScene(s, 'scene.json');
    expect(scene.gravity).toEqual([0, 0, -3]);
    expect(scene.dt).toBe(0.1);
    expect(scene.solver).toEqual({ ...s['solver'], sleep: false });
    expect(scene.shapes['box']).toMatchObject({ sdf: { cells: 512, padding: 16 } });
    expect(scene.bodies[1]).toMatchObject({ restitution: 1, friction: 0.9, rollingFriction: 0.01, spinningFriction: 0.02, velocity: [1, 2, 3], angularVelocity: [0, 5, 0] });
  });

  test('"seed" names the seed\'s scheme, the sequential solver', () => {
    const s = baseScene();
    s['solver'] = { contactSolver: 'seed' };
    expect(validateScene(s, 'scene.json').solver.contactSolver).toBe('sequential');
  });

  test('every shape type is accepted with its defaults', () => {
    const s = baseScene();
    s['shapes'] = {
      cyl: { type: 'cylinder', radius: 0.1, height: 2 },
      cap: { type: 'capsule', radius: 0.2, height: 0.4 },
      mesh: { type: 'mesh', path: 'models/bunny.obj' },
      vase: { type: 'revolve', profile: [[0, 1], [0.5, 0.5], [0.3, -1], [0, -1]] },
      ell: { type: 'extrude', polygon: [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]], depth: 0.5 },
      floor: { type: 'plane' },
    };
    s['bodies'] = [{ shape: 'cyl' }, { shape: 'cap' }, { shape: 'mesh' }, { shape: 'vase' }, { shape: 'ell' }, { shape: 'floor', static: true }];
    s['joints'] = [];
    s['motors'] = [];
    const scene = validateScene(s, 'dir/scene.json', '/data/scenes');
    const sdf = { cells: 48, padding: 2 };
    expect(scene.shapes['cyl']).toEqual({ type: 'cylinder', radius: 0.1, height: 2, segments: 16, sdf });
    expect(scene.shapes['cap']).toEqual({ type: 'capsule', radius: 0.2, height: 0.4, segments: [16, 8], sdf });
    expect(scene.shapes['mesh']).toEqual({ type: 'mesh', path: 'models/bunny.obj', resolvedPath: '/data/scenes/models/bunny.obj', scale: 1, sdf });
    // Listed top to bottom; stored bottom to top (the (r, y) polygon closed along the axis counter-clockwise).
    expect(scene.shapes['vase']).toEqual({ type: 'revolve', profile: [[0, -1], [0.3, -1], [0.5, 0.5], [0, 1]], segments: 24, sdf });
    expect(scene.shapes['ell']).toEqual({ type: 'extrude', polygon: s['shapes'].ell.polygon, depth: 0.5, sdf });
    expect(scene.shapes['floor']).toEqual({ type: 'plane', normal: [0, 1, 0] });
  });

  test('a clockwise extrude polygon is stored counter-clockwise, and a repeated closing point is dropped', () => {
    const s = baseScene();
    s['shapes'].tri = { type: 'extrude', polygon: [[0, 0], [0, 1], [1, 0], [0, 0]] };
    const scene = validateScene(s, 'scene.json');
    expect(scene.shapes['tri']).toMatchObject({ polygon: [[1, 0], [0, 1], [0, 0]], depth: 1 });
  });

  test('orientation is normalised and rotation becomes the matching quaternion', () => {
    const s = baseScene();
    s['bodies'][1].orientation = [0, 0, 0, 2];
    s['bodies'][2].rotation = { axis: [0, 0, 3], degrees: 90 };
    const scene = validateScene(s, 'scene.json');
    expect(scene.bodies[1]!.orientation).toEqual([0, 0, 0, 1]);
    const q = scene.bodies[2]!.orientation;
    expect(q[0]).toBe(0);
    expect(q[1]).toBe(0);
    expect(q[2]).toBeCloseTo(Math.SQRT1_2, 15);
    expect(q[3]).toBeCloseTo(Math.SQRT1_2, 15);
  });

  test('joint axes are normalised, and each type keeps exactly the vectors it needs', () => {
    const s = baseScene();
    s['joints'] = [
      { type: 'hinge', bodyA: 'a', bodyB: 'b', anchorA: [1, 2, 3], anchorB: [0, 0, 0], axisA: [0, 0, 5], axisB: [0, -2, 0], collide: true },
      { type: 'plane', bodyA: 'ground', bodyB: 'a', anchorA: [0, 0, 0], anchorB: [0, 0, 0], axisA: [2, 0, 0], axis2A: [0, 0, 2] },
      { type: 'lockRotation', bodyA: 'a', bodyB: 'b' },
      { type: 'angle', bodyA: 'a', bodyB: 'b', axisA: [1, 0, 0], axisB: [0, 1, 0] },
    ];
    const scene = validateScene(s, 'scene.json');
    expect(scene.joints[0]).toEqual({ name: 'joint0', type: 'hinge', bodyA: 'a', bodyB: 'b', anchorA: [1, 2, 3], anchorB: [0, 0, 0], axisA: [0, 0, 1], axisB: [0, -1, 0], axis2A: [0, 1, 0], collide: true, length: 0, restitution: 0 });
    expect(scene.joints[1]).toMatchObject({ axisA: [1, 0, 0], axis2A: [0, 0, 1], collide: false });
    expect(scene.joints[2]).toMatchObject({ type: 'lockRotation', anchorA: [0, 0, 0], anchorB: [0, 0, 0] });
  });

  test('motor defaults: runs forever from t = 0; a single torque given means a constant torque', () => {
    const s = baseScene();
    s['motors'] = [
      { body: 'a', targetAngularVelocity: [0, 1, 0], maxTorque: 5 },
      { body: 'b', targetAngularVelocity: [0, 1, 0], startTorque: 2 },
      { body: 'b', targetAngularVelocity: [0, 1, 0], torqueIncrement: 0.5, maxTorque: 4, from: 1, until: 2 },
    ];
    const scene = validateScene(s, 'scene.json');
    expect(scene.motors[0]).toMatchObject({ startTorque: 5, maxTorque: 5, torqueIncrement: 0, from: 0, until: Infinity });
    expect(scene.motors[1]).toMatchObject({ startTorque: 2, maxTorque: 2 });
    expect(scene.motors[2]).toMatchObject({ startTorque: 0, torqueIncrement: 0.5, maxTorque: 4, from: 1, until: 2 });
  });

  test('the input object is not modified', () => {
    const s = baseScene();
    const before = JSON.stringify(s);
    const scene = validateScene(s, 'scene.json');
    scene.bodies[1]!.position[0] = 99;
    expect(JSON.stringify(s)).toBe(before);
  });

  test('shape names that are not identifiers, or are Object.prototype keys, work', () => {
    const s = JSON.parse('{"format": "stackfield-scene/1", "shapes": {"__proto__": {"type": "box"}, "my box": {"type": "box"}}, "bodies": [{"shape": "__proto__"}, {"shape": "my box"}]}');
    const scene = validateScene(s, 'scene.json');
    expect(Object.keys(scene.shapes)).toEqual(['__proto__', 'my box']);
    expect(scene.shapes['__proto__']!.type).toBe('box');
    const e = inputError(() => validateScene(JSON.parse('{"format": "stackfield-scene/1", "shapes": {}, "bodies": [{"shape": "constructor"}]}'), 'scene.json'));
    expect(e.where).toBe('bodies[0].shape');
  });
});

describe('format', () => {
  test('a missing format is an error', () => {
    expectError((s) => delete s['format'], 'format', 'missing required key "format" (expected "stackfield-scene/1")');
  });

  test('another format version is an error naming the supported one', () => {
    expectError((s) => (s['format'] = 'stackfield-scene/2'), 'format', 'unsupported version "stackfield-scene/2" (this program reads "stackfield-scene/1")');
    expectError((s) => (s['format'] = 1), 'format', 'expected "stackfield-scene/1", got 1');
  });

  test('the top level must be an object', () => {
    for (const v of [null, [], 'scene', 3]) {
      const e = inputError(() => validateScene(v, 'scene.json'));
      expect(e.message).toMatch(/^scene\.json: expected a JSON object at the top level/);
    }
  });
});

describe('unknown keys', () => {
  test('a typo gets the closest key as a suggestion', () => {
    expectError((s) => (s['bodies'][2].frction = 0.3), 'bodies[2].frction', 'unknown key (did you mean "friction"?)');
    expectError((s) => (s['shapes'].ring.majorRadus = 1), 'shapes.ring.majorRadus', 'did you mean "majorRadius"?');
    expectError((s) => (s['solver'] = { collisionIteration: 5 }), 'solver.collisionIteration', 'did you mean "collisionIterations"?');
    expectError((s) => (s['gravty'] = [0, 0, 0]), 'gravty', 'did you mean "gravity"?');
    expectError((s) => (s['motors'][0].untill = 3), 'motors[0].untill', 'did you mean "until"?');
    expectError((s) => (s['joints'][0].colide = true), 'joints[0].colide', 'did you mean "collide"?');
    expectError((s) => (s['shapes'].box.sdf = { cell: 32 }), 'shapes.box.sdf.cell', 'did you mean "cells"?');
  });

  test('a key nowhere near a valid one lists the allowed keys', () => {
    expectError((s) => (s['bodies'][1].colour = 'red'), 'bodies[1].colour', 'unknown key (expected one of: name, shape, static, position, orientation');
    // A joint lists what its own type takes, not every type's keys (a ball joint has no axes).
    expectError((s) => (s['joints'][0].zzz = 1), 'joints[0].zzz', 'unknown key (expected one of: name, type, bodyA, bodyB, collide, anchorA, anchorB)');
  });

  test('a misspelt library key (include, materials, defaults, robots; a body\'s template, material) is suggested and listed', () => {
    // A scene with one looks plain, so the plain validator answers: it must know the keys a scene may carry.
    const load = (edit: (s: Json) => void): InputError => {
      const s = baseScene();
      edit(s);
      return inputError(() => parseSceneText(JSON.stringify(s), 'scene.json'));
    };
    const cases: [(s: Json) => void, string, string][] = [
      [(s) => (s['robts'] = []), 'robts', 'did you mean "robots"?'],
      [(s) => (s['includ'] = []), 'includ', 'did you mean "include"?'],
      [(s) => (s['defualts'] = {}), 'defualts', 'did you mean "defaults"?'],
      [(s) => (s['materals'] = {}), 'materals', 'did you mean "materials"?'],
      [(s) => (s['bodies'][1].materal = 'steel'), 'bodies[1].materal', 'did you mean "material"?'],
      [(s) => (s['bodies'][1].tempalte = 'plate'), 'bodies[1].tempalte', 'did you mean "template"?'],
    ];
    for (const [edit, where, hint] of cases) {
      const e = load(edit);
      expect(e.where).toBe(where);
      expect(e.message).toContain(`unknown key (${hint.replace(/\?$/, '')}`);
    }
    expect(load((s) => (s['zzzzzz'] = 1)).message).toMatch(/unknown key \(expected one of: format, .*softBodies, include, materials, defaults, robots\)$/);
    expect(load((s) => (s['bodies'][1].zzzzzz = 1)).message).toMatch(/unknown key \(expected one of: name, .*drag, template, material\)$/);
    // A scene object validated on its own (the library's loadScene(object)) cannot use them, and says why.
    expectError((s) => (s['robots'] = []), 'robots', 'a library key, read only with the scene\'s libraries');
  });

  test('a key of another shape or joint type says this type does not use it', () => {
    expectError((s) => (s['shapes'].box.radius = 1), 'shapes.box.radius', 'a box shape does not use "radius" (its keys are: type, size, sdf, massFrom)');
    expectError((s) => (s['shapes'].floor.sdf = { cells: 32 }), 'shapes.floor.sdf', 'a plane has no SDF');
    expectError((s) => (s['joints'][0].axisA = [1, 0, 0]), 'joints[0].axisA', 'a ball joint does not use "axisA" (it takes anchorA, anchorB)');
  });
});

describe('types and ranges', () => {
  test('a string where a number is expected', () => {
    expectError((s) => (s['bodies'][1].friction = '0.5'), 'bodies[1].friction', 'expected a finite number >= 0, got "0.5"');
  });

  test('an object, array or null where a number is expected', () => {
    expectError((s) => (s['dt'] = null), 'dt', 'expected a number from 0.000001 to 0.1, got null');
    expectError((s) => (s['bodies'][1].restitution = [0.5]), 'bodies[1].restitution', 'expected a number from 0 to 1, got an array of 1 element');
    expectError((s) => (s['bodies'][1].restitution = 1.5), 'bodies[1].restitution', 'expected a number from 0 to 1, got 1.5');
  });

  test('a number too large for a double (1e999) is rejected as Infinity', () => {
    const e = inputError(() =>
      parseSceneText('{"format": "stackfield-scene/1", "gravity": [0, -1e999, 0], "shapes": {"b": {"type": "box"}}, "bodies": [{"shape": "b"}]}', 'big.json'),
    );
    expect(e.where).toBe('gravity[1]');
    expect(e.message).toContain('expected a finite number, got -Infinity (the number is too large for a 64-bit float)');
    // A NaN (only code can pass one: the library) is not called too large.
    expectError((s) => (s['bodies'][1].position = [0, NaN, 0]), 'bodies[1].position[1]', 'got NaN (not a number)');
  });

  test('a vector of the wrong length or with a non-number entry', () => {
    expectError((s) => (s['bodies'][1].position = [0, 1]), 'bodies[1].position', 'expected an array of 3 numbers [x, y, z], got an array of 2 elements');
    expectError((s) => (s['bodies'][1].position = [0, 1, 2, 3]), 'bodies[1].position', 'got an array of 4 elements');
    expectError((s) => (s['bodies'][1].position = { x: 0 }), 'bodies[1].position', 'expected an array of 3 numbers [x, y, z], got an object');
    expectError((s) => (s['bodies'][1].position = [0, 'one', 2]), 'bodies[1].position[1]', 'expected a finite number, got "one"');
    expectError((s) => (s['bodies'][1].orientation = [0, 0, 1]), 'bodies[1].orientation', 'expected a quaternion [x, y, z, w] (4 numbers), got an array of 3 elements');
  });

  test('booleans must be true or false', () => {
    expectError((s) => (s['bodies'][1].static = 'yes'), 'bodies[1].static', 'expected true or false, got "yes"');
  });

  test('dt must be in [1e-6, 0.1]', () => {
    expectError((s) => (s['dt'] = 0), 'dt', 'expected a number from 0.000001 to 0.1, got 0');
    expectError((s) => (s['dt'] = 9e-7), 'dt', 'got 9e-7');
    expectError((s) => (s['dt'] = 0.2), 'dt', 'got 0.2');
  });

  test('solver counts must be integers in range and enums must be known values', () => {
    expectError((s) => (s['solver'] = { contactIterations: 2.5 }), 'solver.contactIterations', 'expected an integer from 0 to 10000, got 2.5');
    expectError((s) => (s['solver'] = { jointIterations: -1 }), 'solver.jointIterations', 'got -1');
    expectError((s) => (s['solver'] = { edgeSamples: 17 }), 'solver.edgeSamples', 'expected an integer from 0 to 16, got 17');
    expectError((s) => (s['solver'] = { edgeSpacing: -0.5 }), 'solver.edgeSpacing', 'got -0.5');
    expectError((s) => (s['solver'] = { scheme: 'seperated' }), 'solver.scheme', 'expected "separated" or "standard", got "seperated" (did you mean "separated"?)');
    expectError((s) => (s['solver'] = { contactPose: 'later' }), 'solver.contactPose', 'expected "predicted" or "current", got "later"');
    expectError((s) => (s['solver'] = { contactSolver: 'jacobi' }), 'solver.contactSolver', 'expected "sequential", "pgs" or "accumulated", got "jacobi"');
    expectError((s) => (s['solver'] = []), 'solver', 'expected an object of solver settings, got an empty array');
  });

  test('null, arrays and strings where objects are expected give InputErrors, not TypeErrors', () => {
    for (const bad of [null, [], 'x', 7, true]) {
      for (const [edit, where] of [
        [(s: Json) => (s['shapes'] = bad), 'shapes'],
        [(s: Json) => (s['shapes'].box = bad), 'shapes.box'],
        [(s: Json) => (s['shapes'].box.sdf = bad), 'shapes.box.sdf'],
        [(s: Json) => (s['bodies'][1] = bad), 'bodies[1]'],
        [(s: Json) => (s['bodies'][1].rotation = bad), 'bodies[1].rotation'],
        [(s: Json) => (s['joints'][0] = bad), 'joints[0]'],
        [(s: Json) => (s['motors'][0] = bad), 'motors[0]'],
      ] as const) {
        expect(errorFor(edit).where).toBe(where);
      }
    }
    for (const bad of [null, {}, 'x', 7]) {
      expect(errorFor((s) => (s['bodies'] = bad)).where).toBe('bodies');
      expect(errorFor((s) => (s['joints'] = bad)).where).toBe('joints');
      expect(errorFor((s) => (s['motors'] = bad)).where).toBe('motors');
    }
  });

  test('replacing any value anywhere in a scene with junk never throws anything but InputError', () => {
    // Walks every position in a scene that uses every section and swaps in values of the wrong kind.
    const junk: unknown[] = [null, [], {}, 'x', -1, 0, 1e999, true, [1, 2, 3], [[0, 0]]];
    const full: Json = baseScene();
    full['solver'] = { ...DEFAULT_SOLVER };
    full['shapes'].vase = { type: 'revolve', profile: [[0, 1], [0.5, 0], [0, -1]], sdf: { cells: 32, padding: 2 } };
    full['shapes'].ell = { type: 'extrude', polygon: [[0, 0], [1, 0], [0, 1]], depth: 1 };
    full['shapes'].mesh = { type: 'mesh', path: 'm.obj', scale: 2 };
    full['bodies'].push({ name: 'c', shape: 'vase', rotation: { axis: [0, 1, 0], degrees: 10 }, density: 5 });
    full['joints'].push({ type: 'plane', bodyA: 'a', bodyB: 'c', anchorA: [0, 0, 0], anchorB: [0, 0, 0], axisA: [1, 0, 0], axis2A: [0, 1, 0] });
    const paths: (string | number)[][] = [];
    const walk = (v: unknown, path: (string | number)[]): void => {
      if (path.length > 0) paths.push(path);
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
      else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk((v as Json)[k], [...path, k]);
    };
    walk(full, []);
    expect(paths.length).toBeGreaterThan(100);
    let errors = 0;
    for (const path of paths) {
      for (const j of junk) {
        const s = structuredClone(full);
        let parent: any = s;
        for (const k of path.slice(0, -1)) parent = parent[k];
        parent[path[path.length - 1]!] = j;
        try {
          validateScene(s, 'scene.json');
        } catch (e) {
          expect(e, `${path.join('.')} = ${JSON.stringify(j)}`).toBeInstanceOf(InputError);
          errors++;
        }
      }
    }
    expect(errors).toBeGreaterThan(paths.length * 5);
  });
});

describe('shapes', () => {
  test('a missing or unknown type lists the valid types', () => {
    expectError((s) => delete s['shapes'].box.type, 'shapes.box.type', 'missing required key "type" (valid types: box, sphere, cylinder, capsule, torus, plane, mesh, revolve, extrude)');
    expectError((s) => (s['shapes'].ring.type = 'tours'), 'shapes.ring.type', 'unknown shape type "tours" (did you mean "torus"?); valid types: box, sphere');
    expectError((s) => (s['shapes'].ring.type = 'blob'), 'shapes.ring.type', 'unknown shape type "blob"; valid types: box, sphere');
  });

  test('dimensions must be positive', () => {
    expectError((s) => (s['shapes'].box.size = [1, 0, 1]), 'shapes.box.size[1]', 'expected a positive number (> 0), got 0');
    expectError((s) => (s['shapes'].ring = { type: 'sphere', radius: -1 }), 'shapes.ring.radius', 'positive');
    expectError((s) => (s['shapes'].ring = { type: 'mesh', path: 'a.obj', scale: 0 }), 'shapes.ring.scale', 'positive');
  });

  test('torus needs majorRadius > minorRadius', () => {
    expectError((s) => (s['shapes'].ring.minorRadius = 0.5), 'shapes.ring.minorRadius', 'expected majorRadius > minorRadius');
  });

  test('capsule height covers both caps', () => {
    expectError((s) => (s['shapes'].ring = { type: 'capsule', radius: 0.5, height: 0.9 }), 'shapes.ring.height', 'expected a height >= 2 * radius = 1');
  });

  test('segment counts are integers with minimums', () => {
    expectError((s) => (s['shapes'].ring = { type: 'sphere', segments: [2, 12] }), 'shapes.ring.segments[0]', 'expected an integer from 3 to 1024, got 2');
    expectError((s) => (s['shapes'].ring = { type: 'sphere', segments: [16, 1] }), 'shapes.ring.segments[1]', 'expected an integer from 2 to 1024, got 1');
    expectError((s) => (s['shapes'].ring = { type: 'sphere', segments: 16 }), 'shapes.ring.segments', 'expected an array of 2 integers [around, rings], got 16');
    expectError((s) => (s['shapes'].ring = { type: 'cylinder', segments: 8.5 }), 'shapes.ring.segments', 'expected an integer from 3 to 1024, got 8.5');
  });

  test('sdf settings are integers in range', () => {
    expectError((s) => (s['shapes'].box.sdf = { cells: 4 }), 'shapes.box.sdf.cells', 'expected an integer from 8 to 512, got 4');
    expectError((s) => (s['shapes'].box.sdf = { padding: 0 }), 'shapes.box.sdf.padding', 'expected an integer from 1 to 16, got 0');
  });

  test('a plane normal must be non-zero', () => {
    expectError((s) => (s['shapes'].floor.normal = [0, 0, 0]), 'shapes.floor.normal', 'expected a non-zero direction');
  });

  test('a mesh needs a path', () => {
    expectError((s) => (s['shapes'].ring = { type: 'mesh' }), 'shapes.ring.path', 'missing required key "path"');
    expectError((s) => (s['shapes'].ring = { type: 'mesh', path: '' }), 'shapes.ring.path', 'got ""');
  });

  test('a revolve profile starts and ends on the axis, stays at r >= 0 and does not cross itself', () => {
    const rev = (profile: unknown) => (s: Json) => (s['shapes'].ring = { type: 'revolve', profile });
    expectError(rev([[0.1, 1], [0.5, 0], [0, -1]]), 'shapes.ring.profile[0][0]', 'the profile must start on the axis (r = 0), got r = 0.1');
    expectError(rev([[0, 1], [0.5, 0], [0.2, -1]]), 'shapes.ring.profile[2][0]', 'must end on the axis');
    expectError(rev([[0, 1], [-0.5, 0], [0, -1]]), 'shapes.ring.profile[1][0]', 'expected a radius r >= 0, got -0.5');
    expectError(rev([[0, 1], [0, -1]]), 'shapes.ring.profile', 'expected an array of at least 3 points [r, y]');
    expectError(rev([[0, 1], [1, 1], [0, 0], [1, -1], [0, -1]]), 'shapes.ring.profile[2]', 'only the first and last profile points may lie on the axis');
    expectError(rev([[0, 1], [1, -1], [1, 1], [0, -1]]), 'shapes.ring.profile', 'intersects itself');
    expectError(rev([[0, 1], [1, 0, 0], [0, -1]]), 'shapes.ring.profile[1]', 'expected a point [r, y], got an array of 3 elements');
  });

  test('an extrude polygon must be simple with non-zero area', () => {
    const ext = (polygon: unknown) => (s: Json) => (s['shapes'].ring = { type: 'extrude', polygon, depth: 1 });
    expectError(ext([[0, 0], [1, 1], [1, 0], [0, 1]]), 'shapes.ring.polygon', 'the polygon intersects itself: edge 0-1 meets edge 2-3');
    expectError(ext([[0, 0], [1, 0], [2, 0]]), 'shapes.ring.polygon[2]', 'doubles back');
    expectError(ext([[0, 0], [1, 0], [1, 0], [0, 1]]), 'shapes.ring.polygon[2]', 'repeats point 1');
    expectError(ext([[0, 0], [1, 0]]), 'shapes.ring.polygon', 'at least 3 points');
    expectError((s) => (s['shapes'].ring = { type: 'extrude', polygon: [[0, 0], [1, 0], [0, 1]], depth: 0 }), 'shapes.ring.depth', 'positive');
  });
});

describe('bodies', () => {
  test('at least one body is required', () => {
    expectError((s) => (s['bodies'] = []), 'bodies', 'expected at least one body, got an empty array');
    expectError((s) => delete s['bodies'], 'bodies', 'missing required key "bodies"');
  });

  test('a missing shape reference suggests the closest shape name', () => {
    expectError((s) => (s['bodies'][2].shape = 'rnig'), 'bodies[2].shape', 'unknown shape "rnig" (did you mean "ring"?)');
  });

  test('an unknown shape with nothing close lists the defined shapes', () => {
    expectError((s) => (s['bodies'][2].shape = 'teapot'), 'bodies[2].shape', 'unknown shape "teapot" (defined shapes: ring, box, floor)');
    expectError((s) => delete s['shapes'], 'bodies[0].shape', 'unknown shape "floor" (no shapes are defined; add it under "shapes")');
  });

  test('a body without a shape is an error', () => {
    expectError((s) => delete s['bodies'][1].shape, 'bodies[1].shape', 'missing required key "shape"');
  });

  test('mass and density together is an error naming both', () => {
    expectError((s) => (s['bodies'][2].density = 500), 'bodies[2]', 'give either "density" or "mass", not both');
  });

  test('zero or negative mass and density say they must be positive', () => {
    expectError((s) => (s['bodies'][2].mass = 0), 'bodies[2].mass', 'expected a positive number (> 0), got 0');
    expectError((s) => (s['bodies'][2].mass = -3), 'bodies[2].mass', 'expected a positive number (> 0), got -3');
    expectError((s) => (s['bodies'][2].mass = -0), 'bodies[2].mass', 'expected a positive number (> 0), got -0');
    expectError((s) => (s['bodies'][1].density = 0), 'bodies[1].density', 'expected a positive number (> 0), got 0');
  });

  test('an all-zero quaternion is rejected', () => {
    expectError((s) => (s['bodies'][1].orientation = [0, 0, 0, 0]), 'bodies[1].orientation', 'expected a quaternion [x, y, z, w] of non-zero length');
  });

  test('orientation and rotation together is an error', () => {
    expectError(
      (s) => Object.assign(s['bodies'][1], { orientation: [0, 0, 0, 1], rotation: { axis: [0, 1, 0], degrees: 5 } }),
      'bodies[1]',
      '"orientation" and "rotation" are alternatives; give only one',
    );
  });

  test('a rotation needs a non-zero axis and an angle in degrees', () => {
    expectError((s) => (s['bodies'][1].rotation = { axis: [0, 0, 0], degrees: 5 }), 'bodies[1].rotation.axis', 'non-zero direction');
    expectError((s) => (s['bodies'][1].rotation = { axis: [0, 1, 0] }), 'bodies[1].rotation.degrees', 'missing required key "degrees"');
    expectError((s) => (s['bodies'][1].rotation = { axis: [0, 1, 0], angle: 5 }), 'bodies[1].rotation.angle', 'unknown key');
  });

  test('a dynamic body cannot use a plane', () => {
    expectError((s) => (s['bodies'][0].static = false), 'bodies[0].shape', 'shape "floor" is a plane, which only static bodies can use (add "static": true)');
  });

  test('a static body cannot move', () => {
    expectError((s) => (s['bodies'][0].velocity = [0, 1, 0]), 'bodies[0].velocity', 'static bodies cannot move');
    expectError((s) => (s['bodies'][0].angularVelocity = [0, 0, 1]), 'bodies[0].angularVelocity', 'static bodies cannot move');
  });

  test('duplicate names are an error, including a clash with a default name', () => {
    expectError((s) => (s['bodies'][2].name = 'a'), 'bodies[2].name', 'duplicate name "a" (already used by bodies[1])');
    expectError(
      (s) => {
        delete s['bodies'][1].name;
        s['bodies'][2].name = 'body1';
        s['joints'] = [];
        s['motors'] = [];
      },
      'bodies[2].name',
      'duplicate name "body1" (already used by bodies[1] as its default name)',
    );
    expectError((s) => (s['bodies'][1].name = ''), 'bodies[1].name', 'expected a non-empty string, got ""');
  });

  test('restitution and friction ranges', () => {
    expectError((s) => (s['bodies'][1].restitution = -0.1), 'bodies[1].restitution', 'expected a number from 0 to 1');
    expectError((s) => (s['bodies'][1].rollingFriction = -1), 'bodies[1].rollingFriction', '>= 0');
    expectError((s) => (s['bodies'][1].spinningFriction = -1), 'bodies[1].spinningFriction', '>= 0');
  });
});

describe('joints', () => {
  test('unknown bodies get a suggestion or the list of bodies', () => {
    expectError((s) => (s['joints'][0].bodyB = 'bb'), 'joints[0].bodyB', 'unknown body "bb" (did you mean "b"?)');
    expectError((s) => (s['joints'][0].bodyA = 'wheel'), 'joints[0].bodyA', 'unknown body "wheel" (defined bodies: ground, a, b)');
  });

  test('a missing or unknown joint type lists the valid types', () => {
    expectError((s) => (s['joints'][0].type = 'hnige'), 'joints[0].type', 'unknown joint type "hnige" (did you mean "hinge"?); valid types: ball, line, plane, lockRotation, axis, angle, hinge, slider, fixed');
    expectError((s) => delete s['joints'][0].type, 'joints[0].type', 'missing required key "type"');
  });

  test('a joint needs two different bodies, not both static', () => {
    expectError((s) => (s['joints'][0].bodyB = 'a'), 'joints[0].bodyB', 'a joint needs two different bodies, got "a" for both');
    expectError(
      (s) => {
        s['bodies'].push({ name: 'wall', shape: 'box', static: true });
        s['joints'][0].bodyB = 'ground';
        s['joints'][0].bodyA = 'wall';
      },
      'joints[0]',
      'both bodies ("wall", "ground") are static',
    );
  });

  test('missing anchors and axes are named', () => {
    expectError((s) => delete s['joints'][0].anchorB, 'joints[0].anchorB', 'missing required key "anchorB" (expected an array of 3 numbers [x, y, z]: a ball joint needs anchorA, anchorB)');
    expectError((s) => (s['joints'][0] = { type: 'hinge', bodyA: 'a', bodyB: 'b', anchorA: [0, 0, 0], anchorB: [0, 0, 0], axisA: [0, 0, 1] }), 'joints[0].axisB', 'missing required key "axisB"');
    expectError((s) => (s['joints'][0] = { type: 'slider', bodyA: 'a', bodyB: 'b', anchorA: [0, 0, 0], axisA: [0, 0, 1] }), 'joints[0].anchorB', 'missing required key "anchorB"');
  });

  test('a zero axis is an error', () => {
    expectError((s) => (s['joints'][0] = { type: 'axis', bodyA: 'a', bodyB: 'b', axisA: [0, 0, 0], axisB: [0, 0, 1] }), 'joints[0].axisA', 'expected a non-zero direction [x, y, z], got [0, 0, 0]');
  });

  test('parallel plane-joint axes are an error', () => {
    expectError(
      (s) => (s['joints'][0] = { type: 'plane', bodyA: 'a', bodyB: 'b', anchorA: [0, 0, 0], anchorB: [0, 0, 0], axisA: [1, 0, 0], axis2A: [-3, 0, 0] }),
      'joints[0].axis2A',
      'must not be parallel to axisA',
    );
  });

  test('angle-joint axes that start parallel in world space are an error', () => {
    expectError(
      (s) => {
        s['bodies'][2].rotation = { axis: [0, 0, 1], degrees: 90 };
        s['joints'][0] = { type: 'angle', bodyA: 'a', bodyB: 'b', axisA: [0, 1, 0], axisB: [1, 0, 0] };
      },
      'joints[0].axisB',
      'parallel in the initial pose',
    );
  });

  test('collide must be a boolean', () => {
    expectError((s) => (s['joints'][0].collide = 1), 'joints[0].collide', 'expected true or false, got 1');
  });
});

describe('motors', () => {
  test('a motor on a static body is an error', () => {
    expectError((s) => (s['motors'][0].body = 'ground'), 'motors[0].body', '"ground" is static; a motor can only drive a dynamic body');
  });

  test('a motor on an unknown body suggests one', () => {
    expectError((s) => (s['motors'][0].body = 'A'), 'motors[0].body', 'unknown body "A" (did you mean "a"?)');
  });

  test('torques are non-negative and maxTorque >= startTorque', () => {
    expectError((s) => (s['motors'][0].startTorque = -1), 'motors[0].startTorque', 'expected a number from 0 to 1000000000000, got -1');
    expectError((s) => (s['motors'][0].torqueIncrement = 2e12), 'motors[0].torqueIncrement', 'expected a number from 0 to 1000000000000, got 2000000000000');
    expectError((s) => (s['motors'][0].torqueIncrement = -1), 'motors[0].torqueIncrement', 'expected a number from 0 to 1000000000000, got -1');
    expectError((s) => (s['motors'][0].maxTorque = 0.5), 'motors[0].maxTorque', 'expected maxTorque >= startTorque (1), got 0.5');
    expectError((s) => (s['motors'][0] = { body: 'a', targetAngularVelocity: [0, 0, 1] }), 'motors[0].maxTorque', 'a motor needs "maxTorque" and/or "startTorque"');
  });

  test('the time window needs from >= 0 and until > from', () => {
    expectError((s) => (s['motors'][0].from = -1), 'motors[0].from', '>= 0');
    expectError((s) => Object.assign(s['motors'][0], { from: 2, until: 2 }), 'motors[0].until', 'expected until > from (2), got 2');
  });

  test('the target angular velocity is required and a 3-vector', () => {
    expectError((s) => delete s['motors'][0].targetAngularVelocity, 'motors[0].targetAngularVelocity', 'missing required key "targetAngularVelocity"');
    expectError((s) => (s['motors'][0].targetAngularVelocity = 1), 'motors[0].targetAngularVelocity', 'expected an array of 3 numbers');
  });
});
