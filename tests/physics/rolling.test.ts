/**
 * Rolling (issue "Physics a physicist would sign", items 2-3): a tessellated
 * sphere and cylinder roll down an incline with the accelerations of the
 * smooth solids, straight down the fall line, and a ball that starts sliding
 * reaches rolling at 5/7 of its speed when Coulomb friction says. On both
 * query backends.
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../src/dynamics/world.ts';
import { allAsleepAt, pos, queryWorld as worldFrom, run, vel } from '../dynamics/helpers.ts';
import { cylinderRollAccel, onIncline, rollingDrop, slidingBall, sphereRollAccel } from './scenes.ts';

const DEG = 20;
const G = 9.81;

/** Speed down the slope (downhill is (-cos, -sin, 0)). */
function downhill(w: World): number {
  const v = vel(w, 'body');
  const th = (DEG * Math.PI) / 180;
  return -(v[0] * Math.cos(th) + v[1] * Math.sin(th));
}

/** Acceleration down the slope over 1 s, after 0.2 s to settle onto it. */
async function rollAcceleration(w: World): Promise<number> {
  await run(w, Math.round(0.2 / w.dt));
  const v0 = downhill(w);
  await run(w, Math.round(1 / w.dt));
  return downhill(w) - v0;
}

describe.each(['cpu', 'gpu'] as const)('rolling (%s)', (backend) => {
  it('a 48x32 sphere rolls down a 20 degree incline (mu 0.6) at (5/7) g sin(theta) within 3 %', async () => {
    const r = 0.25;
    const w = await worldFrom(onIncline(DEG, 0.6, { type: 'sphere', radius: r, segments: [48, 32], sdf: { cells: 32 } }, r), backend);
    const a = await rollAcceleration(w);
    expect(Math.abs(a - sphereRollAccel(DEG)) / sphereRollAccel(DEG)).toBeLessThan(0.03);
  });

  it('a 48-gon cylinder rolls down a 20 degree incline (mu 0.6) at (2/3) g sin(theta) within 3 %', async () => {
    const r = 0.25;
    // Its axis along z, across the slope.
    const w = await worldFrom(onIncline(DEG, 0.6, { type: 'cylinder', radius: r, height: 0.5, segments: 48, sdf: { cells: 32 } }, r, 0.005, { rotation: { axis: [1, 0, 0], degrees: 90 } }), backend);
    const a = await rollAcceleration(w);
    expect(Math.abs(a - cylinderRollAccel(DEG)) / cylinderRollAccel(DEG)).toBeLessThan(0.03);
  });

  it.each([
    ['a 48-gon cylinder', { type: 'cylinder', radius: 0.1, height: 0.2, segments: 48, sdf: { cells: 32 } }, { rotation: { axis: [1, 0, 0], degrees: 90 } }, (2 / 3)],
    ['a 48x32 sphere', { type: 'sphere', radius: 0.1, segments: [48, 32], sdf: { cells: 32 } }, {}, (5 / 7)],
  ] as const)('%s rolls straight down the fall line from eight starts: as far as the smooth solid within 0.5 %, off the line by under 1 % of the distance (0.4 % on average)', async (_, shape, extra, factor) => {
    // Started 0, 0.1, 0.3 and 0.5 mm above touching: a tessellated solid's
    // path depends on which facets land when, so one start proves little
    // (docs/DESIGN.md section 6). Two bugs this caught: a mesh whose quads
    // were all split along the same diagonal (chiral, 0.25 % sideways from
    // every start), and a facet's line of contact that held the cylinder's
    // roll as if it were a face (the coupled stick solve failed, and the
    // fallback left the cylinder rocking end to end: 1.2 % short of the
    // smooth cylinder's distance, up to 0.74 % off the line).
    const theory = 0.5 * factor * G * Math.sin((DEG * Math.PI) / 180) * 2 * 2;
    // The faceted cylinder's veer is chaotic in the start (each start a
    // different sign and size): measured 2026-11-24 over 18 starts between 0
    // and 1.5 mm, 0.31 % of the distance on average and up to 0.87 %, with
    // or without shock propagation's spare cone (sequentialSolver.ts
    // PASS_FLOATS), which moved the four starts this test once used from
    // 0.20 % to 0.26 % on average while eight others went from 0.39 % to
    // 0.30 %. So: eight starts, and bounds on what the chaos gives. The
    // chiral mesh (0.25 %, always to the same side) is caught by the mesh's
    // own symmetry test (tests/geometry/shapes.test.ts), the rocking facet
    // by the distance (1.2 % short).
    const offs: number[] = [];
    for (const lift of [0, 1e-4, 2e-4, 3e-4, 4e-4, 5e-4, 7e-4, 1e-3]) {
      const w = await worldFrom(onIncline(DEG, 0.6, shape, 0.1 + lift, 0.005, extra), backend);
      const x0 = w.bodies.pos[3]!, y0 = w.bodies.pos[4]!;
      await run(w, 400);
      const along = Math.hypot(w.bodies.pos[3]! - x0, w.bodies.pos[4]! - y0);
      expect(Math.abs(along / theory - 1)).toBeLessThan(0.005);
      offs.push(Math.abs(w.bodies.pos[5]!) / along);
    }
    expect(Math.max(...offs)).toBeLessThan(1e-2);
    expect(offs.reduce((a, b) => a + b, 0) / offs.length).toBeLessThan(4e-3);
  });

  it('a ball sliding at v0 without spin rolls at 5/7 v0 from t = 2 v0 / (7 mu g), within 5 %', async () => {
    const v0 = 2, mu = 0.2, r = 0.1;
    const w = await worldFrom(slidingBall(r, v0, mu), backend);
    const tRoll = (2 * v0) / (7 * mu * G);
    let t = -1;
    // Spin-up while sliding: omega r = (5/2) mu g t (a solid ball), checked at 0.1 s.
    let spinAt01 = 0;
    await run(w, Math.round(0.6 / w.dt), (ww) => {
      const v = vel(ww, 'ball')[0];
      const wr = -ww.bodies.angVel[3 * 1 + 2]! * r;
      if (Math.abs(ww.time - 0.1) < 0.5 * ww.dt) spinAt01 = wr;
      if (t < 0 && wr >= v - 1e-3) t = ww.time;
    });
    expect(Math.abs(spinAt01 - 2.5 * mu * G * 0.1) / (2.5 * mu * G * 0.1)).toBeLessThan(0.05);
    expect(Math.abs(t - tRoll) / tRoll).toBeLessThan(0.05);
    // Rolling from then on at 5/7 v0 (no rolling friction).
    expect(Math.abs(vel(w, 'ball')[0] - (5 / 7) * v0) / ((5 / 7) * v0)).toBeLessThan(0.05);
  });

  it.each([[0.2, 0.01], [1, 1 / 120]])('a ball rolling at 2 m/s without slipping lands from %s m (dt %s) still rolling at 2 m/s, within 0.3 %', async (h, dt) => {
    // Rolling without slip, the contact point is at rest: the landing's
    // impulse is normal, through the centre, and changes neither the speed
    // nor the spin. Its predicted pose lands centimetres deep (1.7 cm from
    // 0.2 m at 100 Hz): taken in layers of a quarter cell, the upper layers'
    // patches ringed the ball inside its surface and their friction, at
    // 0.084 instead of 0.1 m from the centre, read a slip that was not
    // there: 2 -> 1.93 m/s and 20 -> 21.2 rad/s in the landing step.
    const r = 0.1, v = 2;
    const w = await worldFrom(rollingDrop(r, v, h, dt), backend);
    const fall = Math.sqrt((2 * h) / G);
    let landed = -1;
    await run(w, Math.round((fall + 0.3) / dt), (ww) => {
      if (landed < 0 && Math.abs(vel(ww, 'ball')[1]) < 0.5 && ww.time > 0.5 * fall) landed = ww.time;
    });
    expect(landed, 'the ball landed').toBeGreaterThan(0);
    const vx = vel(w, 'ball')[0], wz = w.bodies.angVel[3 * 1 + 2]!;
    expect(Math.abs(vx - v) / v).toBeLessThan(0.003);
    // Still rolling: the surface at the bottom at rest within 0.3 % of v.
    expect(Math.abs(vx + wz * r) / v).toBeLessThan(0.003);
  });
});

