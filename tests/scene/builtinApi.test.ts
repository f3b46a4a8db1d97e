/**
 * The package's API with a built-in scene: `builtinScene` gives an object that
 * `loadScene` takes as it is. Its return type was `unknown`, so the README's
 * way of running a built-in from code, `loadScene(builtinScene(...))`, did
 * not compile under strict TypeScript (`npx tsc --noEmit` checks this file).
 */
import { describe, expect, it } from 'vitest';
import { bodyPose, builtinScene, createWorld, destroyWorld, loadScene, type SceneDesc } from '../../src/index.ts';

describe('builtinScene through the API', () => {
  it('loadScene takes its result as it is, and the scene runs', async () => {
    const json = builtinScene('tower', { height: 2 });
    expect(json['format']).toBe('stackfield-scene/1');
    const scene: SceneDesc = await loadScene(builtinScene('tower', { height: 2 }));
    const world = await createWorld(scene, { backend: 'cpu' });
    try {
      for (let i = 0; i < 5; i++) await world.step();
      expect(bodyPose(world, 'box1').position[1]).toBeGreaterThan(1);
    } finally {
      destroyWorld(world);
    }
  });
});

describe('builtinScene called from plain JavaScript', () => {
  it('names a string given for a number as a string, and refuses a count that is not whole', () => {
    expect(() => builtinScene('rings', { rings: '5' as unknown as number })).toThrow('parameter rings of scene "rings" must be an integer in [1, 2000], got "5"');
    expect(() => builtinScene('rings', { rings: 2.5 })).toThrow('parameter rings of scene "rings" must be an integer in [1, 2000], got 2.5');
    expect(() => builtinScene('tower', { size: NaN })).toThrow('parameter size of scene "tower" must be a number in [0.001, 100], got NaN (not a number)');
    // A slider's rounding off a whole number still counts as that number.
    expect(JSON.stringify(builtinScene('rings', { rings: 20 + 1e-12 }))).toBe(JSON.stringify(builtinScene('rings', { rings: 20 })));
  });
});
