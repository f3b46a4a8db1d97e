/**
 * Stacks (issue "Physics a physicist would sign", item 5): perfectly aligned
 * towers with static friction 0.5 stand still, neither creeping sideways nor
 * sinking, and mass ratios of 100:1 either way stay put. Sleeping is off, so
 * the solver itself must hold them for the whole time. On both backends.
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../src/dynamics/world.ts';
import { pos, queryWorld, run } from '../dynamics/helpers.ts';
import { massRatioStack, tower } from './scenes.ts';

/**
 * Largest horizontal drift of any box from its start, and the top box's sink
 * below its ideal height (each box exactly on the one below) once the boxes
 * have closed their 1 mm starting gaps (after the first second), over `seconds`.
 */
async function standFor(w: World, n: number, size: number, seconds: number): Promise<{ drift: number; sink: number }> {
  const start = Array.from({ length: n }, (_, i) => pos(w, `box${i}`));
  let drift = 0, sink = 0;
  await run(w, Math.round(seconds / w.dt), (ww) => {
    for (let i = 0; i < n; i++) {
      const p = pos(ww, `box${i}`);
      drift = Math.max(drift, Math.hypot(p[0] - start[i]![0], p[2] - start[i]![2]));
    }
    if (ww.time > 1) sink = Math.max(sink, (n - 0.5) * size - pos(ww, `box${n - 1}`)[1]);
  });
  return { drift, sink };
}

describe.each(['cpu', 'gpu'] as const)('stacks (%s)', (backend) => {
  it.each([
    [20, 1, 1 / 60],
    [40, 1, 1 / 60],
    [20, 0.5, 0.01],
    [40, 0.5, 0.01],
  ])('a tower of %d boxes of %d m at dt %f stands 30 s: drift < 1 cm, sink < 1 cm', async (n, size, dt) => {
    const w = await queryWorld(tower(n, size, dt, 0.001, { sleep: false }), backend);
    const { drift, sink } = await standFor(w, n, size, 30);
    expect(drift).toBeLessThan(0.01);
    expect(sink).toBeLessThan(0.01);
  }, 240_000);

  it.each([
    ['heavy on light', 1, 100],
    ['light on heavy', 100, 1],
  ])('a 100:1 stack, %s, stays within 5 mm for 10 s', async (_, bottom, top) => {
    const w = await queryWorld(massRatioStack(bottom, top), backend);
    const p0 = pos(w, 'top');
    let drift = 0;
    await run(w, 1000, (ww) => {
      const p = pos(ww, 'top');
      drift = Math.max(drift, Math.hypot(p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]));
    });
    expect(drift).toBeLessThan(0.005);
  });
});

