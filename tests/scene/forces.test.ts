/**
 * The scene keys of external forces (docs/SCENE_FORMAT.md "forces",
 * docs/forces.md): a scene file with every kind loads, builds, runs and
 * dumps back to itself; bad input is an InputError naming the JSON path
 * and what was expected, unknown keys and types suggest the nearest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, test } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { sceneToJson } from '../../src/scene/dump.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { FORMAT, pos, run, vel, worldFrom } from '../dynamics/helpers.ts';

type Json = Record<string, any>;

function base(): Json {
  return {
    format: FORMAT,
    shapes: { ball: { type: 'sphere', radius: 0.2, sdf: { cells: 8 } }, floor: { type: 'plane' } },
    bodies: [
      { name: 'floor', shape: 'floor', static: true },
      { name: 'a', shape: 'ball', position: [0, 1, 0] },
      { name: 'b', shape: 'ball', position: [1, 1, 0] },
    ],
  };
}

function errorFor(edit: (s: Json) => void): InputError {
  const s = base();
  edit(s);
  try {
    validateScene(s, 'scene.json');
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

function expectError(edit: (s: Json) => void, where: string, message: string | RegExp): void {
  const e = errorFor(edit);
  expect(e.file).toBe('scene.json');
  expect(e.where).toBe(where);
  if (typeof message === 'string') expect(e.message).toContain(message);
  else expect(e.message).toMatch(message);
}

describe('a scene file with forces', () => {
  it('examples/forces/wind.json loads with every default, runs, and its dump loads to the same scene', async () => {
    const file = join(__dirname, '../../examples/forces/wind.json');
    const scene = parseSceneText(readFileSync(file, 'utf8'), file);
    expect(scene.fluidDensity).toBe(1.225);
    expect(scene.bodies.find((b) => b.name === 'crate')!.drag).toEqual({ linear: 0.5, cd: 1.05, area: 0.36 });
    expect(scene.bodies.find((b) => b.name === 'plank')!.drag).toBeUndefined();
    expect(scene.forces).toEqual([
      { type: 'wind', velocity: [6, 0, 0], gust: { amplitude: [4, 0, 0], period: 2.5, phase: 0 }, from: 0, until: Infinity },
      { type: 'force', body: 'plank', force: [0, 60, 0], point: [1, 0, 0], frame: 'world', from: 0.5, until: 0.7 },
      { type: 'impulse', body: 'crate', impulse: [0, 0, 3], point: [0.3, 0.3, 0], frame: 'world', at: 1 },
    ]);
    const again = validateScene(JSON.parse(JSON.stringify(sceneToJson(scene))), file);
    expect(again.forces).toEqual(scene.forces);
    expect(again.bodies).toEqual(scene.bodies);
    expect(again.fluidDensity).toBe(scene.fluidDensity);
  });

  it('a wind naming a body replaces the scene-wide wind for it; a field acts on the bodies it lists', async () => {
    const s = base();
    s['gravity'] = [0, 0, 0];
    s['bodies'][1].drag = { linear: 1 };
    s['bodies'][2].drag = { linear: 1 };
    s['bodies'][1].mass = 1;
    s['bodies'][2].mass = 1;
    s['forces'] = [
      { type: 'wind', velocity: [2, 0, 0] },
      { type: 'wind', velocity: [0, 0, -3], bodies: ['b'] },
      { type: 'field', force: [0, 5, 0], bodies: ['a'], until: 0.5 },
    ];
    const w = await worldFrom(s);
    await run(w, 100);
    const decay = 1 - Math.exp(-1);
    expect(vel(w, 'a')[0]).toBeCloseTo(2 * decay, 12);
    expect(vel(w, 'a')[2]).toBe(0);
    expect(vel(w, 'b')[0]).toBe(0);
    expect(vel(w, 'b')[2]).toBeCloseTo(-3 * decay, 12);
    // 5 N for 0.5 s against linear drag k = 1: v(0.5) = 5 (1 - e^-0.5), then e^-0.5 of that.
    expect(vel(w, 'a')[1]).toBeCloseTo(5 * (1 - Math.exp(-0.5)) * Math.exp(-0.5), 12);
    expect(vel(w, 'b')[1]).toBe(0);
    expect(pos(w, 'b')[1]).toBe(1);
  });

  it('a point and a body-frame direction turn with the body; the point is in the shape frame as written', async () => {
    // A box whose shape origin is its centre: a body-frame force along +x at
    // +y pushes it and turns it about -z.
    const s = base();
    s['gravity'] = [0, 0, 0];
    s['shapes']['box'] = { type: 'box', size: [1, 1, 1], sdf: { cells: 8 } };
    s['bodies'][1] = { name: 'a', shape: 'box', position: [0, 5, 0], mass: 6, rotation: { axis: [0, 0, 1], degrees: 90 } };
    s['forces'] = [{ type: 'impulse', body: 'a', impulse: [1, 0, 0], point: [0, 0.5, 0], frame: 'body', at: 0 }];
    const w = await worldFrom(s);
    await run(w, 1);
    // Body +x is world +y after the 90 degree turn about z, body +y world -x.
    const v = vel(w, 'a');
    expect(v[0]).toBeCloseTo(0, 14);
    expect(v[1]).toBeCloseTo(1 / 6, 14);
    // r x J = (-0.5, 0, 0) x (0, 1, 0) = (0, 0, -0.5); I = m (1 + 1) / 12 = 1.
    expect(w.bodies.angVel[5]).toBeCloseTo(-0.5, 12);
  });
});

describe('bad forces', () => {
  test('unknown keys suggest the nearest, for the type given', () => {
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', forse: [1, 0, 0] }]), 'forces[0].forse', 'did you mean "force"?');
    expectError((s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0], gust: { amplitud: [1, 0, 0], period: 1 } }]), 'forces[0].gust.amplitud', 'did you mean "amplitude"?');
    expectError((s) => (s['fluid'] = { densty: 1000 }), 'fluid.densty', 'did you mean "density"?');
    expectError((s) => (s['bodies'][1].drag = { linaer: 1 }), 'bodies[1].drag.linaer', 'did you mean "linear"?');
    expectError((s) => (s['forcess'] = []), 'forcess', 'did you mean "forces"?');
  });

  test('a key of another type is named as one this type does not use', () => {
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', force: [1, 0, 0], at: 1 }]), 'forces[0].at', 'a force does not use "at" (its keys are: type, body, force, point, frame, from, until)');
    expectError((s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0], body: 'a' }]), 'forces[0].body', 'a wind does not use "body"');
  });

  test('types, bodies and required keys', () => {
    expectError((s) => (s['forces'] = [{ type: 'wnid', velocity: [1, 0, 0] }]), 'forces[0].type', 'unknown force type "wnid" (did you mean "wind"?); valid types: wind, field, force, impulse');
    expectError((s) => (s['forces'] = [{ velocity: [1, 0, 0] }]), 'forces[0].type', 'missing required key "type"');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'c', force: [1, 0, 0] }]), 'forces[0].body', 'unknown body "c"');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'floor', force: [1, 0, 0] }]), 'forces[0].body', '"floor" is static; a force can only act on a dynamic body');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a' }]), 'forces[0].force', 'missing required key "force" (expected the force [x, y, z] in N)');
    expectError((s) => (s['forces'] = [{ type: 'impulse', body: 'a', impulse: [1, 0, 0] }]), 'forces[0].at', 'missing required key "at"');
    expectError((s) => (s['forces'] = [{ type: 'field', force: [1, 0, 0], bodies: ['a', 'x'] }]), 'forces[0].bodies[1]', 'unknown body "x"');
    expectError((s) => (s['forces'] = [{ type: 'field', force: [1, 0, 0], bodies: ['a', 'a'] }]), 'forces[0].bodies[1]', 'body "a" is listed twice');
    expectError((s) => (s['forces'] = [{ type: 'field', force: [1, 0, 0], bodies: [] }]), 'forces[0].bodies', 'expected at least one body name');
    expectError((s) => (s['forces'] = { type: 'wind' }), 'forces', 'expected an array of forces');
  });

  test('values: vectors, windows, frames, gusts, drag and density', () => {
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', force: [1, 0] }]), 'forces[0].force', 'expected an array of 3 numbers');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', force: [1e13, 0, 0] }]), 'forces[0].force', 'expected a force (N) of at most 1e12');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', force: [1, 0, 0], from: 2, until: 1 }]), 'forces[0].until', 'expected until > from (2), got 1');
    expectError((s) => (s['forces'] = [{ type: 'force', body: 'a', force: [1, 0, 0], frame: 'bdy' }]), 'forces[0].frame', 'expected "world" or "body", got "bdy" (did you mean "body"?)');
    expectError((s) => (s['forces'] = [{ type: 'impulse', body: 'a', impulse: [1, 0, 0], at: -1 }]), 'forces[0].at', 'expected a finite number >= 0, got -1');
    expectError((s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0], gust: { amplitude: [1, 0, 0], period: 0 } }]), 'forces[0].gust.period', 'expected a positive number (> 0), got 0');
    expectError((s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0], gust: { period: 1 } }]), 'forces[0].gust.amplitude', 'missing required key "amplitude"');
    expectError((s) => (s['bodies'][1].drag = { cd: 0.5 }), 'bodies[1].drag.area', 'quadratic drag needs both "cd" and "area"');
    expectError((s) => (s['bodies'][1].drag = { linear: -1 }), 'bodies[1].drag.linear', 'expected a finite number >= 0, got -1');
    expectError((s) => (s['bodies'][1].drag = {}), 'bodies[1].drag', 'got an empty object');
    expectError((s) => (s['bodies'][0].drag = { linear: 1 }), 'bodies[0].drag', 'a static body does not move, so it has no drag');
    expectError((s) => (s['fluid'] = { density: -1 }), 'fluid.density', 'expected a finite number >= 0, got -1');
  });

  test('two winds blowing on one body at the same time are refused', () => {
    expectError((s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0] }, { type: 'wind', velocity: [2, 0, 0] }]), 'forces[1]', 'this wind and forces[0] both blow on every body at the same time');
    expectError(
      (s) => (s['forces'] = [{ type: 'wind', velocity: [1, 0, 0], bodies: ['a', 'b'] }, { type: 'wind', velocity: [2, 0, 0], bodies: ['b'], from: 1 }]),
      'forces[1]', 'both blow on body "b"',
    );
    // Windows that do not overlap are fine, as is a body-specific wind under a scene-wide one.
    const s = base();
    s['forces'] = [
      { type: 'wind', velocity: [1, 0, 0], until: 1 }, { type: 'wind', velocity: [2, 0, 0], from: 1 },
      { type: 'wind', velocity: [3, 0, 0], bodies: ['a'] },
    ];
    expect(validateScene(s, 'scene.json').forces).toHaveLength(3);
  });
});

describe('the API', () => {
  it('names unknown bodies with a suggestion and refuses static bodies and non-finite vectors', async () => {
    const w = await worldFrom(base());
    expect(() => w.applyImpulse('aa', [1, 0, 0])).toThrow(/no body "aa" in this world \(did you mean "a"\?\)/);
    expect(() => w.applyImpulse('floor', [1, 0, 0])).toThrow(/body "floor" is static/);
    expect(() => w.applyForce('a', [1, NaN, 0])).toThrow(/force must be three finite numbers/);
    expect(() => w.applyForce(7, [1, 0, 0])).toThrow(/no body 7 in this world/);
  });
});
