/**
 * The mass-spring core against analytic answers: the period of a mass on a
 * spring, energy under damping (up to damping 1e6), and momentum of a free body.
 */
import { describe, expect, it } from 'vitest';
import { SoftSystem, StaticPinFrames } from '../../src/soft/system.ts';
import { springImpulses } from '../../src/soft/forces.ts';
import type { SoftIntegratorName } from '../../src/scene/types.ts';
import { material, netModel, PLACE_AT_ORIGIN, softScene, buildScene } from './helpers.ts';

const INTEGRATORS: SoftIntegratorName[] = ['semiImplicit', 'euler', 'rk2', 'rk4'];

/**
 * Particle 1 (mass m) on a spring of stiffness k and rest length 1 along x to
 * particle 0, which is pinned; no gravity.
 */
function massOnSpring(integrator: SoftIntegratorName, k: number, m: number, damping: number, substeps = 1): SoftSystem {
  const sys = new SoftSystem({ integrator, substeps });
  sys.gravity = [0, 0, 0];
  // Two particles of equal share: total mass 2m gives particle 1 mass m; spacing 1 = rest length gives k = stiffness.
  sys.addBody({ name: 'spring', model: netModel([0, 0, 0, 1, 0, 0], [0, 1], [0.5, 0.5], 1), mass: 2 * m, material: material({ stiffness: k, damping }), placement: PLACE_AT_ORIGIN });
  sys.addPin(0, 0, new StaticPinFrames([{ position: [0, 0, 0], orientation: [0, 0, 0, 1] }]));
  return sys;
}

/** Mean period from the upward zero crossings of x(t) - rest, linearly interpolated. */
function measuredPeriod(sys: SoftSystem, dt: number, steps: number): number {
  const crossings: number[] = [];
  let prev = sys.pos[3]! - 1;
  for (let s = 0; s < steps; s++) {
    sys.step(dt);
    const cur = sys.pos[3]! - 1;
    if (prev < 0 && cur >= 0) crossings.push(sys.time - dt + (dt * -prev) / (cur - prev));
    prev = cur;
  }
  expect(crossings.length).toBeGreaterThan(4);
  return (crossings[crossings.length - 1]! - crossings[0]!) / (crossings.length - 1);
}