describe('rolling with contacts at the current pose (solver.contactPose "current")', () => {
  it.each(['cpu', 'gpu'] as const)('a 48x32 sphere and a 48-gon cylinder roll 2 s down 20 degrees as far as the smooth solids within 0.5 per cent (%s)', async (backend) => {
    // The points of the touching pair are taken where it touches now, the
    // rest at the predicted pose: a point ahead of the contact, moving on
    // its circle, would otherwise be held to a straight-line approach and
    // brake the roll (3-5 % short at 4 m/s when that was tried).
    // Measured (cpu): 1.0003 and 1.0005 of the smooth solids' distance.
    for (const [shape, extra, factor] of [
      [{ type: 'sphere', radius: 0.1, segments: [48, 32], sdf: { cells: 32 } }, {}, 5 / 7],
      [{ type: 'cylinder', radius: 0.1, height: 0.2, segments: 48, sdf: { cells: 32 } }, { rotation: { axis: [1, 0, 0], degrees: 90 } }, 2 / 3],
    ] as const) {
      const scene = onIncline(DEG, 0.6, shape, 0.1, 0.005, extra);
      const w = await worldFrom({ ...scene, solver: { contactPose: 'current' } }, backend);
      const x0 = w.bodies.pos[3]!, y0 = w.bodies.pos[4]!;
      await run(w, 400);
      const along = Math.hypot(w.bodies.pos[3]! - x0, w.bodies.pos[4]! - y0);
      const theory = 0.5 * factor * G * Math.sin((DEG * Math.PI) / 180) * 2 * 2;
      expect(Math.abs(along / theory - 1), shape.type).toBeLessThan(0.005);
      expect(Math.abs(w.bodies.pos[5]!) / along, shape.type).toBeLessThan(1e-2);
    }
  }, 120_000);
});


