/**
 * Free flight and elastic bounces against the textbook, on both query
 * backends: a body nothing but gravity acts on follows the parabola exactly
 * at any time step (integrate.ts moves it by dt (v + v') / 2), and a ball of
 * restitution 1 keeps bouncing to its drop height at 60 Hz (semi-implicit
 * Euler lost g dt^2 / 2 of energy per unit mass every step of flight: the
 * ball came back to 0.93, 0.86, 0.80 ... of its drop), and a box of
 * restitution e dropped flat comes back to e^2 of its drop at 60 Hz, from
 * whatever height above the floor its last step before the floor starts.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, bounceApexes, pos, queryWorld, run, vel } from '../dynamics/helpers.ts';
import { droppedBall } from './scenes.ts';

describe.each(['cpu', 'gpu'] as const)('%s: free flight and bounces', (backend) => {
  it('a box thrown at 45 degrees while tumbling follows x0 + v0 t + g t^2 / 2 at 60 Hz', async () => {
    const dt = 1 / 60, g = -9.81, v0 = 6;
    const w = await queryWorld({
      format: FORMAT, dt, sleep: false,
      shapes: { box: { type: 'box', size: [0.4, 0.2, 0.1], sdf: { cells: 8 } } },
      bodies: [{ name: 'b', shape: 'box', position: [0, 2, 0], velocity: [v0 * Math.SQRT1_2, v0 * Math.SQRT1_2, 0], angularVelocity: [2, 3, 4] }],
    }, backend);
    const n = 90;
    let worst = 0;
    let k = 0;
    await run(w, n, (ww) => {
      k++;
      const t = k * dt;
      const p = pos(ww, 'b');
      worst = Math.max(worst, Math.abs(p[0] - v0 * Math.SQRT1_2 * t), Math.abs(p[1] - (2 + v0 * Math.SQRT1_2 * t + 0.5 * g * t * t)), Math.abs(p[2]));
    });
    // Semi-implicit Euler is g dt t / 2 = 12 cm below the parabola after 1.5 s.
    expect(worst).toBeLessThan(1e-9);
    expect(vel(w, 'b')[1]).toBeCloseTo(v0 * Math.SQRT1_2 + g * n * dt, 9);
  });

  // Under the accumulated stage, an approach whose prediction stops within
  // the contact band, short of the floor, is the stage's to bounce (the
  // collision phase sees no penetration): the fourth bounce here, which came
  // back to 0.17 of the drop while the stage only stopped it.
  it.each(['sequential', 'accumulated'] as const)('a ball of restitution 1 bounces back to its drop height, bounce after bounce, at 60 Hz (%s)', async (contactSolver) => {
    const r = 0.1;
    const w = await queryWorld({ ...droppedBall(1, 1 / 60, r), solver: { contactSolver } }, backend);
    const apex = await bounceApexes(w, 'ball', r, 300);
    // Five bounces in 5 s (0.90 s apart). Each bounce's step lost g dt^2 / 2 = 1.4 mm before
    // it flew freely from the bounce on (integrate.ts markImpacts): 0.9986, 0.9959, 0.9959, 0.9932, 0.9932.
    expect(apex.length).toBeGreaterThanOrEqual(5);
    for (const h of apex.slice(0, 5)) expect(Math.abs(h - 1)).toBeLessThan(1e-9);
  });

  it.each(['sequential', 'accumulated', 'pgs'] as const)('a ball of restitution 0.5 dropped 1 m rises to 1/4, 1/16 and 1/64 m, at 60 and 100 Hz (%s; the bounce step moved by dt v\' left them 0.5-2.7 %% and 11 %% low)', async (contactSolver) => {
    const r = 0.1;
    for (const dt of [1 / 60, 0.01]) {
      const w = await queryWorld({ ...droppedBall(0.5, dt, r), solver: { contactSolver } }, backend);
      const apex = await bounceApexes(w, 'ball', r, Math.ceil(2.2 / dt));
      expect(apex.length, `dt ${dt}`).toBeGreaterThanOrEqual(3);
      apex.slice(0, 3).forEach((h, k) => expect(Math.abs(h / 4 ** -(k + 1) - 1), `dt ${dt}, bounce ${k + 1}: ${h}`).toBeLessThan(1e-9));
    }
  });

  it.each([
    [0.5, 'sequential'], [0.8, 'sequential'], [0.5, 'accumulated'], [0.8, 'accumulated'],
  ] as const)('a box of restitution %s dropped flat from 0.5 to 0.56 m comes back to e^2 of its drop at 60 Hz (%s)', async (e, contactSolver) => {
    // The collision is resolved at the start of the step in which the
    // prediction first penetrates, up to v dt = 5 cm above the floor here;
    // reversed there with e, the box lost (1 - e^2) of the energy it had at
    // that height only, and came back to 0.31 (e = 0.5) and 0.67 (e = 0.8)
    // of its drop instead of 0.25 and 0.64 (surfaceRestitution).
    const s = 0.2, dt = 1 / 60;
    for (const h of [0.5, 0.52, 0.54, 0.56]) {
      const w = await queryWorld({
        format: FORMAT, dt, sleep: false, solver: { contactSolver },
        shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [s, s, s], sdf: { cells: 16 } } },
        bodies: [
          { name: 'ground', shape: 'floor', static: true, restitution: e },
          { name: 'box', shape: 'box', position: [0, s / 2 + h, 0], restitution: e },
        ],
      }, backend);
      const apex = await bounceApexes(w, 'box', s / 2, Math.ceil(0.9 / dt));
      expect(apex.length, `h ${h}`).toBeGreaterThanOrEqual(1);
      // From the bounce on it flies freely (integrate.ts markImpacts): it moved by dt v' in the bounce's
      // own step before, g dt^2 / 2 = 1.4 mm low.
      expect(Math.abs(apex[0]! - e * e * h) / (e * e * h), `h ${h}: ${apex[0]! / h}`).toBeLessThan(1e-3);
    }
  });
});
