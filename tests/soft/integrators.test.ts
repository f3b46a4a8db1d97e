/**
 * The seed's integrator comparison: a stiff cube at 30 steps per second.
 * Explicit Euler (and the midpoint rule) explode, which must surface as a
 * SimulationError naming the soft body; RK4 and the default hold.
 */
import { describe, expect, it } from 'vitest';
import { SimulationError } from '../../src/errors.ts';
import type { SoftIntegratorName } from '../../src/scene/types.ts';
import { buildScene, softScene } from './helpers.ts';

const DT = 1 / 30;

function stiffCube(integrator?: SoftIntegratorName, extra: Record<string, unknown> = {}) {
  return softScene(
    {
      shapes: { cube: { type: 'box', size: [0.5, 0.5, 0.5] } },
      softBodies: [{ name: 'stiffCube', shape: 'cube', position: [0, 0.6, 0], stiffness: 1e4, damping: 0.1, construction: { resolution: 2 } }],
      ...(integrator ? { softSolver: { integrator, ...extra } } : {}),
    },
    { dt: DT },
  );
}

async function run(integrator: SoftIntegratorName | undefined, steps: number) {
  const { system } = await buildScene(stiffCube(integrator));
  for (let s = 0; s < steps; s++) system.step(DT);
  return system;
}

describe('the stiff cube at dt = 1/30 s', () => {
  for (const integrator of ['euler', 'rk2'] as const) {
    it(`blows up under ${integrator}, reported as a SimulationError naming the soft body`, async () => {
      const error = await run(integrator, 150).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SimulationError);
      const message = (error as Error).message;
      expect(message).toMatch(/^soft body "stiffCube" blew up at step \d+ \(t = [\d.]+ s; integrator "/);
      expect(message).toContain(`integrator "${integrator}", 1 substep per step`);
      expect(message).toMatch(/times its rest length \(softSolver\.maxStretch = 10\)|no longer finite/);
      expect(message).toContain('use the default integrator "semiImplicit"');
    });
  }

  for (const integrator of [undefined, 'rk4'] as const) {
    it(`holds under ${integrator ?? 'the default (semiImplicit)'} and settles on the ground in its shape`, async () => {
      const system = await run(integrator, 150); // 5 s
      const y = system.centroid(0)[1];
      // The centre a little below 0.25 m (the sag) and most of the volume kept (friction holds the footprint
      // where it landed, so the resting shape depends a little on the landing).
      expect(y).toBeGreaterThan(0.19);
      expect(y).toBeLessThan(0.25);
      expect(system.volumeOf(0) / system.bodies[0]!.restVolume).toBeGreaterThan(0.88);
      // The default comes to rest; RK4, at the edge of its stability region with explicit dampers
      // (omega h = 2.2 for the stiffest mode), keeps a small jitter: under 1 % of the ~430 J of the fall.
      expect(system.energy().kinetic).toBeLessThan(integrator === 'rk4' ? 4 : 1e-3);
    });
  }

  it('takes as many substeps as the stability limit asks, and no more than maxSubsteps', async () => {
    const { system } = await buildScene(stiffCube());
    // h omega_bound = 2 * 0.7 at most (system.ts): omega_bound = 114.3 rad/s -> 3 substeps of dt = 1/30.
    const n = system.substepsFor(DT);
    expect(DT / n).toBeLessThanOrEqual(1.4 / Math.sqrt(system.bodies[0]!.omega2));
    expect(DT / (n - 1)).toBeGreaterThan(1.4 / Math.sqrt(system.bodies[0]!.omega2));
    system.settings.maxSubsteps = n - 1;
    expect(() => system.step(DT)).toThrow(SimulationError);
    expect(() => system.step(DT)).toThrow(/soft body "stiffCube" needs 3 substeps per step of 0.0333\d* s to stay stable, more than softSolver.maxSubsteps = 2/);
  });

  it('names the spring torn furthest past maxStretch under the default, in the step that tears it', async () => {
    const { system } = await buildScene(stiffCube());
    for (let s = 0; s < 3; s++) system.step(DT);
    // Particle 0 pulled 40 m away: every spring on it is far past 10 times its rest length, the others are not.
    system.pos[1] += 40;
    const steps = system.stepCount;
    let message = '';
    try {
      system.step(DT);
    } catch (e) {
      expect(e).toBeInstanceOf(SimulationError);
      message = (e as Error).message;
    }
    expect(message).toMatch(new RegExp(`^soft body "stiffCube" blew up at step ${steps + 1} .*integrator "semiImplicit", 3 substeps per step\\): the spring between its particles (0 and \\d+|\\d+ and 0) is \\d+\\.\\d times its rest length \\(softSolver\\.maxStretch = 10\\); use more substeps`));
  });

  it('shows a stretch past a maxStretch near 1 with the digits that show it past, and says maxStretch may be raised', async () => {
    const { system } = await buildScene(stiffCube());
    system.settings.maxStretch = 1.0000000001;
    for (let s = 0; s < 3; s++) system.step(DT);
    system.pos[1] += 1e-6;
    let message = '';
    try {
      for (let s = 0; s < 10; s++) system.step(DT);
    } catch (e) {
      message = (e as Error).message;
    }
    const m = /is (\d+\.\d+) times its rest length \(softSolver\.maxStretch = 1\.0000000001\); .*, or allow more \(softSolver\.maxStretch\)$/.exec(message);
    expect(m, message).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(1.0000000001);
  });

  it('refuses at load time a body that the default could only hold with more than maxSubsteps', async () => {
    await expect(buildScene(stiffCube('semiImplicit', { maxSubsteps: 2 }))).rejects.toThrow(
      /^soft\.json: softBodies\[0\]: soft body "stiffCube" needs 3 substeps per step \(dt = 0\.0333\d* s\) to stay stable, more than softSolver\.maxSubsteps = 2/,
    );
  });
});
