// Summarises a V8 CPU profile (node --cpu-prof) as the functions with the most
// self time: `node scripts/profile-summary.mjs DIR_OR_FILE [N]`. Plain
// JavaScript with no imports beyond Node's, so scripts/device-bench.sh can
// run it on a machine that has only the packed Node.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, basename } from 'node:path';

const [target, topArg] = process.argv.slice(2);
if (!target) {
  console.error('usage: node scripts/profile-summary.mjs DIR_OR_FILE.cpuprofile [N]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
let files;
try {
  files = statSync(target).isDirectory()
    ? readdirSync(target).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(target, f))
    : [target];
} catch (e) {
  console.error(`profile-summary: cannot read ${target}: ${e.code ?? e.message}`);
  process.exit(1);
}
if (files.length === 0) {
  console.error(`profile-summary: no .cpuprofile file in ${target}`);
  process.exit(1);
}
for (const file of files) {
  let p;
  try {
    p = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`profile-summary: ${file} is not a CPU profile (${e.message})`);
    process.exit(1);
  }
  // Self time per node: each sample's time delta belongs to the node it hit.
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const self = new Map();
  let total = 0;
  for (const n of p.nodes) {
    const ms = (dt.get(n.id) ?? 0) / 1000;
    total += ms;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + ms);
  }
  console.log(`${basename(file)}: ${total.toFixed(0)} ms sampled; self time by function`);
  for (const [k, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${k}`);
  }
}