describe('a mass on a spring', () => {
  for (const integrator of ['semiImplicit', 'rk2', 'rk4'] as const) {
    it(`oscillates with period 2 pi sqrt(m / k) within 1 % (${integrator})`, () => {
      const k = 100, m = 0.5;
      const sys = massOnSpring(integrator, k, m, 0);
      sys.pos[3] = 1.1; // 10 cm stretch
      const expected = 2 * Math.PI * Math.sqrt(m / k);
      const period = measuredPeriod(sys, 0.005, Math.ceil((8 * expected) / 0.005));
      expect(Math.abs(period - expected) / expected).toBeLessThan(0.01);
    });
  }

  it('follows a change of stiffness while it runs (setMaterial): four times the modulus halves the period', () => {
    const k = 100, m = 0.5;
    const sys = massOnSpring('semiImplicit', k, m, 0);
    sys.pos[3] = 1.1;
    const before = sys.substepsFor(0.005), omega2 = sys.bodies[0]!.omega2;
    sys.setMaterial(0, 4 * k, 0.2);
    expect(sys.springK[0]).toBeCloseTo(4 * k, 9);
    // c = 2 zeta sqrt(k m_a m_b / (m_a + m_b)) with both ends of mass m.
    expect(sys.springC[0]).toBeCloseTo(2 * 0.2 * Math.sqrt((4 * k * m) / 2), 9);
    expect(sys.bodies[0]!.omega2 / omega2).toBeCloseTo(4, 9);
    expect(sys.substepsFor(0.005)).toBeGreaterThanOrEqual(before);
    sys.setMaterial(0, 4 * k, 0);
    const expected = 2 * Math.PI * Math.sqrt(m / (4 * k));
    const period = measuredPeriod(sys, 0.005, Math.ceil((8 * expected) / 0.005));
    expect(Math.abs(period - expected) / expected).toBeLessThan(0.01);
    expect(() => sys.setMaterial(0, -1, 0)).toThrow(/stiffness must be positive and finite, got -1/);
  });

  it('oscillates with period 2 pi sqrt(m / k) within 1 % under gravity, about the stretched rest', () => {
    const k = 400, m = 2;
    const sys = massOnSpring('semiImplicit', k, m, 0);
    sys.gravity = [-9.81, 0, 0];
    // Equilibrium at 1 - m g / k; start 5 cm beyond it and measure crossings of the equilibrium.
    const eq = 1 - (m * 9.81) / k;
    sys.pos[3] = eq + 0.05;
    const crossings: number[] = [];
    let prev = sys.pos[3]! - eq;
    const dt = 0.002;
    for (let s = 0; s < 3000; s++) {
      sys.step(dt);
      const cur = sys.pos[3]! - eq;
      if (prev < 0 && cur >= 0) crossings.push(sys.time - dt + (dt * -prev) / (cur - prev));
      prev = cur;
    }
    const expected = 2 * Math.PI * Math.sqrt(m / k);
    const period = (crossings[crossings.length - 1]! - crossings[0]!) / (crossings.length - 1);
    expect(Math.abs(period - expected) / expected).toBeLessThan(0.01);
  });

  it('gains amplitude every period under explicit Euler when undamped (the seed\'s observation)', () => {
    const sys = massOnSpring('euler', 100, 0.5, 0);
    sys.pos[3] = 1.1;
    const e0 = sys.energy().total;
    let last = e0;
    for (let period = 0; period < 5; period++) {
      for (let s = 0; s < 89; s++) sys.step(0.005); // about one period (0.444 s)
      const e = sys.energy().total;
      expect(e).toBeGreaterThan(last);
      last = e;
    }
    // Energy grows by (1 + (omega h)^2) per step: 1.0025^445 = 3.0.
    expect(last / e0).toBeGreaterThan(2.5);
  });
});

