/**
 * Distance and rope joints from a scene file: what the loader fills in, the
 * dump writing them back, and the errors for bad input (file, JSON path,
 * what was expected).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, createWorld, loadScene } from '../../src/index.ts';
import { sceneToJson } from '../../src/scene/dump.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { builtinWorld, pos, run, vel } from '../dynamics/helpers.ts';
import { norm, sub, worldPoint, type V3 } from './geometry.ts';

type Json = Record<string, any>;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stackfield-ropes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A static hook, a ball hanging 1 m below it on a rope, and a second ball 0.6 m to the side on a distance joint. */
function ropeScene(): Json {
  return {
    format: 'stackfield-scene/1',
    shapes: {
      hook: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } },
      ball: { type: 'sphere', radius: 0.1, sdf: { cells: 8 } },
    },
    bodies: [
      { name: 'hook', shape: 'hook', static: true, position: [0, 3, 0] },
      { name: 'bob', shape: 'ball', position: [0, 2, 0] },
      { name: 'side', shape: 'ball', position: [0.6, 2, 0] },
    ],
    joints: [
      { name: 'rope', type: 'rope', bodyA: 'hook', bodyB: 'bob', anchorA: [0, -0.05, 0], anchorB: [0, 0.1, 0], length: 1.2, restitution: 0.3 },
      { name: 'rod', type: 'distance', bodyA: 'bob', bodyB: 'side', anchorA: [0, 0, 0], anchorB: [0, 0, 0] },
    ],
  };
}

describe('a scene file with a rope and a distance joint', () => {
  it('loads them with their length (given, or the anchors\' distance at load) and restitution, and runs', async () => {
    const file = join(dir, 'ropes.scene.json');
    await writeFile(file, JSON.stringify(ropeScene(), null, 2));
    const scene = await loadScene(file);
    expect(scene.joints.map((j) => [j.name, j.type, j.length, j.restitution])).toEqual([
      ['rope', 'rope', 1.2, 0.3],
      ['rod', 'distance', 0.6, 0],
    ]);
    const w = await createWorld(scene);
    // The rope starts slack (its anchors 0.85 m apart): the pair falls 0.35 m before it goes taut.
    for (let i = 0; i < 300; i++) await w.step();
    const hookAnchor: V3 = [0, 2.95, 0];
    const bobTop = worldPoint(w, 'bob', [0, 0.1, 0]);
    expect(norm(sub(bobTop, hookAnchor))).toBeLessThan(1.2 + 1e-5);
    expect(norm(sub(pos(w, 'bob'), pos(w, 'side')))).toBeCloseTo(0.6, 5);
    // It fell: the rope held it up after a drop, not at the start.
    expect(pos(w, 'bob')[1]).toBeLessThan(2 - 0.1);
  });

  it('dumps each with its length and restitution, and the dump loads back to the same joints', () => {
    const scene = validateScene(ropeScene(), 'ropes.scene.json');
    const json = sceneToJson(scene) as Json;
    expect(json['joints'][0]).toMatchObject({ type: 'rope', length: 1.2, restitution: 0.3 });
    expect(json['joints'][1]).toMatchObject({ type: 'distance', length: 0.6 });
    expect(json['joints'][1]).not.toHaveProperty('restitution');
    expect(validateScene(json, 'dump.json').joints).toEqual(scene.joints);
  });
});

