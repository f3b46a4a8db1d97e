/**
 * What `run` and `bench` read from the command line besides their own
 * options: the scene (a file, or `--builtin NAME` with `--param k=v`), the
 * contact solver, the thread count, the size limits, and the files a scene
 * reads (which `--out` must not name).
 */
import { choiceFlag, intFlag, stringFlag, type ParsedArgs } from './args.ts';
import { InputError } from '../errors.ts';
import { parseThreads } from '../backends.ts';
import { availableCores, defaultThreads } from '../collision/parallelQuery.ts';
import { BUILD_LIMITS, type BuildLimits } from '../scene/shapeBuild.ts';
import { loadSceneFileWithSources } from '../scene/load.ts';
import { validateScene } from '../scene/validate.ts';
import { builtinScene, listBuiltins } from '../scene/builtins.ts';
import type { SceneDesc } from '../scene/types.ts';
import { quote } from '../util/echo.ts';
import { childPath, define } from '../scene/reader.ts';

/**
 * `--solver sequential|pgs|accumulated`: the contact solver, in place of the scene's own
 * ("solver": {"contactSolver"}), so both run on the same scene. `seed` is `sequential`.
 */
export function applySolverFlag(args: ParsedArgs, scene: SceneDesc): void {
  if (!args.flags.has('solver')) return;
  const named = choiceFlag(args, 'solver', ['sequential', 'pgs', 'accumulated', 'seed'] as const, 'sequential');
  scene.solver = { ...scene.solver, contactSolver: named === 'seed' ? 'sequential' : named };
}

/** Most query threads per core `--threads` takes. */
export const THREADS_PER_CORE = 8;

/**
 * `--threads N` (at most THREADS_PER_CORE per core of this machine), or the
 * default: every core, at most MAX_DEFAULT_THREADS. On 2 cores, 256 threads
 * took 30 s to start 93 workers and then failed.
 */
export async function threadsFlag(args: ParsedArgs): Promise<number> {
  const v = stringFlag(args, 'threads');
  if (v === undefined) return defaultThreads();
  const n = parseThreads(v);
  const cores = await availableCores();
  if (n > THREADS_PER_CORE * cores) {
    throw new InputError(
      `--threads: expected at most ${THREADS_PER_CORE * cores} on this machine (${THREADS_PER_CORE} per core, ${cores} core${cores === 1 ? '' : 's'}), got ${n}: ` +
        'threads beyond the cores only wait for them, and each takes a while to start',
      undefined,
      'command line',
    );
  }
  return n;
}

/** Collects repeated --param k=v flags (parseArgs keeps only the last). */
/** A decimal number as --param takes it: digits, a point, an exponent; no hex, binary, blanks or words. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function extractParams(argv: string[]): { rest: string[]; params: Record<string, number> } {
  const rest: string[] = [];
  const params: Record<string, number> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let v: string | undefined;
    if (a === '--param') v = argv[++i];
    else if (a.startsWith('--param=')) v = a.slice(8);
    else {
      rest.push(a);
      continue;
    }
    const m = v === undefined ? null : /^([A-Za-z_][\w-]*)=(.+)$/.exec(v);
    // A decimal number (Number() alone also reads "0x10", "0b11" and " " as numbers).
    const num = m && DECIMAL.test(m[2]!) ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(num)) {
      throw new InputError(`--param expects name=number (a decimal number such as 20, 0.5 or 1e-3), got ${quote(v ?? '')}`, undefined, 'command line');
    }
    // A number too close to 0 for a double reads as 0, and the range message then showed 0.
    if (num === 0 && /[1-9]/.test(m[2]!.replace(/[eE].*$/, ''))) {
      throw new InputError(`--param ${m[1]}: ${quote(m[2]!)} is too close to 0 for a double (it reads as 0)`, undefined, 'command line');
    }
    if (Object.hasOwn(params, m[1]!)) throw new InputError(`--param ${m[1]} given twice (give each parameter once)`, undefined, 'command line');
    // define, not assignment: a parameter named "__proto__" is a name like any other (and unknown to every scene).
    define(params, m[1]!, num);
  }
  return { rest, params };
}

export async function loadSceneArg(file: string | undefined, builtin: string | undefined, params: Record<string, number>): Promise<SceneDesc> {
  return (await loadSceneArgWithSources(file, builtin, params)).scene;
}

/** A scene from the command line, with its plain JSON (a built-in's own, or a file's flattened) and the libraries it includes. */
export async function loadSceneArgWithSources(
  file: string | undefined,
  builtin: string | undefined,
  params: Record<string, number>,
): Promise<{ scene: SceneDesc; flat: unknown; libraries: string[] }> {
  if (builtin !== undefined) {
    if (file !== undefined) throw new InputError('give either a scene file or --builtin, not both', undefined, 'command line');
    // An integer parameter (a count) was rounded silently: --param rings=2.5 built 3 rings.
    const info = listBuiltins().find((b) => b.name === builtin);
    for (const p of info?.params ?? []) {
      const v = params[p.name];
      if (v !== undefined && p.step !== undefined && p.step >= 1 && !Number.isInteger(v)) {
        throw new InputError(`--param ${p.name} of scene ${quote(builtin)} expects an integer from ${p.min} to ${p.max}, got ${v}`, undefined, 'command line');
      }
    }
    let json: unknown;
    try {
      json = builtinScene(builtin, params);
    } catch (e) {
      throw new InputError(`--builtin: ${(e as Error).message}`, undefined, 'command line');
    }
    return { scene: validateScene(json, `<builtin:${builtin}>`), flat: json, libraries: [] };
  }
  if (file === undefined) throw new InputError('missing scene file (or --builtin NAME)', undefined, 'command line');
  if (Object.keys(params).length) throw new InputError('--param only applies to --builtin scenes', undefined, 'command line');
  const loaded = await loadSceneFileWithSources(file);
  return { scene: loaded.scene, flat: loaded.flat, libraries: loaded.files.slice(1).map((f) => f.file) };
}

/** --max-triangles and --max-sdf-nodes, with the words a refusal uses to say how to raise them. */
export function limitFlags(args: ParsedArgs): BuildLimits {
  return {
    maxTriangles: intFlag(args, 'max-triangles', BUILD_LIMITS.maxTriangles, 1, 1e9),
    maxSdfNodes: intFlag(args, 'max-sdf-nodes', BUILD_LIMITS.maxSdfNodes, 8, 1e10),
    names: { maxTriangles: '--max-triangles N', maxSdfNodes: '--max-sdf-nodes N' },
  };
}

export const LIMIT_FLAGS = ['max-triangles', 'max-sdf-nodes'];

/** The files a scene reads, which --out must not name. */
export function sceneInputs(scene: SceneDesc, file: string | undefined, libraries: readonly string[] = []): { path: string; what: string }[] {
  const inputs = file !== undefined ? [{ path: file, what: 'the scene file' }] : [];
  for (const lib of libraries) inputs.push({ path: lib, what: 'a library the scene includes' });
  for (const [name, d] of Object.entries(scene.shapes)) {
    if (d.type === 'mesh') inputs.push({ path: d.resolvedPath, what: `the mesh file of ${childPath('shapes', name)}` });
  }
  return inputs;
}
