/**
 * Browser-side platform setup (the twin of src/cli/nodePlatform.ts): shader
 * sources bundled by Vite, and text files read over HTTP or from files the
 * user dropped on the page.
 */
import { setShaderSourceLoader } from '../gpu/shaders.ts';
import { decodeUtf8 } from '../util/text.ts';

const sources = import.meta.glob('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

let installed = false;

export function installBrowserPlatform(): void {
  if (installed) return;
  installed = true;
  const byName = new Map<string, string>();
  for (const [path, text] of Object.entries(sources)) byName.set(baseName(path), text);
  setShaderSourceLoader((name) => {
    const s = byName.get(name);
    if (s === undefined) throw new Error(`shader "${name}" is not in the bundle (shaders/*.wgsl)`);
    return s;
  });
}

export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 ? path.slice(i + 1) : path;
}

/** Reads a file served beside the page (meshes of built-in scenes). */
export async function fetchText(path: string): Promise<string> {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${path}`);
  return res.text();
}

/**
 * A picked or dropped file's text, as UTF-8: a file in another encoding is
 * refused naming the line and column of its first bad byte (File.text()
 * would turn it into replacement characters).
 */
export async function fileText(f: Blob & { name: string }): Promise<string> {
  return decodeUtf8(new Uint8Array(await f.arrayBuffer()), f.name);
}

/**
 * A reader over files the user picked or dropped together: a mesh path in
 * the scene is matched by its file name, since the browser does not give
 * folder structure. A missing mesh names the file to add.
 */
export function droppedFilesReader(files: readonly File[], sceneFile: string): { readText(path: string): Promise<string> } {
  const byName = new Map<string, File>();
  for (const f of files) byName.set(f.name, f);
  return {
    async readText(path: string): Promise<string> {
      const f = byName.get(baseName(path));
      if (!f) {
        // shapeBuild.ts wraps this with the scene file and the shape's JSON path.
        // `advice` is what an include's error says in place of the command line's path rule (library.ts).
        throw Object.assign(new Error(`"${baseName(path)}" was not given; open or drop it together with ${sceneFile}`), {
          advice: `open or drop it together with ${sceneFile}, or open it first`,
        });
      }
      return fileText(f);
    },
  };
}
