/**
 * The benchmark's phases of a scene with soft bodies: a soft body's contacts
 * (against the rigid bodies, or another soft body) and its kinetic energy
 * count as a rigid body's do, so blobs dropped onto pegs are falling until
 * they touch, then landing, not "in free flight" for the whole run.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { benchSummary, runBenchmark } from '../../src/bench/harness.ts';

describe('bench phases with soft bodies', () => {
  it('blobs dropped onto pegs: steps with contacts, a falling window that ends where they touch, and no "free flight" line', async () => {
    const env = { readText: (p: string) => readFile(p, 'utf8'), platform: 'test' };
    const r = await runBenchmark({ scene: 'soft-pegs', params: { blobs: 1, resolution: 3 }, steps: 120, warmup: 0, backends: ['cpu'], bakeRepeats: 1 }, env);
    const x = r.results[0]!;
    // Only the soft body touches anything: no rigid contact point in the run.
    expect(x.contactsPerStep).toBe(0);
    expect(x.stepsWithContacts).toBeGreaterThan(0);
    expect(x.windows.falling.steps).toBeGreaterThan(0);
    expect(x.windows.landing.steps).toBeGreaterThan(0);
    expect(x.windows.falling.steps + x.stepsWithContacts).toBeLessThanOrEqual(120);
    expect(benchSummary(r).join('\n')).not.toMatch(/No contact/);
  }, 120_000);
});
