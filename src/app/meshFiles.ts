/**
 * The mesh files opened in this page, so that a scene file opened again
 * without its meshes reads the ones opened with it before, and the app can
 * say so: the reuse was silent, and looked as if the scene file carried them.
 *
 * The app's shape cache (simulation.ts) is kept per scope, the files a
 * scene's mesh paths read: a mesh opened again changed is built again, and a
 * mesh never opened is asked for, never taken from another scene's shape.
 */
import type { SceneDesc } from '../scene/types.ts';
import { baseName, droppedFilesReader } from './platform.ts';

/** Where a scene file's mesh paths are read from. */
export interface SceneFiles {
  /** A file opened with the scene, else a mesh opened before; a missing one names the file to add. */
  readText(path: string): Promise<string>;
  /** The files the mesh paths read, by name, size and date (the shape cache's scope). */
  shapeScope: string;
  /** The meshes read from files opened before, not with the scene. */
  reused: File[];
}

export class OpenedMeshes {
  private readonly opened = new Map<string, File>();

  /** Remembers the files a scene loaded with (not the .json ones: scenes and libraries), by name; the newest wins. */
  remember(files: readonly File[]): void {
    for (const f of files) if (!/\.json$/i.test(f.name)) this.opened.set(f.name, f);
  }

  /** The files of `scene` (read from `sceneFile`, opened with `files`): those opened with it first, then those opened before. */
  forScene(scene: SceneDesc, sceneFile: string, files: readonly File[]): SceneFiles {
    const given = new Map(files.map((f) => [f.name, f] as const));
    const all = new Map([...this.opened, ...given]);
    const names = [...new Set(Object.values(scene.shapes).flatMap((d) => (d.type === 'mesh' ? [baseName(d.resolvedPath)] : [])))].sort();
    const reader = droppedFilesReader([...all.values()], sceneFile);
    return {
      readText: (p) => reader.readText(p),
      // Apart from the built-ins' scope (''), even for a scene without meshes: a library body placed into it may have one.
      shapeScope: `files|${names.map((n) => {
        const f = all.get(n);
        return f ? `${n}:${f.size}:${f.lastModified}` : `${n}:-`;
      }).join('|')}`,
      reused: names.filter((n) => !given.has(n) && this.opened.has(n)).map((n) => this.opened.get(n)!),
    };
  }
}