describe.each(['cpu', 'gpu'] as const)('rolling under the accumulated contact stage (%s)', (backend) => {
  // Its points are samples taken at the predicted pose: a ball turning 0.2
  // rad a step kept them where the turn would bring them, with the gaps
  // they have now, sat 1.9 mm in the floor and rolled over its vertices
  // (3.7 % of its speed lost in 0.9 s on level ground). A rolling curved
  // patch against a plane now takes its points where the surfaces meet
  // (accumulatedSolver.ts meetsRolling). Measured (cpu): 0.024 % lost in
  // 1 s, at most 0.09 mm in the floor; landings 0.016 and 0.148 %.
  const accumulated = (json: Record<string, unknown>) => ({ ...json, solver: { contactSolver: 'accumulated' } });

  it('a ball rolling at 2 m/s on level ground at 100 Hz keeps its speed within 0.3 % for 1 s, rolling, on the floor within 0.25 mm', async () => {
    const r = 0.1, v = 2;
    const w = await worldFrom(accumulated(rollingDrop(r, v, 0, 0.01)), backend);
    let low = 0;
    await run(w, 100, (ww) => { low = Math.max(low, r - ww.bodies.pos[4]!); });
    const vx = vel(w, 'ball')[0], wz = w.bodies.angVel[5]!;
    expect(Math.abs(vx - v) / v).toBeLessThan(0.003);
    expect(Math.abs(vx + wz * r) / v).toBeLessThan(0.003);
    expect(low).toBeLessThan(2.5e-4);
  });

  it.each([[0.2, 0.01], [1, 1 / 120]])('a ball rolling at 2 m/s without slipping lands from %s m (dt %s) still rolling at 2 m/s, within 0.3 %', async (h, dt) => {
    const r = 0.1, v = 2;
    const w = await worldFrom(accumulated(rollingDrop(r, v, h, dt)), backend);
    await run(w, Math.round((Math.sqrt((2 * h) / G) + 0.3) / dt));
    const vx = vel(w, 'ball')[0], wz = w.bodies.angVel[5]!;
    expect(Math.abs(vx - v) / v).toBeLessThan(0.003);
    expect(Math.abs(vx + wz * r) / v).toBeLessThan(0.003);
  });
});

/** A box of the given extents as a mesh (an extruded rectangle), so that a sphere on it is queried as on any mesh. */
function slab(x: number, y: number, z: number) {
  return { type: 'extrude', polygon: [[-x / 2, -y / 2], [x / 2, -y / 2], [x / 2, y / 2], [-x / 2, y / 2]], depth: z };
}

