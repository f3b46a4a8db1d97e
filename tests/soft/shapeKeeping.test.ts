/**
 * Seed 001's shape keeping: stretch prevention (a spring takes stiffer
 * coefficients while longer than its rest length, l.171-173) and perimeter
 * preservation (the outline keeps its perimeter, l.140-169), against
 * analytic forces and the soft-outlines horseshoe, which must keep its
 * outline's shape (l.104-106).
 */
import { describe, expect, it } from 'vitest';
import { SoftSystem, StaticPinFrames } from '../../src/soft/system.ts';
import { computeForces, springImpulses } from '../../src/soft/forces.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import type { SoftIntegratorName } from '../../src/scene/types.ts';
import { buildScene, material, netModel, PLACE_AT_ORIGIN, softScene } from './helpers.ts';

/**
 * Two particles of mass m each on one spring of rest length 1 along x (k =
 * stiffness, k_s = stretchStiffness: spacing = rest length), no gravity.
 */
function pair(k: number, ks: number, c: number, cs: number, integrator: SoftIntegratorName = 'semiImplicit'): SoftSystem {
  const sys = new SoftSystem({ integrator });
  sys.gravity = [0, 0, 0];
  sys.addBody({
    name: 'pair',
    model: netModel([0, 0, 0, 1, 0, 0], [0, 1], [0.5, 0.5], 1),
    mass: 2,
    material: material({ stiffness: k, stretchStiffness: ks, damping: c, stretchDamping: cs }),
    placement: PLACE_AT_ORIGIN,
  });
  return sys;
}

/** Area (|vector area|) and perimeter of a loop of particles. */
function loopShape(pos: Float64Array, loop: ArrayLike<number>): { area: number; perimeter: number } {
  let ax = 0, ay = 0, az = 0, perimeter = 0;
  for (let k = 0; k < loop.length; k++) {
    const a = 3 * loop[k]!, b = 3 * loop[(k + 1) % loop.length]!;
    ax += pos[a + 1]! * pos[b + 2]! - pos[a + 2]! * pos[b + 1]!;
    ay += pos[a + 2]! * pos[b]! - pos[a]! * pos[b + 2]!;
    az += pos[a]! * pos[b + 1]! - pos[a + 1]! * pos[b]!;
    perimeter += Math.hypot(pos[b]! - pos[a]!, pos[b + 1]! - pos[a + 1]!, pos[b + 2]! - pos[a + 2]!);
  }
  return { area: 0.5 * Math.hypot(ax, ay, az), perimeter };
}

