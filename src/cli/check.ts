/**
 * `stackfield check FILE`: validates a scene or a library without running it
 * (docs/LIBRARY_FORMAT.md, docs/SCENE_FORMAT.md "Command line"). Everything
 * `run` would refuse is refused here with the same message (file, JSON path,
 * what was expected): JSON, keys and values, includes and references, robots,
 * every shape's mesh and every body's mass and inertia; only the fields are
 * not baked and nothing is stepped. A library is checked whole, also what no
 * scene uses.
 *
 * On a terminal the steps of a big mesh's check (parsing, validation, what
 * it encloses) name themselves on the progress line, as in `run` and `sdf`:
 * an 80 000-triangle mesh spends seconds there. A file or a pipe gets none.
 */
import { basename } from 'node:path';
import type { Command } from './command.ts';
import { parseArgs } from './args.ts';
import { LIMIT_FLAGS, limitFlags } from './sceneArgs.ts';
import { buildStageText, shapeCost, type BuildLimits, type BuildStage } from '../scene/shapeBuild.ts';
import { InputError } from '../errors.ts';
import { unusedShapes, unusedShapeWarning, warnBehindPlanes, warnCoincident, warnOpenJointsAtStart } from '../scene/build.ts';
import { EITHER_TOP_LEVEL, readSource, type SourceFile } from '../scene/library.ts';
import { checkLibrarySource, checkMapped, librarySummary, type CheckedLibrary, type CheckStage } from '../scene/libraryCheck.ts';
import { librarySearchPath, loadSceneFileWithSources, readTextFile } from '../scene/load.ts';
import { fileLabel, quote } from '../util/echo.ts';
import { readMeshText } from './nodeIo.ts';
import { buildSoftSystem, softCostWarning } from '../soft/build.ts';
import { say } from './output.ts';
import { Progress } from './progress.ts';

const help = `stackfield check - validate a scene or a library without running it

Usage:
  stackfield check FILE.json [--max-triangles N] [--max-sdf-nodes N]

Reads the file and everything it includes, checks every key, value and
reference, every robot (its joints connect all its parts), every mesh and
every body's mass, and prints a one-line summary. Steps nothing, and bakes no
field but a soft body's (its particles, pins and substep budget are checked
on the lattice the field gives).
Warns as run does (a repaired mesh, a shape no body uses, bodies that start
exactly on each other or behind a floor plane, a joint that starts open, soft
bodies whose every step takes a second or more), but for what needs a baked
field: bodies that start deep inside each other, and a shape too thin for any
node of its field to lie inside it; run says those.
--max-triangles and --max-sdf-nodes raise the most a shape may cost, as for
run (a shape beyond them is refused, saying what it would cost).
Exit codes: 0 valid, 2 bad input (the message names the file, the JSON path and what was expected).
`;

export type { CheckedLibrary, CheckStage };

const fsIo = { readText: (p: string) => readTextFile(p, 'included file'), readMesh: readMeshText };

/**
 * Reads and checks a library file (or a scene's libraries, with the scene as
 * root) from disk, meshes and masses included; `stage` hears each shape's
 * steps (CheckStage).
 */
export function checkLibraryFile(root: SourceFile, warn: (m: string) => void, limits?: BuildLimits, stage?: CheckStage): Promise<CheckedLibrary> {
  // A scene's robots and templates that its includes do not define are looked for on the search path, as run does.
  return checkLibrarySource(root, root.kind === 'scene' ? { ...fsIo, searchPath: () => librarySearchPath(root.file) } : fsIo, warn, limits, stage);
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * Checks FILE (its shapes within `limits`, default BUILD_LIMITS); returns the
 * summary line's text after "ok: ". `stage` hears each shape's steps, with
 * the file that defines the shapes (FILE for a scene, whose included
 * libraries' shapes it checks as its own).
 */
export async function checkFile(file: string, warn: (m: string) => void, limits?: BuildLimits, stage?: CheckStage): Promise<string> {
  const text = await readTextFile(file, 'file');
  const root = readSource(text, file, undefined, EITHER_TOP_LEVEL);
  if (root.kind === 'library') {
    return librarySummary(await checkLibraryFile(root, warn, limits, stage), root);
  }
  const loaded = await loadSceneFileWithSources(file, text);
  const s = loaded.scene;
  const shapes = await checkMapped(s, fsIo, warn, limits, stage && ((p) => stage(p, file)));
  // The warnings createWorld gives that need no baked field (the help says which others run adds).
  for (const name of unusedShapes(s)) warn(unusedShapeWarning(s, name));
  warnCoincident(s, { warn });
  warnBehindPlanes(s, (name) => shapes.get(name)?.comOffset ?? null, warn);
  warnOpenJointsAtStart(s, shapes, warn);
  // A soft body's particles come from its shape's field: its construction, pins and substep budget are checked
  // only once they exist, so its shapes are baked here (run refuses the same scenes with the same messages).
  if (s.softBodies.length > 0) {
    const { system } = await buildSoftSystem(s, { readText: readMeshText, warn: () => {} });
    const slow = softCostWarning(system, s);
    if (slow) warn(slow);
  }
  const robots = Array.isArray(root.json['robots']) ? (root.json['robots'] as unknown[]).length : 0;
  const inc = loaded.files.length - 1;
  return `scene, ${plural(s.bodies.length, 'body', 'bodies')}${robots > 0 ? ` (${plural(robots, 'robot')})` : ''}, ` +
    `${plural(s.joints.length, 'joint')}, ${plural(s.motors.length, 'motor')}, ${plural(Object.keys(s.shapes).length, 'shape')}` +
    `${s.softBodies.length > 0 ? `, ${plural(s.softBodies.length, 'soft body', 'soft bodies')}` : ''}${inc > 0 ? `, ${plural(inc, 'included file')}` : ''}`;
}

export const checkCommand: Command = {
  summary: 'validate a scene or library without running it',
  help,
  async run(argv) {
    const args = parseArgs(argv, [], LIMIT_FLAGS);
    if (args.positionals.length !== 1) {
      throw new InputError(`expected one scene or library file, got ${args.positionals.length}`, undefined, 'command line');
    }
    const file = args.positionals[0]!;
    const progress = new Progress(true);
    // No bake follows the check: the step's work left is the mesh's alone (shapeCost without nodes).
    const stage = (p: BuildStage, source: string) =>
      progress.step(`checking ${quote(basename(source), 80)}: ${buildStageText(p)}`, 1000 * shapeCost(p.triangles, 0).seconds);
    let summary: string;
    try {
      summary = await checkFile(
        file,
        (m) => {
          // A warning goes on a line of its own, not after the progress line drawn in place.
          progress.done();
          say(`stackfield: warning: ${m}`);
        },
        limitFlags(args),
        stage,
      );
    } finally {
      // Off the terminal's line before the summary or the error message.
      progress.done();
    }
    process.stdout.write(`${fileLabel(file)}: ok: ${summary}\n`);
    return 0;
  },
};