describe('stacks that should not move at all (sleep off, 60 Hz)', () => {
  /**
   * The largest displacement of any dynamic body from where it started,
   * after `steps` steps, and the most sweeps shock propagation ran in a step.
   */
  async function settle(json: unknown, backend: 'cpu' | 'gpu', steps: number): Promise<{ drift: number; sweeps: number }> {
    const w = await queryWorld(json, backend);
    const p0 = Float64Array.from(w.bodies.pos);
    let sweeps = 0;
    await run(w, steps, (ww) => {
      sweeps = Math.max(sweeps, ww.profile.shockSweeps);
    });
    let m = 0;
    for (let i = 0; i < w.bodies.count; i++) {
      if (w.bodies.isStatic[i]) continue;
      m = Math.max(m, Math.hypot(w.bodies.pos[3 * i]! - p0[3 * i]!, w.bodies.pos[3 * i + 1]! - p0[3 * i + 1]!, w.bodies.pos[3 * i + 2]! - p0[3 * i + 2]!));
    }
    return { drift: m, sweeps };
  }
  const scene = (boxes: [number, number][]) => ({
    format: 'stackfield-scene/1', dt: 1 / 60, sleep: false,
    shapes: { floor: { type: 'plane' }, cube: { type: 'box', size: [1, 1, 1] } },
    bodies: [{ name: 'floor', shape: 'floor', static: true }, ...boxes.map(([x, y], i) => ({ name: `b${i}`, shape: 'cube', position: [x, y, 0] }))],
  });

  it.each(['cpu', 'gpu'] as const)('a one-metre cube resting 0.3 m off-centre on another stays put for 10 s, within 0.1 mm (%s)', async (backend) => {
    // Every step used to end with the pair tipping toward the overhang at
    // 50 urad/s (shock propagation's rows not converged in 10 sweeps): 3.9 mm
    // in 10 s. Measured now: under 0.04 mm (the landing of the first steps).
    expect((await settle(scene([[0, 0.5], [0.3, 1.5]]), backend, 600)).drift).toBeLessThan(1e-4);
  }, 120_000);

  it('a tower of 200 touching one-metre cubes (0.01 mm apart) stands 10 s without moving sideways (cpu)', async () => {
    // The field rounds a cube's edges, so a resting face also has patches at
    // its rim with normals tilted 26 degrees; when those drew on the
    // friction the contact passes left, shock propagation pushed every cube
    // sideways and this tower blew apart within a second (100 cubes too).
    const w = await queryWorld(tower(200, 1, 1 / 60, 1e-5, { sleep: false }), 'cpu');
    let drift = 0;
    await run(w, 600, (ww) => {
      for (let i = 0; i < 200; i += 11) drift = Math.max(drift, Math.hypot(pos(ww, `box${i}`)[0], pos(ww, `box${i}`)[2]));
    });
    expect(drift).toBeLessThan(1e-4);
    expect(pos(w, 'box199')[1]).toBeGreaterThan(199.5 - 0.01);
  }, 120_000);

  it.each([
    ['100 one-metre cubes dropped 2 mm onto each other', 100, 0.002, 0, 0],
    ['60 one-metre cubes 4 mm apart, each shifted up to 4 mm and turned up to 1 degree about the vertical', 60, 0.004, 0.004, 1],
  ])('a tower of %s stands 30 s at 60 Hz: no cube 1 cm off its start, the top at its height (cpu)', async (_, n, gap, shift, degrees) => {
    // What the seed's shock propagation holds and the other contact solvers
    // do not (docs/DESIGN.md 4, "Towers of cubes"): under the accumulated
    // stage both bend and fall within the 30 s, under PGS within seconds.
    const json = tower(n, 1, 1 / 60, gap, { sleep: false }) as { bodies: { name: string; position: number[]; rotation?: unknown }[] };
    // A fixed, scattered jitter (no random source: the same tower every run).
    json.bodies.forEach((b, i) => {
      if (b.name === 'ground') return;
      b.position[0]! += shift * Math.sin(12.9898 * i);
      b.position[2]! += shift * Math.sin(78.233 * i);
      b.rotation = { axis: [0, 1, 0], degrees: degrees * Math.sin(37.719 * i) };
    });
    const w = await queryWorld(json, 'cpu');
    const { drift, sink } = await standFor(w, n, 1, 30);
    expect(drift).toBeLessThan(0.01);
    // Every gap closed, no cube sunk into the next by more than a millimetre.
    expect(sink).toBeLessThan(n * 1e-3);
    expect(pos(w, `box${n - 1}`)[1]).toBeLessThan(n - 0.5 + 1e-3);
  }, 180_000);

  it('a pyramid of 55 one-metre cubes (10 rows, 2 cm apart) stays put for 10 s, within 0.1 mm, shock propagation bringing each row to rest in one sweep (cpu)', async () => {
    // 8.3 mm in 10 s before (its top crept sideways and out of its plane).
    const boxes: [number, number][] = [];
    for (let row = 0; row < 10; row++) for (let i = 0; i < 10 - row; i++) boxes.push([(i - (9 - row) / 2) * 1.02, 0.5 + row]);
    const { drift, sweeps } = await settle(scene(boxes), 'cpu', 600);
    expect(drift).toBeLessThan(1e-4);
    // Each face patch's normal, torque and friction solved together
    // (applyFlatAccumulated): per row one sweep that stops it and one that
    // finds nothing left to do. Solved one row after another they used all
    // 50 sweeps a level, every step.
    expect(sweeps).toBeLessThanOrEqual(2 * 10);
  }, 120_000);
});