describe.each(['cpu', 'gpu'] as const)('a sphere, a capsule and a cylinder are the solids, whatever their segments (%s)', (backend) => {
  // A ball of the format's default tessellation (16 x 12) and a finer one on
  // a plane and on a box ramp. On its facets' vertices alone it rolled like a
  // polygon (docs/ALGORITHM.md 2): 8.9 % slow at 16 x 12 on the box ramp, 3.6 % at
  // 24 x 16. Measured on the sphere (cpu): see the bounds' comments.
  const ramp = (segments: number[]) => {
    const th = (DEG * Math.PI) / 180, r = 0.25, h = 0.5 + r + 2e-4;
    return {
      format: 'stackfield-scene/1', dt: 0.005,
      // The ramp is a box drawn as an extruded rectangle: a `box` meets a
      // sphere at one exact point (spheres.test.ts); a mesh is queried.
      shapes: { slope: slab(20, 1, 4), ball: { type: 'sphere', radius: r, segments } },
      bodies: [
        { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: -DEG }, friction: 0.6 },
        { name: 'body', shape: 'ball', position: [Math.sin(th) * h - 4 * Math.cos(th), Math.cos(th) * h + 4 * Math.sin(th), 0], friction: 0.6, restitution: 0 },
      ],
    };
  };
  /** Acceleration along the ramp (downhill is +x) over 1 s, after 0.3 s. */
  const rampAcceleration = async (w: World) => {
    const speed = () => Math.hypot(w.bodies.vel[3]!, w.bodies.vel[4]!);
    await run(w, 60);
    const v0 = speed();
    await run(w, 200);
    return speed() - v0;
  };

  it('a ball of the default segments rolls down a 20 degree box ramp at (5/7) g sin(theta) within 2 %, a 24 x 16 one within 0.5 %', async () => {
    // Measured: -0.95 % and -0.23 % (on the facets: -8.9 % and -3.6 %).
    const coarse = await rampAcceleration(await worldFrom(ramp([16, 12]), backend));
    expect(Math.abs(coarse / sphereRollAccel(DEG) - 1)).toBeLessThan(0.02);
    const finer = await rampAcceleration(await worldFrom(ramp([24, 16]), backend));
    expect(Math.abs(finer / sphereRollAccel(DEG) - 1)).toBeLessThan(0.005);
  });

  it('a ball of the default segments rolls down a 20 degree plane at (5/7) g sin(theta) within 2 %', async () => {
    const r = 0.25;
    const w = await worldFrom(onIncline(DEG, 0.6, { type: 'sphere', radius: r }, r), backend);
    const a = await rollAcceleration(w);
    expect(Math.abs(a / sphereRollAccel(DEG) - 1)).toBeLessThan(0.02);
  });

  it('a lying capsule of the default segments rolls down a 20 degree box ramp at g sin(theta) / (1 + I / (m r^2)) within 2 %, one of 24 within 0.5 %', async () => {
    // Measured: -1.09 % and -0.16 % (on its facets: -16.5 % and -2.1 %).
    for (const [segments, within] of [[[16, 8], 0.02], [[24, 12], 0.005]] as const) {
      const scene = ramp([16, 12]);
      const r = 0.25, h = 1.1;
      scene.shapes.ball = { type: 'capsule', radius: r, height: h, segments } as never;
      (scene.bodies[1] as Record<string, unknown>)['rotation'] = { axis: [1, 0, 0], degrees: 90 };
      const a = await rampAcceleration(await worldFrom(scene, backend));
      // I / (m r^2) about the axis: the straight part's 1/2 and the ball's 2/5, by mass.
      const m1 = Math.PI * r * r * (h - 2 * r), m2 = (4 / 3) * Math.PI * r * r * r;
      const k = (0.5 * m1 + 0.4 * m2) / (m1 + m2);
      const ideal = (G * Math.sin((DEG * Math.PI) / 180)) / (1 + k);
      expect(Math.abs(a / ideal - 1), `${segments} segments`).toBeLessThan(within);
    }
  });

  it('a lying cylinder of the default segments rolls down a 20 degree box ramp at (2/3) g sin(theta) or 24 within 2 %, under either contact stage', async () => {
    // Measured (cpu): 16 and 24 segments -0.9 % and -1.0 % under the seed's
    // passes, -0.4 % and -0.8 % under the accumulated stage (as a prism of
    // 16 facets, under the seed's passes: -24 %).
    for (const contactSolver of ['sequential', 'accumulated'] as const) {
      for (const [segments, within] of [[16, 0.02], [24, 0.02]] as const) {
        const scene = ramp([16, 12]);
        scene.shapes.ball = { type: 'cylinder', radius: 0.25, height: 0.5, segments } as never;
        (scene.bodies[1] as Record<string, unknown>)['rotation'] = { axis: [1, 0, 0], degrees: 90 };
        const a = await rampAcceleration(await worldFrom({ ...scene, solver: { contactSolver } }, backend));
        expect(Math.abs(a / cylinderRollAccel(DEG) - 1), `${segments} segments, ${contactSolver}`).toBeLessThan(within);
      }
    }
  });

  it('a lying cylinder of the default segments rolls down a 20 degree plane at (2/3) g sin(theta) within 2 %', async () => {
    // Measured (cpu): to 1e-12, its points on a plane computed (below);
    // through its samples -0.9 % (as a prism: -16 %).
    const r = 0.25;
    const w = await worldFrom(onIncline(DEG, 0.6, { type: 'cylinder', radius: r, height: 0.5 }, r, 0.005, { rotation: { axis: [1, 0, 0], degrees: 90 } }), backend);
    const a = await rollAcceleration(w);
    expect(Math.abs(a / cylinderRollAccel(DEG) - 1)).toBeLessThan(0.02);
  });

  it('a cylinder weighs as the solid: mass pi r^2 h density, inertia m r^2 / 2 about its axis and m (3 r^2 + h^2) / 12 across, whatever the segments', async () => {
    const r = 0.2, h = 0.7, rho = 300;
    for (const segments of [3, 16, 48]) {
      const w = await worldFrom({
        format: 'stackfield-scene/1',
        shapes: { c: { type: 'cylinder', radius: r, height: h, segments } },
        bodies: [{ name: 'b', shape: 'c', density: rho }],
      }, backend);
      const m = rho * Math.PI * r * r * h;
      expect(1 / w.bodies.invMass[0]!).toBeCloseTo(m, 9);
      const across = (m * (3 * r * r + h * h)) / 12;
      expect([0, 4, 8].map((k) => 1 / w.bodies.invInertia[k]!)).toEqual([across, (m * r * r) / 2, across].map((x) => expect.closeTo(x, 9)));
    }
  });

  it('a coin rolling upright on its rim at 1 m/s keeps its speed 2 s within 1e-5 at 16 and 48 segments under either contact stage', async () => {
    // Rolling without slipping on level ground there is nothing to slow it.
    // Measured (cpu): 1.000000 under each, its rim's points on the plane
    // computed (narrowphase.ts, roundPlanePoints); through its samples
    // 0.986 / 0.998 under the seed's passes, 0.987 / 0.982 under the
    // accumulated stage (as a 16-sided prism 0.35, under the seed's passes;
    // with its caps' samples taken for the side's, 0.96 and 0.76).
    const r = 0.1, v = 1;
    for (const contactSolver of ['sequential', 'accumulated'] as const) {
      for (const segments of [16, 48]) {
        const w = await worldFrom({
          format: 'stackfield-scene/1', dt: 0.005, sleep: false, solver: { contactSolver },
          shapes: { floor: { type: 'plane' }, coin: { type: 'cylinder', radius: r, height: 0.02, segments } },
          bodies: [
            { name: 'floor', shape: 'floor', static: true, friction: 0.6, restitution: 0 },
            { name: 'coin', shape: 'coin', position: [0, r + 1e-4, 0], rotation: { axis: [1, 0, 0], degrees: 90 }, velocity: [v, 0, 0], angularVelocity: [0, 0, -v / r], friction: 0.6, restitution: 0 },
          ],
        }, backend);
        await run(w, 400);
        expect(Math.abs(w.bodies.vel[3]! / v - 1), `${segments} segments, ${contactSolver}`).toBeLessThan(1e-5);
        // Still upright, on its rim.
        expect(Math.abs(w.bodies.pos[4]! - r)).toBeLessThan(1e-3);
      }
    }
  });

  it('a cylinder of 3 segments is round to what strikes it: a ball stops at its side, r from its axis, not at the facet r / 2 from it', async () => {
    // Its field is laid over the solid, not over the triangular prism
    // (outside the grid nothing is detected): the ball stopped at the facet.
    const w = await worldFrom({
      format: 'stackfield-scene/1', dt: 0.005, gravity: [0, 0, 0], sleep: false,
      shapes: { c: { type: 'cylinder', radius: 0.5, height: 1, segments: 3 }, b: { type: 'sphere', radius: 0.1 } },
      bodies: [
        { name: 'c', shape: 'c', static: true, restitution: 0 },
        { name: 'b', shape: 'b', position: [-1, 0, 0], velocity: [1, 0, 0], restitution: 0 },
      ],
    }, backend);
    await run(w, 200);
    // Stopped where its predicted pose first touched: within a step (5 mm) of touching.
    expect(w.bodies.pos[3]!).toBeLessThan(-0.6);
    expect(w.bodies.pos[3]!).toBeGreaterThan(-0.606);
    expect(Math.abs(w.bodies.vel[3]!)).toBeLessThan(1e-6);
  });

  it('a standing cylinder rests flat on its cap, its rim on the true circle: its lowest point r below the axis when it lies', async () => {
    // The cap stays flat (its samples stay on the cap's plane, normal along
    // the axis); the rim's samples go out onto the circle, so a lying
    // cylinder's axis rests r above the floor, not r cos(pi / n) (a prism's
    // facet).
    const r = 0.25, h = 0.5;
    for (const [rot, rest] of [[{ axis: [1, 0, 0], degrees: 0 }, h / 2], [{ axis: [1, 0, 0], degrees: 90 }, r]] as const) {
      const w = await worldFrom({
        format: 'stackfield-scene/1', dt: 0.005,
        shapes: { floor: { type: 'plane' }, c: { type: 'cylinder', radius: r, height: h, segments: 6 } },
        bodies: [
          { name: 'floor', shape: 'floor', static: true, friction: 0.6, restitution: 0 },
          { name: 'body', shape: 'c', position: [0, rest + 0.01, 0], rotation: rot, friction: 0.6, restitution: 0 },
        ],
      }, backend);
      await run(w, 200);
      expect(Math.abs(w.bodies.pos[4]! - rest)).toBeLessThan(5e-4);
    }
  });

  it('a capsule weighs as the solid: a cylinder of length h - 2r and a ball of radius r split at its equator', async () => {
    const r = 0.2, h = 1, rho = 300;
    const w = await worldFrom({
      format: 'stackfield-scene/1',
      shapes: { cap: { type: 'capsule', radius: r, height: h, segments: [5, 2] } },
      bodies: [{ name: 'b', shape: 'cap', density: rho }],
    }, backend);
    const moments = [0, 4, 8].map((k) => 1 / w.bodies.invInertia[k]!);
    const a = h / 2 - r, m1 = rho * Math.PI * r * r * 2 * a, m2 = rho * (4 / 3) * Math.PI * r * r * r;
    expect(1 / w.bodies.invMass[0]!).toBeCloseTo(m1 + m2, 9);
    // Across: the straight part about its centre, and each half-ball (mass m2 / 2, its centre of
    // mass 3r/8 past its flat face, which lies a from the centre) moved there by parallel axes.
    const half = 0.4 * (m2 / 2) * r * r + (m2 / 2) * ((a + (3 * r) / 8) ** 2 - ((3 * r) / 8) ** 2);
    const across = (m1 * (3 * r * r + 4 * a * a)) / 12 + 2 * half;
    expect(moments).toEqual([across, (m1 * r * r) / 2 + 0.4 * m2 * r * r, across].map((x) => expect.closeTo(x, 9)));
  });

  it('under the accumulated stage too: a ball of 16 x 12 or 48 x 32 segments rolls down the box ramp within 0.5 %, not spinning about the vertical', async () => {
    // A ball's cap of samples on the ramp's face was fitted as a face (ALGORITHM.md 4.6): 12-14 % slow, spinning at up to 3 rad/s.
    // Measured: -0.31 % and -0.02 %.
    for (const segments of [[16, 12], [48, 32]]) {
      const w = await worldFrom({ ...ramp(segments), solver: { contactSolver: 'accumulated' } }, backend);
      let spin = 0;
      await run(w, 60);
      const v0 = Math.hypot(w.bodies.vel[3]!, w.bodies.vel[4]!);
      for (let s = 0; s < 200; s++) {
        await w.step();
        spin = Math.max(spin, Math.abs(w.bodies.angVel[4]!));
      }
      const a = Math.hypot(w.bodies.vel[3]!, w.bodies.vel[4]!) - v0;
      expect(Math.abs(a / sphereRollAccel(DEG) - 1), `${segments.join(' x ')}`).toBeLessThan(0.005);
      expect(spin).toBeLessThan(0.05);
    }
  });

  it("weighs as the sphere: mass 4/3 pi r^3 density, inertia 2/5 m r^2, whatever the segments", async () => {
    for (const segments of [[3, 2], [16, 12], [48, 32]]) {
      const w = await worldFrom({
        format: 'stackfield-scene/1',
        shapes: { ball: { type: 'sphere', radius: 0.3, segments } },
        bodies: [{ name: 'body', shape: 'ball', density: 500 }],
      }, backend);
      const m = (4 / 3) * Math.PI * 0.027 * 500;
      expect(1 / w.bodies.invMass[0]!).toBeCloseTo(m, 9);
      const inv = w.bodies.invInertia.subarray(0, 9);
      expect(Array.from(inv).map((x) => x * 0.4 * m * 0.09)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1].map((x) => expect.closeTo(x, 9)));
    }
  });
});