describe('stretch prevention', () => {
  it('gives a stretched spring the stiff k_s and c_s, a compressed one k and c (two particles, the explicit force)', () => {
    const k = 100, ks = 5000, m = 1;
    const zeta = 0.2, zetaS = 0.7;
    const sys = pair(k, ks, zeta, zetaS, 'rk4');
    // c = 2 zeta sqrt(k m_a m_b / (m_a + m_b)) = 2 zeta sqrt(k m / 2).
    const c = 2 * zeta * Math.sqrt((k * m) / 2), cs = 2 * zetaS * Math.sqrt((ks * m) / 2);
    const f = new Float64Array(6);
    // Along a tilted line, so that every component counts.
    const u = [0.6, 0, 0.8];
    for (const [length, closing] of [[1.03, 0.5], [1.03, -0.5], [0.97, 0.5], [0.97, -0.5]] as const) {
      const x = Float64Array.from([0, 0, 0, ...u.map((e) => -length * e)]);
      // Particle 1 moves along -u at `closing`: the ends separate (dL/dt = closing).
      const v = Float64Array.from([0, 0, 0, ...u.map((e) => -closing * e)]);
      computeForces(sys, x, v, f);
      const stretched = length > 1;
      const magnitude = (stretched ? ks : k) * (length - 1) + (stretched ? cs : c) * closing;
      for (let i = 0; i < 3; i++) {
        expect(f[i]).toBeCloseTo(-magnitude * u[i]!, 10);
        expect(f[3 + i]).toBeCloseTo(magnitude * u[i]!, 10);
      }
    }
  });

  it('steps a stretched spring by backward Euler in the semi-implicit substep: never past its rest length, however stiff', () => {
    const k = 100, m = 1, h = 0.01, e = 0.05, w0 = 0.3;
    for (const zetaS of [0, 0.5]) {
      for (const ks of [1e3, 1e6, 1e12]) {
        const sys = pair(k, ks, 0, zetaS);
        const cs = 2 * zetaS * Math.sqrt((ks * m) / 2);
        sys.pos[3] = 1 + e;
        sys.vel[3] = w0;
        springImpulses(sys, h);
        // beta = 2 / m; dw = -beta h (ks (e + h w) + cs w) / (1 + beta h (h ks + cs)).
        const beta = 2 / m, D = 1 + beta * h * (h * ks + cs);
        const dw = (-beta * h * (ks * (e + h * w0) + cs * w0)) / D;
        expect((sys.vel[3]! - sys.vel[0]! - w0) / dw).toBeCloseTo(1, 12);
        // Momentum is kept: equal and opposite impulses.
        expect(sys.vel[0]! + sys.vel[3]!).toBeCloseTo(w0, 12);
        // The stretch after the position update, e + h (w0 + dw) = (e (1 + beta h cs) + h w0) / D, lies
        // between 0 and e: no overshoot, and without damping it vanishes as k_s grows.
        const after = e + h * (w0 + dw);
        // (6 digits: at k_s = 1e12 the stretch is a difference of numbers 10^6 times larger.)
        expect(after / ((e * (1 + beta * h * cs) + h * w0) / D)).toBeCloseTo(1, 6);
        expect(after).toBeGreaterThanOrEqual(0);
        expect(after).toBeLessThan(e);
        if (ks === 1e12 && zetaS === 0) expect(after).toBeLessThan(1e-9);
      }
    }
  });

  it('makes a mass on a spring swing with the half-periods of k and k_s: T = pi (sqrt(m / k) + sqrt(m / k_s)) within 1 % (rk4)', () => {
    const k = 400, ks = 3600, m = 1;
    const sys = new SoftSystem({ integrator: 'rk4', substeps: 4 });
    sys.gravity = [0, 0, 0];
    sys.addBody({
      name: 'spring',
      model: netModel([0, 0, 0, 1, 0, 0], [0, 1], [0.5, 0.5], 1),
      mass: 2 * m,
      material: material({ stiffness: k, stretchStiffness: ks }),
      placement: PLACE_AT_ORIGIN,
    });
    sys.addPin(0, 0, new StaticPinFrames([{ position: [0, 0, 0], orientation: [0, 0, 0, 1] }]));
    const a = 0.1;
    sys.pos[3] = 1 - a;
    const dt = 0.001;
    const up: number[] = [];
    let prev = sys.pos[3]! - 1, most = 0;
    for (let s = 0; s < 2000; s++) {
      sys.step(dt);
      const cur = sys.pos[3]! - 1;
      most = Math.max(most, cur);
      if (prev < 0 && cur >= 0) up.push(sys.time - dt + (dt * -prev) / (cur - prev));
      prev = cur;
    }
    expect(up.length).toBeGreaterThan(4);
    const period = (up[up.length - 1]! - up[0]!) / (up.length - 1);
    const expected = Math.PI * (Math.sqrt(m / k) + Math.sqrt(m / ks));
    expect(Math.abs(period / expected - 1)).toBeLessThan(0.01);
    // Energy k a^2 / 2 = k_s b^2 / 2: the stretch reaches only a sqrt(k / k_s).
    expect(most / (a * Math.sqrt(k / ks))).toBeCloseTo(1, 2);
  });

  it('costs no substeps: a stretch modulus 10^4 times the modulus leaves the semi-implicit substep count as it is', async () => {
    const body = (extra: object) =>
      softScene({
        shapes: { bar: { type: 'extrude', polygon: [[-0.4, -0.05], [0.4, -0.05], [0.4, 0.05], [-0.4, 0.05]], depth: 0.1 } },
        softBodies: [{ name: 'bar', shape: 'bar', position: [0, 0.3, 0], construction: { method: 'seed' }, preservePerimeter: false, ...extra }],
      });
    const soft = (await buildScene(body({ preventStretch: false }))).system;
    const stiff = (await buildScene(body({ stretchStiffness: 1e9 }))).system;
    expect(stiff.substepsFor(0.01)).toBe(soft.substepsFor(0.01));
    // And it stays whole: dropped, it lands and rests with its springs within 1 % of their rest lengths.
    for (let s = 0; s < 200; s++) stiff.step(0.01);
    let worst = 0;
    for (let s = 0; s < stiff.springCount; s++) {
      const a = 3 * stiff.springA[s]!, b = 3 * stiff.springB[s]!;
      const len = Math.hypot(stiff.pos[a]! - stiff.pos[b]!, stiff.pos[a + 1]! - stiff.pos[b + 1]!, stiff.pos[a + 2]! - stiff.pos[b + 2]!);
      worst = Math.max(worst, Math.abs(len / stiff.springRest[s]! - 1));
    }
    expect(worst).toBeLessThan(0.01);
  });

  it('passes a hanging seed body\'s whole weight to its pin through the stiff springs', async () => {
    const scene = softScene(
      {
        shapes: { bar: { type: 'box', size: [1, 0.1, 0.1] }, strip: { type: 'extrude', polygon: [[-0.05, -0.3], [0.05, -0.3], [0.05, 0.3], [-0.05, 0.3]], depth: 0.1 } },
        softBodies: [
          {
            name: 'strip',
            shape: 'strip',
            position: [0, 1.7, 0],
            mass: 5,
            stiffness: 2e4,
            damping: 0.5,
            construction: { method: 'seed' },
            // The strip's top corners and their twins.
            pins: [{ body: 'bar', anchor: [0, -0.05, 0], radius: 0.1 }],
          },
        ],
      },
      { bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'bar', shape: 'bar', static: true, position: [0, 2.05, 0] }] },
    );
    const { system } = await buildScene(scene);
    expect(system.pinParticle.length).toBe(4);
    for (let s = 0; s < 300; s++) system.step(0.01);
    // Its springs do hang stretched, so the stiff impulses are what holds it.
    let stretched = 0;
    for (let s = 0; s < system.springCount; s++) {
      const a = 3 * system.springA[s]!, b = 3 * system.springB[s]!;
      if (Math.hypot(system.pos[a]! - system.pos[b]!, system.pos[a + 1]! - system.pos[b + 1]!, system.pos[a + 2]! - system.pos[b + 2]!) > system.springRest[s]!) stretched++;
    }
    expect(stretched).toBeGreaterThan(0);
    const total = [0, 0, 0];
    for (let k = 0; k < system.pinParticle.length; k++) for (let c = 0; c < 3; c++) total[c] += system.pinImpulse[3 * k + c]!;
    expect(total[1]! / (5 * -9.81 * 0.01)).toBeCloseTo(1, 2);
    expect(Math.abs(total[0]!) + Math.abs(total[2]!)).toBeLessThan(1e-3 * 5 * 9.81 * 0.01);
  });
});

