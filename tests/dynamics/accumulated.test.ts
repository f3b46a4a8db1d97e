/**
 * The accumulated contact stage (src/dynamics/accumulatedSolver.ts,
 * `"contactSolver": "accumulated"`): what it guarantees. Its manifolds keep
 * at most four points with one normal, its store hands a resting contact's
 * impulses on from step to step, box heaps and the ring pile come to rest and
 * sleep under it, ring stacks as tall as 50 included, and towers stand. */
import { describe, expect, it } from 'vitest';
import { MANIFOLD_POINTS } from '../../src/dynamics/accumulatedSolver.ts';
import type { World } from '../../src/dynamics/world.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { FORMAT, allAsleepAt, run, worldFrom } from './helpers.ts';

/** `n` one-metre cubes stacked 1 mm apart on a floor, sleep off, 60 Hz, the accumulated stage. */
async function stack(n: number): Promise<World> {
  const w = await worldFrom({
    format: FORMAT, dt: 1 / 60, sleep: false,
    solver: { collisionIterations: 0 },
    shapes: { floor: { type: 'plane' }, cube: { type: 'box', size: [1, 1, 1], sdf: { cells: 24 } } },
    bodies: [
      { name: 'floor', shape: 'floor', static: true, friction: 0.6, restitution: 0 },
      ...Array.from({ length: n }, (_, i) => ({ name: `b${i}`, shape: 'cube', position: [0, 0.501 + 1.002 * i, 0], friction: 0.6, restitution: 0, density: 500 })),
    ],
  });
  w.solver = { ...w.solver, contactSolver: 'accumulated' };
  return w;
}

/** Runs `steps` steps; the largest horizontal distance any dynamic body got from where it started. */
async function maxDrift(w: World, steps: number): Promise<number> {
  const x0 = Float64Array.from(w.bodies.pos);
  let drift = 0;
  await run(w, steps, (ww) => {
    for (let i = 0; i < ww.bodies.count; i++) {
      if (ww.bodies.isStatic[i]) continue;
      drift = Math.max(drift, Math.hypot(ww.bodies.pos[3 * i]! - x0[3 * i]!, ww.bodies.pos[3 * i + 2]! - x0[3 * i + 2]!));
    }
  });
  return drift;
}

/** Fastest body (m/s, and rad/s times 1 m) of the world now. */
function fastest(w: World): number {
  let m = 0;
  const v = w.bodies.vel, a = w.bodies.angVel;
  for (let i = 0; i < w.bodies.count; i++) m = Math.max(m, Math.hypot(v[3 * i]!, v[3 * i + 1]!, v[3 * i + 2]!), Math.hypot(a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!));
  return m;
}