describe('rolling on a static mesh (a box ramp drawn as a mesh, not a plane)', () => {
  it('a 48x32 sphere rolls 1.5 s down a 20 degree box ramp at 60 Hz within 2.5 % of the smooth ball, its pair not swept while it turns slowly', async () => {
    // The ramp is a 10 x 0.2 x 2 m box. Spinning at up to 24 rad/s, the ball
    // turns the ramp's far corners through metres in its own frame each
    // step; counting them, continuous collision swept the pair at every step
    // (64 poses, 390 000 samples a step) and extrapolated its points from
    // the first: 2.4 % short. Only samples that can reach the other body
    // count now (narrowphase.ts sweptMotion): measured 1.5 % short, swept
    // from about 0.6 s on, 120 000 samples a step. Since orientations turn
    // by the exact angle |omega| dt (math.ts integrateQuat; the seed's map
    // turned 1.3 % less at this 0.4-0.55 rad a step) 2.1 % short: the swept
    // pair's first-order points drag on the ball's surface, which now turns
    // as far as it rolls. At 120 Hz both are within 0.35 %.
    const th = (DEG * Math.PI) / 180, r = 0.1;
    const n = [-Math.sin(th), Math.cos(th), 0] as const;
    const w = await worldFrom({
      format: 'stackfield-scene/1', dt: 1 / 60, sleep: false,
      shapes: { ramp: { ...slab(10, 0.2, 2), sdf: { cells: 150 } }, ball: { type: 'sphere', radius: r, segments: [48, 32], sdf: { cells: 32 } } },
      bodies: [
        { name: 'ramp', shape: 'ramp', static: true, position: [-n[0] * 0.1, -n[1] * 0.1, 0], rotation: { axis: [0, 0, 1], degrees: DEG }, friction: 0.6, restitution: 0 },
        { name: 'body', shape: 'ball', position: [n[0] * (r + 5e-4) + 2 * Math.cos(th), n[1] * (r + 5e-4) + 2 * Math.sin(th), 0], friction: 0.6, restitution: 0 },
      ],
    }, 'cpu');
    const x0 = w.bodies.pos[3]!, y0 = w.bodies.pos[4]!;
    let sent = 0;
    for (let s = 0; s < 90; s++) {
      await w.step();
      if (s < 30) sent += w.profile.queries;
    }
    const along = Math.hypot(w.bodies.pos[3]! - x0, w.bodies.pos[4]! - y0);
    const theory = 0.5 * (5 / 7) * G * Math.sin(th) * 1.5 * 1.5;
    expect(Math.abs(along / theory - 1)).toBeLessThan(0.025);
    // The first 0.5 s (under 12 rad/s): the pair's samples queried once per
    // phase, 1.0 M in all (4.8 M when every step was swept).
    expect(sent).toBeLessThan(1.5e6);
  }, 60_000);
});

