/**
 * Checking a library whole (docs/LIBRARY_FORMAT.md, "How files are checked"),
 * with its includes read through an `io`: the command line reads files from
 * disk (src/cli/check.ts), the app's editor the files the user opened. Every
 * definition's keys and references, every robot, every shape's mesh and
 * every body's mass and inertia, errors mapped back to the file and JSON path
 * the value came from. No node:* imports.
 */
import { checkDefinitions, gatherFiles, Namespace, type LibraryIo, type RobotDef, type SourceFile } from './library.ts';
import { checkLibraryValues, originsOf } from './instances.ts';
import { checkScene, type BuildLimits, type BuildStage, type ShapeMass } from './shapeBuild.ts';
import type { SceneDesc } from './types.ts';

/** A library read with its includes: the namespace, its robots, and per library file the scene that checks it. */
export interface CheckedLibrary {
  files: SourceFile[];
  ns: Namespace;
  robots: Map<string, RobotDef>;
  /** Per library file (by name): the checking scene and the mass properties of its shapes. */
  scenes: Map<string, { scene: SceneDesc; shapes: Map<string, ShapeMass | null> }>;
}

/**
 * Told when a shape enters a step of its check that reports nothing while it
 * runs (SceneIo.stage: a mesh file parsed, validated, what it encloses
 * analysed), with the file whose shapes are being checked, for a progress
 * display: an 80 000-triangle mesh spends seconds there.
 */
export type CheckStage = (p: BuildStage, file: string) => void;

/**
 * Reads and checks a library (or a scene's libraries, with the scene as
 * root), meshes and masses included. `io` reads included files and mesh
 * files (a mesh by its resolved path, or by its path as written when the
 * library has no directory on disk). `stage`, if given, hears each shape's
 * steps, with the library file that defines the shapes.
 */
export async function checkLibrarySource(
  root: SourceFile,
  io: LibraryIo,
  warn: (m: string) => void,
  limits?: BuildLimits,
  stage?: CheckStage,
): Promise<CheckedLibrary> {
  const files = await gatherFiles(root, io);
  const ns = new Namespace(files);
  const robots = checkDefinitions(ns);
  const scenes: CheckedLibrary['scenes'] = new Map();
  for (const f of files) {
    if (f.kind !== 'library') continue;
    const scene = checkLibraryValues(ns, robots, f);
    if (!scene) continue;
    // Each library file is checked as a scene of its own, its shapes counted from 1: the line names the file.
    scenes.set(f.file, { scene, shapes: await checkMapped(scene, io, warn, limits, stage && ((p) => stage(p, f.file))) });
  }
  return { files, ns, robots, scenes };
}

/**
 * checkScene with errors mapped back to the files the values came from;
 * `limits`: the most a shape may cost (default BUILD_LIMITS); `stage`: told
 * each shape's steps (SceneIo.stage).
 */
export async function checkMapped(
  scene: SceneDesc,
  io: LibraryIo,
  warn: (m: string) => void,
  limits?: BuildLimits,
  stage?: (p: BuildStage) => void,
): Promise<Map<string, ShapeMass | null>> {
  try {
    const readText = (p: string) => (io.readMesh ? io.readMesh(p) : io.readText(p));
    return await checkScene(scene, { readText, warn, ...(limits ? { limits } : {}), ...(stage ? { stage } : {}) });
  } catch (e) {
    throw originsOf(scene)?.remap(e) ?? e;
  }
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** What `stackfield check` says of a checked library, after "ok: ". */
export function librarySummary(lib: CheckedLibrary, root: SourceFile): string {
  const own = (kind: keyof Namespace['defs']) => [...lib.ns.defs[kind].values()].filter((d) => d.source === root).length;
  const inc = lib.files.length - 1;
  return `library, ${plural(own('shape'), 'shape')}, ${plural(own('material'), 'material')}, ${plural(own('body template'), 'body template')}, ` +
    `${plural(own('robot'), 'robot')}${inc > 0 ? ` (${plural(inc, 'included file')} checked too)` : ''}`;
}
