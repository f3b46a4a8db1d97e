/**
 * The seed's contact passes against the accumulated contact stage
 * (docs/ALGORITHM.md 4.6, set from code only) on the scenes issue "Piles that
 * come to rest" measures: box heaps of 216 and 1000, towers of 20 and 40
 * one-metre cubes (sleep off: the solver alone must hold them), 60 rings on
 * 3 pegs and 50 bunnies (the skulls built-in). CPU, one thread, the built-in scenes at their own dt. Per scene and
 * stage: when every body was asleep (or how many were at the end), the mean
 * step time over the run and over its last second, the most query calls in
 * a step, and for towers the largest sideways drift of any cube.
 *
 *   npx tsx scripts/contact-stages.ts [--ensemble] [--only boxes1000,tower20,...] [--stages sequential,accumulated] [--out FILE.json]
 *     [--substeps N] [--pseudo N] [--every N] [--local N] [--shock N] [--pseudo-shock X] [--column-levels N] [--column-share X] [--collision N] [--warm-energy 0|1]
 *
 * The last nine set, for comparison, the accumulated stage's substeps, its
 * push-out sweeps per substep, the push-out in every Nth substep, relax
 * sweeps per manifold, most shock sweeps a level, the push-out's inverse
 * mass scale of a supporting manifold's lower body in a column and what makes
 * an island one (AccumulatedSolver.substeps, pseudoIters, pseudoEvery,
 * localSweeps, shockSweeps, pseudoShockScale, columnLevels, columnShare),
 * and the collision passes (solver.collisionIterations).
 */
import './usage.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { createBackend } from '../src/backends.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import type { SolverSettings } from '../src/dynamics/settings.ts';
import { createWorld } from '../src/scene/build.ts';
import { builtinScene } from '../src/scene/builtins.ts';
import { validateScene } from '../src/scene/validate.ts';
import { applyStageArgs, arg } from './stageArgs.ts';

installNodePlatform();

const only = arg('only', '').split(',').filter((s) => s);
const out = arg('out', '');

interface Case { id: string; scene: string; params: Record<string, number>; seconds: number; sleep: boolean }
const ISSUE_CASES: Case[] = [
  { id: 'boxes216', scene: 'boxes', params: { count: 216 }, seconds: 12, sleep: true },
  { id: 'boxes1000', scene: 'boxes', params: { count: 1000 }, seconds: 12, sleep: true },
  { id: 'tower20', scene: 'tower', params: { height: 20 }, seconds: 10, sleep: false },
  { id: 'tower40', scene: 'tower', params: { height: 40 }, seconds: 10, sleep: false },
  { id: 'rings60', scene: 'rings', params: { rings: 60, pegs: 3 }, seconds: 6, sleep: true },
  { id: 'skulls50', scene: 'skulls', params: { count: 50 }, seconds: 7, sleep: true },
];
/**
 * `--ensemble`: neighbouring sizes of each kind of pile (about 4 minutes). A
 * pile's settling is chaotic: a change to the contact stage moves one heap's
 * sleep by a second either way by luck alone (a box that ends in a crevice,
 * a ring that lands tilted), so a change is judged on all of these together.
 */
const ENSEMBLE_CASES: Case[] = [
  ...[150, 216, 300, 400].map((count) => ({ id: `boxes${count}`, scene: 'boxes', params: { count }, seconds: 12, sleep: true })),
  ...[45, 60, 75].map((rings) => ({ id: `rings${rings}`, scene: 'rings', params: { rings, pegs: 3 }, seconds: 8, sleep: true })),
  { id: 'rings20x1', scene: 'rings', params: { rings: 20, pegs: 1 }, seconds: 8, sleep: true },
  ...[20, 30, 40].map((height) => ({ id: `tower${height}`, scene: 'tower', params: { height }, seconds: 10, sleep: false })),
  ...[30, 50].map((count) => ({ id: `skulls${count}`, scene: 'skulls', params: { count }, seconds: 7, sleep: true })),
];
const CASES = process.argv.includes('--ensemble') ? ENSEMBLE_CASES : ISSUE_CASES;
const STAGES = arg('stages', 'sequential,accumulated').split(',').filter((s) => s) as SolverSettings['contactSolver'][];

interface Row {
  id: string; contactSolver: string; seconds: number; bodies: number;
  allAsleepAt: number | null; asleepAtEnd: number; meanStepMs: number; lastSecondMs: number; maxQueryCalls: number; maxDriftM: number | null;
}
const rows: Row[] = [];
for (const c of CASES) {
  if (only.length > 0 && !only.includes(c.id)) continue;
  for (const stage of STAGES) {
    const backend = await createBackend('cpu', { threads: 1 });
    const json = builtinScene(c.scene, c.params) as Record<string, unknown>;
    json['sleep'] = c.sleep;
    const scene = validateScene(json, `${c.id}`);
    const w = await createWorld(scene, backend.query, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
    w.solver = { ...w.solver, contactSolver: stage };
    applyStageArgs(w);
    const B = w.bodies;
    const start = Float64Array.from(B.pos);
    const steps = Math.round(c.seconds / w.dt), lastSteps = Math.round(1 / w.dt);
    let allAsleepAt: number | null = null, total = 0, last = 0, maxQ = 0, drift = 0, dynamic = 0;
    for (let i = 0; i < B.count; i++) if (!B.isStatic[i]) dynamic++;
    for (let s = 0; s < steps; s++) {
      const t0 = performance.now();
      await w.step();
      const ms = performance.now() - t0;
      total += ms;
      if (s >= steps - lastSteps) last += ms;
      maxQ = Math.max(maxQ, w.profile.queryCalls);
      let asleep = 0;
      for (let i = 0; i < B.count; i++) {
        if (B.isStatic[i]) continue;
        asleep += B.asleep[i]!;
        if (c.scene === 'tower') drift = Math.max(drift, Math.hypot(B.pos[3 * i]! - start[3 * i]!, B.pos[3 * i + 2]! - start[3 * i + 2]!));
      }
      if (allAsleepAt === null && asleep === dynamic) allAsleepAt = +w.time.toFixed(3);
    }
    let asleepAtEnd = 0;
    for (let i = 0; i < B.count; i++) if (!B.isStatic[i]) asleepAtEnd += B.asleep[i]!;
    const row: Row = {
      id: c.id, contactSolver: stage, seconds: c.seconds, bodies: dynamic, allAsleepAt, asleepAtEnd,
      meanStepMs: +(total / steps).toFixed(3), lastSecondMs: +(last / lastSteps).toFixed(3), maxQueryCalls: maxQ,
      maxDriftM: c.scene === 'tower' ? +drift.toFixed(5) : null,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
    backend.destroy();
  }
}
if (out) await writeFile(out, JSON.stringify({ script: 'scripts/contact-stages.ts', date: new Date().toISOString(), platform: `${process.platform} ${process.arch}, Node ${process.version}`, rows }, null, 2) + '\n');
