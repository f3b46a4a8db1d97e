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
