/**
 * Times the CPU query on one thread against the worker pool
 * (src/collision/parallelQuery.ts) on the batches a real scene sends: the
 * scene is stepped once on one thread while every batch is recorded, then
 * the recorded batches are replayed on each thread count, passes
 * interleaved (1, 2, 1, 2, ...) so a burst of load on a shared machine hits
 * both alike. Also the per-call cost of the pool on an empty and a tiny
 * batch, and the break-even batch size (docs/DESIGN.md section 3).
 *
 *   npx tsx scripts/pool-timings.ts --scene rings --param rings=200 --steps 150
 *   npx tsx scripts/pool-timings.ts --scene boxes --param count=1000 --threads 1,2,3
 *
 * Prints JSON (medians over the passes, the load average before and after);
 * --out FILE also writes it.
 */
import './usage.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { CpuPenetrationBackend } from '../src/collision/cpuQuery.ts';
import { ParallelPenetrationBackend } from '../src/collision/parallelQuery.ts';
import { POSE_STRIDE, QueryBatchBuilder, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from '../src/collision/query.ts';
import { stats } from '../src/bench/harness.ts';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import { builtinScene } from '../src/scene/builtins.ts';
import { createWorld } from '../src/scene/build.ts';
import { validateScene } from '../src/scene/validate.ts';

installNodePlatform();

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}
const params: Record<string, number> = {};
process.argv.forEach((a, i) => {
  if (a !== '--param') return;
  const [k, v] = (process.argv[i + 1] ?? '').split('=');
  if (k && v) params[k] = Number(v);
});
const sceneName = arg('scene', 'rings');
const steps = Number(arg('steps', '150'));
const passes = Number(arg('passes', '5'));
const threadList = arg('threads', '1,2').split(',').map(Number);

/**
 * CPU time (ms) of every thread of this process, by thread id, from
 * /proc/self/task/TID/stat (Linux; clock ticks of 10 ms): the main thread's
 * and a worker's own CPU time over a pass tell what the pass would take on
 * free cores (the longer of the two), whatever the machine's load.
 */
