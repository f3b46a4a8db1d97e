/**
 * The layering of src/ (docs/STYLE.md point 1): no module imports, directly
 * or through others, a module that imports it back. A small static scan of
 * every relative import of src/: `import ... from`, `import type ... from`,
 * `export ... from`, side-effect imports and `import('./x.ts')` (awaited or
 * not), type-only imports included, since a cycle of types is still a cycle
 * of concepts. Cycles are the strongly connected components of that graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

/** Cycles still to be broken, each as its sorted files (none left). */
const ALLOWED: string[][] = [];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mts|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The text without comments (block comments, and line comments that start a line or follow code after a space). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

const IMPORT_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\s*\(\s*(?:\/\*[^*]*\*\/\s*)?['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  /^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
];

/** The relative imports of one file's modules (not its stylesheets), as files of src/ (relative paths). */
export function importsOf(text: string, file: string): string[] {
  const code = stripComments(text);
  const out = new Set<string>();
  for (const re of IMPORT_PATTERNS) {
    for (const m of code.matchAll(re)) if (/\.(ts|mts|mjs|js)$/.test(m[1]!)) out.add(relative(SRC, resolve(dirname(file), m[1]!)));
  }
  return [...out];
}

/** Strongly connected components of more than one file (or a file importing itself), each sorted. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [], found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('imports of src/', () => {
  it('the scanner sees every kind of relative import, and no commented one', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b/b.ts';",
      'import {\n  c,\n  type C,\n} from "./c.ts";',
      "export { d } from './d.ts';",
      "export * from './e.ts';",
      "const { f } = await import('./f.ts');",
      "const g = import(/* @vite-ignore */ './g.ts');",
      "import './h.ts';",
      "import './style.css';",
      "import { x } from 'node:fs';",
      "// import { no } from './comment.ts';",
      "/* import { no } from './block.ts'; */",
    ].join('\n');
    expect(importsOf(text, join(SRC, 'scene', 'x.ts')).sort()).toEqual(
      ['b/b.ts', 'scene/a.ts', 'scene/c.ts', 'scene/d.ts', 'scene/e.ts', 'scene/f.ts', 'scene/g.ts', 'scene/h.ts'],
    );
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']], ['e', ['a']]]);
    expect(cycles(g)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('form no cycle (but the allowed ones, which still exist)', () => {
    const graph = new Map<string, string[]>();
    for (const f of sourceFiles(SRC)) graph.set(relative(SRC, f), importsOf(readFileSync(f, 'utf8'), f));
    // Every import names a file that exists (else the graph would miss edges).
    for (const [f, deps] of graph) for (const d of deps) expect(graph.has(d), `${f} imports ${d}`).toBe(true);
    const found = cycles(graph);
    const key = (c: string[]): string => c.join(' <-> ');
    const unexpected = found.filter((c) => !ALLOWED.some((a) => key(a) === key(c)));
    expect(unexpected.map(key)).toEqual([]);
    // An allowed cycle that is gone must leave the list.
    for (const a of ALLOWED) expect(found.map(key), `allowed cycle ${key(a)} no longer exists`).toContain(key(a));
  });
});