describe('perimeter preservation', () => {
  it('pulls with the gradient of k_P (P - P0)^2 / 2, k_P = perimeterStiffness s^2 / P0, summing to zero force', () => {
    // A square loop of side 1 (P0 = 4, spacing 1) with no springs, deformed; no gravity.
    const model = { ...netModel([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], [], [0.25, 0.25, 0.25, 0.25], 1), outlines: [Uint32Array.from([0, 1, 2, 3])] };
    const sys = new SoftSystem();
    sys.gravity = [0, 0, 0];
    const K = 300;
    sys.addBody({ name: 'loop', model, mass: 4, material: material({ perimeterStiffness: K }), placement: PLACE_AT_ORIGIN });
    sys.pos.set([0.1, -0.05, 0.02, 1.3, 0.1, -0.1, 1.2, 1.4, 0.05, -0.2, 0.9, 0]);
    const f = new Float64Array(12);
    computeForces(sys, sys.pos, sys.vel, f);
    const perimeter = () => {
      let p = 0;
      for (let i = 0; i < 4; i++) {
        const a = 3 * i, b = 3 * ((i + 1) % 4);
        p += Math.hypot(sys.pos[b]! - sys.pos[a]!, sys.pos[b + 1]! - sys.pos[a + 1]!, sys.pos[b + 2]! - sys.pos[a + 2]!);
      }
      return p;
    };
    const kp = K / 4;
    const energy = () => 0.5 * kp * (perimeter() - 4) ** 2;
    expect(sys.energy().springs).toBeCloseTo(energy(), 12);
    const eps = 1e-6;
    const sum = [0, 0, 0];
    for (let c = 0; c < 12; c++) {
      const keep = sys.pos[c]!;
      sys.pos[c] = keep + eps;
      const up = energy();
      sys.pos[c] = keep - eps;
      const down = energy();
      sys.pos[c] = keep;
      expect(f[c]).toBeCloseTo(-(up - down) / (2 * eps), 6);
      sum[c % 3] += f[c]!;
    }
    for (const s of sum) expect(Math.abs(s)).toBeLessThan(1e-12);
    expect(Math.hypot(...f)).toBeGreaterThan(1);
  });

  it('is refused on a net without an outline', () => {
    const sys = new SoftSystem();
    expect(() =>
      sys.addBody({ name: 'pair', model: netModel([0, 0, 0, 1, 0, 0], [0, 1], [0.5, 0.5], 1), mass: 1, material: material({ perimeterStiffness: 10 }), placement: PLACE_AT_ORIGIN }),
    ).toThrow(/soft body "pair": perimeter preservation needs a net built on an outline/);
  });
});

