/**
 * The soft part of the scene format: defaults, the material chain, and a
 * clear error with its JSON path for every kind of bad input.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { validateScene } from '../../src/scene/validate.ts';
import {
  DEFAULT_SOFT_MATERIAL,
  DEFAULT_SOFT_SOLVER,
  PERIMETER_STIFFNESS_FACTOR,
  STRETCH_STIFFNESS_FACTOR,
  VOLUME_STIFFNESS_FACTOR,
} from '../../src/scene/softValidate.ts';
import { buildScene } from './helpers.ts';

type Json = Record<string, any>;

function baseScene(): Json {
  return {
    format: 'stackfield-scene/1',
    shapes: {
      floor: { type: 'plane' },
      ball: { type: 'sphere', radius: 0.3 },
      plus: { type: 'extrude', polygon: [[-1, -3], [1, -3], [1, -1], [3, -1], [3, 1], [1, 1], [1, 3], [-1, 3], [-1, 1], [-3, 1], [-3, -1], [-1, -1]], depth: 1 },
      hook: { type: 'box', size: [0.2, 0.2, 0.2] },
    },
    bodies: [
      { name: 'ground', shape: 'floor', static: true },
      { name: 'hook', shape: 'hook', static: true, position: [0, 3, 0] },
    ],
    softMaterials: { jelly: { stiffness: 5e4, damping: 0.2, preserveVolume: true } },
    softBodies: [
      { name: 'blob', shape: 'ball', material: 'jelly', position: [0, 1, 0], pins: [{ body: 'hook', anchor: [0, -0.1, 0] }] },
      { name: 'cross', shape: 'plus', construction: { method: 'seed', minAngle: 25 }, mass: 3 },
    ],
    softSolver: { integrator: 'rk4', substeps: 4 },
  };
}

function errorFor(edit: (s: Json) => void): InputError {
  const s = baseScene();
  edit(s);
  try {
    validateScene(s, 'scene.json');
  } catch (e) {
    if (e instanceof InputError) return e;
    throw new Error(`expected an InputError, got ${String(e)}`);
  }
  throw new Error('expected an InputError, nothing was thrown');
}

describe('soft bodies in the scene format', () => {
  it('fills every default and resolves the material chain (material, then the body)', () => {
    const scene = validateScene(baseScene(), 'scene.json');
    expect(scene.softSolver).toEqual({ ...DEFAULT_SOFT_SOLVER, integrator: 'rk4', substeps: 4 });
    expect(scene.softMaterials['jelly']).toEqual({
      ...DEFAULT_SOFT_MATERIAL,
      stiffness: 5e4,
      damping: 0.2,
      preserveVolume: true,
      volumeStiffness: VOLUME_STIFFNESS_FACTOR * 5e4,
      stretchStiffness: STRETCH_STIFFNESS_FACTOR * 5e4,
      perimeterStiffness: PERIMETER_STIFFNESS_FACTOR * 5e4,
    });
    const [blob, cross] = scene.softBodies;
    expect(blob).toEqual({
      name: 'blob',
      shape: 'ball',
      material: 'jelly',
      stiffness: 5e4,
      damping: 0.2,
      outerScale: DEFAULT_SOFT_MATERIAL.outerScale,
      density: DEFAULT_SOFT_MATERIAL.density,
      friction: DEFAULT_SOFT_MATERIAL.friction,
      restitution: DEFAULT_SOFT_MATERIAL.restitution,
      preserveVolume: true,
      volumeStiffness: 5e5,
      // The lattice leaves the seed's stretch prevention and perimeter preservation off.
      preventStretch: false,
      stretchStiffness: 0,
      stretchDamping: 1,
      preservePerimeter: false,
      perimeterStiffness: 0,
      construction: { method: 'lattice', resolution: 8 },
      pins: [{ body: 'hook', anchor: [0, -0.1, 0], radius: 0 }],
      position: [0, 1, 0],
      orientation: [0, 0, 0, 1],
      velocity: [0, 0, 0],
      angularVelocity: [0, 0, 0],
    });
    expect(cross).toMatchObject({ name: 'cross', mass: 3, construction: { method: 'seed', minAngle: 25 }, preserveVolume: false, volumeStiffness: 0 });
    // The seed construction has them on, the moduli following the (default) stiffness.
    expect(cross).toMatchObject({
      preventStretch: true,
      stretchStiffness: STRETCH_STIFFNESS_FACTOR * DEFAULT_SOFT_MATERIAL.stiffness,
      stretchDamping: DEFAULT_SOFT_MATERIAL.stretchDamping,
      preservePerimeter: true,
      perimeterStiffness: PERIMETER_STIFFNESS_FACTOR * DEFAULT_SOFT_MATERIAL.stiffness,
    });
    expect(cross).not.toHaveProperty('density');
    expect(cross).not.toHaveProperty('material');
  });

  it('lets a body override its material, and a volume stiffness follow the body\'s own stiffness', () => {
    const scene = validateScene(
      {
        ...baseScene(),
        softBodies: [
          { shape: 'ball', material: 'jelly', stiffness: 1e4, friction: 0.9 },
          { shape: 'ball', material: 'jelly', preserveVolume: false },
          { shape: 'ball', rotation: { axis: [0, 0, 1], degrees: 90 } },
        ],
        softMaterials: { jelly: { stiffness: 5e4, preserveVolume: true } },
      },
      's.json',
    );
    expect(scene.softBodies[0]).toMatchObject({ name: 'soft0', stiffness: 1e4, friction: 0.9, volumeStiffness: 1e5 });
    expect(scene.softBodies[1]).toMatchObject({ name: 'soft1', preserveVolume: false, volumeStiffness: 0 });
    expect(scene.softBodies[2]!.orientation[2]).toBeCloseTo(Math.SQRT1_2, 15);
    // A material's explicit volume stiffness stays when the body changes its stiffness.
    const explicit = validateScene(
      { ...baseScene(), softMaterials: { m: { preserveVolume: true, volumeStiffness: 7e5 } }, softBodies: [{ shape: 'ball', material: 'm', stiffness: 1 }] },
      's.json',
    );
    expect(explicit.softBodies[0]!.volumeStiffness).toBe(7e5);
  });

  it('lets a material switch stretch prevention and perimeter preservation, and a body switch them back', () => {
    const scene = validateScene(
      {
        ...baseScene(),
        softMaterials: { plain: { preventStretch: false, preservePerimeter: false }, taut: { preventStretch: true, stretchStiffness: 9e6 } },
        softBodies: [
          { shape: 'plus', material: 'plain', construction: { method: 'seed' } },
          { shape: 'plus', material: 'plain', construction: { method: 'seed' }, preventStretch: true, stiffness: 2e4, stretchDamping: 0.5 },
          { shape: 'ball', material: 'taut', stiffness: 2e4 },
          { shape: 'plus', construction: { method: 'seed' }, preservePerimeter: true, perimeterStiffness: 4e4 },
        ],
      },
      's.json',
    );
    const [plain, back, taut, perimeter] = scene.softBodies;
    expect(plain).toMatchObject({ preventStretch: false, stretchStiffness: 0, preservePerimeter: false, perimeterStiffness: 0 });
    expect(back).toMatchObject({ preventStretch: true, stretchStiffness: STRETCH_STIFFNESS_FACTOR * 2e4, stretchDamping: 0.5, preservePerimeter: false });
    // A lattice body takes stretch prevention from its material, with the material's own modulus.
    expect(taut).toMatchObject({ preventStretch: true, stretchStiffness: 9e6, preservePerimeter: false });
    expect(perimeter).toMatchObject({ preventStretch: true, preservePerimeter: true, perimeterStiffness: 4e4 });
  });

  it('leaves a scene without soft bodies as it was, with empty soft sections', () => {
    const s = baseScene();
    delete s['softBodies'];
    delete s['softMaterials'];
    delete s['softSolver'];
    const scene = validateScene(s, 'scene.json');
    expect(scene.softBodies).toEqual([]);
    expect(scene.softMaterials).toEqual({});
    expect(scene.softSolver).toEqual(DEFAULT_SOFT_SOLVER);
  });

  // Every invalid soft input: the edit, the JSON path, and what the message must say.
  const cases: [string, (s: Json) => void, string | undefined, string | RegExp][] = [
    ['a misspelt top-level key', (s) => (s['softBody'] = []), 'softBody', 'unknown key (did you mean "softBodies"?)'],
    ['softBodies not an array', (s) => (s['softBodies'] = {}), 'softBodies', 'expected an array of soft bodies, got an object'],
    ['a soft body not an object', (s) => (s['softBodies'][0] = 'blob'), 'softBodies[0]', 'expected a soft body object like'],
    ['a misspelt soft body key', (s) => (s['softBodies'][0]['stifness'] = 1), 'softBodies[0].stifness', 'unknown key (did you mean "stiffness"?)'],
    ['a soft body without a shape', (s) => delete s['softBodies'][0]['shape'], 'softBodies[0].shape', 'missing required key "shape"'],
    ['an unknown shape', (s) => (s['softBodies'][0]['shape'] = 'bal'), 'softBodies[0].shape', 'unknown shape "bal" (did you mean "ball"?)'],
    ['a plane as a soft body', (s) => (s['softBodies'][0]['shape'] = 'floor'), 'softBodies[0].shape', 'shape "floor" is a plane, which encloses no volume'],
    ['an unknown material', (s) => (s['softBodies'][0]['material'] = 'jely'), 'softBodies[0].material', 'unknown soft material "jely" (did you mean "jelly"?)'],
    [
      'a material when none are defined',
      (s) => {
        delete s['softMaterials'];
        s['softBodies'][0]['material'] = 'rubber';
      },
      'softBodies[0].material',
      'unknown soft material "rubber" (no materials are defined; add it under "softMaterials")',
    ],
    ['a material not a string', (s) => (s['softBodies'][0]['material'] = 3), 'softBodies[0].material', 'expected the name of a material defined under "softMaterials" (a string), got 3'],
    ['a negative stiffness', (s) => (s['softBodies'][0]['stiffness'] = -5), 'softBodies[0].stiffness', 'expected a positive number (> 0), got -5'],
    ['a zero stiffness in a material', (s) => (s['softMaterials']['jelly']['stiffness'] = 0), 'softMaterials.jelly.stiffness', 'expected a positive number (> 0), got 0'],
    ['a negative damping', (s) => (s['softBodies'][1]['damping'] = -0.1), 'softBodies[1].damping', 'expected a finite number >= 0, got -0.1'],
    ['an outer scale above 1', (s) => (s['softBodies'][1]['outerScale'] = 2), 'softBodies[1].outerScale', 'expected a number from 0 to 1, got 2'],
    ['a restitution above 1', (s) => (s['softBodies'][1]['restitution'] = 1.5), 'softBodies[1].restitution', 'expected a number from 0 to 1, got 1.5'],
    ['a friction that is a string', (s) => (s['softBodies'][1]['friction'] = 'high'), 'softBodies[1].friction', 'expected a finite number >= 0, got "high"'],
    ['preserveVolume not a boolean', (s) => (s['softBodies'][1]['preserveVolume'] = 'yes'), 'softBodies[1].preserveVolume', 'expected true or false, got "yes"'],
    [
      'a volume stiffness without volume preservation',
      (s) => (s['softBodies'][1]['volumeStiffness'] = 1e6),
      'softBodies[1].volumeStiffness',
      'has no effect without volume preservation; add "preserveVolume": true',
    ],
    [
      'a volume stiffness beside "preserveVolume": false',
      (s) => (s['softMaterials']['jelly'] = { preserveVolume: false, volumeStiffness: 1e6 }),
      'softMaterials.jelly.volumeStiffness',
      'has no effect with "preserveVolume": false; remove one of the two',
    ],
    [
      'a stretch stiffness on a lattice body',
      (s) => (s['softBodies'][0]['stretchStiffness'] = 1e6),
      'softBodies[0].stretchStiffness',
      'has no effect without stretch prevention; add "preventStretch": true',
    ],
    [
      'a stretch damping beside "preventStretch": false',
      (s) => (s['softMaterials']['jelly'] = { preventStretch: false, stretchDamping: 0.5 }),
      'softMaterials.jelly.stretchDamping',
      'has no effect with "preventStretch": false; remove one of the two',
    ],
    ['a negative stretch damping', (s) => (s['softBodies'][1]['stretchDamping'] = -1), 'softBodies[1].stretchDamping', 'expected a finite number >= 0, got -1'],
    ['a zero stretch stiffness', (s) => (s['softBodies'][1]['stretchStiffness'] = 0), 'softBodies[1].stretchStiffness', 'expected a positive number (> 0), got 0'],
    ['preventStretch not a boolean', (s) => (s['softBodies'][1]['preventStretch'] = 1), 'softBodies[1].preventStretch', 'expected true or false, got 1'],
    [
      'a perimeter stiffness with perimeter preservation off',
      (s) => {
        s['softBodies'][1]['preservePerimeter'] = false;
        s['softBodies'][1]['perimeterStiffness'] = 1e5;
      },
      'softBodies[1].perimeterStiffness',
      'has no effect with "preservePerimeter": false; remove one of the two',
    ],
    [
      'perimeter preservation on a lattice body',
      (s) => (s['softBodies'][0]['preservePerimeter'] = true),
      'softBodies[0].preservePerimeter',
      'perimeter preservation acts on the outline of the seed construction, and this body uses the lattice',
    ],
    [
      'perimeter preservation from the material of a lattice body',
      (s) => (s['softMaterials']['jelly']['preservePerimeter'] = true),
      'softBodies[0].material',
      'this body uses the lattice (its material "jelly" turns it on)',
    ],
    ['both density and mass', (s) => (s['softBodies'][1]['density'] = 100), 'softBodies[1]', 'give either "density" or "mass", not both'],
    ['a zero mass', (s) => (s['softBodies'][1]['mass'] = 0), 'softBodies[1].mass', 'expected a positive number (> 0), got 0'],
    ['a mass in a material', (s) => (s['softMaterials']['jelly']['mass'] = 2), 'softMaterials.jelly.mass', 'a material has a density, not a mass (give "mass" on the soft body)'],
    ['a misspelt material key', (s) => (s['softMaterials']['jelly']['dampng'] = 2), 'softMaterials.jelly.dampng', 'unknown key (did you mean "damping"?)'],
    ['softMaterials not an object', (s) => (s['softMaterials'] = []), 'softMaterials', 'expected an object mapping material names to soft materials, got an empty array'],
    ['an empty material name', (s) => (s['softMaterials'][''] = {}), 'softMaterials[""]', 'a material name must not be empty'],
    ['a duplicate soft body name', (s) => (s['softBodies'][1]['name'] = 'blob'), 'softBodies[1].name', 'duplicate name "blob" (already used by softBodies[0]); soft body names must be unique'],
    ['a soft body named like a rigid body', (s) => (s['softBodies'][0]['name'] = 'hook'), 'softBodies[0].name', 'name "hook" is already used by bodies[1]; soft and rigid bodies need different names'],
    ['an empty name', (s) => (s['softBodies'][0]['name'] = ''), 'softBodies[0].name', 'expected a non-empty string, got ""'],
    ['a position of two numbers', (s) => (s['softBodies'][0]['position'] = [0, 1]), 'softBodies[0].position', 'expected an array of 3 numbers [x, y, z], got an array of 2 elements'],
    ['a non-finite velocity entry', (s) => (s['softBodies'][0]['velocity'] = [0, 'fast', 0]), 'softBodies[0].velocity[1]', 'expected a finite number, got "fast"'],
    ['a zero quaternion', (s) => (s['softBodies'][0]['orientation'] = [0, 0, 0, 0]), 'softBodies[0].orientation', 'expected a quaternion [x, y, z, w] of non-zero length'],
    [
      'both orientation and rotation',
      (s) => Object.assign(s['softBodies'][0], { orientation: [0, 0, 0, 1], rotation: { axis: [0, 1, 0], degrees: 10 } }),
      'softBodies[0]',
      '"orientation" and "rotation" are alternatives; give only one',
    ],
    ['a rotation about a zero axis', (s) => (s['softBodies'][0]['rotation'] = { axis: [0, 0, 0], degrees: 10 }), 'softBodies[0].rotation.axis', 'expected a non-zero direction'],
    ['construction not an object', (s) => (s['softBodies'][0]['construction'] = 'lattice'), 'softBodies[0].construction', 'expected an object like {"method": "lattice", "resolution": 8}'],
    ['an unknown construction method', (s) => (s['softBodies'][0]['construction'] = { method: 'latice' }), 'softBodies[0].construction.method', 'expected "lattice" or "seed", got "latice" (did you mean "lattice"?)'],
    ['a misspelt construction key', (s) => (s['softBodies'][0]['construction'] = { resolutoin: 4 }), 'softBodies[0].construction.resolutoin', 'unknown key (did you mean "resolution"?)'],
    ['a fractional resolution', (s) => (s['softBodies'][0]['construction'] = { resolution: 4.5 }), 'softBodies[0].construction.resolution', 'expected an integer from 1 to 40, got 4.5'],
    ['a resolution past the limit', (s) => (s['softBodies'][0]['construction'] = { resolution: 400 }), 'softBodies[0].construction.resolution', 'expected an integer from 1 to 40, got 400'],
    [
      'minAngle with the lattice',
      (s) => (s['softBodies'][0]['construction'] = { minAngle: 20 }),
      'softBodies[0].construction.minAngle',
      'the lattice construction does not use "minAngle" (its keys are: method, resolution)',
    ],
    [
      'resolution with the seed construction',
      (s) => (s['softBodies'][1]['construction'] = { method: 'seed', resolution: 4 }),
      'softBodies[1].construction.resolution',
      'the seed construction does not use "resolution" (its keys are: method, minAngle)',
    ],
    [
      'the seed construction on a sphere',
      (s) => (s['softBodies'][0]['construction'] = { method: 'seed' }),
      'softBodies[0].construction.method',
      'the seed construction builds a net on a 2D outline and needs an "extrude" shape; shape "ball" is a sphere (use "lattice")',
    ],
    ['a minimum angle of 90 degrees', (s) => (s['softBodies'][1]['construction']['minAngle'] = 90), 'softBodies[1].construction.minAngle', 'expected a finite number > 0 and < 90, got 90'],
    [
      'an outline too long for the seed construction',
      (s) => (s['shapes']['plus']['polygon'] = Array.from({ length: 300 }, (_, i) => [Math.cos((2 * Math.PI * i) / 300), Math.sin((2 * Math.PI * i) / 300)])),
      'softBodies[1].construction.method',
      'the seed construction takes at most 256 outline points (its cost grows with their cube); shape "plus" has 300 (use "lattice")',
    ],
    ['pins not an array', (s) => (s['softBodies'][0]['pins'] = { body: 'hook' }), 'softBodies[0].pins', 'expected an array of pins like'],
    ['a pin to an unknown body', (s) => (s['softBodies'][0]['pins'][0]['body'] = 'hok'), 'softBodies[0].pins[0].body', 'unknown body "hok" (did you mean "hook"?)'],
    ['a pin without an anchor', (s) => delete s['softBodies'][0]['pins'][0]['anchor'], 'softBodies[0].pins[0].anchor', 'missing required key "anchor"'],
    ['a pin with a negative radius', (s) => (s['softBodies'][0]['pins'][0]['radius'] = -1), 'softBodies[0].pins[0].radius', 'expected a finite number >= 0, got -1'],
    ['a misspelt pin key', (s) => (s['softBodies'][0]['pins'][0]['ancor'] = [0, 0, 0]), 'softBodies[0].pins[0].ancor', 'unknown key (did you mean "anchor"?)'],
    ['softSolver not an object', (s) => (s['softSolver'] = 'rk4'), 'softSolver', 'expected an object of soft-body solver settings'],
    ['an unknown integrator', (s) => (s['softSolver'] = { integrator: 'rk3' }), 'softSolver.integrator', 'expected "semiImplicit", "euler", "rk2" or "rk4", got "rk3" (did you mean "rk2"?)'],
    ['zero substeps', (s) => (s['softSolver'] = { substeps: 0 }), 'softSolver.substeps', 'expected an integer from 1 to 10000, got 0'],
    ['more substeps than maxSubsteps', (s) => (s['softSolver'] = { substeps: 50, maxSubsteps: 20 }), 'softSolver.maxSubsteps', 'expected substeps (50) <= maxSubsteps (20)'],
    ['a maxStretch of 1', (s) => (s['softSolver'] = { maxStretch: 1 }), 'softSolver.maxStretch', 'expected a finite number > 1, got 1'],
    ['a misspelt solver key', (s) => (s['softSolver'] = { substep: 2 }), 'softSolver.substep', 'unknown key (did you mean "substeps"?)'],
  ];

  for (const [what, edit, where, message] of cases) {
    it(`rejects ${what} at ${where ?? 'the top'}`, () => {
      const e = errorFor(edit);
      expect(e.file).toBe('scene.json');
      expect(e.where).toBe(where);
      if (typeof message === 'string') expect(e.message).toContain(message);
      else expect(e.message).toMatch(message);
      // The whole message starts with the file and the path, and carries no control characters.
      expect(e.message.startsWith(`scene.json: ${where}: `)).toBe(true);
      expect(/[\u0000-\u001f]/.test(e.message)).toBe(false);
    });
  }
});

describe('soft bodies that only fail once built', () => {
  it('name the pin whose anchor is away from the soft body', async () => {
    const s = baseScene();
    s['softBodies'][0]['pins'][0]['anchor'] = [0, 0.5, 0]; // 3.5 m above the ball's centre
    const scene = validateScene(s, 'scene.json');
    await expect(buildScene(scene)).rejects.toThrow(/^scene\.json: softBodies\[0\]\.pins\[0\]: the anchor \(world \[0, 3\.5, 0\]\) is 2\.\d+ m from the nearest particle of soft body "blob"; put it on the soft body or give a "radius" that reaches it$/);
  });

  it('name the body whose mass (given, or from its density) lies outside what the solver computes with', async () => {
    const s = baseScene();
    delete s['softBodies'][0]['pins'];
    s['softBodies'][1]['mass'] = 1e300;
    await expect(buildScene(validateScene(s, 'scene.json'))).rejects.toThrow('scene.json: softBodies[1] ("cross"): mass 1e300 kg (from "mass") is outside the range the solver computes with (1e-100 to 1e100 kg)');
    const d = baseScene();
    delete d['softBodies'][0]['pins'];
    d['softBodies'][0]['density'] = 1e300;
    await expect(buildScene(validateScene(d, 'scene.json'))).rejects.toThrow(/^scene\.json: softBodies\[0\] \("blob"\): mass 1\.\d+e299 kg \(from "density" 1e300 kg\/m\^3 x volume 0\.1\d* m\^3\) is outside the range/);
  });

  it('name the construction whose resolution is too coarse', async () => {
    const s = baseScene();
    s['shapes']['ring'] = { type: 'torus', majorRadius: 1, minorRadius: 0.02 };
    s['softBodies'] = [{ shape: 'ring', construction: { resolution: 3 } }];
    const scene = validateScene(s, 'scene.json');
    await expect(buildScene(scene)).rejects.toThrow(/^scene\.json: softBodies\[0\]\.construction\.resolution: soft body "soft0": no lattice cell lies inside the shape at resolution 3; use a finer resolution \(up to 40\)$/);
  });
});
