import { describe, expect, it } from 'vitest';
import { validateScene } from '../../src/scene/validate.ts';
import { pairMaterial } from '../../src/dynamics/material.ts';
import { FORMAT, pos, run, vel, worldFrom } from './helpers.ts';

/**
 * Static and dynamic friction (seed 003, 2.4.4): a 0.4 m box resting on a
 * plane tilted by `deg` about z (downhill toward -x), both with dynamic
 * friction MU_D and static friction MU_S, starting with speed `v0` down the
 * slope. It starts touching: a box dropped even 0.5 mm lands with the
 * tangential speed of its fall and, between atan(mu_d) and atan(mu_s), rightly
 * goes on sliding.
 */
const MU_S = 0.5, MU_D = 0.2, G = 9.81;
const CRITICAL = (Math.atan(MU_S) * 180) / Math.PI; // 26.565 degrees

function incline(deg: number, contactSolver: string, v0 = 0, height = 0.4) {
  const th = (deg * Math.PI) / 180, s = 0.4, d = height / 2;
  const mat = { friction: MU_D, staticFriction: MU_S, restitution: 0 };
  return {
    format: FORMAT, dt: 0.005, sleep: false, solver: { contactSolver },
    shapes: { slope: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [s, height, s], sdf: { cells: 16 } } },
    bodies: [
      { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, ...mat },
      {
        name: 'box', shape: 'box', position: [-Math.sin(th) * d, Math.cos(th) * d, 0], rotation: { axis: [0, 0, 1], degrees: deg },
        velocity: [-Math.cos(th) * v0, -Math.sin(th) * v0, 0], ...mat,
      },
    ],
  };
}

/** Speed down the slope. */
function along(v: number[], deg: number): number {
  const th = (deg * Math.PI) / 180;
  return -(v[0]! * Math.cos(th) + v[1]! * Math.sin(th));
}

/**
 * The box's acceleration down the slope between `from` and `from` + 0.5 s,
 * and how far it moved in all.
 */
async function measure(deg: number, solver: string, v0 = 0, from = 0.2): Promise<{ a: number; moved: number }> {
  const w = await worldFrom(incline(deg, solver, v0));
  const p0 = pos(w, 'box');
  await run(w, Math.round(from / 0.005));
  const u0 = along(vel(w, 'box'), deg);
  await run(w, 100);
  const p1 = pos(w, 'box');
  return { a: (along(vel(w, 'box'), deg) - u0) / 0.5, moved: Math.hypot(p1[0] - p0[0], p1[1] - p0[1]) };
}

const theory = (deg: number): number => G * (Math.sin((deg * Math.PI) / 180) - MU_D * Math.cos((deg * Math.PI) / 180));

describe.each(['sequential', 'pgs', 'accumulated'])('static and dynamic friction, %s solver', (solver) => {
  it(`holds half a degree below tan(theta) = mu_s (${MU_S}) and slides half a degree above at g (sin - mu_d cos) within 1 %`, async () => {
    const below = await measure(CRITICAL - 0.5, solver, 0, 0.5);
    expect(below.moved).toBeLessThan(1e-4);
    expect(Math.abs(below.a)).toBeLessThan(1e-3);
    // Broken loose, it slides on mu_d: 2.7 m/s^2, not the 0.1 m/s^2 mu_s
    // would leave.
    const above = await measure(CRITICAL + 0.5, solver, 0, 0.5);
    expect(above.moved).toBeGreaterThan(0.3);
    expect(Math.abs(above.a / theory(CRITICAL + 0.5) - 1)).toBeLessThan(0.01);
  });

  it.each([0.4, 0.8])('a box %s m tall let go a degree past tan(theta) = mu_s breaks loose at once: its speed at 0.5 s is g (sin - mu_d cos) t within 1 %', async (height) => {
    // The seed's passes stopped the face's centre within mu_s while the torque
    // rounds stopped the box's turn, and it crept at mu_s (0.09 m/s^2) until
    // it went 2.5 cm/s: the speed at 0.5 s was 20 % short for the cube, 43 %
    // for the tall box. PGS judges a point sliding from the step after its
    // solve left it slipping: the tall box's first two steps hold at mu_s,
    // 1.8 % of the speed at 0.5 s (a step's worth that shrinks with dt).
    const deg = CRITICAL + 1;
    const w = await worldFrom(incline(deg, solver, 0, height));
    await run(w, 100);
    expect(Math.abs(along(vel(w, 'box'), deg) / (theory(deg) * 0.5) - 1)).toBeLessThan(solver === 'pgs' && height > 0.4 ? 0.02 : 0.01);
  });

  it('a box sliding down a 5 degree slope (tan < mu_d) decelerates at g (sin - mu_d cos) within 1 %', async () => {
    const { a } = await measure(5, solver, 2);
    expect(a).toBeLessThan(0);
    expect(Math.abs(a / theory(5) - 1)).toBeLessThan(0.01);
  });

  it('a box pushed down a slope between atan(mu_d) and atan(mu_s) keeps sliding, at g (sin - mu_d cos)', async () => {
    // 20 degrees: tan = 0.364, between 0.2 and 0.5; static friction would hold it at rest.
    const { a } = await measure(20, solver, 0.5);
    expect(Math.abs(a / theory(20) - 1)).toBeLessThan(0.01);
  });
});