describe('the soft-outlines horseshoe at the default minAngle', () => {
  /** Least area and perimeter ratios of the horseshoe's outline (both faces) over the last second of 5 s. */
  async function settle(edit: (jelly: Record<string, unknown>) => void = () => {}, tets = true) {
    const json = builtinScene('soft-outlines') as { softMaterials: { jelly: Record<string, unknown> } };
    edit(json.softMaterials.jelly);
    const { system } = await buildScene(parseSceneText(JSON.stringify(json), 'soft-outlines.json'));
    const b = system.bodyIndex('horseshoe');
    const body = system.bodies[b]!;
    // The seed net's tetrahedron volumes (forces.ts) also keep triangles from folding over; off, the rules alone.
    if (!tets) body.tetStiffness = 0;
    const loops = body.model.outlines!.map((loop) => Array.from(loop, (i) => i + body.particleStart));
    const rest = loops.map((loop) => loopShape(system.pos, loop));
    let area = Infinity, perimeter = Infinity;
    for (let s = 0; s < 500; s++) {
      system.step(0.01);
      if (s < 400) continue;
      loops.forEach((loop, l) => {
        const now = loopShape(system.pos, loop);
        area = Math.min(area, now.area / rest[l]!.area);
        perimeter = Math.min(perimeter, now.perimeter / rest[l]!.perimeter);
      });
    }
    return { area, perimeter };
  }

  it('keeps at least 95 % of its rest area and perimeter after 5 s', async () => {
    const { area, perimeter } = await settle();
    expect(area).toBeGreaterThanOrEqual(0.95);
    expect(perimeter).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps them with either rule alone, and folds to under 75 % of its area with neither (nor the tetrahedra)', async () => {
    for (const off of ['preventStretch', 'preservePerimeter']) {
      const { area, perimeter } = await settle((m) => (m[off] = false), false);
      expect(area, `${off} off`).toBeGreaterThanOrEqual(0.95);
      expect(perimeter, `${off} off`).toBeGreaterThanOrEqual(0.95);
    }
    const neither = (m: Record<string, unknown>) => {
      m['preventStretch'] = false;
      m['preservePerimeter'] = false;
    };
    expect((await settle(neither, false)).area).toBeLessThan(0.75);
    // The tetrahedra alone keep its triangles from folding over.
    expect((await settle(neither)).area).toBeGreaterThanOrEqual(0.95);
  });
});
