/**
 * `stackfield check FILE`: validates a scene or a library without running it
 * (docs/LIBRARY_FORMAT.md, docs/SCENE_FORMAT.md "Command line"). Everything
 * `run` would refuse is refused here with the same message (file, JSON path,
 * what was expected): JSON, keys and values, includes and references, robots,
 * every shape's mesh and every body's mass and inertia; only the fields are
 * not baked and nothing is stepped. A library is checked whole, also what no
 * scene uses.
 */
import type { Command } from './command.ts';
import { parseArgs } from './args.ts';
import { InputError } from '../errors.ts';
import { warnCoincident } from '../scene/build.ts';
import { checkScene, type ShapeMass } from '../scene/shapeBuild.ts';
import { checkDefinitions, EITHER_TOP_LEVEL, gatherFiles, Namespace, readSource, type RobotDef, type SourceFile } from '../scene/library.ts';
import { checkLibraryValues, originsOf } from '../scene/instances.ts';
import { loadSceneFileWithSources, readTextFile } from '../scene/load.ts';
import type { SceneDesc } from '../scene/types.ts';
import { terminalSafe } from '../util/echo.ts';
import { say } from './output.ts';

const help = `stackfield check - validate a scene or a library without running it

Usage:
  stackfield check FILE.json

Reads the file and everything it includes, checks every key, value and
reference, every robot (its joints connect all its parts), every mesh and
every body's mass, and prints a one-line summary. Bakes no field, steps nothing.
Exit codes: 0 valid, 2 bad input (the message names the file, the JSON path and what was expected).
`;

const fsIo = { readText: (p: string) => readTextFile(p, 'included file') };

/** A library read with its includes: the namespace, its robots, and per library file the scene that checks it. */
export interface CheckedLibrary {
  files: SourceFile[];
  ns: Namespace;
  robots: Map<string, RobotDef>;
  /** Per library file (by name): the checking scene and the mass properties of its shapes. */
  scenes: Map<string, { scene: SceneDesc; shapes: Map<string, ShapeMass | null> }>;
}

/** Reads and checks a library file (or a scene's libraries, with the scene as root), meshes and masses included. */
export async function checkLibraryFile(root: SourceFile, warn: (m: string) => void): Promise<CheckedLibrary> {
  const files = await gatherFiles(root, fsIo);
  const ns = new Namespace(files);
  const robots = checkDefinitions(ns);
  const scenes: CheckedLibrary['scenes'] = new Map();
  for (const f of files) {
    if (f.kind !== 'library') continue;
    const scene = checkLibraryValues(ns, robots, f);
    if (!scene) continue;
    scenes.set(f.file, { scene, shapes: await checkMapped(scene, warn) });
  }
  return { files, ns, robots, scenes };
}

/** checkScene with errors mapped back to the files the values came from. */
async function checkMapped(scene: SceneDesc, warn: (m: string) => void): Promise<Map<string, ShapeMass | null>> {
  try {
    return await checkScene(scene, { ...fsIo, warn });
  } catch (e) {
    throw originsOf(scene)?.remap(e) ?? e;
  }
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** Checks FILE; returns the summary line's text after "ok: ". */
export async function checkFile(file: string, warn: (m: string) => void): Promise<string> {
  const root = readSource(await readTextFile(file, 'file'), file, undefined, EITHER_TOP_LEVEL);
  if (root.kind === 'library') {
    const lib = await checkLibraryFile(root, warn);
    const own = (kind: keyof Namespace['defs']) => [...lib.ns.defs[kind].values()].filter((d) => d.source === root).length;
    const inc = lib.files.length - 1;
    return `library, ${plural(own('shape'), 'shape')}, ${plural(own('material'), 'material')}, ${plural(own('body template'), 'body template')}, ` +
      `${plural(own('robot'), 'robot')}${inc > 0 ? ` (${plural(inc, 'included file')} checked too)` : ''}`;
  }
  const loaded = await loadSceneFileWithSources(file);
  const s = loaded.scene;
  await checkMapped(s, warn);
  warnCoincident(s, { warn });
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
    const args = parseArgs(argv, [], []);
    if (args.positionals.length !== 1) {
      throw new InputError(`expected one scene or library file, got ${args.positionals.length}`, undefined, 'command line');
    }
    const file = args.positionals[0]!;
    const summary = await checkFile(file, (m) => say(`stackfield: warning: ${m}`));
    process.stdout.write(`${terminalSafe(file)}: ok: ${summary}\n`);
    return 0;
  },
};
