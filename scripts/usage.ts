/**
 * `--help` (or `-h`) for the measurement scripts: imported first, it prints
 * the running script's own header comment (its usage and what it measures)
 * and exits before anything runs, since most of them take minutes.
 */
import { readFileSync } from 'node:fs';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const script = process.argv[1] ?? '';
  let text = '';
  try {
    const source = readFileSync(script, 'utf8');
    const m = /^\/\*\*([\s\S]*?)\*\//.exec(source.trimStart());
    text = m ? m[1]!.split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim() : '';
  } catch {
    // Fall through to the short line.
  }
  process.stdout.write((text || `usage: npx tsx ${script} [options]`) + '\n');
  process.exit(0);
}
