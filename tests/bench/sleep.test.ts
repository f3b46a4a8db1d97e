/**
 * `bench` reports when a run's bodies came to rest (SleepResult): the end of
 * the step from which every dynamic body stayed asleep, warm-up included, or
 * how many sleep at the end when some never do. Checked against the same
 * scene stepped directly, reading the bodies' own sleep flags.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runBenchmark, sleepOf } from '../../src/bench/harness.ts';
import { createBackend } from '../../src/backends.ts';
import { createWorld } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';

/** Three boxes dropped side by side onto a floor from 5-15 cm. */
const dropJson = (sleep: boolean) => ({
  format: 'stackfield-scene/1',
  dt: 0.01,
  sleep,
  shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
  bodies: [
    { name: 'floor', shape: 'floor', static: true },
    ...[0, 1, 2].map((i) => ({ name: `box${i}`, shape: 'box', position: [i * 0.6, 0.25 + 0.05 * i, 0], friction: 0.5 })),
  ],
});

describe('bench: when the bodies came to rest', () => {
  it('sleepOf: the end of the step after which none woke again; null while one is awake at the end', () => {
    expect(sleepOf([3, 2, 0, 0], 3, 0.01)).toEqual({ allAsleepFromS: 0.03, asleepAtEnd: 3, dynamic: 3 });
    // One woke again at step 2 and slept at step 3: the rest counts from there.
    expect(sleepOf([3, 0, 1, 0, 0], 3, 0.5).allAsleepFromS).toBe(2);
    expect(sleepOf([3, 2, 1], 2, 0.01)).toEqual({ allAsleepFromS: null, asleepAtEnd: 2, dynamic: 3 });
    // No dynamic body: nothing to report.
    expect(sleepOf([0, 0], 0, 0.01).allAsleepFromS).toBeNull();
    expect(sleepOf([], 0, 0.01)).toEqual({ allAsleepFromS: null, asleepAtEnd: 0, dynamic: 0 });
  });

  it('a run reports the time its world shows, warm-up included, and never when sleep is off', async () => {
    const steps = 160, warmup = 20;
    const env = { readText: (p: string) => readFile(p, 'utf8'), platform: 'test' };
    const r = await runBenchmark({ scene: validateScene(dropJson(true), '<test>'), steps, warmup, backends: ['cpu'], bakeRepeats: 1 }, env);
    const sl = r.results[0]!.sleep;
    // The same scene stepped directly: the last step after which a box was awake.
    const backend = await createBackend('cpu');
    const world = await createWorld(validateScene(dropJson(true), '<test>'), backend.query, { readText: env.readText, bake: backend.bake });
    let lastAwake = -1;
    for (let s = 0; s < warmup + steps; s++) {
      await world.step();
      const B = world.bodies;
      for (let i = 0; i < B.count; i++) if (!B.isStatic[i] && !B.asleep[i]) lastAwake = s;
    }
    backend.destroy();
    expect(lastAwake).toBeGreaterThan(warmup);
    expect(lastAwake).toBeLessThan(warmup + steps - 1);
    expect(sl.allAsleepFromS).toBeCloseTo((lastAwake + 2) * 0.01, 9);
    expect(sl).toMatchObject({ asleepAtEnd: 3, dynamic: 3 });

    const off = await runBenchmark({ scene: validateScene(dropJson(false), '<test>'), steps: 60, warmup: 0, backends: ['cpu'], bakeRepeats: 1 }, env);
    expect(off.results[0]!.sleep).toEqual({ allAsleepFromS: null, asleepAtEnd: 0, dynamic: 3 });
  }, 120_000);
});