describe('rolling under the accumulated contact stage', () => {
  it.each(['cpu', 'gpu'] as const)('a lying cylinder of 32, 48 or 96 segments rolls down 20 degrees at (2/3) g sin(theta) within 1 % (%s)', async (backend) => {
    // Its points are the samples on its rims, vertices on creases as a
    // tipping box's corners are; but the roll runs along these creases, not
    // across them, so each is moved along the roll to the centre of the
    // patch's touching points (AccumulatedSolver.rollCentre). Kept where
    // they were, the vertex lines landed one after another as a polygon's
    // do: 7.4, 4.2 and 2.2 % slow. Measured (cpu): 0.33, 0.34 and 0.38 %.
    for (const segments of [32, 48, 96]) {
      const r = 0.25;
      const scene = onIncline(DEG, 0.6, { type: 'cylinder', radius: r, height: 0.5, segments, sdf: { cells: 32 } }, r, 0.005, { rotation: { axis: [1, 0, 0], degrees: 90 } });
      const w = await worldFrom({ ...scene, solver: { contactSolver: 'accumulated' } }, backend);
      const a = await rollAcceleration(w);
      expect(Math.abs(a - cylinderRollAccel(DEG)) / cylinderRollAccel(DEG), `${segments} segments`).toBeLessThan(0.01);
    }
  });
});

