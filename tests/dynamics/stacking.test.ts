import { describe, expect, it } from 'vitest';
import { builtinScene } from '../../src/scene/builtins.ts';
import { pos, run, worldFrom } from './helpers.ts';

/** The built-in 20-box tower (boxes 1 x 0.5 x 1, 2 mm apart), 10 s. */
async function tower(solver: Record<string, unknown>) {
  const json = builtinScene('tower', { height: 20 }) as { solver?: Record<string, unknown> };
  json.solver = { ...(json.solver ?? {}), ...solver };
  const w = await worldFrom(json);
  const start = pos(w, 'box19');
  await run(w, 1000);
  const end = pos(w, 'box19');
  let maxDrift = 0;
  for (let i = 0; i < 20; i++) {
    const p = pos(w, `box${i}`);
    maxDrift = Math.max(maxDrift, Math.hypot(p[0], p[2]));
  }
  return { start, end, maxDrift };
}

describe('stacking', () => {
  it('a tower of 20 boxes stands for 10 s with shock propagation', async () => {
    const { end, maxDrift } = await tower({});
    const ideal = 19 * 0.5 + 0.25; // centre of the top box on a perfect stack
    expect(Math.abs(end[1] - ideal) / ideal).toBeLessThan(0.05);
    expect(maxDrift).toBeLessThan(0.1);
  });
});