describe('damping', () => {
  // Explicit Euler and the midpoint rule add energy of order (omega h)^2 and (omega h)^4 per step to
  // every oscillation, so their dampers must outpace that: they get more substeps here.
  const substeps: Record<SoftIntegratorName, number> = { semiImplicit: 8, rk4: 8, rk2: 32, euler: 128 };
  for (const integrator of INTEGRATORS) {
    it(`never lets a damped net gain energy (${integrator}, ${substeps[integrator]} substeps)`, () => {
      // A 2 x 2 x 2 cube of particles with edges and diagonals, thrown (and spinning), gravity on.
      const rest: number[] = [];
      for (let i = 0; i < 8; i++) rest.push(0.2 * (i & 1), 0.2 * ((i >> 1) & 1), 0.2 * ((i >> 2) & 1));
      const springs: number[] = [];
      for (let a = 0; a < 8; a++) for (let b = a + 1; b < 8; b++) springs.push(a, b);
      const sys = new SoftSystem({ integrator, substeps: substeps[integrator] });
      sys.addBody({
        name: 'cube',
        model: netModel(rest, springs, new Array(8).fill(1 / 8), 0.2),
        mass: 2,
        material: material({ stiffness: 2e4, damping: 0.2 }),
        placement: { ...PLACE_AT_ORIGIN, velocity: [1, 2, 0], angularVelocity: integrator === 'euler' ? [0, 0, 0] : [0, 3, 1] },
      });
      // Explicit Euler adds energy of its own outside the springs: h^2 |g|^2 / 2 per unit mass per step in free
      // fall, and to a rigid spin (x += h v leaves the circle outward), neither of which a damper can take back.
      // Its net only translates, without gravity.
      if (integrator === 'euler') sys.gravity = [0, 0, 0];
      // Knock it out of shape so the springs have something to do.
      sys.pos[0] -= 0.05;
      sys.pos[22] += 0.04;
      let e = sys.energy().total;
      const e0 = e;
      for (let s = 0; s < 400; s++) {
        sys.step(0.01);
        const next = sys.energy().total;
        // Each step: no gain beyond rounding (the energy is ~1e2 J; 1e-9 relative).
        expect(next).toBeLessThanOrEqual(e + 1e-9 * Math.abs(e0));
        e = next;
      }
      // And the damping did remove the deformation energy.
      expect(sys.energy().springs).toBeLessThan(1e-3);
    });
  }

  /** A 0.5 m lattice box (27 particles, 185 springs) at `damping`, 3 m above the ground or squashed in free space. */
  async function dampedBox(damping: number, drop: boolean): Promise<SoftSystem> {
    const scene = softScene(
      {
        shapes: { box: { type: 'box', size: [0.5, 0.5, 0.5] } },
        softBodies: [{ name: 'box', shape: 'box', position: [0, drop ? 3 : 0, 0], damping, construction: { resolution: 2 } }],
      },
      drop ? {} : { gravity: [0, 0, 0], bodies: [{ name: 'far', shape: 'floor', static: true, position: [0, -1000, 0] }] },
    );
    const { system } = await buildScene(scene);
    // In free space, squashed to 80 % of its height about its centre (the origin): 1 kJ in its springs.
    if (!drop) for (let i = 1; i < system.pos.length; i += 3) system.pos[i] *= 0.8;
    return system;
  }

  for (const damping of [10, 100, 1e6]) {
    it(`never lets a heavily damped lattice body gain energy (damping ${damping}): squashed in free space, and dropped 3 m`, async () => {
      for (const drop of [false, true]) {
        const sys = await dampedBox(damping, drop);
        let e = sys.energy().total;
        const e0 = e;
        for (let s = 0; s < 300; s++) {
          sys.step(0.01);
          const next = sys.energy().total;
          // Each step: no gain beyond rounding (measured: at most 2e-13 J). With the dampers swept one way
          // after the Hooke impulses the squashed box reached 57 kJ in 10 steps, and the dropped one went
          // from 3.7 kJ to 46 kJ, crushed to half its volume.
          expect(next).toBeLessThanOrEqual(e + 1e-9 * Math.abs(e0));
          e = next;
        }
        // It ends in its shape (measured 0.9958 of its volume on the ground, 1.0000 in free space).
        expect(sys.volumeOf(0) / sys.bodies[0]!.restVolume).toBeGreaterThan(0.99);
        if (!drop) expect(sys.energy().springs).toBeLessThan(1e-6);
      }
    });
  }

  it('sweeps the dampers symmetrically: their map G of the velocities is symmetric in the mass inner product, 0 <= G <= I', async () => {
    // system.ts: what makes the substep stable at any damping. A forward sweep alone is off by order 1 here.
    const sys = await dampedBox(10, false);
    const n3 = sys.pos.length, h = 0.01 / sys.substepsFor(0.01);
    let seed = 12345;
    const random = (): Float64Array => Float64Array.from({ length: n3 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5);
    // springImpulses adds the Hooke impulses (the same for any velocities) to G v.
    const impulses = (v: Float64Array): Float64Array => {
      sys.vel.set(v);
      springImpulses(sys, h);
      return sys.vel.slice();
    };
    const base = impulses(new Float64Array(n3));
    const G = (v: Float64Array): Float64Array => impulses(v).map((x, i) => x - base[i]!);
    const dot = (p: Float64Array, q: Float64Array): number => {
      let sum = 0;
      for (let i = 0; i < n3; i++) sum += sys.mass[Math.floor(i / 3)]! * p[i]! * q[i]!;
      return sum;
    };
    for (let trial = 0; trial < 5; trial++) {
      const a = random(), b = random();
      const scale = Math.sqrt(dot(a, a) * dot(b, b));
      expect(Math.abs(dot(G(a), b) - dot(a, G(b)))).toBeLessThan(1e-12 * scale);
      const ga = dot(G(a), a);
      expect(ga).toBeGreaterThanOrEqual(0);
      expect(ga).toBeLessThanOrEqual(dot(a, a));
    }
  });
});

describe('the spring passes compiled for a store\'s arrays (forces.ts plainSpringPasses)', () => {
  it('follow the store when its arrays are replaced: a run whose arrays are swapped for copies midway ends the same to the bit', () => {
    const cube = (): SoftSystem => {
      const rest: number[] = [];
      for (let i = 0; i < 8; i++) rest.push(0.2 * (i & 1), 0.2 * ((i >> 1) & 1), 0.2 * ((i >> 2) & 1));
      const springs: number[] = [];
      for (let a = 0; a < 8; a++) for (let b = a + 1; b < 8; b++) springs.push(a, b);
      const sys = new SoftSystem({ integrator: 'semiImplicit', substeps: 8 });
      sys.addBody({
        name: 'cube',
        model: netModel(rest, springs, new Array(8).fill(1 / 8), 0.2),
        mass: 2,
        material: material({ stiffness: 2e4, damping: 0.2 }),
        placement: { ...PLACE_AT_ORIGIN, velocity: [1, 2, 0], angularVelocity: [0, 3, 1] },
      });
      sys.pos[0] -= 0.05;
      sys.pos[22] += 0.04;
      return sys;
    };
    const a = cube(), b = cube();
    for (let s = 0; s < 60; s++) {
      a.step(0.01);
      // What growing the store does: arrays the passes read or write replaced by copies, a few at a time.
      if (s === 20) { b.pos = b.pos.slice(); b.vel = b.vel.slice(); }
      if (s === 30) { b.springRest = b.springRest.slice(); b.springK = b.springK.slice(); }
      if (s === 40) { b.invMass = b.invMass.slice(); b.springInvLength = b.springInvLength.slice(); }
      if (s === 50) { b.springA = b.springA.slice(); b.springB = b.springB.slice(); }
      b.step(0.01);
    }
    // The springs still act (the cube kept its shape: spring energy damped away) and both runs agree exactly.
    expect(b.energy().springs).toBeLessThan(1e-2);
    expect(Array.from(b.pos)).toEqual(Array.from(a.pos));
    expect(Array.from(b.vel)).toEqual(Array.from(a.vel));
  });
});

describe('a free soft body', () => {
  for (const integrator of INTEGRATORS) {
    it(`conserves momentum exactly, and angular momentum, in free flight (${integrator})`, async () => {
      const scene = softScene(
        {
          shapes: { ball: { type: 'sphere', radius: 0.3, segments: [12, 8] } },
          softBodies: [
            { name: 'blob', shape: 'ball', construction: { resolution: 4 }, velocity: [1, -2, 0.5], angularVelocity: [2, 0, -1], preserveVolume: true, damping: 0.3 },
          ],
          softSolver: { integrator, substeps: 40 },
        },
        { gravity: [0, 0, 0], bodies: [{ name: 'far', shape: 'floor', static: true, position: [0, -1000, 0] }] },
      );
      const { system } = await buildScene(scene);
      // Deform it too, so springs, dampers and pressure all act (positions only: momentum unchanged).
      for (let i = 0; i < system.pos.length; i += 7) system.pos[i] += 0.01;
      const p0 = system.momentum();
      const L0 = system.angularMomentum();
      for (let s = 0; s < 100; s++) system.step(0.01);
      const p = system.momentum();
      const L = system.angularMomentum();
      const scale = Math.hypot(...p0);
      for (let k = 0; k < 3; k++) expect(Math.abs(p[k]! - p0[k]!)).toBeLessThan(1e-12 * scale);
      // Semi-implicit Euler keeps angular momentum exactly for central forces; the others to their order
      // (measured: Euler 9e-4, RK2 3.5e-7, RK4 4e-9 relative over 1 s).
      const tol = { semiImplicit: 1e-12, euler: 3e-3, rk2: 2e-6, rk4: 5e-8 }[integrator];
      const Ls = Math.hypot(...L0);
      for (let k = 0; k < 3; k++) expect(Math.abs(L[k]! - L0[k]!)).toBeLessThan(tol * Ls);
    });
  }
});
