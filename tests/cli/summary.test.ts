/**
 * The run summary never shows a non-finite figure: scenes whose magnitudes
 * would overflow are refused when read (tests/cli/hardening.test.ts), and a
 * figure that overflows anyway is found by nonFiniteFigure, which makes
 * `stackfield run` a simulation error (exit code 1) instead of printing
 * "energy -Infinity J -> NaN J" with exit code 0.
 */
import { describe, expect, it } from 'vitest';
import { createWorld, destroyWorld, loadScene } from '../../src/index.ts';
import { SimulationError } from '../../src/errors.ts';
import { formatSummary, nonFiniteFigure, RunTracker } from '../../src/cli/summary.ts';

const scene = {
  format: 'stackfield-scene/1',
  shapes: { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } },
  bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'box', shape: 'box', position: [0, 2, 0] }],
};

describe('the run summary', () => {
  it('a finite run has no non-finite figure', async () => {
    const world = await createWorld(await loadScene(scene));
    try {
      const t = new RunTracker(world, 's', 'cpu', 1, 0);
      for (let i = 0; i < 5; i++) {
        await world.step();
        t.afterStep();
      }
      const s = t.summary(0.01);
      expect(nonFiniteFigure(s)).toBeUndefined();
      expect(formatSummary(s, (n) => n)).not.toMatch(/NaN|Infinity/);
    } finally {
      destroyWorld(world);
    }
  });

  it('an energy that overflows although every state is finite is found, with its place', async () => {
    const world = await createWorld(await loadScene(scene));
    try {
      // What the scene file can no longer say (gravity is at most 1e6 m/s^2): m g y overflows.
      world.gravity = [1e308, 1e308, 0];
      const t = new RunTracker(world, 's', 'cpu', 1, 0);
      await world.step();
      t.afterStep();
      const s = t.summary(0.01);
      expect(nonFiniteFigure(s)).toEqual({ path: 'energy.start', value: -Infinity });
    } finally {
      destroyWorld(world);
    }
  });

  it('a state that turns non-finite stops stepping with a SimulationError naming the body', async () => {
    const world = await createWorld(await loadScene({ ...scene, bodies: [{ name: 'bullet\u001b[2J', shape: 'box' }], shapes: { box: scene.shapes.box } }));
    try {
      // What the scene file can no longer say (a speed is at most the speed of light).
      world.bodies.vel[0] = 1.7e308;
      let error: unknown;
      try {
        for (let i = 0; i < 300; i++) await world.step();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SimulationError);
      expect((error as Error).message).toMatch(/^non-finite state of body "bullet\u001b\[2J" after stage \w+ at step \d+/);
    } finally {
      destroyWorld(world);
    }
  });
});