describe('a hoop rolling', () => {
  it.each(['cpu', 'gpu'] as const)('a torus stood on its rim, its tube of 16 or 12 segments, rolls down 20 degrees at g sin(theta) / (1 + I / (m (R + r)^2)) within 1 %, under both contact solvers (%s)', async (backend) => {
    // A ring rolls on the outside of its tube, R + r from its axis, and its
    // inertia about the axis is the tessellated torus's own (about
    // m (R^2 + 3 r^2 / 4) for the smooth one). A tube of 12 segments has
    // creases (30 degrees) along the roll, two rings of vertices either side
    // of the facets it touches with: kept where they lie, those facets
    // landed in turn under the accumulated stage, 3.9 % slow
    // (AccumulatedSolver.rollsAlongCreases). Measured (cpu and gpu alike),
    // the seed's passes and the accumulated stage: 0.23 and 0.68 % slow at
    // 48 x 16, 0.48 and 0.57 % at 64 x 12. (A field fine enough to resolve
    // the facets rolls the solid as the polyhedron it is: 48 cells across
    // instead of 32 cost the accumulated stage 4 % at 48 x 16.)
    const R = 0.2, r = 0.04;
    for (const segments of [[48, 16], [64, 12]]) {
      for (const contactSolver of ['sequential', 'accumulated'] as const) {
        const scene = onIncline(DEG, 0.6, { type: 'torus', majorRadius: R, minorRadius: r, segments, sdf: { cells: 32 } }, R + r, 0.005, { rotation: { axis: [1, 0, 0], degrees: 90 } });
        const w = await worldFrom({ ...scene, solver: { contactSolver } }, backend);
        // The torus's symmetry axis is its own y (world z once stood up).
        const i = 1, axisInertia = w.inertiaOf(i)[4]!, m = w.bodies.mass[i]!;
        const theory = (G * Math.sin((DEG * Math.PI) / 180)) / (1 + axisInertia / (m * (R + r) ** 2));
        const a = await rollAcceleration(w);
        const label = `${segments.join(' x ')}, ${contactSolver}`;
        expect(Math.abs(a / theory - 1), label).toBeLessThan(0.01);
        // Upright and straight down the fall line: no drift across it.
        expect(Math.abs(w.bodies.pos[3 * i + 2]!), label).toBeLessThan(1e-3);
      }
    }
  }, 120_000);
});

