/**
 * The run summary never shows a non-finite figure: scenes whose magnitudes
 * would overflow are refused when read (tests/cli/hardening.test.ts), and a
 * figure that overflows anyway is found by nonFiniteFigure, which makes
 * `stackfield run` a simulation error (exit code 1) instead of printing
 * "energy -Infinity J -> NaN J" with exit code 0.
 */
import { describe, expect, it } from 'vitest';
import { createWorld, destroyWorld, loadScene } from '../../src/index.ts';
import { SimulationError } from '../../src/errors.ts';
import { formatSummary, nonFiniteFigure, PILE_HINT_AWAKE, RunTracker } from '../../src/cli/summary.ts';
import { SoftCoupling } from '../../src/soft/coupling.ts';

const scene = {
  format: 'stackfield-scene/1',
  shapes: { floor: { type: 'plane' }, box: { type: 'box', sdf: { cells: 8 } } },
  bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'box', shape: 'box', position: [0, 2, 0] }],
};

/** Steps `world` up to `steps` times; what a step threw, or undefined. */
async function stepUntilThrown(world: Awaited<ReturnType<typeof createWorld>>, steps: number): Promise<unknown> {
  try {
    for (let i = 0; i < steps; i++) await world.step();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('the run summary', () => {
  it('a finite run has no non-finite figure', async () => {
    const world = await createWorld(await loadScene(scene));
    try {
      const t = new RunTracker(world, 's', 'cpu', 1, 0);
      for (let i = 0; i < 5; i++) {
        await world.step();
        t.afterStep();
      }
      const s = t.summary(0.01);
      expect(nonFiniteFigure(s)).toBeUndefined();
      expect(formatSummary(s, (n) => n)).not.toMatch(/NaN|Infinity/);
    } finally {
      destroyWorld(world);
    }
  });

  it('counts a falling soft body: a dynamic body, its energy m g y, its fall and its points', async () => {
    const world = await createWorld(await loadScene({
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane' }, ball: { type: 'sphere', radius: 0.3 } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }],
      softBodies: [{ name: 'blob', shape: 'ball', position: [0, 1, 0], construction: { resolution: 4 } }],
    }));
    try {
      const soft = world.soft;
      if (!(soft instanceof SoftCoupling)) throw new Error('no soft bodies');
      const m = soft.system.bodies[0]!.mass, g = 9.81, y0 = soft.system.centroid(0)[1];
      const t = new RunTracker(world, 's', 'cpu', 1, 0);
      const steps = 20, time = steps * world.dt;
      for (let i = 0; i < steps; i++) {
        await world.step();
        t.afterStep();
      }
      const s = t.summary(0.01);
      expect(s.bodies).toBe(2);
      expect(s.dynamicBodies).toBe(1);
      expect(s.softBodies).toBe(1);
      expect(s.atRest).toBe(0);
      expect(s.belowGround).toEqual([]);
      // At rest near 1 m (the lattice's centre of mass), springs unstretched: m g y of the centre.
      expect(Math.abs(y0 - 1)).toBeLessThan(0.01);
      expect(Math.abs(s.energy.start / (m * g * y0) - 1)).toBeLessThan(1e-9);
      // Falling freely: kinetic m (g t)^2 / 2, the total kept (within the integrator's 1 %).
      expect(Math.abs(s.energy.kineticEnd / (0.5 * m * (g * time) ** 2) - 1)).toBeLessThan(0.02);
      expect(Math.abs(s.energy.change)).toBeLessThan(0.01 * s.energy.start);
      // The sphere's lowest and highest particles, dropped g t^2 / 2 (within the lattice's 1 cm).
      const drop = 0.5 * g * time * time;
      expect(Math.abs(s.lowestPoint! - (0.7 - drop))).toBeLessThan(0.01);
      expect(Math.abs(s.highestPoint! - (1.3 - drop))).toBeLessThan(0.01);
      const text = formatSummary(s, (n) => n);
      expect(text).toContain('resting        0 of 1 dynamic bodies (1 soft)');
      // With no step run nothing is judged resting (a box let go in mid-air read as resting).
      expect(formatSummary({ ...s, steps: 0, atRest: 1 }, (n) => n)).toContain('  resting        not judged: no step run (1 dynamic body)');
      expect(text).not.toContain('no dynamic bodies');
      expect(nonFiniteFigure(s)).toBeUndefined();
      // A depth of round-off (a box resting exactly on its floor ends 1e-23 m in) is none, not "0 mm (step 4)".
      const roundOff = formatSummary({ ...s, penetration: { end: 1e-23, max: 1e-16, maxStep: 4 } }, (n) => n);
      expect(roundOff).toContain('  penetration    none');
      expect(formatSummary({ ...s, penetration: { end: 0, max: 2e-3, maxStep: 4 } }, (n) => n)).toContain('  penetration    deepest 2 mm (step 4); none at the end');
      // An energy change within round-off of the energies is none; one above it keeps its sign and size.
      const energy = (start: number, end: number, kineticEnd: number): string =>
        formatSummary({ ...s, energy: { start, end, change: end - start, kineticEnd } }, (n) => n);
      expect(energy(0, -2e-11, 50)).toContain('(change 0 J (round-off); kinetic at the end 50 J)');
      expect(energy(0, -2e-7, 50)).toContain('(change -2e-7 J;');
      expect(energy(10, 10.5, 0)).toContain('(change +0.5 J;');
      // A pile left awake under the seed's passes is pointed to the accumulated stage, once; nothing else is.
      const pile = (contactSolver: string, dynamicBodies: number, asleep: number, softBodies = 0): string =>
        formatSummary({ ...s, contactSolver, dynamicBodies, asleep, softBodies }, (n) => n);
      const hint = pile('sequential', 30, 5);
      expect(hint.split('\n').at(-1)).toMatch(/^ {2}hint {11}25 bodies awake under the seed's contact passes: .*--solver accumulated/);
      expect(hint.match(/hint/g)).toHaveLength(1);
      expect(pile('sequential', PILE_HINT_AWAKE, 0)).toContain('  hint ');
      expect(pile('sequential', PILE_HINT_AWAKE - 1, 0)).not.toContain('hint');
      expect(pile('sequential', 30, 15)).not.toContain('hint');
      expect(pile('sequential', 30, 0, 15)).not.toContain('hint');
      expect(pile('accumulated', 30, 0)).not.toContain('hint');
      expect(pile('pgs', 30, 0)).not.toContain('hint');
    } finally {
      destroyWorld(world);
    }
  });

  it('an energy that overflows although every state is finite is found, with its place', async () => {
    const world = await createWorld(await loadScene(scene));
    try {
      // What the scene file can no longer say (gravity is at most 1e6 m/s^2): m g y overflows.
      // (Not stepped: the step would stop at once, the box driven past the speed of light.)
      world.gravity = [1e308, 1e308, 0];
      const t = new RunTracker(world, 's', 'cpu', 1, 0);
      const s = t.summary(0.01);
      expect(nonFiniteFigure(s)).toEqual({ path: 'energy.start', value: -Infinity });
    } finally {
      destroyWorld(world);
    }
  });

  it('a state that turns non-finite stops stepping with a SimulationError naming the body', async () => {
    const world = await createWorld(await loadScene({ ...scene, bodies: [{ name: 'bullet\u001b[2J', shape: 'box' }], shapes: { box: scene.shapes.box } }));
    try {
      // What the scene file can no longer say (a speed is at most the speed of light).
      world.bodies.vel[0] = Infinity;
      const error = await stepUntilThrown(world, 300);
      expect(error).toBeInstanceOf(SimulationError);
      expect((error as Error).message).toMatch(/^non-finite state of body "bullet\u001b\[2J" after stage \w+ at step \d+/);
    } finally {
      destroyWorld(world);
    }
  });

  it('a body driven past ten times the speed of light stops stepping with a SimulationError naming it (a legal scene: a rope of restitution 1 caught from 1e9 m away left a body at 5.6e12 m/s)', async () => {
    const world = await createWorld(await loadScene({
      format: 'stackfield-scene/1',
      shapes: { b: { type: 'box', sdf: { cells: 8 } } },
      bodies: [{ name: 'post', shape: 'b', static: true }, { name: 'weight', shape: 'b', mass: 1e-90, position: [0, -1e-9, 0] }],
      joints: [{ type: 'rope', bodyA: 'post', bodyB: 'weight', anchorA: [0, 0, 0], anchorB: [0, 0, 1e9], length: 1e-9, restitution: 1 }],
    }));
    try {
      const error = await stepUntilThrown(world, 200);
      expect(error).toBeInstanceOf(SimulationError);
      expect((error as Error).message).toMatch(/^body "weight" moves at [\d.e+]+ m\/s, more than ten times the speed of light, after stage \w+ at step \d+/);
      for (const x of world.bodies.vel.subarray(0, 6)) expect(Math.abs(x)).toBeLessThan(1e300);
    } finally {
      destroyWorld(world);
    }
  });
});
