/**
 * The benchmark, shared by `stackfield bench` (Node) and bench.html (browser):
 * per backend, SDF bake time of the scene's shapes, then whole steps with the
 * per-stage profile, after a warm-up that is not counted.
 *
 * GPU phases are wall-clock around submit + readback; where the adapter has
 * timestamp queries the dispatches' own GPU time is reported too
 * (gpuQueryMs, timing "timestamp"). On this project's CI the GPU is
 * SwiftShader (a CPU emulation), so its times say nothing about real
 * hardware; CPU times are real.
 */
import { validateScene } from '../scene/validate.ts';
import { builtinScene } from '../scene/builtins.ts';
import { buildShape, createWorld } from '../scene/build.ts';
import { createBackend } from '../collision/backends.ts';
import type { BackendKind } from '../collision/query.ts';
import type { SceneDesc } from '../scene/types.ts';
import { STAGES, type Stage } from '../dynamics/profile.ts';
import { triangleCount } from '../geometry/mesh.ts';
import { nodeCount } from '../sdf/grid.ts';
import { formatSoftBench, SoftBenchCounter, type SoftStageBench } from '../soft/bench.ts';

export interface Stats {
  median: number;
  p95: number;
  mean: number;
  samples: number;
}

export interface BackendResult {
  backend: BackendKind;
  adapter: string;
  /** 'timestamp' when the GPU query time also comes from timestamp queries (gpuQueryMs). */
  timing: 'wall' | 'timestamp';
  /** GPU execution time of the query dispatches per step (timestamp queries), when available. */
  gpuQueryMs: Stats | null;
  sdfBakeMs: Stats;
  /** Grid nodes baked per second (all shapes of the scene). */
  bakeNodesPerSecond: number;
  queryMs: Stats;
  stepMs: Stats;
  stages: Record<Stage, Stats>;
  /** Sample-vs-SDF evaluations per second of query time. */
  queriesPerSecond: number;
  queriesPerStep: number;
  queryCallsPerStep: number;
  contactsPerStep: number;
  pairsPerStep: number;
  /** The soft stage's throughput, when the scene has soft bodies. */
  soft: SoftStageBench | null;
}

export interface BenchResults {
  scene: string;
  params: Record<string, number>;
  bodies: number;
  shapes: { name: string; triangles: number; nodes: number }[];
  steps: number;
  warmup: number;
  date: string;
  platform: string;
  results: BackendResult[];
}

export interface BenchOptions {
  /** A built-in name, or a validated scene. */
  scene: string | SceneDesc;
  params?: Record<string, number>;
  steps: number;
  warmup?: number;
  /** Repeats of the SDF bake. */
  bakeRepeats?: number;
  backends: BackendKind[];
}

export interface BenchEnv {
  readText(path: string): Promise<string>;
  platform: string;
}

