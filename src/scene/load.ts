/**
 * Scene text and files -> SceneDesc. The browser app imports parseSceneText,
 * so this module has no top-level Node imports; loadSceneFile pulls in
 * node:fs and node:path lazily. JSON itself is read by json.ts.
 */
import { InputError } from '../errors.ts';
import type { SceneDesc } from './types.ts';
import { childPath, has, type JsonObject } from './reader.ts';
import { LIBRARY_FORMAT_ID, gatherFiles, readSource, type LibraryIo, type SourceFile } from './library.ts';
import { originsOf, resolveScene } from './instances.ts';
import { quote } from '../util/echo.ts';
import { decodeUtf8 } from '../util/text.ts';
import { PIPE_WAIT_MS, pipeWaitListener } from '../util/pipeWait.ts';

export { lineColumn, parseJsonText } from './json.ts';

/** A scene, the plain scene it flattens to (itself when it uses no library), and the files it was read from. */
export interface LoadedScene {
  scene: SceneDesc;
  flat: JsonObject;
  files: SourceFile[];
}

/**
 * Parses and validates scene text. `baseDir` (the scene's directory) resolves
 * mesh paths; without it they stay as written. A scene that includes
 * libraries needs their files: load it from its file (`loadScene(path)` in
 * the package).
 */
export function parseSceneText(text: string, file: string, baseDir?: string): SceneDesc {
  const root = sceneSource(text, file);
  if (has(root.json, 'include')) {
    throw new InputError('cannot read included files here (open the scene together with its libraries)', file, 'include');
  }
  return resolveScene([root], baseDir).scene;
}

function sceneSource(text: string, file: string): SourceFile {
  const root = readSource(text, file);
  if (root.kind === 'library') {
    throw new InputError(`this is a library ("${LIBRARY_FORMAT_ID}"), not a scene; a scene uses it through "include"`, file, 'format');
  }
  return root;
}

/**
 * Scene text with its includes read through `io` (paths joined to the
 * scene's name), resolved and validated (src/scene/instances.ts).
 */
export async function loadSceneText(text: string, file: string, io?: LibraryIo, baseDir?: string): Promise<LoadedScene> {
  const files = await gatherFiles(sceneSource(text, file), io);
  return { ...resolveScene(files, baseDir), files };
}

/**
 * Reads a scene file (Node only). A missing file, a directory or a missing
 * mesh file is an InputError; mesh paths are resolved against the scene
 * file's directory, and a missing one is reported at `shapes.<name>.path`
 * (of the library that defines the shape, for a library's).
 */
export async function loadSceneFile(path: string): Promise<SceneDesc> {
  return (await loadSceneFileWithSources(path)).scene;
}

/**
 * loadSceneFile, with the flattened scene and the files it was read from.
 * `text`: the file's text when the caller has read it already (a named pipe
 * such as a shell's <(...) can be read only once).
 */
export async function loadSceneFileWithSources(path: string, text?: string): Promise<LoadedScene> {
  const nodePath = await import('node:path');
  text ??= await readTextFile(path, 'scene file');
  const dir = nodePath.dirname(nodePath.resolve(path));
  const loaded = await loadSceneText(text, path, { readText: (p) => readTextFile(p, 'included file'), searchPath: () => librarySearchPath(path) }, dir);
  await checkMeshFiles(loaded.scene, path, dir, 'the scene file');
  return loaded;
}

/** The library files the package ships: every `*.library.json` under its `examples/`, by path. */
export const EXAMPLES_URL = new URL('../../examples/', import.meta.url);

/**
 * The library search path of a scene file (Node only; docs/LIBRARY_FORMAT.md,
 * "Robots by name"): the `*.library.json` files in the scene's directory,
 * then those under the package's `examples/`, each group sorted by path.
 * The scene's own includes come first of all: gatherFiles looks here only
 * for a robot or template they do not define.
 */