function threadCpuMs(): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name.
      out.set(Number(tid), ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** Per-thread CPU ms between two threadCpuMs() readings: the main thread's, and the busiest other thread's. */
function threadSplit(a: Map<number, number>, b: Map<number, number>): { main: number; busiestOther: number; others: number } {
  let main = 0, busiestOther = 0, others = 0;
  for (const [tid, t] of b) {
    const d = t - (a.get(tid) ?? 0);
    if (tid === process.pid) main = d;
    else {
      others += d;
      busiestOther = Math.max(busiestOther, d);
    }
  }
  return { main, busiestOther, others };
}

/** Forwards to the single-thread twin and keeps a copy of every batch. */
class Recorder implements PenetrationBackend {
  readonly kind = 'cpu' as const;
  readonly inner = new CpuPenetrationBackend();
  shapes: readonly QueryShape[] = [];
  batches: QueryBatchBuilder[] = [];
  get counters() {
    return this.inner.counters;
  }
  setShapes(shapes: readonly QueryShape[]): void {
    this.shapes = shapes;
    this.inner.setShapes(shapes);
  }
  setSampleSet(): void {
    // The batches are replayed on pools that never saw the sets: time rigid scenes only.
    throw new Error('pool-timings replays rigid scenes only (this scene has soft bodies, whose sample sets are not recorded)');
  }
  /** Wall ms inside the backend while recording (the query stage's share that the pool can split). */
  backendMs = 0;
  async query(b: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    overlap?.();
    this.batches.push(copyBatch(b, b.count));
    const t0 = performance.now();
    const r = this.inner.querySync(b);
    this.backendMs += performance.now() - t0;
    return r;
  }
  destroy(): void {}
}

function copyBatch(b: QueryBatch, count: number): QueryBatchBuilder {
  const c = new QueryBatchBuilder();
  for (let t = 0; t < count; t++) {
    const o = t * POSE_STRIDE, p = b.poses;
    c.push(b.shapeA[t]!, b.shapeB[t]!, p[o]!, p[o + 1]!, p[o + 2]!, p[o + 3]!, p[o + 4]!, p[o + 5]!, p[o + 6]!, b.margin[t]!);
  }
  return c;
}

const sampleSum = (b: QueryBatch, shapes: readonly QueryShape[]) => {
  let n = 0;
  for (let t = 0; t < b.count; t++) n += shapes[b.shapeA[t]!]!.samples.points.length / 4;
  return n;
};

/**
 * How much a second thread gets on this machine right now, independent of
 * the pool: a fixed arithmetic loop on the main thread alone, then on the
 * main thread and a worker at once. 2 means a free second core; on a shared
 * machine under load it is less, and no pool can beat it.
 */
async function parallelCapacity(): Promise<number> {
  const spin = (n: number) => {
    let x = 0;
    for (let i = 0; i < n; i++) x = (x * 1.000001 + i) % 1e9;
    return x;
  };
  const N = 3e7;
  spin(N / 10);
  const t0 = performance.now();
  spin(N);
  const alone = performance.now() - t0;
  const { Worker } = await import('node:worker_threads');
  const src = `const { parentPort } = require('node:worker_threads');
    parentPort.once('message', (n) => { let x = 0; for (let i = 0; i < n; i++) x = (x * 1.000001 + i) % 1e9; parentPort.postMessage(x); });`;
  const w = new Worker(src, { eval: true });
  await new Promise((r) => w.once('online', r));
  const t1 = performance.now();
  const done = new Promise((r) => w.once('message', r));
  w.postMessage(N);
  spin(N);
  await done;
  const both = performance.now() - t1;
  await w.terminate();
  return (2 * alone) / both;
}

async function main(): Promise<void> {
  const load0 = loadavg();
  const capacityBefore = await parallelCapacity();
  const scene = validateScene(builtinScene(sceneName, params), `<builtin:${sceneName}>`);
  const rec = new Recorder();
  const world = await createWorld(scene, rec, { readText: (p) => readFile(p, 'utf8') });
  let queryStageMs = 0;
  for (let s = 0; s < steps; s++) {
    await world.step();
    queryStageMs += world.profile.ms.collisionQuery + world.profile.ms.contactQuery;
  }
  // Both wall clock in one process, so their ratio hardly depends on the load.
  const backendShare = rec.backendMs / queryStageMs;
  const batches = rec.batches;
  const shapes = rec.shapes;

  // Replay: every thread count, passes interleaved.
  const backends = new Map<number, { q: CpuPenetrationBackend | ParallelPenetrationBackend; run: (b: QueryBatch) => Promise<unknown> }>();
  for (const n of threadList) {
    if (n === 1) {
      const q = new CpuPenetrationBackend();
      q.setShapes(shapes);
      backends.set(n, { q, run: async (b) => q.querySync(b) });
    } else {
      const q = new ParallelPenetrationBackend({ threads: n });
      q.setShapes(shapes);
      await q.ready();
      backends.set(n, { q, run: (b) => q.query(b) });
    }
  }
  const passMs = new Map<number, number[]>(threadList.map((n) => [n, []]));
  // CPU time of the whole process (every thread) per pass: unlike wall time it hardly depends on
  // the machine's load, so 1-thread CPU over N-thread CPU says what the pool costs in extra work.
  const passCpuMs = new Map<number, number[]>(threadList.map((n) => [n, []]));
  const passThreads = new Map<number, { main: number; busiestOther: number; others: number }[]>(threadList.map((n) => [n, []]));
  const callMs = new Map<number, number[]>(threadList.map((n) => [n, []]));
  for (let p = 0; p < passes + 1; p++) {
    for (const n of threadList) {
      const { run } = backends.get(n)!;
      const t0 = performance.now();
      const u0 = process.cpuUsage();
      const th0 = threadCpuMs();
      for (const b of batches) {
        const c0 = performance.now();
        await run(b);
        if (p > 0) callMs.get(n)!.push(performance.now() - c0);
      }
      if (p > 0) {
        // pass 0 warms up
        passMs.get(n)!.push(performance.now() - t0);
        const u = process.cpuUsage(u0);
        passCpuMs.get(n)!.push((u.user + u.system) / 1000);
        passThreads.get(n)!.push(threadSplit(th0, threadCpuMs()));
      }
    }
  }

  // Per-call cost of the pool path on an empty and a one-task batch (forced past the break-even).
  const forced = new ParallelPenetrationBackend({ threads: 2, minSamples: 0 });
  forced.setShapes(shapes);
  await forced.ready();
  const one = new CpuPenetrationBackend();
  one.setShapes(shapes);
  const biggest = batches.reduce((a, b) => (b.count > a.count ? b : a), batches[0]!);
  // A task that reaches its grid (the first with records on one thread).
  let tiny = copyBatch(biggest, 1);
  const found = one.querySync(biggest);
  for (let t = 0; t < biggest.count; t++) {
    const r = found;
    if (r.taskStart[t + 1]! > r.taskStart[t]!) {
      const b = new QueryBatchBuilder();
      const o = t * POSE_STRIDE, q = biggest.poses;
      b.push(biggest.shapeA[t]!, biggest.shapeB[t]!, q[o]!, q[o + 1]!, q[o + 2]!, q[o + 3]!, q[o + 4]!, q[o + 5]!, q[o + 6]!, biggest.margin[t]!);
      tiny = b;
      break;
    }
  }
  const empty = new QueryBatchBuilder();
  const perCall = async (f: () => Promise<unknown> | unknown, reps = 3000) => {
    const xs: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      await f();
      xs.push(1000 * (performance.now() - t0));
    }
    return stats(xs.slice(reps / 10)).median;
  };
  // The same tiny batch run by a worker alone: notify, wake, run, notify back (the round trip).
  const remote = new ParallelPenetrationBackend({ threads: 2, minSamples: 0, mainClaims: false });
  remote.setShapes(shapes);
  await remote.ready();
  const overheadUs = {
    emptyOneThread: await perCall(() => one.querySync(empty)),
    emptyPool: await perCall(() => forced.query(empty)),
    tinyOneThread: await perCall(() => one.querySync(tiny)),
    tinyPoolForced: await perCall(() => forced.query(tiny)),
    tinyWorkerRoundTrip: await perCall(() => remote.query(tiny)),
    tinySamples: sampleSum(tiny, shapes),
  };
  remote.destroy();

  // Break-even: prefixes of the largest batch, one thread against the forced pool.
  const breakEven: { tasks: number; samples: number; oneThreadUs: number; poolUs: number }[] = [];
  for (let k = 1; k <= biggest.count; k *= 2) {
    const b = copyBatch(biggest, k);
    breakEven.push({
      tasks: k,
      samples: sampleSum(b, shapes),
      oneThreadUs: await perCall(() => one.querySync(b), 300),
      poolUs: await perCall(() => forced.query(b), 300),
    });
  }
  forced.destroy();
  for (const { q } of backends.values()) q.destroy();

  const calls = batches.length;
  const replay = Object.fromEntries(
    threadList.map((n) => {
      const s = stats(passMs.get(n)!);
      return [
        `threads${n}`,
        {
          passMsMedian: s.median,
          passMsMin: Math.min(...passMs.get(n)!),
          cpuMsMedian: stats(passCpuMs.get(n)!).median,
          /** Per pass: CPU ms of the main thread, of the busiest other thread (a worker), of all others. */
          threadCpuMs: passThreads.get(n)!,
          callMsMedian: stats(callMs.get(n)!).median,
          passes: passMs.get(n)!,
        },
      ];
    }),
  );
  const base = stats(passMs.get(threadList[0]!)!).median;
  const speedup = Object.fromEntries(threadList.map((n) => [`threads${n}`, base / stats(passMs.get(n)!).median]));
  const out = {
    scene: sceneName,
    params,
    steps,
    calls,
    callsPerStep: calls / steps,
    samplesSentPerCall: batches.reduce((a, b) => a + sampleSum(b, shapes), 0) / Math.max(1, calls),
    tasksPerCall: batches.reduce((a, b) => a + b.count, 0) / Math.max(1, calls),
    /** The backend's share of the query stages' time (collisionQuery + contactQuery) while recording. */
    backendShareOfQueryStage: backendShare,
    replay,
    speedup,
    /**
     * What N threads would take on free cores, from each thread's own CPU time (the longest of the
     * main thread and the busiest worker), and the query stage's speed-up that follows (Amdahl
     * with the backend's share): figures that survive a loaded machine, unlike wall time.
     */
    freeCoreEstimate: Object.fromEntries(
      threadList.map((n) => {
        const t = replay[`threads${n}`]!.threadCpuMs as { main: number; busiestOther: number }[];
        const crit = stats(t.map((x) => Math.max(x.main, x.busiestOther))).median;
        const one = stats((replay[`threads${threadList[0]!}`]!.threadCpuMs as { main: number }[]).map((x) => x.main)).median;
        const sb = one / crit;
        return [`threads${n}`, { backendSpeedup: sb, queryStageSpeedup: 1 / (1 - backendShare + backendShare / sb) }];
      }),
    ),
    overheadUs,
    breakEven,
    cpus: `${cpus()[0]?.model ?? 'cpu'} x${cpus().length}`,
    loadAverage: { before: load0, after: loadavg() },
    /** Two threads' throughput over one thread's on a plain loop, before and after (2 = a free second core). */
    parallelCapacity: { before: capacityBefore, after: await parallelCapacity() },
    date: new Date().toISOString(),
  };
  const json = JSON.stringify(out, null, 2);
  process.stdout.write(json + '\n');
  const file = arg('out', '');
  if (file) await writeFile(file, json + '\n');
}

await main();
