import { describe, expect, it } from 'vitest';
import { builtinWorld, pos, run, vel } from './helpers.ts';

describe('the seed demo scenes', () => {
  it('billiards: the impulse travels down the row, the last ball rolls away; rolling friction stops it, static friction alone does not', async () => {
    const w = await builtinWorld('billiards', { balls: 5, rolling: 1 });
    await run(w, 100); // 0.5 s: the cue ball has hit the row
    expect(Math.abs(vel(w, 'cue')[0])).toBeLessThan(0.3); // gave its momentum away
    expect(Math.abs(vel(w, 'ball0')[0])).toBeLessThan(0.3); // passed it on
    expect(vel(w, 'ball4')[0]).toBeGreaterThan(1.5); // the last ball got it
    await run(w, 500); // 3 s in all
    expect(Math.hypot(...vel(w, 'ball4'))).toBeLessThan(0.02);
    expect(pos(w, 'ball4')[0]).toBeGreaterThan(1.5);
    // The same shot without rolling friction: at 3 s the last ball still rolls
    // (the faceted mesh ball does slow down slowly, hopping from vertex to vertex).
    const free = await builtinWorld('billiards', { balls: 5, rolling: 0 });
    await run(free, 600);
    expect(vel(free, 'ball4')[0]).toBeGreaterThan(0.15);
    expect(pos(free, 'ball4')[0]).toBeGreaterThan(pos(w, 'ball4')[0] + 0.5);
  });

  it('seesaw: the heavy box dropped on one end throws the light box up', async () => {
    const w = await builtinWorld('seesaw');
    const y0 = pos(w, 'light')[1];
    let maxY = y0;
    await run(w, 150, (ww) => {
      maxY = Math.max(maxY, pos(ww, 'light')[1]);
    });
    expect(maxY - y0).toBeGreaterThan(1);
    // The plank stays on its fulcrum.
    expect(Math.abs(pos(w, 'plank')[0])).toBeLessThan(0.2);
  });
});

describe('dominoes in a circle', () => {
  it('fall in turn all the way round, and the cyclic contact graph does not hang the step', async () => {
    const w = await builtinWorld('dominoes', { count: 24 });
    const fallenAt: number[] = [];
    const t0 = performance.now();
    await run(w, 1000, (ww) => {
      for (let i = 0; i < 24; i++) {
        const y = pos(ww, `domino${i}`)[1];
        if (fallenAt[i] === undefined && y < 0.2) fallenAt[i] = ww.stepCount;
      }
    });
    expect(performance.now() - t0).toBeLessThan(120_000);
    expect(fallenAt.filter((s) => s !== undefined)).toHaveLength(24);
    // In turn: domino i falls before domino i + 5 (allowing neighbours to land together).
    for (let i = 0; i + 5 < 24; i++) expect(fallenAt[i]!).toBeLessThan(fallenAt[i + 5]!);
  });
});

describe('a pile of nonconvex bodies', () => {
  it('12 bones, cups and L-blocks fall into a pile and come to rest, none below the ground', async () => {
    const w = await builtinWorld('pile', { count: 12 });
    // Cups and bones lying on their sides roll a while (slowed by rolling
    // friction alone, 0.02) before they settle: about 8 s.
    await run(w, 1000);
    const B = w.bodies;
    let maxV = 0;
    let minY = Infinity;
    for (let i = 1; i < B.count; i++) {
      maxV = Math.max(maxV, Math.hypot(B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!));
      minY = Math.min(minY, B.pos[3 * i + 1]!);
    }
    expect(minY).toBeGreaterThan(0);
    expect(maxV).toBeLessThan(0.03);
  });
});
