/**
 * `bench` reports the garbage collection pauses of the measured steps, per
 * step, where the environment can say (BenchEnv.gc; the CLI reads Node's 'gc'
 * performance entries), and nothing where it cannot (a page).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { formatTable, runBenchmark } from '../../src/bench/harness.ts';
import { validateScene } from '../../src/scene/validate.ts';

const dropJson = () => ({
  format: 'stackfield-scene/1',
  dt: 0.01,
  shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
  bodies: [{ name: 'floor', shape: 'floor', static: true }, { name: 'box', shape: 'box', position: [0, 0.3, 0] }],
});

describe('bench: garbage collection', () => {
  it('counts the pauses from the first measured step to the last, per step', async () => {
    // A clock that has paused 3 ms more (one pause) at every reading.
    let readings = 0;
    const gc = () => {
      readings++;
      return { ms: 3 * readings, pauses: readings };
    };
    const steps = 20;
    const r = await runBenchmark({ scene: validateScene(dropJson(), '<test>'), steps, warmup: 5, backends: ['cpu'], bakeRepeats: 1 },
      { readText: (p) => readFile(p, 'utf8'), platform: 'test', gc });
    // Read once before the first measured step and once after the last.
    expect(readings).toBe(2);
    expect(r.results[0]!.gcPerStep).toEqual({ ms: 3 / steps, pauses: 1 / steps });
    expect(formatTable(r)).toContain('cpu: garbage collection 0.15 ms a step (0.05 pauses), within the steps above');
  }, 60_000);

  it('says nothing where the environment cannot tell', async () => {
    const r = await runBenchmark({ scene: validateScene(dropJson(), '<test>'), steps: 5, warmup: 0, backends: ['cpu'], bakeRepeats: 1 },
      { readText: (p) => readFile(p, 'utf8'), platform: 'test' });
    expect(r.results[0]!.gcPerStep).toBeNull();
    expect(formatTable(r)).not.toContain('garbage collection');
  }, 60_000);
});
