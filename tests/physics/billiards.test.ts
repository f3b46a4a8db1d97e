/**
 * The seed's billiards (fig. 30, issue "Physics a physicist would sign", item
 * 3): a cue ball sliding at 2 m/s without spin rolls at 5/7 of that after the
 * sliding phase, hits a row of five touching balls, the impulse travels down
 * the row and the last ball leaves with at least 75 % of the cue's speed,
 * then slows only by rolling friction (as fast as the rolling cue slowed
 * before the impact). On both backends.
 */
import { describe, expect, it } from 'vitest';
import { queryWorld, run, vel } from '../dynamics/helpers.ts';
import { billiards } from './scenes.ts';

describe.each(['cpu', 'gpu'] as const)('billiards (%s)', (backend) => {
  it('the cue rolls at 5/7 v0 into the row, the last ball leaves with >= 75 % of its speed and slows only by rolling friction', async () => {
    const v0 = 2, r = 0.1;
    const w = await queryWorld(billiards(v0, 5, 0.02), backend);
    let rolling = -1, rollingAt = -1;
    let cueAt04 = 0, cueAt07 = 0;
    let impact = 0; // the cue's speed in the last step before it hit the row (and lost most of it)
    let hit = false, prev = v0;
    let last = 0, lastAt = -1; // the last ball's top speed, and when
    const samples: [number, number][] = []; // the last ball's speed over time
    await run(w, 600, (ww) => {
      const v = vel(ww, 'cue')[0];
      const wr = -ww.bodies.angVel[3 * 1 + 2]! * r;
      if (rolling < 0 && wr >= v - 1e-3) { rolling = v; rollingAt = ww.time; }
      if (Math.abs(ww.time - 0.4) < 1e-9) cueAt04 = v;
      if (Math.abs(ww.time - 0.7) < 1e-9) cueAt07 = v;
      if (!hit && v < 0.5 * prev) {
        hit = true;
        impact = prev;
      }
      prev = v;
      const vl = vel(ww, 'ball4')[0];
      if (vl > last) { last = vl; lastAt = ww.time; }
      samples.push([ww.time, vl]);
    });
    // Sliding, then rolling at 5/7 v0 (t = 2 v0 / (7 mu g) = 0.29 s).
    expect(Math.abs(rolling - (5 / 7) * v0) / ((5 / 7) * v0)).toBeLessThan(0.03);
    expect(rollingAt).toBeLessThan(0.35);
    // Before it reaches the row (about 0.85 s) it rolls, slowed by rolling friction alone.
    const cueDecel = (cueAt04 - cueAt07) / 0.3;
    expect(cueDecel).toBeGreaterThan(0);
    expect(impact).toBeGreaterThan(0.95 * (5 / 7) * v0 - cueDecel * 0.6);
    // The impulse travels down the row.
    expect(last).toBeGreaterThan(0.75 * impact);
    // Half a second after it left (sliding over, rolling), for a second: it
    // slows as the rolling cue did.
    const at = (t: number) => samples.find(([s]) => s >= t - 1e-9)![1];
    const decel = at(lastAt + 0.5) - at(lastAt + 1.5);
    expect(Math.abs(decel - cueDecel) / cueDecel).toBeLessThan(0.25);
  });
});
