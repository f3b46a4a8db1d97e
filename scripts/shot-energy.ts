/**
 * The energy test of issue "Piles that come to rest", as a measurement: a
 * box of 1 kg shot at 6 m/s into a stack of ten 0.5 m boxes of 1 kg
 * (friction 0.5, restitution 0, dt 1/60, sleep off). The total energy (kinetic plus
 * m g y) must never rise by more than 0.02 J in a step. A toppling stack is
 * chaotic, so one run says little: this runs 16 variants (stacked 1 mm apart
 * or touching; shot at once or after a second of settling; launched from
 * 1.5 m to the side, 5, 15, 30 or 60 cm above the fourth box's centre, so
 * that it falls onto the third to fifth box) and reports, per contact
 * solver, the worst one-step rise, how many variants exceed 0.02 J, the
 * median variant's worst rise and the mean step time.
 *
 *   npx tsx scripts/shot-energy.ts [--stages sequential,accumulated,pgs] [--substeps N] [--pseudo N] [--every N] [--local N] [--shock N] [--pseudo-shock X] [--column-levels N] [--column-share X] [--collision N] [--warm-energy 0|1] [--verbose] [--out FILE.json]
 *
 * --substeps, --pseudo, --every, --local, --shock, --pseudo-shock,
 * --column-levels and --column-share set the accumulated stage's substeps,
 * push-out sweeps per substep, the push-out in every Nth substep, relax
 * sweeps per manifold, most shock sweeps a level, the push-out's inverse mass
 * scale of a supporting lower body in a column and what makes an island one
 * (AccumulatedSolver.substeps, pseudoIters, pseudoEvery, localSweeps,
 * shockSweeps, pseudoShockScale, columnLevels, columnShare); --collision the collision passes
 * (solver.collisionIterations); --warm-energy 1 the warm start bounded by
 * energy (warmEnergy); all for comparison.
 */
import './usage.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { createBackend } from '../src/backends.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import type { SolverSettings } from '../src/dynamics/settings.ts';
import { createWorld } from '../src/scene/build.ts';
import { validateScene } from '../src/scene/validate.ts';
import { applyStageArgs, arg, stageArgs } from './stageArgs.ts';

installNodePlatform();

const STAGES = arg('stages', 'sequential,accumulated,pgs').split(',').filter((s) => s) as SolverSettings['contactSolver'][];
const verbose = process.argv.includes('--verbose');
const out = arg('out', '');
const G = 9.81;
const BOUND = 0.02;
const SHOT_STEPS = 180;

const backend = await createBackend('cpu', { threads: 1 });
const rows: Record<string, unknown>[] = [];
for (const stage of STAGES) {
  const worst: number[] = [];
  let stepMs = 0, steps = 0;
  for (const gap of [0.001, 0]) for (const settle of [0, 60]) for (const above of [0.05, 0.15, 0.3, 0.6]) {
    const material = { mass: 1, friction: 0.5, restitution: 0 };
    const bodies: Record<string, unknown>[] = [{ name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 }];
    for (let i = 0; i < 10; i++) bodies.push({ name: `b${i}`, shape: 'box', position: [0, 0.25 + i * (0.5 + gap), 0], ...material });
    // The shot waits on the floor, out of reach, until it is launched.
    bodies.push({ name: 'shot', shape: 'box', position: [-4, 0.25, 0], ...material });
    const scene = validateScene({
      format: 'stackfield-scene/1', dt: 1 / 60, sleep: false, solver: { contactSolver: stage },
      shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.5, 0.5, 0.5] } }, bodies,
    }, 'shot-energy');
    const w = await createWorld(scene, backend.query, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
    applyStageArgs(w);
    const B = w.bodies, shot = B.count - 1;
    const energy = (): number => {
      let e = w.kineticEnergy();
      for (let i = 0; i < B.count; i++) if (B.invMass[i]! > 0) e += (G * B.pos[3 * i + 1]!) / B.invMass[i]!;
      return e;
    };
    const launch = (): void => {
      B.pos[3 * shot] = -1.5; B.pos[3 * shot + 1] = 0.25 + 3 * 0.5 + above;
      B.vel[3 * shot] = 6; B.vel[3 * shot + 1] = 0;
      w.bodyEdited(shot);
    };
    if (settle === 0) launch();
    let prev = energy(), rise = 0, at = -1;
    for (let s = 0; s < settle + SHOT_STEPS; s++) {
      const t0 = performance.now();
      await w.step();
      stepMs += performance.now() - t0;
      steps++;
      if (s === settle - 1) {
        launch();
        prev = energy();
        continue;
      }
      const e = energy();
      if (e - prev > rise) { rise = e - prev; at = s; }
      prev = e;
    }
    worst.push(rise);
    if (verbose) console.log(`  ${stage}: ${gap * 1000} mm apart, settled ${settle} steps, ${above * 100} cm above: ${rise.toFixed(4)} J at step ${at}`);
  }
  const sorted = worst.slice().sort((x, y) => x - y);
  const row = {
    contactSolver: stage, variants: worst.length, worstRiseJ: +sorted[sorted.length - 1]!.toFixed(4),
    over: worst.filter((x) => x > BOUND).length, medianRiseJ: +sorted[sorted.length >> 1]!.toFixed(4), meanStepMs: +(stepMs / steps).toFixed(3),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}
backend.destroy();
const settings = stageArgs();
if (out) await writeFile(out, JSON.stringify({ script: 'scripts/shot-energy.ts', date: new Date().toISOString(), platform: `${process.platform} ${process.arch}, Node ${process.version}`, boundJ: BOUND, settings, rows }, null, 2) + '\n');
