/**
 * `stackfield run SCENE.json [--steps N] [--backend cpu|gpu] [--every K] [--out FILE.jsonl]`
 * (docs/SCENE_FORMAT.md): simulate headlessly and write one JSON line per recorded
 * step. Also `--builtin NAME [--param k=v ...]` for the built-in scenes, and
 * `--dump` to print a built-in's scene JSON instead of running it.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Command } from './main.ts';
import { intFlag, parseArgs, stringFlag } from './args.ts';
import { InputError } from '../errors.ts';
import { createBackend, parseBackendKind } from '../collision/backends.ts';
import { createWorld } from '../scene/build.ts';
import { loadSceneFile } from '../scene/load.ts';
import { validateScene } from '../scene/validate.ts';
import { builtinScene, listBuiltins } from '../scene/builtins.ts';
import type { SceneDesc } from '../scene/types.ts';
import type { World } from '../dynamics/world.ts';
import { softStateJson } from '../soft/output.ts';

const help = `stackfield run - simulate a scene headlessly

Usage:
  stackfield run SCENE.json [options]
  stackfield run --builtin NAME [--param name=value ...] [options]

Options:
  --steps N          steps to simulate (default 200)
  --every K          record every K-th step (default 1); step 0 and the last step are always recorded
  --backend cpu|gpu  penetration-query backend (default cpu)
  --out FILE.jsonl   write the states there (default: standard output)
  --builtin NAME     a built-in scene instead of a file (see --list)
  --param k=v        a built-in scene parameter, e.g. --param rings=60 (repeatable)
  --particles        with soft bodies: write every particle's position (default: centre and volume only)
  --dump             print the scene JSON (of a file after defaults, or of a built-in) and exit
  --list             list the built-in scenes and their parameters

Each line: {"step": 10, "t": 0.1, "bodies": [{"name": "box0", "p": [x,y,z], "q": [x,y,z,w], "v": [..], "w": [..]}]}
p is the centre of mass in world space, q the orientation [x, y, z, w].
A scene with soft bodies adds "soft": [{"name": "blob", "c": [x,y,z], "volume": 0.98}] (c the centre of
mass, volume the enclosed volume over the rest volume), and with --particles "x": [x,y,z, ...] per body.
Exit codes: 0 success, 1 simulation error, 2 bad input.
`;

/** Collects repeated --param k=v flags (parseArgs keeps only the last). */
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
    const num = m ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(num)) {
      throw new InputError(`--param expects name=number, got "${v ?? ''}"`, undefined, 'command line');
    }
    params[m[1]!] = num;
  }
  return { rest, params };
}

export async function loadSceneArg(file: string | undefined, builtin: string | undefined, params: Record<string, number>): Promise<SceneDesc> {
  if (builtin !== undefined) {
    if (file !== undefined) throw new InputError('give either a scene file or --builtin, not both', undefined, 'command line');
    let json: unknown;
    try {
      json = builtinScene(builtin, params);
    } catch (e) {
      throw new InputError((e as Error).message, undefined, '--builtin');
    }
    return validateScene(json, `<builtin:${builtin}>`);
  }
  if (file === undefined) throw new InputError('missing scene file (or --builtin NAME)', undefined, 'command line');
  if (Object.keys(params).length) throw new InputError('--param only applies to --builtin scenes', undefined, 'command line');
  return loadSceneFile(file);
}

export function nodeSceneIo(warn = (m: string) => process.stderr.write(`stackfield: warning: ${m}\n`)) {
  return { readText: (p: string) => readFile(p, 'utf8'), warn };
}

function vec(a: Float64Array, o: number, n: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) out.push(a[o + k]!);
  return out;
}

export function stateLine(world: World, particles = false): string {
  const B = world.bodies;
  const bodies = [];
  for (let i = 0; i < B.count; i++) {
    bodies.push({ name: B.names[i], p: vec(B.pos, 3 * i, 3), q: vec(B.quat, 4 * i, 4), v: vec(B.vel, 3 * i, 3), w: vec(B.angVel, 3 * i, 3) });
  }
  const soft = softStateJson(world, particles);
  return JSON.stringify({ step: world.stepCount, t: Number(world.time.toFixed(12)), bodies, ...(soft ? { soft } : {}) });
}

export const runCommand: Command = {
  summary: 'simulate headlessly',
  help,
  async run(argv) {
    const { rest, params } = extractParams(argv);
    const args = parseArgs(rest, ['dump', 'list', 'particles'], ['steps', 'every', 'backend', 'out', 'builtin']);
    if (args.flags.has('list')) {
      for (const b of listBuiltins()) {
        const ps = b.params.map((p) => `${p.name}=${p.default} [${p.min}..${p.max}]`).join(' ');
        process.stdout.write(`${b.name.padEnd(16)} ${b.title}${ps ? `  (${ps})` : ''}\n`);
      }
      return 0;
    }
    if (args.positionals.length > 1) throw new InputError(`expected one scene file, got ${args.positionals.length}`, undefined, 'command line');
    const steps = intFlag(args, 'steps', 200, 0, 100_000_000);
    const every = intFlag(args, 'every', 1, 1, 100_000_000);
    const kind = parseBackendKind(stringFlag(args, 'backend'));
    const scene = await loadSceneArg(args.positionals[0], stringFlag(args, 'builtin'), params);
    if (args.flags.has('dump')) {
      process.stdout.write(JSON.stringify(builtinOrScene(args, params, scene), null, 2) + '\n');
      return 0;
    }
    const backend = await createBackend(kind);
    const out = stringFlag(args, 'out');
    let stream: WriteStream | null = null;
    if (out) {
      stream = createWriteStream(out);
      await new Promise<void>((res, rej) => {
        stream!.once('open', () => res());
        stream!.once('error', (e) => rej(new InputError(`cannot write: ${e.message}`, out, '--out')));
      });
    }
    const write = (s: string) =>
      new Promise<void>((res) => {
        const target = stream ?? process.stdout;
        if (target.write(s + '\n')) res();
        else target.once('drain', () => res());
      });
    const tty = process.stderr.isTTY === true;
    try {
      const world = await createWorld(scene, backend.query, { ...nodeSceneIo(), bake: backend.bake });
      const particles = args.flags.has('particles');
      await write(stateLine(world, particles));
      let lastBar = 0;
      for (let s = 1; s <= steps; s++) {
        await world.step();
        if (s % every === 0 || s === steps) await write(stateLine(world, particles));
        if (tty && (performance.now() - lastBar > 100 || s === steps)) {
          lastBar = performance.now();
          const w = 30;
          const f = Math.round((s / steps) * w);
          process.stderr.write(`\r[${'#'.repeat(f)}${'.'.repeat(w - f)}] ${s}/${steps} steps, ${world.profile.totalMs.toFixed(1)} ms/step `);
        }
      }
      if (tty && steps > 0) process.stderr.write('\n');
    } finally {
      backend.destroy();
      if (stream) await new Promise<void>((res) => stream!.end(() => res()));
    }
    return 0;
  },
};

/** --dump: the built-in's raw JSON (editable), or the file's scene after defaults. */
function builtinOrScene(args: ReturnType<typeof parseArgs>, params: Record<string, number>, scene: SceneDesc): unknown {
  const b = stringFlag(args, 'builtin');
  return b !== undefined ? builtinScene(b, params) : scene;
}
