import { describe, expect, it } from 'vitest';
import { SweepAndPrune } from '../../src/collision/broadphase.ts';
import { CONTACT_SOLVER_STAGES, STAGES, stageOrder } from '../../src/dynamics/profile.ts';
import { builtinWorld, stagesBooked, run } from './helpers.ts';

describe('the step as stages', () => {
  it('the stages of a step add up to the step total within 5 %, and every stage of the separated scheme and its sequential solver is timed', async () => {
    const w = await builtinWorld('jointed-rings', { count: 6 });
    w.solver = { ...w.solver, contactSolver: 'sequential' };
    await run(w, 5); // warm up (JIT)
    let total = 0, sum = 0;
    const seen = new Set<string>();
    for (let s = 0; s < 20; s++) {
      await w.step();
      total += w.profile.totalMs;
      for (const st of STAGES) {
        sum += w.profile.ms[st];
        if (w.profile.ms[st] > 0) seen.add(st);
      }
    }
    expect(sum).toBeLessThanOrEqual(total * 1.0001);
    expect(sum).toBeGreaterThan(0.95 * total);
    // (Stage "soft" runs only when the scene has soft bodies: tests/soft/coupling.test.ts.)
    for (const st of stageOrder('separated', 'sequential')) if (st !== 'soft') expect(seen, st).toContain(st);
  });

  it('the declared stage list is every stage, in the order the separated scheme runs them, and every solver\'s stages are in it in their order', () => {
    const all = stageOrder('separated', 'sequential');
    for (const cs of ['pgs', 'accumulated'] as const) for (const st of stageOrder('separated', cs)) if (!all.includes(st)) all.splice(STAGES.indexOf(st), 0, st);
    expect(all).toEqual([...STAGES]);
    for (const cs of ['sequential', 'pgs', 'accumulated'] as const) {
      const idx = CONTACT_SOLVER_STAGES[cs].map((st) => STAGES.indexOf(st));
      expect(idx.every((v, k) => v >= 0 && (k === 0 || v > idx[k - 1]!)), cs).toBe(true);
    }
  });

  // Per scheme and contact solver: ring chains falling onto pegs (joints,
  // contacts that penetrate, 1.2 s). Every step books its stages first in
  // the declared order (a stage may come again later in the step, as the
  // joints do after each phase, never first after a stage listed below it),
  // and the run books every declared stage but "soft" (no soft bodies here).
  for (const scheme of ['separated', 'standard'] as const) {
    for (const contactSolver of ['sequential', 'pgs', 'accumulated'] as const) {
      it(`runs its stages in the declared order: ${scheme} scheme, ${contactSolver} contact solver`, async () => {
        const w = await builtinWorld('jointed-rings', { count: 6 });
        w.solver.scheme = scheme;
        w.solver.contactSolver = contactSolver;
        w.solver.pgsSlop = 0; // (so PGS's split impulse has depths to correct, and pseudo positions to move)
        const steps = await stagesBooked(w, 120);
        const declared = stageOrder(scheme, contactSolver);
        const seen = new Set<string>();
        steps.forEach((booked, s) => {
          for (const st of booked) seen.add(st);
          expect(booked, `step ${s}`).toEqual(declared.filter((st) => booked.includes(st)));
        });
        expect([...seen].sort()).toEqual(declared.filter((st) => st !== 'soft').sort());
        // Every step books the stages every step has.
        for (const booked of steps) for (const st of ['forces', 'wake', 'predict', 'collisionQuery', 'contactQuery', 'contactGraph', 'contactSolve', 'integrate', 'islands', 'publishContacts']) expect(booked).toContain(st);
      });
    }
  }

  it('the standard scheme books its velocity update and joints to their own stages', async () => {
    const w = await builtinWorld('chain', { links: 3 });
    w.solver.scheme = 'standard';
    await run(w, 3);
    expect(w.profile.ms.velocityUpdate).toBeGreaterThan(0);
    expect(w.profile.ms.joints).toBeGreaterThan(0);
    expect(w.profile.ms.broadphase).toBeGreaterThan(0);
  });
});

describe('broad phase', () => {
  /** Boxes of half size h at the given centres. */
  function boxes(centres: number[][], h: number) {
    const n = centres.length;
    const min = new Float64Array(3 * n), max = new Float64Array(3 * n);
    centres.forEach((c, i) => {
      for (let k = 0; k < 3; k++) {
        min[3 * i + k] = c[k]! - h;
        max[3 * i + k] = c[k]! + h;
      }
    });
    return { n, min, max };
  }

  function bruteForce(n: number, min: Float64Array, max: Float64Array): string[] {
    const out: string[] = [];
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        let ok = true;
        for (let k = 0; k < 3; k++) if (min[3 * b + k]! > max[3 * a + k]! || max[3 * b + k]! < min[3 * a + k]!) ok = false;
        if (ok) out.push(`${a},${b}`);
      }
    }
    return out;
  }

  it('a 200-box tower costs a linear number of box tests and finds exactly the overlapping pairs, in canonical order', () => {
    const { n, min, max } = boxes(Array.from({ length: 200 }, (_, i) => [0.001 * Math.sin(i), 0.5 * i, 0]), 0.26);
    const sap = new SweepAndPrune();
    const skip = new Uint8Array(n);
    sap.update(n, min, max, skip, () => false);
    expect(sap.axis).toBe(1);
    const found = Array.from({ length: sap.pairCount }, (_, k) => `${sap.pairs[2 * k]},${sap.pairs[2 * k + 1]}`);
    expect(found).toEqual(bruteForce(n, min, max)); // brute force lists them in canonical order
    expect(sap.tests).toBeLessThan(2 * n);
  });

  it('a random pile finds exactly the brute-force pairs, on whichever axis it sweeps', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const { n, min, max } = boxes(Array.from({ length: 300 }, () => [4 * rnd(), 2 * rnd(), 8 * rnd()]), 0.3);
    const sap = new SweepAndPrune();
    sap.update(n, min, max, new Uint8Array(n), () => false);
    const found = Array.from({ length: sap.pairCount }, (_, k) => `${sap.pairs[2 * k]},${sap.pairs[2 * k + 1]}`);
    expect(found).toEqual(bruteForce(n, min, max));
    expect(sap.axis).toBe(2);
  });
});
