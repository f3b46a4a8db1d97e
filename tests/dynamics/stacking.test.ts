import { describe, expect, it } from 'vitest';
import { builtinScene } from '../../src/scene/builtins.ts';
import { pos, run, worldFrom } from './helpers.ts';

/**
 * The built-in tower (the app's default scene and the benchmark's): 20 cubes
 * of 1 m at 60 Hz, 0.2 % of an edge apart at the start. (Towers of other
 * heights, sizes and rates on both backends: tests/physics/stacks.test.ts.)
 */
describe('the built-in tower', () => {
  it('20 cubes of 1 m at 60 Hz stand 10 s: top within 1 cm of its ideal height and of the axis', async () => {
    const json = builtinScene('tower', { height: 20, size: 1, hz: 60 }) as Record<string, unknown>;
    json['sleep'] = false; // the solver's own rest state, not sleeping's
    const w = await worldFrom(json);
    await run(w, 600);
    // Resting, each cube's centre sits half an edge above the one below's top face.
    const ideal = 19 * 1 + 0.5;
    expect(Math.abs(pos(w, 'box19')[1] - ideal)).toBeLessThan(0.01);
    let drift = 0;
    for (let i = 0; i < 20; i++) drift = Math.max(drift, Math.hypot(pos(w, `box${i}`)[0], pos(w, `box${i}`)[2]));
    expect(drift).toBeLessThan(0.01);
  });
});
