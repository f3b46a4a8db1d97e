/**
 * `stackfield run SCENE.json [--steps N] [--backend cpu|gpu] [--every K] [--out FILE.jsonl]`
 * (docs/SCENE_FORMAT.md): simulate headlessly and write one JSON line per recorded
 * step, then a summary of the run on standard error; `--threads N` sets the
 * CPU query threads. Also `--builtin NAME
 * [--param k=v ...]` for the built-in scenes, `--dump` to write a scene's JSON
 * instead of running it, and `--list` for the built-ins.
 */
import { dirname, relative, resolve } from 'node:path';
import type { Command } from './command.ts';
import { choiceFlag, intFlag, parseArgs, stringFlag } from './args.ts';
import { InputError, SimulationError } from '../errors.ts';
import { createBackend, parseBackendKind } from '../backends.ts';
import { createWorld } from '../scene/build.ts';
import { BUILD_LIMITS, buildStageText, fmtSeconds } from '../scene/shapeBuild.ts';
import { formatJson } from '../scene/json.ts';
import { sceneToJson, withMeshPaths } from '../scene/dump.ts';
import { listBuiltins } from '../scene/builtins.ts';
import type { World } from '../dynamics/world.ts';
import { escapeControls, quote } from '../util/echo.ts';
import { LineSink, OutputFile, say, sayRaw, writeOutputFile } from './output.ts';
import { Progress } from './progress.ts';
import { formatSummary, nonFiniteFigure, RunTracker } from './summary.ts';
import { softStateJson } from '../soft/output.ts';
import { nodeSceneIo } from './nodeIo.ts';
import { applySolverFlag, extractParams, LIMIT_FLAGS, limitFlags, loadSceneArgWithSources, sceneInputs, threadsFlag } from './sceneArgs.ts';

const help = `stackfield run - simulate a scene headlessly

Usage:
  stackfield run SCENE.json [options]
  stackfield run --builtin NAME [--param name=value ...] [options]

Options:
  --steps N             steps to simulate (default 200)
  --every K             record every K-th step (default 1); step 0 and the last step are always recorded
  --backend cpu|gpu     penetration-query backend (default cpu)
  --threads N           threads for the CPU queries, 1 = one thread (default: the cores, at most 8);
                        any N gives the same results bit for bit
  --solver NAME         contact solver: sequential or seed (the seed's impulses and shock propagation),
                        pgs (projected Gauss-Seidel) or accumulated (persistent, sub-stepped,
                        warm-started); default: the scene's "solver.contactSolver"
  --out FILE.jsonl      write the states there (default: standard output); the file is replaced
                        only when the run succeeds, and may not be one of the inputs
  --precision D         round every number of the states to D decimals (0 to 17; default: exact)
  --summary text|json|none
                        the summary on standard error when the run ends (default text)
  --builtin NAME        a built-in scene instead of a file (see --list)
  --param k=v           a built-in scene parameter, e.g. --param rings=60 (repeatable)
  --particles           with soft bodies: write every particle's position (default: centre and
                        volume only)
  --dump                write the scene JSON (of a file after defaults, or of a built-in) to
                        standard output or --out, and exit; run loads it (mesh paths are
                        relative to the --out file's directory, or to the working directory)
  --flatten             with --dump: write the equivalent self-contained scene (library instances
                        written out as plain bodies, joints and motors), a file run can load
  --list                list the built-in scenes, what they show and their parameters
  --max-triangles N     refuse a shape with more triangles (default ${BUILD_LIMITS.maxTriangles})
  --max-sdf-nodes N     refuse a shape whose SDF grid has more nodes (default ${BUILD_LIMITS.maxSdfNodes})

Each line: {"step": 10, "t": 0.1, "bodies": [{"name": "box0", "p": [x,y,z], "q": [x,y,z,w], "v": [..], "w": [..]}]}
p is the centre of mass in world space, q the orientation [x, y, z, w].
A scene with soft bodies adds "soft": [{"name": "blob", "c": [x,y,z], "volume": 0.98}] (c the centre of
mass, volume the enclosed volume over the rest volume), and with --particles "x": [x,y,z, ...] per body.
No line holds a non-finite number: a state that is not finite stops the run with exit code 1.
The summary: steps, simulated and wall time, bodies at rest, deepest penetration, energy
change, lowest and highest point, bodies below a ground plane, non-finite values.
Exit codes: 0 success (also when the reader of standard output goes away),
1 simulation or GPU error, 2 bad input or output that cannot be written.
`;

/** Rounds to `decimals` decimals (exact when null); -0 becomes 0. */
function rounder(decimals: number | null): (x: number) => number {
  if (decimals === null) return (x) => x;
  const f = 10 ** decimals;
  return (x) => {
    // Through toFixed's decimal rounding would be exact, but slower by far; x * f stays exact enough below 1e15.
    const r = Math.abs(x) < 1e15 / f ? Math.round(x * f) / f : x;
    return r === 0 ? 0 : r;
  };
}