/** Median, p95 (nearest rank) and mean; sorts a copy numerically. */
export function stats(xs: readonly number[]): Stats {
  if (xs.length === 0) return { median: NaN, p95: NaN, mean: NaN, samples: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : 0.5 * (s[mid - 1]! + s[mid]!);
  return { median, p95: at(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length, samples: s.length };
}

const yieldToUi = () => new Promise<void>((r) => setTimeout(r, 0));

export async function runBenchmark(opts: BenchOptions, env: BenchEnv, onProgress?: (fraction: number, message: string) => void): Promise<BenchResults> {
  const params = opts.params ?? {};
  const scene = typeof opts.scene === 'string' ? validateScene(builtinScene(opts.scene, params), `<builtin:${opts.scene}>`) : opts.scene;
  const name = typeof opts.scene === 'string' ? opts.scene : scene.file;
  const warmup = opts.warmup ?? Math.min(20, Math.max(2, Math.floor(opts.steps / 10)));
  const repeats = opts.bakeRepeats ?? 3;
  const results: BackendResult[] = [];
  const shapeInfo: BenchResults['shapes'] = [];
  const totalWork = opts.backends.length * (repeats + warmup + opts.steps);
  let done = 0;
  const progress = (msg: string) => onProgress?.(Math.min(1, done / totalWork), msg);

  for (const kind of opts.backends) {
    progress(`${kind}: starting`);
    const backend = await createBackend(kind);
    try {
      // 1. SDF bake of every shape the bodies use.
      const used = [...new Set(scene.bodies.map((b) => b.shape))];
      const bakeTimes: number[] = [];
      let nodes = 0;
      for (let r = 0; r < repeats; r++) {
        let ms = 0;
        nodes = 0;
        for (const sname of used) {
          const d = scene.shapes[sname]!;
          if (d.type === 'plane') continue;
          let t0 = 0;
          const shape = await buildShape(sname, d, scene, {
            readText: env.readText,
            bake: async (m, o) => {
              t0 = performance.now();
              const g = await backend.bake(m, o);
              ms += performance.now() - t0;
              return g;
            },
          });
          nodes += shape.sdf ? nodeCount(shape.sdf) : 0;
          if (r === 0 && results.length === 0) {
            shapeInfo.push({ name: sname, triangles: triangleCount(shape.mesh), nodes: shape.sdf ? nodeCount(shape.sdf) : 0 });
          }
        }
        bakeTimes.push(ms);
        done++;
        progress(`${kind}: SDF bake ${r + 1}/${repeats}`);
        await yieldToUi();
      }
      // 2. Steps.
      const world = await createWorld(scene, backend.query, { readText: env.readText, bake: backend.bake });
      const stepMs: number[] = [];
      const queryMs: number[] = [];
      const gpuQueryMs: number[] = [];
      const stageMs: Record<Stage, number[]> = Object.fromEntries(STAGES.map((s) => [s, [] as number[]])) as Record<Stage, number[]>;
      let queries = 0, calls = 0, contacts = 0, pairs = 0, queryTotal = 0;
      const soft = new SoftBenchCounter();
      for (let s = 0; s < warmup + opts.steps; s++) {
        await world.step();
        done++;
        if (s >= warmup) {
          const p = world.profile;
          stepMs.push(p.totalMs);
          const q = p.ms.collisionQuery + p.ms.contactQuery;
          queryMs.push(q);
          if (p.gpuQueryMs > 0) gpuQueryMs.push(p.gpuQueryMs);
          queryTotal += q;
          for (const st of STAGES) stageMs[st].push(p.ms[st]);
          queries += p.queries;
          calls += p.queryCalls;
          contacts += p.contacts;
          pairs += p.pairs;
          soft.add(world);
        }
        if (s % 5 === 0) {
          progress(`${kind}: step ${s + 1}/${warmup + opts.steps}${s < warmup ? ' (warm-up)' : ''}`);
          await yieldToUi();
        }
      }
      const n = Math.max(1, opts.steps);
      const bakeStats = stats(bakeTimes);
      results.push({
        backend: kind,
        adapter: backend.description,
        timing: gpuQueryMs.length > 0 ? 'timestamp' : 'wall',
        gpuQueryMs: gpuQueryMs.length > 0 ? stats(gpuQueryMs) : null,
        sdfBakeMs: bakeStats,
        bakeNodesPerSecond: bakeStats.median > 0 ? nodes / (bakeStats.median / 1000) : 0,
        queryMs: stats(queryMs),
        stepMs: stats(stepMs),
        stages: Object.fromEntries(STAGES.map((s) => [s, stats(stageMs[s])])) as Record<Stage, Stats>,
        queriesPerSecond: queryTotal > 0 ? queries / (queryTotal / 1000) : 0,
        queriesPerStep: queries / n,
        queryCallsPerStep: calls / n,
        contactsPerStep: contacts / n,
        pairsPerStep: pairs / n,
        soft: soft.result(),
      });
    } finally {
      backend.destroy();
    }
  }
  progress('done');
  return {
    scene: name,
    params,
    bodies: scene.bodies.length,
    shapes: shapeInfo,
    steps: opts.steps,
    warmup,
    date: new Date().toISOString(),
    platform: env.platform,
    results,
  };
}

/** A plain-text table of the results (the CLI prints it; the page shows the same numbers). */
export function formatTable(r: BenchResults): string {
  const f = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '-');
  const lines: string[] = [];
  lines.push(`scene ${r.scene} ${JSON.stringify(r.params)}: ${r.bodies} bodies, ${r.steps} steps (+${r.warmup} warm-up), ${r.platform}`);
  for (const s of r.shapes) lines.push(`  shape ${s.name}: ${s.triangles} triangles, ${s.nodes} SDF nodes`);
  const head = ['phase (ms)', ...r.results.flatMap((x) => [`${x.backend} median`, `${x.backend} p95`])];
  const rows: string[][] = [];
  const row = (label: string, get: (x: BackendResult) => { median: number; p95: number }) =>
    rows.push([label, ...r.results.flatMap((x) => [f(get(x).median), f(get(x).p95)])]);
  row('SDF bake (all shapes)', (x) => x.sdfBakeMs);
  row('query phase / step', (x) => x.queryMs);
  row('whole step', (x) => x.stepMs);
  if (r.results.some((x) => x.gpuQueryMs)) row('  GPU query time (timestamps)', (x) => x.gpuQueryMs ?? { median: NaN, p95: NaN });
  for (const st of STAGES) {
    if (r.results.some((x) => x.stages[st].median > 0.0005)) row(`  ${st}`, (x) => x.stages[st]);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((rw) => rw[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(head));
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const rw of rows) lines.push(fmt(rw));
  for (const x of r.results) {
    lines.push(
      `${x.backend} (${x.adapter}, ${x.timing} time): ${(x.queriesPerSecond / 1e6).toFixed(2)} M queries/s, ` +
        `${f(x.queriesPerStep)} queries/step in ${f(x.queryCallsPerStep)} calls, ${f(x.pairsPerStep)} pairs, ${f(x.contactsPerStep)} contacts/step, ` +
        `bake ${(x.bakeNodesPerSecond / 1e6).toFixed(2)} M nodes/s`,
    );
    if (x.soft) lines.push(formatSoftBench(x.soft));
  }
  return lines.join('\n');
}
