/**
 * Re-runnable timing of the seed's chapter-12 scenes (seed 000, ch. 12;
 * the README's benchmark table): each scene is simulated for the
 * seed's whole duration and every step is timed, then the steps are grouped
 * by phase, read from the state rather than from fixed times:
 *  - falling: before the first contact of the step (nothing has landed yet);
 *  - landing: from the first contact until the pile has settled;
 *  - settled: from the first step after which the kinetic energy stays below
 *    1% of its peak until the end (the seed's "when the bodies are stacked").
 *
 *   npx tsx scripts/seed-timings.ts                      # all three, CPU backend
 *   npx tsx scripts/seed-timings.ts --scene skulls --backend gpu
 *   npx tsx scripts/seed-timings.ts --seconds 1          # a quick look, not the seed's durations
 *   npx tsx scripts/seed-timings.ts --solver accumulated # another contact solver than the scenes' own
 *
 * Prints a table of the scenes run and writes them into
 * bench-results/seed-ch12-<backend>[-<solver>].json (or --out FILE): a scene
 * run replaces that scene's entry, the others' stay (the README's rows come
 * from all three). A run with --seconds writes only with --out: it is not
 * the seed's duration. The runs are long on purpose (the seed's 12, 7 and 6
 * simulated seconds).
 */
import './usage.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, platform as osPlatform } from 'node:os';
import { builtinScene } from '../src/scene/builtins.ts';
import { validateScene } from '../src/scene/validate.ts';
import { createWorld } from '../src/scene/build.ts';
import { createBackend, parseBackendKind } from '../src/backends.ts';
import { classifyPhases, stats, type Stats } from '../src/bench/harness.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';

interface SeedScene {
  name: string;
  params: Record<string, number>;
  /** Simulated seconds in the seed. */
  seconds: number;
  /** The seed's figure, in words. */
  seed: string;
}

const SCENES: SeedScene[] = [
  { name: 'rings', params: { rings: 60 }, seconds: 12, seed: '0.5 s per step when stacked (12 s took 9 min)' },
  { name: 'skulls', params: { count: 50 }, seconds: 7, seed: '1 s per step when stacked (7 s took 11 min)' },
  { name: 'jointed-skulls', params: { count: 108 }, seconds: 6, seed: '6 s took 26 min (2.6 s per step on average)' },
];

interface PhaseResult {
  steps: number;
  fromS: number;
  toS: number;
  ms: Stats | null;
}

interface SceneResult {
  scene: string;
  params: Record<string, number>;
  bodies: number;
  seconds: number;
  seed: string;
  buildMs: number;
  totalS: number;
  meanMs: number;
  phases: { falling: PhaseResult; landing: PhaseResult; settled: PhaseResult };
  /** Kinetic energy at the end, as a fraction of its peak. */
  finalEnergyFraction: number;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function measure(s: SeedScene, kind: 'cpu' | 'gpu', solver: string | undefined): Promise<SceneResult> {
  const backend = await createBackend(kind);
  try {
    const json = builtinScene(s.name, s.params) as { solver?: Record<string, unknown> };
    if (solver) json.solver = { ...json.solver, contactSolver: solver };
    const scene = validateScene(json, `<builtin:${s.name}>`);
    const t0 = performance.now();
    const world = await createWorld(scene, backend.query, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake, warn: (m) => console.error(m) });
    const buildMs = performance.now() - t0;
    const n = Math.round(s.seconds / world.dt);
    const ms: number[] = [];
    const energy: number[] = [];
    const contacts: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = performance.now();
      await world.step();
      ms.push(performance.now() - a);
      energy.push(world.kineticEnergy());
      contacts.push(world.profile.contacts);
      if ((i + 1) % 50 === 0) process.stderr.write(`${s.name}: step ${i + 1}/${n}, ${ms[i]!.toFixed(0)} ms, kinetic energy ${energy[i]!.toFixed(3)} J\n`);
    }
    const peak = Math.max(...energy);
    const spans = classifyPhases(energy, contacts);
    const landed = spans.landing.from, settled = spans.settled.from;
    const phase = (from: number, to: number): PhaseResult => ({
      steps: to - from,
      fromS: from * world.dt,
      toS: to * world.dt,
      ms: to > from ? stats(ms.slice(from, to)) : null,
    });
    return {
      scene: s.name,
      params: s.params,
      bodies: Array.from(world.bodies.isStatic.subarray(0, world.bodies.count)).filter((x) => !x).length,
      seconds: s.seconds,
      seed: s.seed,
      buildMs,
      totalS: ms.reduce((x, y) => x + y, 0) / 1000,
      meanMs: ms.reduce((x, y) => x + y, 0) / n,
      phases: { falling: phase(0, landed), landing: phase(landed, settled), settled: phase(settled, n) },
      finalEnergyFraction: energy[n - 1]! / peak,
    };
  } finally {
    backend.destroy();
  }
}