/**
 * One state line. Every number is checked first: nothing non-finite is ever
 * written (the World's own guard should have stopped the run already; this is
 * the last line of defence for the file).
 */
export function stateLine(world: World, round: (x: number) => number = (x) => x, particles = false): string {
  const B = world.bodies;
  const bodies = [];
  const fields = [
    ['p', B.pos, 3],
    ['q', B.quat, 4],
    ['v', B.vel, 3],
    ['w', B.angVel, 3],
  ] as const;
  for (let i = 0; i < B.count; i++) {
    const body: Record<string, unknown> = { name: B.names[i] };
    for (const [key, arr, n] of fields) {
      const out: number[] = [];
      for (let k = 0; k < n; k++) {
        const x = arr[n * i + k]!;
        if (!Number.isFinite(x)) {
          throw new SimulationError(
            `body ${quote(B.names[i]!)}: ${key}[${k}] is ${x} at step ${world.stepCount}; the state is not finite, so it is not written`,
          );
        }
        out.push(round(x));
      }
      body[key] = out;
    }
    bodies.push(body);
  }
  const soft = softStateJson(world, particles, round);
  for (const b of soft ?? []) {
    for (const [key, xs] of [['c', b.c], ['volume', [b.volume]], ['x', b.x ?? []]] as const) {
      const k = xs.findIndex((x) => !Number.isFinite(x));
      if (k >= 0) {
        throw new SimulationError(
          `soft body ${quote(b.name)}: ${key === 'volume' ? key : `${key}[${k}]`} is ${xs[k]} at step ${world.stepCount}; the state is not finite, so it is not written`,
        );
      }
    }
  }
  // JSON.stringify leaves raw what a terminal may act on in a name (C1
  // controls, bidirectional overrides); escapeControls writes them as
  // \uXXXX, the same string to any JSON reader.
  return escapeControls(JSON.stringify({ step: world.stepCount, t: round(Number(world.time.toFixed(12))), bodies, ...(soft ? { soft } : {}) }));
}

/** `run --list`: each built-in with what it shows and its parameters. */
function listText(): string {
  const out: string[] = [];
  for (const b of listBuiltins()) {
    out.push(`${b.name}  ${b.title}`);
    out.push(...wrap(b.description, 88, '    '));
    for (const p of b.params) {
      const count = b.count === p.name ? '; the body count bench --bodies sets' : '';
      out.push(`    --param ${p.name}=${p.default}  (${p.min} to ${p.max}${count})`);
      out.push(...wrap(p.description, 88, '        '));
    }
    out.push('');
  }
  return out.join('\n');
}

/** Words to lines of at most `width` characters. */
function wrap(text: string, width: number, first: string, rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(/\s+/)) {
    const prefix = lines.length === 0 ? first : rest;
    if (line.length > prefix.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
    }
    line += (line.length > (lines.length === 0 ? first : rest).length ? ' ' : '') + word;
  }
  if (line.trim()) lines.push(line);
  return lines;
}

