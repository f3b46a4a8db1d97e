/**
 * Scene text and files -> SceneDesc. The browser app imports parseSceneText,
 * so this module has no top-level Node imports; loadSceneFile pulls in
 * node:fs and node:path lazily. JSON itself is read by json.ts.
 */
import { InputError } from '../errors.ts';
import type { SceneDesc } from './types.ts';
import { childPath, has, type JsonObject } from './validate.ts';
import { LIBRARY_FORMAT_ID, gatherFiles, readSource, type LibraryIo, type SourceFile } from './library.ts';
import { originsOf, resolveScene } from './instances.ts';

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
 * libraries needs their files: loadSceneText or loadSceneFile.
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

/** loadSceneFile, with the flattened scene and the files it was read from. */
export async function loadSceneFileWithSources(path: string): Promise<LoadedScene> {
  const fs = await import('node:fs/promises');
  const nodePath = await import('node:path');
  const text = await readTextFile(path, 'scene file');
  const dir = nodePath.dirname(nodePath.resolve(path));
  const loaded = await loadSceneText(text, path, { readText: (p) => fs.readFile(p, 'utf8') }, dir);
  const scene = loaded.scene;
  for (const [name, shape] of Object.entries(scene.shapes)) {
    if (shape.type !== 'mesh') continue;
    shape.resolvedPath = nodePath.resolve(dir, shape.path);
    let isFile = false;
    try {
      isFile = (await fs.stat(shape.resolvedPath)).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) {
      const where = childPath(childPath('shapes', name), 'path');
      const e = new InputError(
        `mesh file not found: "${shape.path}" (looked for ${shape.resolvedPath}; paths are relative to the scene file)`,
        path,
        where,
      );
      throw originsOf(scene)?.remap(e) ?? e;
    }
  }
  return loaded;
}

/** A file's text (Node only), or an InputError naming it and what went wrong. */
export async function readTextFile(path: string, what: string): Promise<string> {
  const fs = await import('node:fs/promises');
  try {
    return await fs.readFile(path, 'utf8');
  } catch (e) {
    throw new InputError(describeFsError(e, what), path);
  }
}

function describeFsError(e: unknown, what: string): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return `${what} not found`;
  if (code === 'EISDIR') return `expected a ${what}, got a directory`;
  if (code === 'EACCES' || code === 'EPERM') return `cannot read the ${what} (permission denied)`;
  return `cannot read the ${what}: ${e instanceof Error ? e.message : String(e)}`;
}
