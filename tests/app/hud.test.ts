import { describe, expect, it } from 'vitest';
import { sleepCounts, worldNumbers } from '../../src/app/hud.ts';
import { builtinWorld } from '../dynamics/helpers.ts';

describe('the numbers overlay', () => {
  it('counts soft bodies as awake and adds their kinetic energy to the rigid bodies\'', async () => {
    const w = await builtinWorld('soft-pegs', { blobs: 3 });
    for (let i = 0; i < 20; i++) await w.step();
    const soft = w.soft!;
    expect(soft.bodyCount).toBe(3);
    let rigidAwake = 0;
    for (let i = 0; i < w.bodies.count; i++) if (!w.bodies.isStatic[i] && !w.bodies.asleep[i]) rigidAwake++;
    const n = worldNumbers(w, 60);
    expect(n.awake).toBe(rigidAwake + 3);
    expect(sleepCounts(w).awake).toBe(n.awake);
    // The blobs are falling: their kinetic energy is what the overlay shows beyond the rigid bodies'.
    const softE = soft.kineticEnergy();
    expect(softE).toBeGreaterThan(0);
    expect(n.energy).toBe(w.kineticEnergy() + softE);
  });
});
