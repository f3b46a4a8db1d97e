/**
 * An oblique elastic impact of two equal frictionless spheres (e = 1): the
 * struck sphere leaves along the line of centres at contact, the striker
 * perpendicular to it, so the two leave 90 degrees apart, with no spin and
 * no loss of kinetic energy. Two spheres meet at one exact point on the
 * line of centres (narrowphase.ts, spherePoint), so the impulse runs through
 * both centres. (Through samples: the patch between two moving bodies
 * centred where the fields' gradients meet gave the same within 1e-5
 * degrees; the samples' weighted normal at the predicted poses gave
 * 89.4-89.6 degrees and 0.5-1.1 rad/s; the facets' field before that 87.6
 * and 2.2.) Two unequal spheres, one struck off the plane: the struck one
 * leaves within a degree or two of the line of centres (the line at the
 * start of the step in which they meet), neither spins, and no energy is
 * lost. (Along the line of centres where the straight relative path first
 * comes within reach, it left within 0.01 degrees, but no point lies on
 * that line through both centres as they stand at the step's start, where
 * the impulse acts: the struck ball spun at up to 0.7 rad/s and the
 * striker at 1.1, and 0.5 % of the energy went into spin.)
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, worldFrom } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';

async function strike(deg: number, backend: 'cpu' | 'gpu' = 'cpu'): Promise<{ angle: number; spin: number; keRatio: number; p: number[] }> {
  const R = 0.3, b = 2 * R * Math.sin((deg * Math.PI) / 180);
  const w = await worldFrom({
    format: FORMAT, dt: 1 / 60, gravity: [0, 0, 0],
    shapes: { ball: { type: 'sphere', radius: R } },
    bodies: [
      { name: 'a', shape: 'ball', position: [-1, 0, 0], velocity: [3, 0, 0], restitution: 1, friction: 0 },
      { name: 'b', shape: 'ball', position: [0.2, b, 0], restitution: 1, friction: 0 },
    ],
  }, backend);
  const r = await after(w);
  const { va, vb } = r;
  const dot = va[0]! * vb[0]! + va[1]! * vb[1]! + va[2]! * vb[2]!;
  const angle = (Math.acos(dot / Math.hypot(...va) / Math.hypot(...vb)) * 180) / Math.PI;
  return { angle, spin: r.spin, keRatio: r.keRatio, p: [va[0]! + vb[0]!, va[1]! + vb[1]!, va[2]! + vb[2]!] };
}

/** 1.5 s on: both velocities, the larger spin, and the kinetic energy over the striker's 3 m/s at its own mass. */
async function after(w: World): Promise<{ va: number[]; vb: number[]; spin: number; keRatio: number }> {
  for (let s = 0; s < 90; s++) await w.step();
  const V = w.bodies.vel, W = w.bodies.angVel, m = w.bodies.mass;
  const va = [V[0]!, V[1]!, V[2]!], vb = [V[3]!, V[4]!, V[5]!];
  const ke = 0.5 * m[0]! * (va[0]! ** 2 + va[1]! ** 2 + va[2]! ** 2) + 0.5 * m[1]! * (vb[0]! ** 2 + vb[1]! ** 2 + vb[2]! ** 2);
  return { va, vb, spin: Math.max(Math.hypot(W[0]!, W[1]!, W[2]!), Math.hypot(W[3]!, W[4]!, W[5]!)), keRatio: ke / (0.5 * m[0]! * 9) };
}

/** A 0.3 m sphere at 3 m/s strikes a resting 0.5 m one (mass `m2`) whose centre lies `deg` degrees off its path (and 13 mm off the plane). */
async function strikeUnequal(deg: number, m2: number): Promise<{ leave: number; spin: number; keRatio: number }> {
  const R1 = 0.3, R2 = 0.5, b = (R1 + R2) * Math.sin((deg * Math.PI) / 180);
  const w = await worldFrom({
    format: FORMAT, dt: 1 / 60, gravity: [0, 0, 0],
    shapes: { s1: { type: 'sphere', radius: R1, segments: [16, 12] }, s2: { type: 'sphere', radius: R2, segments: [20, 14] } },
    bodies: [
      { name: 'a', shape: 's1', position: [-1, 0, 0], velocity: [3, 0, 0], restitution: 1, friction: 0, mass: 1 },
      { name: 'b', shape: 's2', position: [0.4, b, 0.013], restitution: 1, friction: 0, mass: m2 },
    ],
  });
  const r = await after(w);
  return { leave: (Math.atan2(r.vb[1]!, r.vb[0]!) * 180) / Math.PI, spin: r.spin, keRatio: r.keRatio };
}

describe('an oblique elastic impact of frictionless spheres', () => {
  it.each([10, 30, 45, 80])('struck at %i degrees, they leave 90 degrees apart to 1e-9, momentum and energy kept to 1e-12, no spin', async (deg) => {
    const r = await strike(deg);
    expect(Math.abs(r.angle - 90)).toBeLessThan(1e-9);
    expect(Math.abs(r.p[0]! - 3)).toBeLessThan(1e-12);
    expect(Math.abs(r.p[1]!) + Math.abs(r.p[2]!)).toBeLessThan(1e-12);
    expect(Math.abs(r.keRatio - 1)).toBeLessThan(1e-12);
    expect(r.spin).toBeLessThan(1e-12);
  });

  it('the same on the GPU backend (struck at 30 degrees): 90 degrees apart to 1e-9, no spin, energy kept to 1e-12', async () => {
    const r = await strike(30, 'gpu');
    expect(Math.abs(r.angle - 90)).toBeLessThan(1e-9);
    expect(Math.abs(r.keRatio - 1)).toBeLessThan(1e-12);
    expect(r.spin).toBeLessThan(1e-12);
  });

  it.each([[10, 1], [30, 2], [50, 0.5]])('unequal spheres struck at %i degrees (mass ratio %f): the struck one leaves along the line of centres within 2 degrees, nothing spins, no energy is lost (to 1e-12)', async (deg, m2) => {
    const r = await strikeUnequal(deg, m2);
    expect(Math.abs(r.leave - deg)).toBeLessThan(2);
    expect(r.spin).toBeLessThan(1e-12);
    expect(Math.abs(r.keRatio - 1)).toBeLessThan(1e-12);
  });
});
