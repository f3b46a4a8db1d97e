/**
 * The app's library: what the opened library files hold, and placing a new
 * instance of one of their robots or body templates into the running scene
 * (issue 13; docs/LIBRARY_FORMAT.md).
 *
 * A world cannot grow a robot in place (its joints and motors are built with
 * it), so placing writes the scene again: the current state as Export writes
 * it (exportScene.ts: poses, velocities, motor windows and programs from
 * now on), plus the new instance flattened by the same code that flattens
 * scene files (src/scene/instances.ts); the app builds that scene.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import { InputError } from '../errors.ts';
import { fileText } from './platform.ts';
import { checkDefinitions, EITHER_TOP_LEVEL, Namespace, readSource, type SourceFile } from '../scene/library.ts';
import { flattenScene } from '../scene/instances.ts';
import { SCENE_FORMAT_ID } from '../scene/validate.ts';
import { childPath, type JsonObject } from '../scene/reader.ts';

export interface LibraryItem {
  kind: 'robot' | 'body';
  name: string;
  /** The file that defines it. */
  file: string;
  description?: string;
}

/** The library files the app has opened (dropped, picked, or included by an opened scene), by name. */
export class AppLibrary {
  private files = new Map<string, SourceFile>();
  private texts = new Map<string, string>();

  /** Adds library files (text by file name); scenes among them are ignored. Throws an InputError for a broken one. */
  add(texts: ReadonlyMap<string, string>): void {
    const next = new Map(this.files);
    const nextTexts = new Map(this.texts);
    for (const [name, text] of texts) {
      const src = readSource(text, name, undefined, EITHER_TOP_LEVEL);
      if (src.kind === 'library') {
        next.set(name, src);
        nextTexts.set(name, text);
      }
    }
    // Check them together before keeping them: a placed instance must flatten.
    this.resolve([...next.values()]);
    this.files = next;
    this.texts = nextTexts;
  }

  /** The opened library files' names: the app's library search path (docs/LIBRARY_FORMAT.md, "Robots by name"). */
  names(): string[] {
    return [...this.files.keys()];
  }

  /** An opened library file's text, by its name (or a path ending in it). */
  text(path: string): string | undefined {
    return this.texts.get(path) ?? this.texts.get(baseName(path));
  }

  get size(): number {
    return this.files.size;
  }

  /** Every robot and body template the files define, robots first, each group by name. */
  items(): LibraryItem[] {
    if (this.files.size === 0) return [];
    const { ns } = this.resolve([...this.files.values()]);
    const out: LibraryItem[] = [];
    for (const d of [...ns.defs.robot.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      const description = typeof d.value['description'] === 'string' ? d.value['description'] : undefined;
      out.push({ kind: 'robot', name: d.name, file: d.source.file, ...(description ? { description } : {}) });
    }
    for (const d of [...ns.defs['body template'].values()].sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ kind: 'body', name: d.name, file: d.source.file });
    }
    return out;
  }

  /**
   * The library files, their includes resolved among themselves: each
   * includes the ones it names by file name (the browser gives no folders).
   */
  private resolve(files: SourceFile[]): { ns: Namespace; robots: ReturnType<typeof checkDefinitions>; files: SourceFile[] } {
    const byBase = new Map(files.map((f) => [baseName(f.file), f] as const));
    const linked = files.map((f) => {
      const includes: string[] = [];
      const list = Array.isArray(f.json['include']) ? (f.json['include'] as unknown[]) : [];
      list.forEach((p, i) => {
        const target = typeof p === 'string' ? byBase.get(baseName(p)) : undefined;
        if (!target) throw new InputError(`the included file ${JSON.stringify(p)} was not opened with it; open or drop it too`, f.file, `include[${i}]`);
        includes.push(target.file);
      });
      return { ...f, includes };
    });
    const ns = new Namespace(linked);
    return { ns, robots: checkDefinitions(ns), files: linked };
  }

  /**
   * `scene` (a plain scene: the app's current state, exportScene.ts) with
   * one more instance of `item`, named uniquely, at `position` (the robot's
   * frame origin, or the template shape's origin) turned by `orientation`,
   * moving at `velocity`. Returns the new plain scene and the instance name.
   */
  placeInto(
    scene: JsonObject,
    item: LibraryItem,
    position: Vec3,
    velocity: Vec3 = [0, 0, 0],
    orientation: [number, number, number, number] = [0, 0, 0, 1],
  ): { scene: JsonObject; instance: string } {
    const out = structuredClone(scene);
    const bodies = out['bodies'] as JsonObject[];
    const taken = new Set(bodies.map((b) => String(b['name'] ?? '')));
    const prefix = item.name.replace(/\//g, '-');
    let k = 1;
    const free = (n: string) => !taken.has(n) && ![...taken].some((t) => t.startsWith(`${n}/`));
    while (!free(`${prefix}-${k}`)) k++;
    const instance = `${prefix}-${k}`;
    const { robots, files } = this.resolve([...this.files.values()]);
    const root: SourceFile = {
      file: '<placed>',
      dir: '',
      kind: 'scene',
      json:
        item.kind === 'robot'
          ? { format: SCENE_FORMAT_ID, bodies: [], robots: [{ name: instance, robot: item.name, position, orientation }] }
          : { format: SCENE_FORMAT_ID, bodies: [{ name: instance, template: item.name, position, orientation, velocity }] },
      includes: files.map((f) => f.file),
    };
    const flat = flattenScene(root, new Namespace([root, ...files]), robots).json;
    const shapes = (out['shapes'] ??= {}) as JsonObject;
    for (const [name, shape] of Object.entries(flat['shapes'] as JsonObject)) {
      if (!Object.hasOwn(shapes, name)) Object.defineProperty(shapes, name, { value: shape, enumerable: true, writable: true, configurable: true });
      else if (JSON.stringify(shapes[name]) !== JSON.stringify(shape)) {
        throw new InputError(`the scene has its own shape "${name}", different from the library's; rename one of them to place "${item.name}"`, item.file, childPath('shapes', name));
      }
    }
    for (const b of flat['bodies'] as JsonObject[]) {
      if (item.kind === 'robot') b['velocity'] = velocity;
      bodies.push(b);
    }
    for (const key of ['joints', 'motors'] as const) {
      const added = (flat[key] as unknown[] | undefined) ?? [];
      if (added.length) out[key] = [...((out[key] as unknown[] | undefined) ?? []), ...added];
    }
    return { scene: out, instance };
  }
}

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 ? path.slice(i + 1) : path;
}

/** Reads opened files' texts into the library (a helper for the file picker and drops). */
export async function readTexts(files: readonly File[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of files) if (f.name.toLowerCase().endsWith('.json')) out.set(f.name, await fileText(f));
  return out;
}
