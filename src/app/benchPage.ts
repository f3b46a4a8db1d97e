/**
 * bench.html: runs the shared benchmark (src/bench/harness.ts) from the URL,
 * with no interaction, so a headless browser can drive it:
 *   bench.html?scene=rings&bodies=500&steps=200&backends=cpu,gpu
 * Shows progress, then the run's summary (benchSummary, the lines the CLI
 * prints: backends compared by the mean step and the total, medians beside
 * them; the CPU's threads; a software GPU adapter said as such; a run
 * without contacts or nearly all one phase flagged), a table (mean, median
 * and p95 per backend of SDF bake, query phase, whole step and each phase;
 * samples sent, counted alike on every backend, and samples evaluated after
 * the culls, "n/a" where the backend does not count them: the GPU) and a
 * GPU-vs-CPU bar chart of the means, with a JSON download of the same results.
 *
 * For scripts: when done, document.body.dataset.benchDone = "1" and
 * window.__benchResults holds the results; on failure
 * document.body.dataset.benchError holds the message.
 */
import { benchSummary, measuredSpan, notCountedWhy, PHASES, runBenchmark, threadText, type BackendResult, type BenchResults, type Stats } from '../bench/harness.ts';
import { InputError } from '../errors.ts';
import { listBuiltins } from '../scene/builtins.ts';
import { parseBenchQuery } from './benchParams.ts';
import { fetchText, installBrowserPlatform } from './platform.ts';
import { downloadUrl } from './recorder.ts';

