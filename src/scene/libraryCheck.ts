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
import { checkScene, type BuildLimits, type ShapeMass } from './shapeBuild.ts';
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
 * Reads and checks a library (or a scene's libraries, with the scene as
 * root), meshes and masses included. `io` reads included files and mesh
 * files (a mesh by its resolved path, or by its path as written when the
 * library has no directory on disk).
 */
export async function checkLibrarySource(root: SourceFile, io: LibraryIo, warn: (m: string) => void, limits?: BuildLimits): Promise<CheckedLibrary> {
  const files = await gatherFiles(root, io);
  const ns = new Namespace(files);
  const robots = checkDefinitions(ns);
  const scenes: CheckedLibrary['scenes'] = new Map();
  for (const f of files) {
    if (f.kind !== 'library') continue;
    const scene = checkLibraryValues(ns, robots, f);
    if (!scene) continue;
    scenes.set(f.file, { scene, shapes: await checkMapped(scene, io, warn, limits) });
  }
  return { files, ns, robots, scenes };
}

/** checkScene with errors mapped back to the files the values came from; `limits`: the most a shape may cost (default BUILD_LIMITS). */
export async function checkMapped(scene: SceneDesc, io: LibraryIo, warn: (m: string) => void, limits?: BuildLimits): Promise<Map<string, ShapeMass | null>> {
  try {
    return await checkScene(scene, { readText: (p) => io.readText(p), warn, ...(limits ? { limits } : {}) });
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
