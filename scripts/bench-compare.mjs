// Puts the backends of `stackfield bench --json` results side by side, one
// table per file: `node scripts/bench-compare.mjs FILE.json [FILE.json ...]`.
// A scene benchmark gives the whole step, the query stage (collisionQuery +
// contactQuery), the solve stages (collisionSolve + contactPrepare +
// contactSolve), each phase's median step, and the counts that explain them;
// an SDF benchmark gives each bake's median. Plain JavaScript with no imports
// beyond Node's, so scripts/device-bench.sh runs it with the packed Node alone.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/bench-compare.mjs FILE.json [FILE.json ...]   (files from stackfield bench --json --out)');
  process.exit(2);
}

// Text from the files and their names, printed with control characters and bidi marks escaped.
const safe = (v) => String(v).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const num = (v, digits = 2) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-');
const sum = (stages, names) => names.reduce((s, n) => s + (stages?.[n]?.mean ?? 0), 0);

function table(head, rows) {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells) => cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

function sceneTable(j) {
  const rs = j.results;
  const head = ['', ...rs.map((r) => safe(r.backend))];
  const row = (label, f) => [label, ...rs.map((r) => f(r))];
  const rows = [
    row('step mean (ms)', (r) => num(r.stepMs?.mean)),
    row('step median', (r) => num(r.stepMs?.median)),
    row('step p95', (r) => num(r.stepMs?.p95)),
    row('query stage mean', (r) => num(sum(r.stages, ['collisionQuery', 'contactQuery']))),
    row('solve stages mean', (r) => num(sum(r.stages, ['collisionSolve', 'contactPrepare', 'contactSolve']))),
    row('backend calls mean', (r) => num(r.backendMs?.mean)),
    row('GPU dispatch mean (steps with one)', (r) => num(r.gpuQueryMs?.mean, 3)),
    row('garbage collection a step', (r) => (r.gcPerStep ? `${num(r.gcPerStep.ms)} (${num(r.gcPerStep.pauses)} pauses)` : '-')),
    ...['falling', 'landing', 'settled'].map((w) => row(`${w} median`, (r) => {
      const win = r.windows?.[w];
      return win && win.steps > 0 ? `${num(win.stepMs?.median)} (${win.fromStep}-${win.toStep})` : '-';
    })),
    row('query calls (max)', (r) => `${num(r.queryCallsPerStep)} (${r.maxQueryCalls ?? '-'})`),
    row('readbacks (max)', (r) => `${num(r.readbacksPerStep)} (${r.maxReadbacks ?? '-'})`),
    row('contacts a step', (r) => num(r.contactsPerStep, 0)),
    row('all asleep from (s)', (r) => (!r.sleep ? '-' : r.sleep.allAsleepFromS !== null ? num(r.sleep.allAsleepFromS) : `never (${r.sleep.asleepAtEnd} of ${r.sleep.dynamic} at the end)`)),
    row('awake a step', (r) => num(r.awakePerStep, 0)),
  ];
  return `${safe(j.scene)}, ${safe(j.bodies)} bodies, ${safe(j.steps)} steps, ${safe(j.contactSolver ?? 'its own')} contact stage (${safe(j.platform ?? 'unknown machine')})\n${table(head, rows)}`;
}

function sdfTable(j) {
  const backends = [...new Set(j.results.map((r) => safe(r.backend)))];
  const key = (r) => safe(`${r.mesh} ${r.cells}`);
  const keys = [...new Set(j.results.map(key))];
  const rows = keys.map((k) => [k, ...backends.map((b) => num(j.results.find((r) => safe(r.backend) === b && key(r) === k)?.ms?.median, 1))]);
  return `SDF bakes, median ms (${safe(j.platform ?? 'unknown machine')})\n${table(['mesh cells', ...backends], rows)}`;
}

let failed = false;
for (const file of files) {
  let j;
  try {
    j = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`bench-compare: ${safe(file)}: ${e.code === 'ENOENT' ? 'no such file' : safe(e.code ?? e.message)}`);
    failed = true;
    continue;
  }
  if (!j || !Array.isArray(j.results) || !j.results.every((r) => r && typeof r === 'object')) {
    console.error(`bench-compare: ${safe(file)}: expected the JSON of stackfield bench (an object with "results")`);
    failed = true;
    continue;
  }
  console.log(`== ${safe(basename(file))}: ${j.benchmark === 'sdf' ? sdfTable(j) : sceneTable(j)}\n`);
}
process.exit(failed ? 1 : 0);
