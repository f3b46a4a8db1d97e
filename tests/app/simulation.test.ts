import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/app/simulation.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { validateScene } from '../../src/scene/validate.ts';

const io = { readText: (p: string) => readFile(p, 'utf8') };

async function tower(sim: Simulation): Promise<void> {
  await sim.load(validateScene(builtinScene('tower', { height: 3 }), '<test>'), io);
}

describe('the app\'s simulation controller', () => {
  it('says a backend switch is pending while a step runs, and how long the step has run', async () => {
    const sim = new Simulation(false, 'cpu');
    await tower(sim);
    const w = sim.world!;
    const realStep = w.step.bind(w);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    w.step = async () => {
      await gate;
      return realStep();
    };
    const stepping = sim.step();
    await new Promise((r) => setTimeout(r, 20));
    expect(sim.stepStartedAt).toBeGreaterThan(0);
    const switching = sim.setBackend('gpu');
    expect(sim.pendingBackend).toBe('gpu');
    open();
    await stepping;
    await switching;
    expect(sim.pendingBackend).toBeNull();
    expect(sim.stepStartedAt).toBe(0);
    // No GPU here: the switch lands on the CPU.
    expect(sim.backend).toBe('cpu');
    sim.destroy();
  });

  it('records every step; seeking puts a state back, and stepping on from there replaces its future', async () => {
    const sim = new Simulation(false, 'cpu');
    await tower(sim);
    for (let k = 0; k < 5; k++) await sim.step();
    expect(sim.timeline!.count).toBe(6);
    const at2 = sim.timeline!.state(2);
    const pos2 = Array.from(at2.pos);
    await sim.seek(2);
    expect(sim.world!.stepCount).toBe(2);
    expect(Array.from(sim.world!.bodies.pos.subarray(0, pos2.length))).toEqual(pos2);
    expect(sim.cursor).toBe(2);
    await sim.stepBack();
    expect(sim.world!.stepCount).toBe(1);
    await sim.step();
    expect(sim.world!.stepCount).toBe(2);
    expect(sim.timeline!.count).toBe(3);
    expect(sim.cursor).toBe(2);
    // A reset starts a new timeline.
    await sim.reset();
    expect(sim.timeline!.count).toBe(1);
    sim.destroy();
  });

  it('plays no faster than the wall clock times the speed (slow motion)', async () => {
    const sim = new Simulation(false, 'cpu');
    await tower(sim);
    sim.setSpeed(0.1);
    const t0 = performance.now();
    sim.play();
    await new Promise((r) => setTimeout(r, 400));
    sim.pause();
    await sim.idle();
    const wall = (performance.now() - t0) / 1000;
    const w = sim.world!;
    expect(w.time).toBeGreaterThan(0);
    // At most one step ahead of 0.1 x the wall clock.
    expect(w.time).toBeLessThanOrEqual(0.1 * wall + w.dt + 1e-9);
    sim.destroy();
  });
});
