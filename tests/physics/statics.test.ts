/**
 * Statics with friction, against the limit angles of a rigid-body free-body
 * diagram: a ladder on a rough floor against a frictionless wall, and an
 * A-frame of two planks leaning on each other. Each is started at rest one
 * degree on either side of its limit and must stand above it and slide below.
 *
 * A plank of length L and thickness t at theta to the floor, its lower inner
 * edge on the floor at x_f = L cos(theta), its upper inner edge at the wall
 * (x = 0, height L sin(theta)); its centre lies (L/2) cos(theta) -
 * (t/2) sin(theta) inside the foot. A frictionless wall pushes horizontally
 * with N_w, the floor carries the weight W and a friction F = N_w; moments
 * about the foot give N_w L sin(theta) = W ((L/2) cos(theta) - (t/2)
 * sin(theta)), so it stands while 1 / (2 tan theta) - t / (2 L) <= mu:
 * theta >= atan(1 / (2 (mu + t / (2 L)))), 31.6 degrees for a 4 m ladder of
 * 0.1 m on mu = 0.8 (32.0 for a line). An A-frame's planks push each other
 * horizontally at the apex (mirror symmetry leaves no vertical force
 * between them): each is a ladder against a frictionless wall.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, run, worldFrom } from '../dynamics/helpers.ts';
import type { BackendKind } from '../../src/collision/query.ts';
import type { SolverSettings } from '../../src/dynamics/settings.ts';

const DEG = Math.PI / 180;
const THICK = 0.1;

/** The centre of a plank of length `len` standing on the floor at `deg` from it, its upper inner corner at x = 0 (leaning towards -x when side is 1). */
function plank(side: 1 | -1, deg: number, len: number): { position: number[]; rotation: { axis: number[]; degrees: number } } {
  const th = deg * DEG;
  const x = side * ((len / 2) * Math.cos(th) + (THICK / 2) * Math.sin(th));
  const y = (len / 2) * Math.sin(th) + (THICK / 2) * Math.cos(th);
  return { position: [x, y + 0.002, 0], rotation: { axis: [0, 0, 1], degrees: side * (90 - deg) } };
}

/** The limit angle (degrees) of a plank of length `len` and thickness THICK on a floor of friction `mu` (file comment). */
function limitAngle(mu: number, len: number): number {
  return Math.atan(1 / (2 * (mu + THICK / (2 * len)))) / DEG;
}

/** How far (m) the plank named `name` fell in 3 s at 60 Hz. */
async function drop(json: Record<string, unknown>, solver: SolverSettings['contactSolver'], name: string, backend: BackendKind = 'cpu'): Promise<number> {
  const w = await worldFrom(json, backend);
  w.solver = { ...w.solver, contactSolver: solver };
  const i = w.bodies.names.indexOf(name);
  const y0 = w.bodies.pos[3 * i + 1]!;
  await run(w, 180);
  return y0 - w.bodies.pos[3 * i + 1]!;
}

function ladder(deg: number): Record<string, unknown> {
  return {
    format: FORMAT,
    dt: 1 / 60,
    shapes: { floor: { type: 'plane' }, wall: { type: 'box', size: [0.5, 6, 3] }, ladder: { type: 'box', size: [THICK, 4, 0.5], sdf: { cells: 48 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 0.8 },
      { name: 'wall', shape: 'wall', static: true, position: [-0.25, 3, 0], friction: 0 },
      { name: 'ladder', shape: 'ladder', friction: 0, restitution: 0, ...plank(1, deg, 4) },
    ],
  };
}

function aFrame(deg: number, mu: number): Record<string, unknown> {
  return {
    format: FORMAT,
    dt: 1 / 60,
    shapes: { floor: { type: 'plane' }, plank: { type: 'box', size: [THICK, 3, 0.5], sdf: { cells: 48 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: mu },
      { name: 'right', shape: 'plank', friction: mu, restitution: 0, ...plank(1, deg, 3) },
      { name: 'left', shape: 'plank', friction: mu, restitution: 0, ...plank(-1, deg, 3) },
    ],
  };
}

describe('statics at the friction limit', () => {
  const limit = limitAngle(0.8, 4);
  it('the limits: 31.6 degrees for the ladder (32.0 for a line), 44.1 / 37.9 / 31.5 degrees for the A-frame on mu 0.5 / 0.625 / 0.8', () => {
    expect(limit).toBeCloseTo(31.61, 2);
    expect(Math.atan(1 / (2 * 0.8)) / DEG).toBeCloseTo(32.0, 1);
    expect([0.5, 0.625, 0.8].map((mu) => +limitAngle(mu, 3).toFixed(2))).toEqual([44.06, 37.93, 31.48]);
  });

  it.each(['sequential', 'accumulated'] as const)('a ladder on a floor of mu 0.8 against a frictionless wall stands one degree above its limit and slides down one below (%s)', async (solver) => {
    expect(await drop(ladder(limit + 1), solver, 'ladder')).toBeLessThan(0.005); // the 2 mm it starts above the floor
    expect(await drop(ladder(limit - 1), solver, 'ladder')).toBeGreaterThan(0.5);
  });

  // The seed's one-shot passes let the A-frame on mu 0.5 fall even 3 degrees
  // above its limit: the apex contact's impulses do not build up to the
  // horizontal thrust that statics asks of it within one step (issue "Piles
  // that come to rest"). The accumulated stage holds it to a degree.
  it.each([0.5, 0.625, 0.8])('an A-frame of two 3 m planks on a floor of mu %s stands one degree above its limit and collapses one below (accumulated contact stage, cpu)', async (mu) => {
    const lim = limitAngle(mu, 3);
    expect(await drop(aFrame(lim + 1, mu), 'accumulated', 'right')).toBeLessThan(0.005);
    expect(await drop(aFrame(lim - 1, mu), 'accumulated', 'right')).toBeGreaterThan(0.5);
  });

  it('the A-frame on mu 0.625 likewise on the GPU (accumulated contact stage)', async () => {
    const lim = limitAngle(0.625, 3);
    expect(await drop(aFrame(lim + 1, 0.625), 'accumulated', 'right', 'gpu')).toBeLessThan(0.005);
    expect(await drop(aFrame(lim - 1, 0.625), 'accumulated', 'right', 'gpu')).toBeGreaterThan(0.5);
  });
});
