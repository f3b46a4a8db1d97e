import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, savedStateBytes, stateBytes, StateTimeline } from '../../src/app/timeline.ts';
import type { WorldState } from '../../src/dynamics/world.ts';
import { builtinWorld, run } from '../dynamics/helpers.ts';

function same(a: WorldState, b: WorldState): void {
  expect(a.time).toBe(b.time);
  expect(a.stepCount).toBe(b.stepCount);
  for (const k of ['pos', 'quat', 'vel', 'angVel', 'asleep'] as const) expect(Array.from(a[k]), k).toEqual(Array.from(b[k]));
}

describe('state timeline', () => {
  it('steps back to exactly the state recorded, bit for bit, and forward again', async () => {
    const w = await builtinWorld('pile', { count: 4 });
    const tl = new StateTimeline(w.bodies.count);
    const saved: WorldState[] = [];
    tl.record(w);
    saved.push(w.saveState());
    for (let k = 0; k < 12; k++) {
      await w.step();
      tl.record(w);
      saved.push(w.saveState());
    }
    expect(tl.count).toBe(13);
    for (const i of [0, 5, 12]) {
      w.restoreState(tl.state(i));
      expect(tl.stepOf(i)).toBe(i);
      same(w.saveState(), saved[i]!);
    }
    // Forward from an earlier state: the later states are dropped.
    w.restoreState(tl.state(5));
    tl.truncateAfter(5);
    await w.step();
    tl.record(w);
    expect(tl.count).toBe(7);
    expect(tl.stepOf(6)).toBe(6);
    expect(tl.indexOfStep(12)).toBe(-1);
  });

  it('keeps the newest states when full, within its byte budget', async () => {
    const w = await builtinWorld('tower', { height: 2 });
    const n = w.bodies.count;
    const tl = new StateTimeline(n, { maxStates: 1000, maxBytes: 5 * stateBytes(n) });
    expect(tl.capacity).toBe(5);
    for (let k = 0; k < 8; k++) {
      tl.record(w);
      await run(w, 1);
    }
    expect(tl.count).toBe(5);
    expect([0, 1, 2, 3, 4].map((i) => tl.stepOf(i))).toEqual([3, 4, 5, 6, 7]);
    expect(tl.timeOf(4)).toBeCloseTo(7 * w.dt, 12);
    expect(() => tl.state(5)).toThrow(RangeError);
    tl.clear();
    expect(tl.count).toBe(0);
  });

  it('steps a world with soft bodies back with its soft bodies, bit for bit, within the byte budget', async () => {
    const w = await builtinWorld('soft-seesaw');
    expect(w.soft).not.toBeNull();
    const hookBytes = savedStateBytes(w.soft!.saveState());
    // The particles' positions and velocities at least.
    const sys = (w.soft as unknown as { system: { particleCount: number } }).system;
    expect(hookBytes).toBeGreaterThanOrEqual(48 * sys.particleCount);
    const n = w.bodies.count;
    expect(new StateTimeline(n, { maxStates: 1000, maxBytes: 4 * stateBytes(n, hookBytes) }, hookBytes).capacity).toBe(4);
    const tl = new StateTimeline(n, DEFAULT_LIMITS, hookBytes);
    tl.record(w);
    const saved: WorldState[] = [w.saveState()];
    for (let k = 0; k < 30; k++) {
      await w.step();
      tl.record(w);
      saved.push(w.saveState());
    }
    const bits = (s: unknown) => JSON.stringify(s, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) : v));
    for (const i of [3, 30, 0]) {
      w.restoreState(tl.state(i));
      same(w.saveState(), saved[i]!);
      expect(bits(w.saveState().soft)).toBe(bits(saved[i]!.soft));
    }
    // Stepping on from a restored state goes on from there (a restore drops the contact caches, so
    // not bit for bit): the particles end near the recorded step 11, not where step 30 left them.
    const particles = (s: WorldState) => (s.soft as { system: { pos: Float64Array } }).system.pos;
    const maxDiff = (a: Float64Array, b: Float64Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
    w.restoreState(tl.state(10));
    await w.step();
    const moved = maxDiff(particles(saved[30]!), particles(saved[11]!));
    expect(moved).toBeGreaterThan(0.05);
    expect(maxDiff(particles(w.saveState()), particles(saved[11]!))).toBeLessThan(0.01 * moved);
  });

  it('refuses a world with another number of bodies', async () => {
    const w = await builtinWorld('tower', { height: 3 });
    expect(() => new StateTimeline(w.bodies.count - 1).record(w)).toThrow(/holds 3 bodies, the world has 4/);
  });
});