describe.each(['cpu', 'gpu'] as const)('a capsule and a cylinder meet a plane at exact points (%s)', (backend) => {
  // Their points on a plane are computed, as a sphere's is (narrowphase.ts,
  // roundPlanePoints): under each end of a capsule's segment, on each of a
  // cylinder's rims where it reaches furthest down. Measured on their samples
  // (cpu, default segments, 10 degrees): capsule -1.5 % / -7.9 % / -11 % and
  // cylinder -0.9 % / -3.8 % / -9.0 % under the seed's passes / the
  // accumulated stage / PGS; now to 1e-12 under each.
  const r = 0.2, h = 0.8, rc = 0.3;
  const m1 = Math.PI * r * r * (h - 2 * r), m2 = (4 / 3) * Math.PI * r * r * r;
  const capsuleK = (0.5 * m1 + 0.4 * m2) / (m1 + m2);
  const scene = (deg: number, contactSolver: string) => {
    const th = (deg * Math.PI) / 180, nx = -Math.sin(th), ny = Math.cos(th);
    return {
      format: 'stackfield-scene/1', dt: 0.01, solver: { contactSolver },
      shapes: { slope: { type: 'plane' }, cap: { type: 'capsule', radius: r, height: h }, cyl: { type: 'cylinder', radius: rc, height: 0.5 } },
      bodies: [
        { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, friction: 0.5, restitution: 0 },
        { name: 'cap', shape: 'cap', position: [nx * r, ny * r, 2], rotation: { axis: [1, 0, 0], degrees: 90 }, friction: 0.5, restitution: 0 },
        { name: 'cyl', shape: 'cyl', position: [nx * rc, ny * rc, -2], rotation: { axis: [1, 0, 0], degrees: 90 }, friction: 0.5, restitution: 0 },
      ],
    };
  };
  const speed = (w: World, name: string) => Math.hypot(...vel(w, name));

  it.each([10, 30])('lying on a %i degree slope they roll at g sin(theta) / (1 + I / (m r^2)) within 1e-9 under every contact solver, and within 0.01 mm of the fall line', async (deg) => {
    const s = Math.sin((deg * Math.PI) / 180);
    for (const contactSolver of ['sequential', 'accumulated', 'pgs']) {
      const w = await worldFrom(scene(deg, contactSolver), backend);
      await run(w, 20);
      const v0 = [speed(w, 'cap'), speed(w, 'cyl')];
      await run(w, 100);
      expect(Math.abs((speed(w, 'cap') - v0[0]!) / (G * s / (1 + capsuleK)) - 1), `capsule, ${contactSolver}`).toBeLessThan(1e-9);
      expect(Math.abs((speed(w, 'cyl') - v0[1]!) / cylinderRollAccel(deg) - 1), `cylinder, ${contactSolver}`).toBeLessThan(1e-9);
      expect(Math.abs(pos(w, 'cap')[2] - 2), `capsule off the fall line, ${contactSolver}`).toBeLessThan(1e-5);
      expect(Math.abs(pos(w, 'cyl')[2] + 2), `cylinder off the fall line, ${contactSolver}`).toBeLessThan(1e-5);
    }
  });

  it('a cylinder dropped tilted lands, tips onto its cap and rests there level, under every contact solver', async () => {
    for (const contactSolver of ['sequential', 'accumulated', 'pgs']) {
      const w = await worldFrom({
        format: 'stackfield-scene/1', dt: 0.01, solver: { contactSolver },
        shapes: { floor: { type: 'plane' }, cyl: { type: 'cylinder', radius: rc, height: 0.5 } },
        bodies: [
          { name: 'floor', shape: 'floor', static: true },
          { name: 'cyl', shape: 'cyl', position: [0, 1, 0], rotation: { axis: [1, 0, 1], degrees: 35 } },
        ],
      }, backend);
      const at = await allAsleepAt(w, 5);
      expect(at, contactSolver).toBeGreaterThan(0);
      // Its axis upright, its centre half its height up.
      const q = w.bodies.quat;
      const up = 1 - 2 * (q[4]! * q[4]! + q[6]! * q[6]!);
      expect(up, contactSolver).toBeGreaterThan(Math.cos(1e-3));
      expect(Math.abs(pos(w, 'cyl')[1] - 0.25), contactSolver).toBeLessThan(2e-3);
    }
  });
});
