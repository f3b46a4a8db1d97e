/**
 * How the broad phase, the contact graph and shock propagation grow with a
 * tower's height (issue "The step as stages", item 4): towers of 25 to 200
 * one-metre boxes at dt 1/60, started touching (the built-in's 2 mm gaps
 * make the top of a tall tower land at metres per second), kept awake
 * (sleeping would make a settled tower free and hide the cost), timed per
 * stage over the steps after the first contacts. The pairs column shows
 * the tower intact (one pair per box) while it was measured (towers of
 * more than 100 boxes used to rock over after a couple of seconds, so the
 * window is the first second; docs/DESIGN.md, "Tall towers"). A
 * stage that is linear in the number of boxes shows a flat cost per box
 * down the table; sweep-and-prune on one axis or freezing by scanning all
 * bodies per level would show it doubling with each doubling of height.
 *
 *   npx tsx scripts/tower-scaling.ts [--heights 25,50,100,200] [--settle 10] [--steps 50] [--out FILE.json]
 *
 * Prints a table (median ms per step, and microseconds per box) and, with
 * --out, the same as JSON.
 */
import './usage.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { stats } from '../src/bench/harness.ts';
import { createBackend } from '../src/backends.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import type { Stage } from '../src/dynamics/profile.ts';
import { createWorld } from '../src/scene/build.ts';
import { builtinScene } from '../src/scene/builtins.ts';
import { validateScene } from '../src/scene/validate.ts';

installNodePlatform();

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}
const heights = arg('heights', '25,50,100,200').split(',').map(Number);
const steps = Number(arg('steps', '50'));
const settle = Number(arg('settle', '10'));
const out = arg('out', '');

const STAGES_SHOWN: Stage[] = ['broadphase', 'contactGraph', 'shockPropagation', 'contactSolve', 'contactQuery'];

interface Row {
  boxes: number;
  stepMs: number;
  stageMs: Record<string, number>;
  pairs: number;
}

const rows: Row[] = [];
for (const h of heights) {
  const json = builtinScene('tower', { height: h, hz: 60 }) as { bodies: { position: number[] }[]; sleep?: boolean };
  json.sleep = false;
  // Touching: box i's centre at 0.5 + i (plus a hundredth of a millimetre between boxes).
  json.bodies.forEach((b, i) => {
    if (i > 0) b.position[1] = 0.5 + (i - 1) * 1.00001 + 0.000005;
  });
  const scene = validateScene(json, `<builtin:tower height=${h}>`);
  const backend = await createBackend('cpu');
  const world = await createWorld(scene, backend.query, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
  for (let s = 0; s < settle; s++) await world.step();
  const per: Record<string, number[]> = Object.fromEntries(STAGES_SHOWN.map((s) => [s, []]));
  const total: number[] = [];
  let pairs = 0;
  for (let s = 0; s < steps; s++) {
    await world.step();
    total.push(world.profile.totalMs);
    for (const st of STAGES_SHOWN) per[st]!.push(world.profile.ms[st]);
    pairs = world.profile.pairs;
  }
  backend.destroy();
  rows.push({
    boxes: h,
    stepMs: stats(total).median,
    stageMs: Object.fromEntries(STAGES_SHOWN.map((st) => [st, stats(per[st]!).median])),
    pairs,
  });
}

const pad = (s: string, n: number) => s.padStart(n);
const head = ['boxes', 'pairs', 'step ms', ...STAGES_SHOWN.map((s) => `${s} ms (us/box)`)];
console.log(head.map((h, i) => pad(h, i < 3 ? 8 : 30)).join(''));
for (const r of rows) {
  const cells = [String(r.boxes), String(r.pairs), r.stepMs.toFixed(3)];
  for (const st of STAGES_SHOWN) {
    const ms = r.stageMs[st]!;
    cells.push(`${ms.toFixed(4)} (${((1000 * ms) / r.boxes).toFixed(2)})`);
  }
  console.log(cells.map((c, i) => pad(c, i < 3 ? 8 : 30)).join(''));
}
if (out) await writeFile(out, JSON.stringify({ script: 'scripts/tower-scaling.ts', date: new Date().toISOString(), steps, settle, rows }, null, 2) + '\n');