describe.each(['sequential', 'accumulated'])('static friction under a stack, %s solver', (solver) => {
  // The accumulated stage holds it three degrees below, not yet one: its first
  // steps leave the upper cube creeping at its static cone, and a creep the cone
  // does not slow within the step's last substep breaks it loose (docs/DESIGN.md 6).
  const below = solver === 'accumulated' ? 3 : 0.5;
  it(`two cubes stacked on a slope ${below} degrees below tan(theta) = mu_s hold`, async () => {
    // The seed's passes: the load from above reaches the lower face in a
    // later contact pass and can ask more of that one impulse than mu_s gives
    // while the step's totals stay in the cone, so a face is judged sliding
    // on the totals (sequentialSolver.ts slidesOverStep); before, the stack
    // slid 4.4 m in 2 s. The accumulated stage: the first step's soft normal
    // impulses fall short of the load, the upper cube crept 3 mm/s, and judged
    // sliding on that it slid off on mu_d (accumulatedSolver.ts slips); at 3
    // degrees below, 3.8 m in 2 s.
    const deg = CRITICAL - below, th = (deg * Math.PI) / 180;
    const json = incline(deg, solver) as { bodies: Record<string, unknown>[] };
    const top = { ...json.bodies[1]!, name: 'top', position: [-Math.sin(th) * 0.6, Math.cos(th) * 0.6, 0] };
    json.bodies.push(top);
    const w = await worldFrom(json);
    const p0 = pos(w, 'box'), q0 = pos(w, 'top');
    await run(w, 400);
    const p1 = pos(w, 'box'), q1 = pos(w, 'top');
    expect(Math.hypot(p1[0] - p0[0], p1[1] - p0[1])).toBeLessThan(1e-4);
    expect(Math.hypot(q1[0] - q0[0], q1[1] - q0[1])).toBeLessThan(1e-4);
  });
});

describe('staticFriction in scene files', () => {
  const scene = (body: Record<string, unknown>) => ({
    format: FORMAT,
    shapes: { b: { type: 'box' } },
    bodies: [{ name: 'a', shape: 'b', ...body }],
  });
  it('defaults to the body\'s friction', () => {
    const s = validateScene(scene({ friction: 0.3 }), 'f.json');
    expect(s.bodies[0]!.staticFriction).toBe(0.3);
    expect(validateScene(scene({ friction: 0.3, staticFriction: 0.6 }), 'f.json').bodies[0]!.staticFriction).toBe(0.6);
  });
  it('must be at least the dynamic friction and non-negative', () => {
    expect(() => validateScene(scene({ friction: 0.5, staticFriction: 0.4 }), 'f.json')).toThrow(/f\.json.*bodies\[0\]\.staticFriction.*at least the dynamic "friction" \(0\.5\), got 0\.4/);
    expect(() => validateScene(scene({ staticFriction: -1 }), 'f.json')).toThrow(/bodies\[0\]\.staticFriction/);
  });
});

describe('the pair rule for static friction (material.ts)', () => {
  const pair = async (a: Record<string, unknown>, b: Record<string, unknown>) => {
    const w = await worldFrom({
      format: FORMAT,
      shapes: { b: { type: 'box', sdf: { cells: 8 } } },
      bodies: [{ name: 'a', shape: 'b', ...a }, { name: 'b', shape: 'b', position: [3, 0, 0], ...b }],
    });
    const m = pairMaterial(w.bodies, 0, 1, { restitution: 0, friction: 0, staticFriction: 0, rolling: 0, spinning: 0 });
    return [m.friction, m.staticFriction];
  };
  it('takes the larger of each coefficient, and a body\'s friction is its static friction unless it gives one', async () => {
    expect(await pair({ friction: 0.2, staticFriction: 0.7 }, { friction: 0.4 })).toEqual([0.4, 0.7]);
    expect(await pair({ friction: 0.2, staticFriction: 0.3 }, { friction: 0.4 })).toEqual([0.4, 0.4]);
  });
  it('takes what only one body gives (the other left at the defaults)', async () => {
    expect(await pair({ friction: 0.2, staticFriction: 0.3 }, {})).toEqual([0.2, 0.3]);
    expect(await pair({ staticFriction: 0.9 }, {})).toEqual([0.5, 0.9]);
  });
});
