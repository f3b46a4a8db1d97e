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
 * then those under the package's `examples/`, each group sorted by path;
 * what is not a regular file (a named pipe, a device, a directory) is left out.
 * The scene's own includes come first of all: gatherFiles looks here only
 * for a robot or template they do not define.
 */
export async function librarySearchPath(sceneFile: string): Promise<string[]> {
  const fs = await import('node:fs/promises');
  const nodePath = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  // Regular files only (or links to them): a named pipe here would keep the
  // command waiting for a writer, for a file the scene never named.
  const isFile = async (p: string) => (await fs.stat(p).catch(() => null))?.isFile() === true;
  const list = async (dir: string, recursive: boolean): Promise<string[]> => {
    let paths: string[];
    try {
      const names = await fs.readdir(dir === '' ? '.' : dir, { recursive });
      paths = names.filter((n) => n.endsWith('.library.json')).sort().map((n) => (dir === '' ? n : nodePath.join(dir, n)));
    } catch {
      return [];
    }
    const keep = await Promise.all(paths.map(isFile));
    return paths.filter((_, i) => keep[i]);
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
 * The largest scene, library or included file read (bytes). A scene of
 * 200 000 bodies is some 40 MB; past about 512 MB the text would not fit
 * in one JavaScript string at all.
 */
export const MAX_TEXT_BYTES = 256 * 1024 * 1024;

/**
 * A file's text (Node only), or an InputError naming it and what went wrong
 * (its message says `what`: "scene file not found", "is a directory, not a
 * scene file"). A named pipe (a shell's `<(...)`) is read as it comes, up to
 * MAX_TEXT_BYTES like a file; one that nothing has written to for
 * PIPE_WAIT_MS is reported (util/pipeWait.ts) and still waited for.
 */
export async function readTextFile(path: string, what: string): Promise<string> {
  const fs = await import('node:fs/promises');
  try {
    checkPathText(path, what);
    // A device such as /dev/zero would be read forever; a named pipe is fine.
    const st = await fs.stat(path);
    if (!st.isFile() && !st.isFIFO()) throw new InputError(`is ${kindOfFile(st)}, not ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`, path);
    if (st.isFile() && st.size > MAX_TEXT_BYTES) throw new InputError(tooLarge(what, st.size), path);
    return decodeUtf8(st.isFIFO() ? await readPipe(path, what, MAX_TEXT_BYTES) : await fs.readFile(path), path);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(describeFsError(e, what), path);
  }
}

/** "the WHAT is N MB; the largest read is M MB" (N unknown: a pipe past the limit). */
export function tooLarge(what: string, bytes: number | null, max = MAX_TEXT_BYTES): string {
  const size = bytes === null ? `more than ${max / 1024 / 1024} MB` : `${Math.round(bytes / 1e6)} MB`;
  return `the ${what} is ${size}; the largest read is ${max / 1024 / 1024} MB`;
}

/**
 * A named pipe's bytes (Node only), chunk by chunk, refused past `max`
 * bytes; the wait reported (util/pipeWait.ts) only while nothing has come.
 */
export async function readPipe(path: string, what: string, max: number): Promise<Uint8Array> {
  const { createReadStream } = await import('node:fs');
  return readBounded(createReadStream(path), path, path, what, max);
}

/**
 * The bytes of `stream` (a pipe's, standard input's), refused past `max`
 * bytes as an InputError naming `file`; a wait for the first chunk longer
 * than PIPE_WAIT_MS is reported for `path` (null: standard input).
 */
async function readBounded(stream: AsyncIterable<Buffer> & { destroy(): void }, file: string, path: string | null, what: string, max: number): Promise<Uint8Array> {
  const tell = pipeWaitListener();
  let timer = tell ? setTimeout(() => tell({ waitsFor: 'data', path }), PIPE_WAIT_MS) : null;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      total += chunk.length;
      if (total > max) throw new InputError(tooLarge(what, null, max), file);
      chunks.push(chunk);
    }
  } finally {
    if (timer) clearTimeout(timer);
    stream.destroy();
  }
  return Buffer.concat(chunks, total);
}

/**
 * Standard input's text (Node only), read as a named pipe is: up to
 * MAX_TEXT_BYTES, checked to be UTF-8, the wait reported. A file, a pipe, a
 * socket or a terminal is read; another device (`< /dev/zero`) would be read
 * for ever and is refused. Errors name the file `<stdin>`; `what` is what
 * was to be read ("record").
 */
export async function readStandardInput(what: string, max = MAX_TEXT_BYTES): Promise<string> {
  const fs = await import('node:fs');
  const tty = await import('node:tty');
  const file = '<stdin>';
  let st: import('node:fs').Stats;
  try {
    st = fs.fstatSync(0);
  } catch {
    throw new InputError(`standard input is closed; expected the ${what} there`, file);
  }
  if ((st.isCharacterDevice() && !tty.isatty(0)) || st.isBlockDevice() || st.isDirectory()) {
    throw new InputError(`standard input is ${kindOfFile(st)}, not ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} (pipe the text in, or give it as a file)`, file);
  }
  if (st.isFile() && st.size > max) throw new InputError(tooLarge(what, st.size, max), file);
  return decodeUtf8(await readBounded(process.stdin as unknown as AsyncIterable<Buffer> & { destroy(): void }, file, null, what, max), file);
}

/** Refuses a path that no file system accepts (empty, or holding a NUL character), as bad input rather than Node's own message; `what` names the file in the message. */
export function checkPathText(path: string, what = 'file'): void {
  // (An empty argument, '' in a script whose variable was unset, read as "not found".)
  if (path === '') throw new InputError(`the ${what} path is empty (""); expected a file name`);
  if (path.includes('\0')) throw new InputError('the path holds a NUL character (\\u0000), which no file name may', path);
}

/** What went wrong reading a file, in words, from a Node file-system error. */
export function describeFsError(e: unknown, what: string): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return `${what} not found`;
  if (code === 'EISDIR') return `expected a ${what}, got a directory`;
  if (code === 'ENOTDIR') return `${what} not found (a part of the path is not a directory)`;
  if (code === 'EACCES' || code === 'EPERM') return `cannot read the ${what} (permission denied)`;
  if (code === 'ELOOP') return `cannot read the ${what} (too many symbolic links)`;
  if (code === 'ENAMETOOLONG') return `cannot read the ${what}: its path (or a part of it) is longer than the file system allows`;
  if (code === 'ERR_INVALID_ARG_VALUE' && /null bytes/.test(String((e as { message?: unknown }).message))) return `cannot read the ${what}: the path holds a NUL character (\\u0000), which no file name may`;
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