export async function librarySearchPath(sceneFile: string): Promise<string[]> {
  const fs = await import('node:fs/promises');
  const nodePath = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const list = async (dir: string, recursive: boolean): Promise<string[]> => {
    try {
      const names = await fs.readdir(dir === '' ? '.' : dir, { recursive });
      return names.filter((n) => n.endsWith('.library.json')).sort().map((n) => (dir === '' ? n : nodePath.join(dir, n)));
    } catch {
      return [];
    }
  };
  const here = nodePath.dirname(sceneFile);
  return [...(await list(here === '.' ? '' : here, false)), ...(await list(fileURLToPath(EXAMPLES_URL), true))];
}

/**
 * Checks (Node only) that every mesh shape of a validated scene names a
 * regular file: the path resolved against `baseDir` (the scene file's
 * directory, or the working directory for a scene built in code) goes into
 * `resolvedPath`, and a missing file, a directory or a device is an
 * InputError naming `file`, `shapes.<name>.path` (of the library that defines
 * the shape, for a library's) and the path looked for. `relativeTo` says in
 * the message what a relative path is relative to. Only existence is checked:
 * the file is read, and its mesh validated, by createWorld.
 */
export async function checkMeshFiles(scene: SceneDesc, file: string, baseDir: string, relativeTo: string): Promise<void> {
  const fs = await import('node:fs/promises');
  const nodePath = await import('node:path');
  for (const [name, shape] of Object.entries(scene.shapes)) {
    if (shape.type !== 'mesh') continue;
    shape.resolvedPath = nodePath.resolve(baseDir, shape.path);
    let problem: string | null;
    try {
      const st = await fs.stat(shape.resolvedPath);
      problem = st.isFile() ? null : `mesh path ${quote(shape.path, 200)} is ${kindOfFile(st)}, not a mesh file`;
    } catch (e) {
      problem = `${describeFsError(e, 'mesh file')}: ${quote(shape.path, 200)}`;
    }
    if (problem !== null) {
      const where = childPath(childPath('shapes', name), 'path');
      // An absolute path was looked for as written: name it once.
      const looked = shape.resolvedPath === shape.path ? '' : ` (looked for ${quote(shape.resolvedPath, 200)}${nodePath.isAbsolute(shape.path) ? '' : `; paths are relative to ${relativeTo}`})`;
      const e = new InputError(`${problem}${looked}`, file, where);
      throw originsOf(scene)?.remap(e) ?? e;
    }
  }
}

/**
 * A file's text (Node only), or an InputError naming it and what went wrong
 * (its message says `what`: "scene file not found", "is a directory, not a
 * scene file").
 */
export async function readTextFile(path: string, what: string): Promise<string> {
  const fs = await import('node:fs/promises');
  try {
    // A device such as /dev/zero would be read forever; a named pipe (a shell's <(...)) is fine.
    const st = await fs.stat(path);
    if (!st.isFile() && !st.isFIFO()) throw new InputError(`is ${kindOfFile(st)}, not ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`, path);
    // A named pipe nothing writes to blocks the read: after a second, say so (util/pipeWait.ts).
    const tell = st.isFIFO() ? pipeWaitListener() : null;
    const timer = tell ? setTimeout(() => tell(path), PIPE_WAIT_MS) : null;
    try {
      return decodeUtf8(await fs.readFile(path), path);
    } finally {
      if (timer) clearTimeout(timer);
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(describeFsError(e, what), path);
  }
}

/** What went wrong reading a file, in words, from a Node file-system error. */
export function describeFsError(e: unknown, what: string): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return `${what} not found`;
  if (code === 'EISDIR') return `expected a ${what}, got a directory`;
  if (code === 'ENOTDIR') return `${what} not found (a part of the path is not a directory)`;
  if (code === 'EACCES' || code === 'EPERM') return `cannot read the ${what} (permission denied)`;
  if (code === 'ELOOP') return `cannot read the ${what} (too many symbolic links)`;
  return `cannot read the ${what}: ${e instanceof Error ? e.message : String(e)}`;
}

/** "a directory", "a character device (such as /dev/null)", ... for a path that is not a regular file. */
export function kindOfFile(st: { isDirectory(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}