describe('bad distance and rope joints', () => {
  function error(edit: (s: Json) => void): InputError {
    const s = ropeScene();
    edit(s);
    try {
      validateScene(s, 'ropes.scene.json');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).file).toBe('ropes.scene.json');
      return e as InputError;
    }
    throw new Error('expected an InputError, nothing was thrown');
  }

  it('a negative or zero length', () => {
    for (const length of [-1, 0]) {
      const e = error((s) => (s['joints'][0].length = length));
      expect(e.where).toBe('joints[0].length');
      expect(e.message).toContain(`expected a finite number > 0 and <= 1000000000, got ${length}`);
    }
    const e = error((s) => (s['joints'][1].length = '1 m'));
    expect(e.where).toBe('joints[1].length');
  });

  it('an unknown body, with a suggestion', () => {
    const e = error((s) => (s['joints'][0].bodyB = 'bobb'));
    expect(e.where).toBe('joints[0].bodyB');
    expect(e.message).toContain('"bobb"');
    expect(e.message).toContain('did you mean "bob"?');
  });

  it('a restitution outside 0 .. 1, and keys the type does not take', () => {
    let e = error((s) => (s['joints'][0].restitution = 1.5));
    expect(e.where).toBe('joints[0].restitution');
    expect(e.message).toContain('expected a number from 0 to 1, got 1.5');
    e = error((s) => (s['joints'][1].restitution = 0.5));
    expect(e.where).toBe('joints[1].restitution');
    expect(e.message).toContain('a distance joint does not use "restitution" (it takes anchorA, anchorB, length)');
    e = error((s) => (s['joints'][0].axisA = [1, 0, 0]));
    expect(e.message).toContain('a rope joint does not use "axisA" (it takes anchorA, anchorB, length, restitution)');
    e = error((s) => (s['joints'][1].lenght = 1));
    expect(e.where).toBe('joints[1].lenght');
    expect(e.message).toContain('did you mean "length"?');
    e = error((s) => (s['joints'][1] = { ...s['joints'][1], type: 'ball', length: 1 }));
    expect(e.message).toContain('a ball joint does not use "length"');
  });

  it('anchors that start together and no length', () => {
    const e = error((s) => {
      s['bodies'][2].position = [0, 2, 0];
    });
    expect(e.where).toBe('joints[1]');
    expect(e.message).toContain('the anchors start at the same point, so the distance has no length to keep; give "length"');
  });
});

describe('the built-in "ropes"', () => {
  it('keeps every rope within its length and the rod at its length, and the dropped ball rebounds once caught', async () => {
    const w = await builtinWorld('ropes', { restitution: 0.5 });
    const hook1: V3 = [0, 3, 0];
    let worst = 0, caught = -1, rebound = 0;
    let prevVy = 0;
    await run(w, 300, (w) => {
      for (const [a, b, L, rope] of [['hook0', 'swing', 0.9 * Math.SQRT2, true], ['hook1', 'drop', 1.5, true], ['hook2', 'rod', 1, false], ['rod', 'tail', 0.8, true]] as const) {
        const d = norm(sub(pos(w, a), pos(w, b)));
        worst = Math.max(worst, rope ? d - L : Math.abs(d - L));
      }
      const vy = vel(w, 'drop')[1];
      // The rope catches the falling ball: its downward speed turns into half of it upward.
      if (caught < 0 && prevVy < -1 && vy > 0) {
        caught = w.time;
        rebound = -vy / prevVy;
      }
      prevVy = vy;
    });
    expect(worst).toBeLessThan(1e-5);
    // It falls 1.3 m freely: caught at t = sqrt(2 * 1.3 / g) = 0.515 s, within a step.
    expect(Math.abs(caught - Math.sqrt((2 * 1.3) / 9.81))).toBeLessThan(0.015);
    // The rebound is e times the speed it was caught with, less one step of gravity (g dt = 0.1 m/s of some 5 m/s).
    expect(rebound).toBeGreaterThan(0.5 - 0.03);
    expect(rebound).toBeLessThan(0.5 + 0.03);
    expect(norm(sub(pos(w, 'drop'), hook1))).toBeLessThan(1.5 + 1e-5);
    // What the app draws: one segment per rope or distance joint, anchor A to anchor B (here the centres).
    const seg = jointsOf(w)!.ropeSegments();
    expect(seg.length).toBe(4 * 6);
    const ends = ['hook0', 'swing', 'hook1', 'drop', 'hook2', 'rod', 'rod', 'tail'];
    ends.forEach((name, k) => expect(norm(sub([seg[3 * k]!, seg[3 * k + 1]!, seg[3 * k + 2]!], pos(w, name)))).toBeLessThan(1e-12));
  });
});