function cell(p: PhaseResult): string {
  if (!p.ms) return '-';
  return `${p.ms.median.toFixed(p.ms.median < 10 ? 1 : 0)} ms (${p.fromS.toFixed(2)}-${p.toS.toFixed(2)} s)`;
}

async function main(): Promise<void> {
  installNodePlatform();
  const kind = parseBackendKind(flag('backend'));
  const only = flag('scene');
  const seconds = flag('seconds');
  const list = (only ? SCENES.filter((s) => s.name === only) : SCENES).map((s) => (seconds ? { ...s, seconds: Number(seconds) } : s));
  if (list.length === 0) throw new Error(`unknown scene "${only}" (one of ${SCENES.map((s) => s.name).join(', ')})`);
  const results: SceneResult[] = [];
  const solver = flag('solver');
  for (const s of list) results.push(await measure(s, kind, solver));
  const cpu = cpus()[0];
  const machine = `node ${process.version}, ${cpu ? cpu.model.trim() : 'unknown CPU'} x${cpus().length}, ${osPlatform()}`;
  const out = flag('out') ?? (seconds ? null : `bench-results/seed-ch12-${kind}${solver ? `-${solver}` : ''}.json`);
  if (out !== null) {
    // The file's other scenes stay, in the order of SCENES.
    const kept = (await previousResults(out)).filter((r) => !results.some((x) => x.scene === r.scene));
    const all = [...kept, ...results].sort((a, b) => SCENES.findIndex((s) => s.name === a.scene) - SCENES.findIndex((s) => s.name === b.scene));
    await writeFile(out, JSON.stringify({ date: new Date().toISOString(), machine, backend: kind, contactSolver: solver ?? null, results: all }, null, 2) + '\n');
  }
  console.log(`Median time per step by phase (${kind} backend; ${machine}):\n`);
  console.log('| scene | moving bodies | seed (Athlon64 2.4 GHz) | falling | landing | settled | whole run |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const settled = r.phases.settled.ms ? cell(r.phases.settled) : `not settled (energy ${(100 * r.finalEnergyFraction).toFixed(1)}% of peak at the end)`;
    console.log(`| ${r.scene} | ${r.bodies} | ${r.seed} | ${cell(r.phases.falling)} | ${cell(r.phases.landing)} | ${settled} | ${r.seconds} s in ${r.totalS < 120 ? `${r.totalS.toFixed(1)} s` : `${(r.totalS / 60).toFixed(1)} min`} (${r.meanMs.toFixed(r.meanMs < 10 ? 1 : 0)} ms per step) |`);
  }
  console.log(out !== null ? `\nwritten to ${out}` : '\nnot written (--seconds is not the seed\'s duration; --out FILE writes it)');
}

/** The results already in `file` (none when it is missing or not such a file). */
async function previousResults(file: string): Promise<SceneResult[]> {
  try {
    const json = JSON.parse(await readFile(file, 'utf8')) as { results?: unknown };
    return Array.isArray(json.results) ? (json.results as SceneResult[]).filter((r) => SCENES.some((s) => s.name === r?.scene)) : [];
  } catch {
    return [];
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