declare global {
  interface Window {
    __benchResults?: BenchResults;
  }
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
/** bench.html's setup line before the query string is read. */
const READING = 'reading parameters…';

async function main(): Promise<void> {
  installBrowserPlatform();
  const opts = parseBenchQuery(location.search, listBuiltins());
  const paramText = Object.entries(opts.params).map(([k, v]) => `${k} = ${v}`).join(', ');
  $('bench-setup').textContent =
    `scene “${opts.scene}”${paramText ? ` (${paramText})` : ''} · ${opts.steps} steps` +
    `${opts.warmup !== undefined ? ` after ${opts.warmup} warm-up` : ''}` +
    `${opts.warmCode ? ` · code warmed on a copy for ${opts.warmCode} steps` : ''} · backends: ${opts.backends.join(', ')}` +
    `${opts.backends.includes('cpu') ? ` · CPU queries on ${threadText(opts.threads)}` : ''}`;
  const bar = $('bench-bar');
  const msg = $('bench-message');
  const results = await runBenchmark(
    { scene: opts.scene, params: opts.params, steps: opts.steps, warmup: opts.warmup, warmCode: opts.warmCode, backends: opts.backends, threads: opts.threads },
    { readText: fetchText, platform: navigator.userAgent },
    (fraction, message) => {
      bar.style.width = `${(100 * fraction).toFixed(1)}%`;
      msg.textContent = message;
    },
  );
  bar.style.width = '100%';
  msg.textContent = `done: ${results.bodies} bodies, ${results.steps} steps (+${results.warmup} warm-up) per backend`;
  $('bench-summary').replaceChildren(
    ...benchSummary(results).map((line) => {
      const li = document.createElement('li');
      li.textContent = line;
      return li;
    }),
  );
  showTable(results);
  // The chart compares the backends run: "GPU vs CPU" only when both were.
  const names = results.results.map((r) => r.backend.toUpperCase());
  $('bench-chart-title').textContent = `${names.length > 1 ? names.join(' vs ') : names.join('')} (mean ms: the SDF bake once, the rest per step; lower is better; medians in the table)`;
  drawChart(results);
  $('bench-results').hidden = false;
  $('bench-download').addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(results, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    downloadUrl(url, `bench-${results.scene}-${results.date.slice(0, 19).replace(/[:T]/g, '-')}.json`);
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  window.__benchResults = results;
  document.body.dataset['benchDone'] = '1';
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return '–';
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e4) return `${(x / 1e3).toFixed(1)} k`;
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function showTable(r: BenchResults): void {
  const t = $<HTMLTableElement>('bench-table');
  t.replaceChildren();
  const head = t.createTHead().insertRow();
  const th = (row: HTMLTableRowElement, text: string, span = 1) => {
    const c = document.createElement('th');
    c.textContent = text;
    c.colSpan = span;
    row.append(c);
  };
  th(head, '');
  for (const x of r.results) {
    // createBackend describes the GPU as "gpu (adapter)": show the adapter once.
    const adapter = x.backend === 'cpu' ? threadText(x.threads).replace(/ \(.*\)$/, '') : x.adapter.replace(/^gpu\s*\(?/, '').replace(/\)$/, '');
    th(head, `${x.backend.toUpperCase()} · ${adapter}${x.software ? ' (software)' : ''}`, 3);
  }
  const sub = t.tHead!.insertRow();
  th(sub, 'ms');
  for (let i = 0; i < r.results.length; i++) {
    th(sub, 'mean');
    th(sub, 'median');
    th(sub, 'p95');
  }
  const body = t.createTBody();
  /** A cell's text, or its text with a tooltip. */
  type Cell = string | { text: string; title: string };
  const row = (label: string, cells: (x: BackendResult) => Cell[]) => {
    const tr = body.insertRow();
    const l = tr.insertCell();
    l.textContent = label;
    l.className = 'label';
    for (const x of r.results) {
      const vals = cells(x);
      for (const v of vals) {
        const c = tr.insertCell();
        c.textContent = typeof v === 'string' ? v : v.text;
        if (typeof v !== 'string') c.title = v.title;
        // One figure for the backend: across its three columns, centred, so it reads as none of them.
        if (vals.length === 1) {
          c.colSpan = 3;
          c.className = 'span';
        }
      }
    }
  };
  const three = (st: Stats | null) => (st ? [fmt(st.mean), fmt(st.median), fmt(st.p95)] : ['–', '–', '–']);
  row('SDF bake (all shapes)', (x) => three(x.sdfBakeMs));
  row('query phase per step', (x) => three(x.queryMs));
  row('whole step', (x) => three(x.stepMs));
  // The drop's phases, as the CLI table gives them (windows read from the first backend's run).
  for (const ph of PHASES) {
    const w0 = r.results[0]?.windows[ph];
    if (!w0 || w0.steps === 0) continue;
    row(`  ${ph} (${measuredSpan(w0)}, ${w0.steps} step${w0.steps === 1 ? '' : 's'})`, (x) => three(x.windows[ph].stepMs));
  }
  if (r.results.every((x) => x.backendMs)) row('  backend query calls (wall)', (x) => three(x.backendMs));
  if (r.results.some((x) => x.gpuQueryMs)) row('  GPU query time (timestamps; steps that dispatched)', (x) => three(x.gpuQueryMs));
  row('whole run, total ms', (x) => [fmt(x.stepMs.mean * x.stepMs.samples)]);
  // Sent: every sample of each task, before any cull (counted alike on every backend). Evaluated: only
  // where the backend counts them (the CPU); the GPU's "n/a", never its dispatch count beside the CPU's.
  const counted = (v: number | null, x: BackendResult): Cell => (v !== null ? fmt(v) : { text: 'n/a', title: `not counted: ${notCountedWhy(x)}` });
  row('samples sent per step (before the culls)', (x) => [fmt(x.queriesPerStep)]);
  row('samples evaluated per step (after the culls)', (x) => [counted(x.samplesEvaluatedPerStep, x)]);
  row('samples sent per second of query time', (x) => [fmt(x.samplesSentPerSecond)]);
  row('samples evaluated per second of query time', (x) => [counted(x.queriesPerSecond, x)]);
  row('query calls per step (most in one step)', (x) => [`${fmt(x.queryCallsPerStep)} (${x.maxQueryCalls})`]);
  if (r.results.some((x) => x.backend === 'gpu')) row('GPU readbacks per step (most in one step)', (x) => [x.backend === 'gpu' ? `${fmt(x.readbacksPerStep)} (${x.maxReadbacks})` : '-']);
  row('contacts per step', (x) => [fmt(x.contactsPerStep)]);
  row('measured steps with a contact', (x) => [`${x.stepsWithContacts} of ${r.steps}`]);
  row('pairs per step', (x) => [fmt(x.pairsPerStep)]);
  if (r.results.every((x) => x.sleep && x.sleep.dynamic > 0)) {
    row('all asleep from (s)', (x) => [x.sleep.allAsleepFromS !== null ? fmt(x.sleep.allAsleepFromS) : `never (${x.sleep.asleepAtEnd} of ${x.sleep.dynamic} at the end)`]);
  }
  if (r.results.some((x) => x.soft)) {
    // The soft stage (src/soft/bench.ts): its time, and particles through the query and the solver.
    const soft = (get: (s: NonNullable<BackendResult['soft']>) => number) => (x: BackendResult) => [x.soft ? fmt(get(x.soft)) : '-'];
    row('soft stage ms per step', (x) => three(x.stages.soft));
    row('soft particles', soft((s) => s.particles));
    row('soft samples through the query / s', soft((s) => s.samplesPerSecond));
    row('soft particle updates through the solver / s', soft((s) => s.particleUpdatesPerSecond));
  }
}

const BACKEND_COLORS: Record<string, string> = { cpu: '#56ccf2', gpu: '#ff8a3d' };

/**
 * Grouped bars (one group per phase, one bar per backend) of the mean ms per
 * step, the figure a run's total follows, each group scaled to its own
 * maximum; the comparison under each group is of the same means.
 */
function drawChart(r: BenchResults): void {
  const canvas = $<HTMLCanvasElement>('bench-chart');
  const dpr = devicePixelRatio || 1;
  const W = canvas.clientWidth || 900;
  const H = canvas.clientHeight || 300;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d')!;
  ctx.scale(dpr, dpr);
  ctx.clearRect(0, 0, W, H);
  const groups: { label: string; get: (x: BackendResult) => number; perStep: boolean }[] = [
    { label: 'SDF bake (once)', get: (x) => x.sdfBakeMs.mean, perStep: false },
    { label: 'query phase', get: (x) => x.queryMs.mean, perStep: true },
    { label: 'whole step', get: (x) => x.stepMs.mean, perStep: true },
  ];
  const top = 40;
  const bottom = H - 46;
  const gw = W / groups.length;
  const n = r.results.length;
  const bw = Math.min(90, (gw * 0.7) / Math.max(1, n));
  ctx.font = '12px system-ui, sans-serif';
  ctx.textAlign = 'center';
  // Several backends: each group on its own scale, to set them side by side; one backend: one scale
  // for the per-step groups, so a bar's height compares the phases. The bake, paid once, keeps its
  // own scale: on the shared one a 74 ms bake left bars of 0.5 and 1.9 ms a step a few pixels tall.
  const finite = (xs: number[]) => xs.filter(Number.isFinite);
  const shared = n === 1 ? Math.max(1e-9, ...finite(groups.filter((g) => g.perStep).map((g) => g.get(r.results[0]!)))) : null;
  groups.forEach((g, gi) => {
    const vals = r.results.map(g.get);
    const max = (g.perStep ? shared : null) ?? Math.max(1e-9, ...finite(vals));
    const x0 = gi * gw + (gw - n * bw) / 2;
    vals.forEach((v, i) => {
      const h = Number.isFinite(v) ? ((bottom - top) * v) / max : 0;
      const x = x0 + i * bw;
      ctx.fillStyle = BACKEND_COLORS[r.results[i]!.backend] ?? '#aaa';
      ctx.fillRect(x + 4, bottom - h, bw - 8, h);
      ctx.fillStyle = '#d8dde6';
      ctx.fillText(`${fmt(v)} ms`, x + bw / 2, bottom - h - 6);
    });
    ctx.fillStyle = '#8a93a3';
    ctx.fillText(g.label, gi * gw + gw / 2, H - 26);
    // Speed-up of the GPU over the CPU in this phase by the mean, when both ran (benchSummary says the same).
    const c = r.results.find((x) => x.backend === 'cpu');
    const gp = r.results.find((x) => x.backend === 'gpu');
    if (c && gp && g.get(gp) > 0) {
      ctx.fillStyle = '#8a93a3';
      const ratio = g.get(c) / g.get(gp);
      ctx.fillText(ratio >= 1 ? `GPU ${ratio.toFixed(2)}× faster` : `CPU ${(1 / ratio).toFixed(2)}× faster`, gi * gw + gw / 2, H - 8);
    }
  });
  ctx.strokeStyle = 'rgba(255,255,255,0.12)';
  ctx.beginPath();
  ctx.moveTo(0, bottom + 0.5);
  ctx.lineTo(W, bottom + 0.5);
  ctx.stroke();
  // Legend.
  ctx.textAlign = 'left';
  r.results.forEach((x, i) => {
    ctx.fillStyle = BACKEND_COLORS[x.backend] ?? '#aaa';
    ctx.fillRect(4 + i * 70, 6, 10, 10);
    ctx.fillStyle = '#d8dde6';
    ctx.fillText(x.backend.toUpperCase(), 20 + i * 70, 15);
  });
}

main().catch((e: unknown) => {
  const text = e instanceof InputError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const el = $('bench-error');
  el.textContent = `The benchmark failed: ${text}`;
  el.hidden = false;
  $('bench-message').textContent = 'failed';
  // (A link the page could not read leaves no parameters to show.)
  const setup = $('bench-setup');
  if (setup.textContent === READING) setup.textContent = 'the link could not be read (below)';
  document.body.dataset['benchError'] = text;
});