describe('accumulated contact stage', () => {
  it('a heap of 64 boxes dropped as a block comes to rest and every box sleeps within 10 s, at two query calls a step or fewer once it lies', async () => {
    const json = builtinScene('boxes', { count: 64 }) as Record<string, unknown>;
    const w = await worldFrom(json);
    w.solver = { ...w.solver, contactSolver: 'accumulated' };
    let asleepAt = -1, calls = 0, steps = 0;
    await run(w, 600, (ww) => {
      let awake = 0;
      for (let i = 0; i < ww.bodies.count; i++) if (!ww.bodies.isStatic[i] && !ww.bodies.asleep[i]) awake++;
      if (awake === 0 && asleepAt < 0) asleepAt = ww.time;
      if (ww.time > 4) { calls += ww.profile.queryCalls; steps++; }
    });
    expect(asleepAt).toBeGreaterThan(0);
    expect(asleepAt).toBeLessThan(10);
    expect(calls / steps).toBeLessThanOrEqual(2);
  }, 60_000);

  /** Runs the built-in `name` under the accumulated stage for `seconds`: when every dynamic body was asleep (-1: never). */
  /** The most query calls any step of the last sleepsAt run made. */
  let maxQueryCalls = 0;
  /** When every body of built-in `name` is asleep (-1: not within `seconds`), under this stage, or (`own`) under the scene's own settings. */
  async function sleepsAt(name: string, params: Record<string, number>, seconds: number, own = false): Promise<number> {
    const w = await worldFrom(builtinScene(name, params));
    if (!own) w.solver = { ...w.solver, contactSolver: 'accumulated' };
    maxQueryCalls = 0;
    return allAsleepAt(w, seconds, (ww) => {
      maxQueryCalls = Math.max(maxQueryCalls, ww.profile.queryCalls);
    });
  }

  // The collision passes after the first evaluate from the caches (no
  // query): two calls a step, and one more in a phase in which sleeping
  // bodies wake. With a query in every pass, up to 6 while the rings landed.
  it('60 rings dropped onto 3 pegs (the built-in at its defaults) are every one asleep by 4 s, landing included at 3 query calls a step or fewer', async () => {
    const at = await sleepsAt('rings', { rings: 60, pegs: 3 }, 4);
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(4);
    expect(maxQueryCalls).toBeLessThanOrEqual(3);
  }, 120_000);

  // A ring lying on a ring meets it along a circle: coplanar points whose
  // gaps are not (deep at two places, clear elsewhere). Taken for a face and
  // its gaps fitted by a plane, the stack sank, then pushed out, and bounced
  // at 0.1-0.3 m/s for ever: neither of these slept within 8 s before (now
  // 4.5 and 4.9 s; both chaotic, by a second either way).
  it('20 rings stacked on one peg are every one asleep by 6 s', async () => {
    const at = await sleepsAt('rings', { rings: 20, pegs: 1 }, 6);
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(6);
  }, 120_000);

  // A tall stack: with the push-out's lower body frozen, a ring's push-out
  // was the sum of every push below it, the column's top was lifted faster
  // than its velocities sank it, and stacks of 40 or more never slept. With
  // the lower body twice as heavy in a column (pseudoShockScale,
  // columnScales) this one sleeps at about 6.5 s (chaotic: 40-60 rings on the round
  // peg sleep at 5.3 s to after 7 s: docs/ALGORITHM.md 2).
  //
  // While the column lands, rings cross into each other: up to 128 mm (a
  // tube is 70 mm thick), and a crossed pair, its normals pointing both ways,
  // can stay 55 mm deep for a second or more before it works free (issue
  // "Piles that come to rest": the landing's penetration, open). How long
  // is chaotic: with 40-60 rings on the peg the last such pair parts between
  // 2.9 and 4 s, prism pegs or round. What must hold is the rest: in the
  // half second before the pile sleeps, no ring lies more than 15 mm into
  // another (measured 6 mm).
  it('50 rings stacked on one peg are every one asleep by 7 s, threaded on it, none more than 15 mm into another as they come to rest', async () => {
    const w = await worldFrom(builtinScene('rings', { rings: 50, pegs: 1 }));
    const depths: number[] = [];
    const at = await allAsleepAt(w, 7, (ww) => {
      depths.push(ww.deepestPenetration());
    });
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(7);
    // depths[k] is step k + 1's; the pile slept in step round(at / dt).
    const slept = Math.round(at / w.dt) - 1;
    const last = depths.slice(slept - Math.round(0.5 / w.dt), slept);
    expect(Math.max(...last)).toBeLessThan(0.015);
    const R = 0.3, r = 0.07, pegR = 0.08;
    let top = 0;
    for (let i = 0; i < w.bodies.count; i++) {
      if (w.bodies.isStatic[i]) continue;
      // Threaded: the peg (at x = z = 0) inside the ring's hole.
      expect(Math.hypot(w.bodies.pos[3 * i]!, w.bodies.pos[3 * i + 2]!)).toBeLessThan(R - r - pegR + 0.02);
      expect(w.bodies.pos[3 * i + 1]!).toBeGreaterThan(r - 0.01);
      top = Math.max(top, w.bodies.pos[3 * i + 1]!);
    }
    // Fifty rings lying (nearly) flat one on another: 2r each.
    expect(top).toBeGreaterThan(0.9 * (r + 49 * 2 * r));
  }, 120_000);

  it('75 rings dropped onto 3 pegs are every one asleep by 7 s', async () => {
    const at = await sleepsAt('rings', { rings: 75, pegs: 3 }, 7);
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(7);
  }, 120_000);

  // The collision phase takes only the pairs that may close faster than
  // 2 |g| dt under this stage (NarrowPhase.impactSpeed): an impact is still
  // one, and the bounce is the seed's (e^2 of the drop, less a step's worth).
  it('a ball dropped 1 m bounces to e^2 of the drop (e 0.5, 0.8 and 1) within 0.5 per cent', async () => {
    for (const e of [0.5, 0.8, 1]) {
      const w = await worldFrom({
        format: FORMAT, dt: 1 / 100, sleep: false,
        shapes: { floor: { type: 'plane' }, ball: { type: 'sphere', radius: 0.1, segments: [32, 24], sdf: { cells: 32 } } },
        bodies: [
          { name: 'floor', shape: 'floor', static: true, restitution: e, friction: 0.5 },
          { name: 'ball', shape: 'ball', position: [0, 1.1, 0], restitution: e, friction: 0.5 },
        ],
      });
      w.solver = { ...w.solver, contactSolver: 'accumulated' };
      let peak = 0, rising = false;
      await run(w, 150, (ww) => {
        if (ww.bodies.vel[4]! > 0) rising = true;
        if (rising) peak = Math.max(peak, ww.bodies.pos[4]! - 0.1);
      });
      expect(Math.abs(peak / (e * e) - 1)).toBeLessThan(0.005);
    }
  });

  // The joints' velocity pass runs in every substep, with the contacts'
  // solve and relax, so joints and contacts are solved together. Run once
  // around the stage, the joints pulled the bodies into each other and the
  // contacts pushed them back every step: the 36 rings shook at 70 mm/s
  // (median, at 6 s) 43 mm deep in each other, and neither heap slept.
  it.each([
    ['six loops of six jointed rings', 'jointed-rings'],
    ['six necklaces of six jointed bunnies', 'jointed-skulls'],
  ])('%s hang on their pegs and all sleep by 4 s, nothing 10 mm into anything after 2 s', async (_, scene) => {
    const w = await worldFrom(builtinScene(scene, { count: 36 }));
    w.solver = { ...w.solver, contactSolver: 'accumulated' };
    let deepest = 0, at = -1;
    await run(w, Math.round(4 / w.dt), (ww) => {
      if (ww.time > 2) deepest = Math.max(deepest, ww.deepestPenetration());
      if (at < 0 && ww.profile.awake === 0) at = ww.time;
    });
    expect(deepest).toBeLessThan(0.01);
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(4);
  }, 120_000);

  it('nine bunnies dropped each alone onto the floor, lying on a side or upright, come to rest: under 2 mJ of motion over 4-7 s, at most one awake at 7 s', async () => {
    // The skulls built-in's bunnies (3674 triangles, 5 mm cells, 1.7 kg),
    // spread half a metre apart so each lands alone. Measured: 0.43 mJ, all
    // nine asleep. Before, 13.4 mJ and six awake: bunnies lying on a side
    // crept over the floor at 3-5 mm/s, their manifold spanned by samples
    // standing 0.6 mm off it, and upright ones rocked at up to 1.4 rad/s, a
    // kept leader letting the next sample sink before it led. (Each one's
    // settling is chaotic, so the test holds the nine together.)
    const json = builtinScene('skulls', { count: 25 }) as { bodies: { position: number[] }[] };
    const ids = [6, 8, 12, 13, 16, 18, 20, 21, 22];
    json.bodies = [json.bodies[0]!, ...ids.map((id) => {
      const b = json.bodies[id]!, j = id - 1;
      return { ...b, position: [(j % 5) * 0.5, 0.17 + 0.02 * (j % 3), Math.floor(j / 5) * 0.5] };
    })];
    const w = await worldFrom(json);
    w.solver = { ...w.solver, contactSolver: 'accumulated' };
    // Their kinetic energy, averaged over 4-7 s, and how many are awake at 7 s.
    let energy = 0, samples = 0;
    await run(w, Math.round(7 / w.dt), (ww) => {
      if (ww.time < 4) return;
      energy += ww.kineticEnergy();
      samples++;
    });
    let awake = 0;
    for (let i = 0; i < w.bodies.count; i++) if (!w.bodies.isStatic[i] && !w.bodies.asleep[i]) awake++;
    expect(energy / samples).toBeLessThan(2e-3);
    expect(awake).toBeLessThanOrEqual(1);
  }, 120_000);

  // The pile built-ins name this stage in their scene files, so a pile
  // opened in the app, run or benchmarked comes to rest as shipped. (Under
  // the seed's passes none of these three is all asleep within 9 s.)
  it('the pile built-ins as shipped come to rest: 125 boxes, 30 bones, cups and L-blocks, and 8 cups all asleep by 8 s', async () => {
    for (const [name, params] of [['boxes', {}], ['pile', {}], ['cups', { count: 8 }]] as const) {
      const at = await sleepsAt(name, params, 8, true);
      expect(at, name).toBeGreaterThan(1);
      expect(at, name).toBeLessThan(8);
    }
  }, 120_000);

  it('a heap of 216 boxes comes to rest and every box sleeps by 10 s', async () => {
    const at = await sleepsAt('boxes', { count: 216 }, 10);
    expect(at).toBeGreaterThan(1);
    expect(at).toBeLessThan(10);
  }, 120_000);

  it('a cube on the floor: one manifold of four points, every one warm started from the store, at rest', async () => {
    const w = await stack(1);
    await run(w, 120);
    const s = w.accumulated.stats;
    expect(s.manifolds).toBe(1);
    expect(s.points).toBe(MANIFOLD_POINTS);
    expect(s.warmPoints).toBe(s.points);
    expect(fastest(w)).toBeLessThan(1e-6);
  });

  it('two cubes edge on edge: one vertical manifold per pair from a dozen candidates, and both come to rest', async () => {
    const w = await stack(2);
    await run(w, 180);
    const s = w.accumulated.stats;
    // Every sample of the upper cube's face lies on the lower one's rim,
    // where the field's normals lean up to ~26 degrees; the plane through
    // the points gives the face's normal.
    expect(s.manifolds).toBe(2);
    expect(s.points).toBe(2 * MANIFOLD_POINTS);
    expect(s.candidates).toBeGreaterThan(3 * s.points);
    expect(s.warmPoints).toBe(s.points);
    expect(w.accumulated.manifoldNormal(1)[1]).toBeLessThan(-0.9999);
    expect(fastest(w)).toBeLessThan(1e-6);
  });

  it.each([
    [20, 10, 0.001],
    [40, 30, 0.01],
  ])('the tower of %d one-metre cubes dropped 2 mm apart stands %d s within %f m sideways (sleep off)', async (height, seconds, tol) => {
    const json = builtinScene('tower', { height }) as Record<string, unknown>;
    json['sleep'] = false;
    const w = await worldFrom(json);
    w.solver = { ...w.solver, contactSolver: 'accumulated' };
    expect(await maxDrift(w, Math.round(seconds / w.dt))).toBeLessThan(tol);
  }, 120_000);

  it('a stack of five cubes stands 10 s within 1 cm sideways', async () => {
    const w = await stack(5);
    expect(await maxDrift(w, 600)).toBeLessThan(0.01);
    expect(fastest(w)).toBeLessThan(1e-3);
  }, 60_000);
});
