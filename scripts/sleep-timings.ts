/**
 * How soon ring stacks fall asleep (issue "Speed", item 1): the built-in
 * rings scene with 57, 60 and 63 rings on 3 pegs and 20 rings on one peg,
 * each run for 7 s on the CPU, one thread. Per scene: the awake
 * ring-seconds after the rings have landed (from 1.5 s), when the last ring
 * fell asleep (or "never"), and the mean step time. A ring that sleeps costs
 * nothing, so the awake ring-seconds are what a settled scene still pays
 * for; three neighbouring ring counts are three different landings, which
 * keeps one lucky trajectory from deciding a comparison.
 *
 *   npx tsx scripts/sleep-timings.ts [--seconds 7] [--from 1.5] [--out FILE.json]
 */
import './usage.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { createBackend } from '../src/backends.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import { createWorld } from '../src/scene/build.ts';
import { builtinScene } from '../src/scene/builtins.ts';
import { validateScene } from '../src/scene/validate.ts';

installNodePlatform();

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}
const seconds = Number(arg('seconds', '7'));
const from = Number(arg('from', '1.5'));
const out = arg('out', '');

const CASES = [
  { rings: 57, pegs: 3 },
  { rings: 60, pegs: 3 },
  { rings: 63, pegs: 3 },
  { rings: 20, pegs: 1 },
];

const rows: { rings: number; pegs: number; awakeRingSeconds: number; allAsleepAt: number | null; meanStepMs: number }[] = [];
for (const c of CASES) {
  const backend = await createBackend('cpu', { threads: 1 });
  const scene = validateScene(builtinScene('rings', c), `rings ${c.rings}/${c.pegs}`);
  const w = await createWorld(scene, backend.query, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
  const steps = Math.round(seconds / w.dt);
  let awake = 0, ms = 0;
  let allAsleepAt: number | null = null;
  for (let s = 0; s < steps; s++) {
    const t = performance.now();
    await w.step();
    ms += performance.now() - t;
    if (w.time > from) awake += w.profile.awake * w.dt;
    if (allAsleepAt === null && w.profile.awake === 0 && w.profile.asleep > 0) allAsleepAt = w.time;
  }
  backend.destroy();
  rows.push({ ...c, awakeRingSeconds: awake, allAsleepAt, meanStepMs: ms / steps });
}

console.log(`rings   pegs   awake ring-s after ${from} s   all asleep at   mean step`);
for (const r of rows) {
  console.log(
    `${String(r.rings).padStart(5)}  ${String(r.pegs).padStart(5)}   ${r.awakeRingSeconds.toFixed(1).padStart(24)}   ` +
      `${(r.allAsleepAt === null ? 'never' : `${r.allAsleepAt.toFixed(2)} s`).padStart(13)}   ${r.meanStepMs.toFixed(2).padStart(6)} ms`,
  );
}
const total = rows.reduce((a, r) => a + r.awakeRingSeconds, 0);
console.log(`total awake ring-seconds: ${total.toFixed(1)}`);
if (out) await writeFile(out, JSON.stringify({ node: process.version, seconds, from, rows, totalAwakeRingSeconds: total }, null, 2) + '\n');