export const runCommand: Command = {
  summary: 'simulate headlessly',
  help,
  async run(argv) {
    const { rest, params } = extractParams(argv);
    const args = parseArgs(rest, ['dump', 'list', 'flatten', 'particles'], ['steps', 'every', 'backend', 'out', 'builtin', 'precision', 'summary', 'threads', 'solver', ...LIMIT_FLAGS]);
    if (args.flags.has('list')) {
      // The list is all --list does: anything else given with it would be silently dropped.
      const other = [...args.flags.keys()].filter((f) => f !== 'list').map((f) => `--${f}`);
      if (Object.keys(params).length > 0) other.push('--param');
      if (args.positionals.length > 0) other.push(quote(args.positionals[0]!));
      if (other.length > 0) throw new InputError(`--list lists the built-in scenes and takes nothing else (got ${other.join(', ')})`, undefined, 'command line');
      process.stdout.write(listText());
      return 0;
    }
    if (args.flags.has('dump')) {
      // Options of a run that a dump never makes.
      const unused = ['steps', 'every', 'precision', 'summary', 'backend', 'threads', 'particles', ...LIMIT_FLAGS].filter((f) => args.flags.has(f));
      if (unused.length > 0) {
        throw new InputError(`${unused.map((f) => `--${f}`).join(', ')} ${unused.length === 1 ? 'has' : 'have'} no effect with --dump, which writes the scene and runs nothing`, undefined, 'command line');
      }
    }
    if (args.positionals.length > 1) {
      throw new InputError(`expected one scene file, got ${args.positionals.length} (${args.positionals.slice(0, 3).map((p) => quote(p)).join(' ')})`, undefined, 'command line');
    }
    const steps = intFlag(args, 'steps', 200, 0, 100_000_000);
    const every = intFlag(args, 'every', 1, 1, 100_000_000);
    const precision = args.flags.has('precision') ? intFlag(args, 'precision', 0, 0, 17) : null;
    const summaryKind = choiceFlag(args, 'summary', ['text', 'json', 'none'] as const, 'text');
    const kind = parseBackendKind(stringFlag(args, 'backend'));
    const limits = limitFlags(args);
    const file = args.positionals[0];
    const builtin = stringFlag(args, 'builtin');
    const flatten = args.flags.has('flatten');
    if (flatten && !args.flags.has('dump')) throw new InputError('--flatten only applies with --dump', undefined, 'command line');
    const loaded = await loadSceneArgWithSources(file, builtin, params);
    const scene = loaded.scene;
    applySolverFlag(args, scene);
    const out = stringFlag(args, 'out');
    const inputs = sceneInputs(scene, file, loaded.libraries);

    if (args.flags.has('dump')) {
      // The built-in's raw JSON (editable), or the file's scene after defaults; flattened: the plain
      // scene its library instances write out (a built-in's JSON is plain already).
      // A file's scene after defaults is written back as scene JSON run loads (src/scene/dump.ts), its mesh
      // paths relative to where the dump goes (the --out file's directory, or the working directory).
      const dumpDir = out !== undefined ? dirname(resolve(out)) : process.cwd();
      const meshPath = (d: { resolvedPath: string }): string => relative(dumpDir, d.resolvedPath) || d.resolvedPath;
      const json = builtin !== undefined || flatten ? withMeshPaths(loaded.flat, scene, meshPath) : sceneToJson(scene, meshPath);
      const text = formatJson(json) + '\n';
      if (out !== undefined) await writeOutputFile(out, text, inputs);
      else await new LineSink(null).write(text.slice(0, -1));
      return 0;
    }

    // Open (and check) the output before the costly part, so a bad --out fails at once.
    const sink = new LineSink(out !== undefined ? await OutputFile.open(out, inputs) : null);
    let backend: Awaited<ReturnType<typeof createBackend>> | null = null;
    const progress = new Progress(true);
    try {
      backend = await createBackend(kind, { threads: await threadsFlag(args) });
      const t0 = performance.now();
      const io = nodeSceneIo();
      const world = await createWorld(scene, backend.query, {
        ...io,
        // A warning goes on a line of its own, not after the progress line drawn in place.
        warn: (m) => {
          progress.done();
          io.warn?.(m);
        },
        bake: backend.bake,
        bakeAll: backend.bakeAll,
        limits,
        progress: (p) =>
          progress.update(
            `building the world: shape ${p.index + 1} of ${p.count} (${quote(p.shape)}), SDF ${Math.round(100 * p.fraction)}%` +
              (p.estimate >= 1 ? `, about ${fmtSeconds(p.estimate)} for this shape` : ''),
          ),
        // Parsing, checking and analysing a big mesh before its bake, its samples after (a terminal only).
        stage: (p) => progress.step(`building the world: ${buildStageText(p)}`, 1000 * p.estimate),
      });
      progress.done();
      // Every query worker asked for must have started (a WorkerError otherwise):
      // the summary names the thread count the run had.
      await backend.ready();
      const sceneName = builtin !== undefined ? `built-in ${builtin}` : (file ?? scene.file);
      const tracker = new RunTracker(world, sceneName, backend.kind, backend.threads, (performance.now() - t0) / 1000);
      const round = rounder(precision);
      const particles = args.flags.has('particles');
      await sink.write(stateLine(world, round, particles));
      const t1 = performance.now();
      progress.restart();
      for (let s = 1; s <= steps && !sink.closed; s++) {
        await world.step();
        tracker.afterStep();
        if (s % every === 0 || s === steps) await sink.write(stateLine(world, round, particles));
        // The mean over the run so far: one step's time jumps (a landing) and reads 0.0 once the bodies sleep.
        progress.update(`step ${s} of ${steps} (${Math.round((100 * s) / steps)}%), ${((performance.now() - t1) / s).toFixed(1)} ms per step on average`);
      }
      progress.done();
      const stepSeconds = (performance.now() - t1) / 1000;
      // The reader of standard output went away (`| head -1`): stop quietly, like any filter.
      if (sink.closed) return 0;
      const summary = tracker.summary(stepSeconds);
      // Checked whatever --summary says: a figure that overflowed means the run did (the output is not kept).
      const bad = nonFiniteFigure(summary);
      if (bad) {
        throw new SimulationError(
          `the run's ${bad.path.replace(/\./g, ' ')} is ${bad.value} after ${summary.steps} steps although every state was finite: ` +
            `the scene's magnitudes overflow 64-bit floats in the summary's figures`,
        );
      }
      await sink.commit();
      if (summaryKind === 'text') say(formatSummary(summary, (n) => quote(n), builtin !== undefined ? sceneName : quote(sceneName, 200)));
      // JSON.stringify escapes C0 controls; escapeControls the rest (bidi marks in a name) as \uXXXX, still valid JSON.
      else if (summaryKind === 'json') sayRaw(`${escapeControls(JSON.stringify({ summary }))}\n`);
      return 0;
    } catch (e) {
      progress.done();
      await sink.abort();
      throw e;
    } finally {
      backend?.destroy();
    }
  },
};
