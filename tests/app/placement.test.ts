import { describe, expect, it } from 'vitest';
import { THROW_SPEED } from '../../src/app/drag.ts';
import { placement } from '../../src/app/interaction.ts';
import type { LibraryItem } from '../../src/app/placing.ts';
import { builtinWorld } from '../dynamics/helpers.ts';

const cart: LibraryItem = { kind: 'robot', name: 'cart', file: 'robots.library.json' };
const plate: LibraryItem = { kind: 'body', name: 'plate', file: 'robots.library.json' };

describe('placing a library item (issue 49, 3)', () => {
  it('a plain click puts one where the ray meets the ground and disarms; shift throws one and keeps it armed', async () => {
    const w = await builtinWorld('tower', { height: 1 });
    // Straight down onto the ground, 3 m in front of the tower.
    const down = { origin: [0.5, 4, 3] as [number, number, number], dir: [0, -1, 0] as [number, number, number] };
    const p = placement(w, cart, down, false)!;
    expect(p.keepArmed).toBe(false);
    // A robot's frame origin sits 2 cm above the surface; a body's origin 0.6 m (it drops).
    expect(p.position[0]).toBeCloseTo(0.5, 12);
    expect(p.position[1]).toBeCloseTo(0.02, 9);
    expect(p.position[2]).toBeCloseTo(3, 12);
    expect(p.velocity).toEqual([0, 0, 0]);
    expect(placement(w, plate, down, false)!.position[1]).toBeCloseTo(0.6, 9);
    // Shift: from 1 m along the ray, at the throw speed along it; armed still.
    const along = { origin: [0, 2, 10] as [number, number, number], dir: [0, -0.6, -0.8] as [number, number, number] };
    const t = placement(w, cart, along, true)!;
    expect(t.keepArmed).toBe(true);
    [0, 1.4, 9.2].forEach((x, k) => expect(t.position[k]).toBeCloseTo(x, 12));
    [0, -0.6 * THROW_SPEED, -0.8 * THROW_SPEED].forEach((v, k) => expect(t.velocity[k]).toBeCloseTo(v, 12));
    // Facing away from the eye: the instance's +x turned onto the ray's horizontal direction (-z here).
    const q = t.orientation;
    const xAxis = [1 - 2 * (q[1] * q[1] + q[2] * q[2]), 2 * (q[0] * q[1] + q[3] * q[2]), 2 * (q[0] * q[2] - q[3] * q[1])];
    [0, 0, -1].forEach((x, k) => expect(xAxis[k]).toBeCloseTo(x, 12));
    // A plain click into the sky places nothing (and leaves the item armed: the caller gets null).
    expect(placement(w, cart, { origin: [0, 2, 10], dir: [0, 1, 0] }, false)).toBeNull();
  });
});
