import { describe, expect, it } from 'vitest';
import type { World } from '../../src/dynamics/world.ts';
import { FORMAT, run, worldFrom } from './helpers.ts';

const scene = {
  format: FORMAT,
  shapes: {
    floor: { type: 'plane', normal: [0, 1, 0] },
    box: { type: 'box', size: [0.6, 0.3, 0.6], sdf: { cells: 16 } },
    ring: { type: 'torus', majorRadius: 0.25, minorRadius: 0.06, segments: [12, 9], sdf: { cells: 24 } },
  },
  bodies: [
    { name: 'ground', shape: 'floor', static: true },
    { name: 'box0', shape: 'box', position: [0, 0.16, 0] },
    { name: 'ring', shape: 'ring', position: [0.05, 1.0, 0.02], rotation: { axis: [1, 0, 0], degrees: 5 }, angularVelocity: [0, 2, 0] },
  ],
};

function state(w: World): number[] {
  const B = w.bodies;
  return [...B.pos.subarray(0, 3 * B.count), ...B.quat.subarray(0, 4 * B.count), ...B.vel.subarray(0, 3 * B.count)];
}

describe('backends', () => {
  it('the same scene and backend give bit-identical states (deterministic)', async () => {
    const a = await worldFrom(scene, 'cpu');
    const b = await worldFrom(scene, 'cpu');
    await run(a, 100);
    await run(b, 100);
    expect(state(a)).toEqual(state(b));
  });

  // A scene that settles (no tipping point on the way), so the twins' float32
  // vs float64 depths (1e-6 cell apart) cannot be amplified by chaos.
  it('the CPU and GPU backends give the same states within 0.1 mm over 100 steps', async () => {
    const cpu = await worldFrom(scene, 'cpu');
    const gpu = await worldFrom(scene, 'gpu');
    let maxDiff = 0;
    let gpuCalls = 0;
    for (let s = 0; s < 100; s++) {
      await cpu.step();
      await gpu.step();
      gpuCalls += gpu.profile.queryCalls;
      const x = state(cpu), y = state(gpu);
      for (let i = 0; i < x.length; i++) maxDiff = Math.max(maxDiff, Math.abs(x[i]! - y[i]!));
    }
    expect(gpuCalls).toBeGreaterThan(0);
    // The ring did land (contacts happened), and the twins agree.
    expect(cpu.bodies.pos[3 * 2 + 1]!).toBeLessThan(0.45);
    expect(maxDiff).toBeLessThan(1e-4);
  });
});
