/**
 * Library files and includes (docs/LIBRARY_FORMAT.md; seed 003 4.3, whose
 * bodies, robots and scenes are three databases that refer to each other by
 * name). A library ("format": "stackfield-library/1") holds named shapes,
 * materials, body templates and robot definitions; scenes and libraries
 * `include` other files, by paths relative to the including file.
 *
 * This module reads the files (following includes, refusing cycles and
 * missing files), gathers every definition into one namespace, and checks
 * what only the library layer knows: keys of templates, robots and parts,
 * names and where they are visible, joints and motors that stay inside
 * their robot, and that a robot's parts are all joined. Numbers are checked
 * where they end up, by the scene validator on the flattened scene
 * (instances.ts maps its errors back to the file and path they came from);
 * materials, which may go unused, are checked here.
 *
 * No node:* imports: the browser app reads dropped files through the same
 * code, with an `io` that looks them up by name.
 */
import { InputError, bareMessage } from '../errors.ts';
import { DisjointSets } from '../geometry/disjointSets.ts';
import { BODY_KEYS, BODY_LIBRARY_KEYS, MATERIAL_RULES, checkStaticFriction, MOTOR_KEYS, SCENE_FORMAT_ID, SCENE_LIBRARY_KEYS, TOP_KEYS, type MaterialKey } from './validate.ts';
import { Reader, childPath, define, describeValue, has, indexPath, joinPath, unknownName, type JsonObject } from './reader.ts';
import { parseJsonText } from './json.ts';
import { fileLabel, quote } from '../util/echo.ts';

export const LIBRARY_FORMAT_ID = 'stackfield-library/1';

export const LIBRARY_KEYS = ['format', 'include', 'shapes', 'materials', 'bodies', 'robots'];
/** What a scene adds to the plain format: includes, materials, defaults, robot instances. */
export const SCENE_INSTANCE_KEYS = SCENE_LIBRARY_KEYS;
export const SCENE_KEYS = [...TOP_KEYS, ...SCENE_INSTANCE_KEYS];
export const MATERIAL_KEYS = Object.keys(MATERIAL_RULES) as MaterialKey[];
/** Keys that set a body's material properties: a material's, plus "mass" (an alternative to "density"). */
export const PROPERTY_KEYS = [...MATERIAL_KEYS, 'mass'];
export const TEMPLATE_KEYS = ['shape', 'material', 'static', ...PROPERTY_KEYS];
export const SCENE_BODY_KEYS = [...BODY_KEYS, ...BODY_LIBRARY_KEYS];
export const ROBOT_KEYS = ['description', 'parts', 'joints', 'motors'];
export const PART_KEYS = ['alias', 'template', 'shape', 'material', 'static', 'position', 'orientation', 'rotation', ...PROPERTY_KEYS];
export const ROBOT_INSTANCE_KEYS = ['name', 'robot', 'position', 'orientation', 'rotation', 'parts', 'motors'];
export const PART_OVERRIDE_KEYS = ['material', ...PROPERTY_KEYS];
export const MOTOR_OVERRIDE_KEYS = MOTOR_KEYS.filter((k) => k !== 'name' && k !== 'body' && k !== 'joint');

/** Degrees of freedom each joint type removes (docs/SCENE_FORMAT.md "joints"). */
export const DOF_REMOVED: Readonly<Record<string, number>> = {
  ball: 3, line: 2, plane: 1, lockRotation: 3, axis: 2, angle: 1, hinge: 5, slider: 5, fixed: 6, distance: 1, rope: 0,
};

/** Most files one scene may pull in through includes (a runaway generator must not exhaust memory). */
const MAX_FILES = 1000;

/** A scene or library file, parsed. */
export interface SourceFile {
  /** How messages name it, and its identity: the path as given for the root, joined for includes. */
  file: string;
  /** The directory relative paths in it start from. */
  dir: string;
  kind: 'scene' | 'library';
  json: JsonObject;
  /** Files it includes directly (their `file`), in order. */
  includes: string[];
  /** Set on a library the search path found for the scene: the robot or template it was read for. */
  foundFor?: string;
}

export interface LibraryIo {
  /** Reads an included file (named by its joined path). */
  readText(path: string): Promise<string>;
  /** Reads a mesh file for checking its shape (libraryCheck.ts); default readText. Its errors call it a mesh file. */
  readMesh?(path: string): Promise<string>;
  /**
   * The library search path (docs/LIBRARY_FORMAT.md, "Robots by name"):
   * library files, in order, where a scene's robot or body template that
   * none of its includes define is looked for. The command line gives the
   * `*.library.json` files beside the scene, then those the package ships in
   * `examples/`; the app the library files the user opened.
   */
  searchPath?: () => Promise<string[]>;
}

/** A named definition and where it is written. */
export interface Def {
  name: string;
  source: SourceFile;
  /** JSON path of the definition in its file: `robots.caterpillar`. */
  path: string;
  value: JsonObject;
}

export type DefKind = 'shape' | 'material' | 'body template' | 'robot';
const SECTION: Record<DefKind, string> = { shape: 'shapes', material: 'materials', 'body template': 'bodies', robot: 'robots' };

/** The directory part of a path ("" for a bare file name). */
export function dirOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? '' : path.slice(0, i + 1).replace(/[\\/]+$/, '') || '/';
}

/**
 * `target` relative to directory `from` (both absolute, or both relative to
 * the same directory), for mesh paths written into a flattened scene. When
 * no relative path exists (from climbs above where target starts) the target
 * is returned as it is.
 */
export function relativePath(from: string, target: string): string {
  const split = (p: string) => (p === '.' ? [] : p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.'));
  if (from.startsWith('/') !== target.startsWith('/')) return target;
  const a = split(from), b = split(target);
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  if (a.slice(k).includes('..')) return target;
  return [...a.slice(k).map(() => '..'), ...b.slice(k)].join('/') || '.';
}

/** What the top level of a scene file must be, for messages. */
export const SCENE_TOP_LEVEL = `a JSON object at the top level ({"format": "${SCENE_FORMAT_ID}", ...})`;
/** What the top level of a library file must be, for messages. */
export const LIBRARY_TOP_LEVEL = `a JSON object at the top level ({"format": "${LIBRARY_FORMAT_ID}", ...})`;
/** What the top level of a file that may be either must be, for messages. */
export const EITHER_TOP_LEVEL = `a JSON object at the top level (a library {"format": "${LIBRARY_FORMAT_ID}", ...} or a scene {"format": "${SCENE_FORMAT_ID}", ...})`;

/**
 * Parses a file's text as a scene or a library (by its "format"). The top
 * level must be an object (`expected` says what the message asks for); every
 * later reader may then look up keys in it without a guard (`null` would make
 * Object.hasOwn throw).
 */
export function readSource(text: string, file: string, dir = dirOf(file), expected = SCENE_TOP_LEVEL): SourceFile {
  const json = new Reader(file).object(parseJsonText(text, file), '', expected);
  const kind = json['format'] === LIBRARY_FORMAT_ID ? 'library' : 'scene';
  return { file, dir, kind, json, includes: [] };
}

/**
 * The root and every file it includes, directly or not, each read once (a
 * file included twice along different paths is one file), in the order they
 * are first met. Errors: a missing or unreadable file, a file that is not a
 * library, and an include cycle, each at the `include[i]` that names it.
 */
export async function gatherFiles(root: SourceFile, io: LibraryIo | undefined): Promise<SourceFile[]> {
  const files = new Map<string, SourceFile>([[root.file, root]]);
  const order: SourceFile[] = [root];
  /** Files on the current include path, for cycles. */
  const stack: string[] = [];
  const visit = async (f: SourceFile): Promise<void> => {
    stack.push(f.file);
    const r: Reader = new Reader(f.file);
    if (has(f.json, 'include')) {
      const list = r.array(f.json['include'], 'include', 'an array of file names (paths relative to this file)');
      for (let i = 0; i < list.length; i++) {
        const p = indexPath('include', i);
        const rel = r.string(list[i], p, 'a file name (a non-empty string), relative to this file');
        const target = joinPath(f.dir, rel);
        f.includes.push(target);
        const onPath = stack.indexOf(target);
        if (onPath >= 0) {
          const cycle = [...stack.slice(onPath), target].join(' -> ');
          r.fail(p, `include cycle: ${cycle} (a file cannot include itself, directly or through others)`);
        }
        if (files.has(target)) continue;
        if (!io) r.fail(p, `cannot read included files here (load the scene from its file so ${quote(rel, 200)} can be found)`);
        if (files.size >= MAX_FILES) r.fail(p, `more than ${MAX_FILES} files included`);
        let text: string;
        try {
          text = await io.readText(target);
        } catch (e) {
          // A reader with advice of its own (the app's: open the file with the scene) gives it instead of the path's rule.
          const advice = (e as { advice?: unknown } | null)?.advice;
          r.fail(p, `${describeReadError(e)}: ${quote(rel, 200)} (${typeof advice === 'string' ? advice : `looked for ${quote(target, 200)}; paths are relative to the including file`})`);
        }
        // An error in the included file names it, and what included it, so a wrong entry is found where it was written.
        const from = ` (the file is ${p} of ${fileLabel(f.file)})`;
        let src: SourceFile;
        try {
          src = readSource(text, target, dirOf(target), LIBRARY_TOP_LEVEL);
        } catch (e) {
          if (e instanceof InputError) throw new InputError(`${bareMessage(e)}${from}`, e.file, e.where);
          throw e;
        }
        if (src.kind !== 'library') {
          const got = src.json['format'];
          new Reader(target).fail('format', `expected "${LIBRARY_FORMAT_ID}" (an included file must be a library), got ${describeValue(got)}${from}`);
        }
        files.set(target, src);
        order.push(src);
        await visit(src);
      }
    }
    stack.pop();
  };
  await visit(root);
  if (root.kind === 'scene' && io?.searchPath) {
    for (const want of wantedNames(root)) {
      if (order.some((f) => defines(f, want))) continue;
      for (const target of await io.searchPath()) {
        if (files.has(target)) continue;
        let src: SourceFile;
        try {
          src = readSource(await io.readText(target), target, dirOf(target), LIBRARY_TOP_LEVEL);
        } catch {
          // An unreadable file on the search path is passed over: only the one that defines the name is read for good.
          continue;
        }
        if (src.kind !== 'library' || !defines(src, want)) continue;
        src.foundFor = `${want.section === 'robots' ? 'robot' : 'body template'} ${quote(want.name)}`;
        root.includes.push(target);
        files.set(target, src);
        order.push(src);
        await visit(src);
        break;
      }
    }
  }
  return order;
}

/** A robot or template a scene names (robots[i].robot, bodies[i].template). */
interface WantedName {
  section: 'robots' | 'bodies';
  name: string;
}

function wantedNames(scene: SourceFile): WantedName[] {
  const out: WantedName[] = [];
  const collect = (key: string, field: string, section: WantedName['section']) => {
    const list = scene.json[key];
    if (!Array.isArray(list)) return;
    for (const v of list) {
      const name = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject)[field] : undefined;
      if (typeof name === 'string' && !out.some((w) => w.section === section && w.name === name)) out.push({ section, name });
    }
  };
  collect('robots', 'robot', 'robots');
  collect('bodies', 'template', 'bodies');
  return out;
}

/** Whether a file defines the name in its own section (not through includes). */
function defines(f: SourceFile, w: WantedName): boolean {
  if (f.kind !== 'library' && w.section === 'robots') return false;
  const sec = f.json[w.section];
  return sec !== null && typeof sec === 'object' && !Array.isArray(sec) && Object.hasOwn(sec, w.name);
}

function describeReadError(e: unknown): string {
  // The command line's reader has already said what went wrong (src/scene/load.ts readTextFile).
  if (e instanceof InputError) return bareMessage(e);
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' || code === undefined) return 'included file not found';
  if (code === 'EISDIR') return 'expected an included file, got a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot read the included file (permission denied)';
  return `cannot read the included file (${e instanceof Error ? e.message : String(e)})`;
}

/**
 * Every definition of a scene and the libraries it includes, by kind and
 * name, with what each file can see: its own definitions and those of the
 * files it includes, directly or not.
 */
export class Namespace {
  readonly defs: Record<DefKind, Map<string, Def>> = {
    shape: new Map(),
    material: new Map(),
    'body template': new Map(),
    robot: new Map(),
  };
  /** Material values, checked. */
  readonly materials = new Map<string, Partial<Record<MaterialKey, number>>>();
  private readonly reach = new Map<string, Set<string>>();

  constructor(readonly files: readonly SourceFile[]) {
    const byFile = new Map(files.map((f) => [f.file, f] as const));
    const reachOf = (f: SourceFile, seen = new Set<string>()): Set<string> => {
      if (seen.has(f.file)) return seen;
      seen.add(f.file);
      for (const inc of f.includes) reachOf(byFile.get(inc)!, seen);
      return seen;
    };
    for (const f of files) {
      this.reach.set(f.file, reachOf(f));
      const r: Reader = new Reader(f.file);
      if (f.kind === 'library') {
        r.keys(f.json, '', LIBRARY_KEYS);
        if (!has(f.json, 'format')) r.missing('', 'format', `"${LIBRARY_FORMAT_ID}"`);
      }
      const kinds: DefKind[] = f.kind === 'library' ? ['shape', 'material', 'body template', 'robot'] : ['shape', 'material'];
      for (const kind of kinds) {
        const section = SECTION[kind];
        if (!has(f.json, section)) continue;
        const o = r.object(f.json[section], section, `an object mapping names to ${section === 'bodies' ? 'body templates' : section}`);
        for (const name of Object.keys(o)) {
          const path = childPath(section, name);
          if (name.length === 0) r.fail(path, `a ${kind} name must not be empty`);
          const prev = this.defs[kind].get(name);
          if (prev) {
            const found = [f, prev.source].filter((x) => x.foundFor).map((x) => `${x.file} was found on the library search path for ${x.foundFor}`);
            r.fail(path, `${kind} ${quote(name)} is already defined in ${prev.source.file} (${prev.path}); names must be unique across a scene and the files it includes${found.length ? ` (${found.join('; ')})` : ''}`);
          }
          // Shapes are the scene format's own; the rest are objects checked below.
          const value = kind === 'shape' ? (o[name] as JsonObject) : r.object(o[name], path, `a ${kind} object`);
          this.defs[kind].set(name, { name, source: f, path, value });
        }
      }
    }
    for (const d of this.defs.material.values()) this.materials.set(d.name, readMaterial(new Reader(d.source.file), d.value, d.path));
  }

  /**
   * The definition `name` of `kind` as seen from file `from`, or an error at
   * `path`: unknown (with a suggestion among the names `from` can see), or
   * defined in a file `from` does not include.
   */
  lookup(kind: DefKind, name: string, from: SourceFile, path: string): Def {
    const r: Reader = new Reader(from.file);
    const d = this.defs[kind].get(name);
    const visible = this.reach.get(from.file)!;
    if (!d) {
      const names = [...this.defs[kind].values()].filter((x) => visible.has(x.source.file)).map((x) => x.name);
      const add = kind === 'shape' ? '; add it under "shapes"' : `; define it under "${SECTION[kind]}" or include the library that has it`;
      r.fail(path, unknownName(kind, name, names, add));
    }
    if (!visible.has(d.source.file)) {
      r.fail(path, `${kind} ${quote(name)} is defined in ${d.source.file}, which ${from.file} does not include (add it to "include")`);
    }
    return d;
  }

  /** A string reference at o[key] to a definition. */
  reference(kind: DefKind, o: JsonObject, key: string, from: SourceFile, path: string): Def {
    const p = childPath(path, key);
    const name = new Reader(from.file).string(o[key], p, `the name of a ${kind} (a string)`);
    return this.lookup(kind, name, from, p);
  }
}

/** A material (or a scene's defaults): some of density, restitution, friction, staticFriction, rollingFriction, spinningFriction. */
export function readMaterial(r: Reader, o: JsonObject, path: string): Partial<Record<MaterialKey, number>> {
  r.keys(o, path, MATERIAL_KEYS);
  const out: Partial<Record<MaterialKey, number>> = {};
  for (const k of MATERIAL_KEYS) if (has(o, k)) out[k] = r.num(o, path, k, undefined, MATERIAL_RULES[k]);
  // Both given: the rule a body's pair is held to, said here where they are written, used or not.
  if (out.friction !== undefined && out.staticFriction !== undefined) checkStaticFriction(r, path, out.friction, out.staticFriction);
  return out;
}

/** A robot definition after its structure and references were checked. */
export interface RobotDef {
  def: Def;
  parts: { alias: string; path: string; value: JsonObject; template?: Def }[];
  joints: { name: string; path: string; value: JsonObject; type: string }[];
  motors: { name: string; path: string; value: JsonObject }[];
}

/** Checks a body template's keys and references (shape, material). */
export function checkTemplate(ns: Namespace, d: Def): void {
  const r: Reader = new Reader(d.source.file);
  r.keys(d.value, d.path, TEMPLATE_KEYS);
  if (!has(d.value, 'shape')) r.missing(d.path, 'shape', 'the name of a shape');
  ns.reference('shape', d.value, 'shape', d.source, d.path);
  if (has(d.value, 'material')) ns.reference('material', d.value, 'material', d.source, d.path);
  alternatives(r, d.value, d.path, 'density', 'mass');
}

/** "a" and "b" are alternatives: an error when both are given. */
export function alternatives(r: Reader, o: JsonObject, path: string, a: string, b: string): void {
  if (has(o, a) && has(o, b)) r.fail(childPath(path, b), `"${a}" and "${b}" are alternatives; give only one`);
}

/** A name used inside instance names ("instance/alias"): non-empty, without "/". */
export function readPlainName(r: Reader, v: unknown, path: string, what: string): string {
  const s = r.string(v, path, `${what} (a non-empty string)`);
  if (s.includes('/')) r.fail(path, `${what} must not contain "/" (it separates an instance's name from its parts' in "instance/alias"), got ${describeValue(s)}`);
  return s;
}

/**
 * Checks a robot definition: keys, parts (unique aliases, a template or a
 * shape each), joints and motors that name only its own parts and joints,
 * and that its joints connect all of its parts (seed 003 4.1: "no body may
 * be left unjoined to the others, and every joint joins bodies of the robot").
 */
export function checkRobot(ns: Namespace, d: Def): RobotDef {
  const r: Reader = new Reader(d.source.file);
  const o = d.value;
  r.keys(o, d.path, ROBOT_KEYS);
  if (has(o, 'description')) r.string(o['description'], childPath(d.path, 'description'), 'a description (a non-empty string)');
  if (!has(o, 'parts')) r.missing(d.path, 'parts', 'an array of parts like {"alias": "base", "template": "plate", "position": [0, 0, 0]}');
  const partsPath = childPath(d.path, 'parts');
  const list = r.array(o['parts'], partsPath, 'an array of parts');
  if (list.length === 0) r.fail(partsPath, 'expected at least one part, got an empty array');
  const robot: RobotDef = { def: d, parts: [], joints: [], motors: [] };
  const aliases = new Map<string, number>();
  list.forEach((v, i) => {
    const path = indexPath(partsPath, i);
    const p = r.object(v, path, 'a part object like {"alias": "base", "template": "plate", "position": [0, 0, 0]}');
    r.keys(p, path, PART_KEYS);
    if (!has(p, 'alias')) r.missing(path, 'alias', 'the name of the part within the robot');
    const alias = readPlainName(r, p['alias'], childPath(path, 'alias'), 'an alias');
    const prev = aliases.get(alias);
    if (prev !== undefined) r.fail(childPath(path, 'alias'), `duplicate alias ${quote(alias)} (already used by ${indexPath(partsPath, prev)}); aliases must be unique within a robot`);
    aliases.set(alias, i);
    alternatives(r, p, path, 'template', 'shape');
    alternatives(r, p, path, 'orientation', 'rotation');
    alternatives(r, p, path, 'density', 'mass');
    let template: Def | undefined;
    if (has(p, 'template')) template = ns.reference('body template', p, 'template', d.source, path);
    else if (has(p, 'shape')) ns.reference('shape', p, 'shape', d.source, path);
    else r.missing(path, 'template', 'the name of a body template (or "shape" with the name of a shape)');
    if (has(p, 'material')) ns.reference('material', p, 'material', d.source, path);
    robot.parts.push({ alias, path, value: p, template });
  });
  const aliasList = [...aliases.keys()];
  const partRef = (jo: JsonObject, jpath: string, key: string): string => {
    if (!has(jo, key)) r.missing(jpath, key, `the alias of one of the robot's parts (${aliasList.join(', ')})`);
    const p = childPath(jpath, key);
    const alias = r.string(jo[key], p, 'the alias of a part (a string)');
    if (!aliases.has(alias)) r.fail(p, notAPart(alias, d.name, aliasList));
    return alias;
  };
  const sets = new DisjointSets(list.length);
  const names = new Map<string, number>();
  if (has(o, 'joints')) {
    const jpath0 = childPath(d.path, 'joints');
    r.array(o['joints'], jpath0, 'an array of joints').forEach((v, i) => {
      const path = indexPath(jpath0, i);
      const j = r.object(v, path, 'a joint object like {"type": "hinge", "bodyA": "base", "bodyB": "arm", ...}');
      const name = uniqueName(r, j, path, i, 'joint', names, jpath0);
      const a = partRef(j, path, 'bodyA');
      const b = partRef(j, path, 'bodyB');
      sets.union(aliases.get(a)!, aliases.get(b)!);
      robot.joints.push({ name, path, value: j, type: typeof j['type'] === 'string' ? j['type'] : '' });
    });
  }
  const root = sets.find(0);
  for (let i = 1; i < list.length; i++) {
    if (sets.find(i) !== root) {
      const alias = robot.parts[i]!.alias;
      r.fail(
        indexPath(partsPath, i),
        `part ${quote(alias)} is not joined to ${quote(robot.parts[0]!.alias)}: a robot's parts must all be connected by its joints (add a joint between ${quote(alias)} and a part it touches, or make it a body of its own)`,
      );
    }
  }
  if (has(o, 'motors')) {
    const mpath0 = childPath(d.path, 'motors');
    const motorNames = new Map<string, number>();
    const jointNames = robot.joints.map((j) => j.name);
    r.array(o['motors'], mpath0, 'an array of motors').forEach((v, i) => {
      const path = indexPath(mpath0, i);
      const m = r.object(v, path, 'a motor object like {"joint": "knee", "speed": 2, "maxTorque": 10}');
      r.keys(m, path, MOTOR_KEYS);
      const name = uniqueName(r, m, path, i, 'motor', motorNames, mpath0);
      if (has(m, 'joint')) {
        const p = childPath(path, 'joint');
        const jn = r.string(m['joint'], p, 'the name of one of the robot\'s joints (a string)');
        if (!jointNames.includes(jn)) r.fail(p, `${unknownName('joint', jn, jointNames)}: a robot's motor drives one of its own joints`);
      } else if (has(m, 'body')) {
        partRef(m, path, 'body');
      }
      robot.motors.push({ name, path, value: m });
    });
  }
  return robot;
}

function notAPart(alias: string, robot: string, aliases: readonly string[]): string {
  return `${quote(alias)} is not a part of robot ${quote(robot)}${unknownName('part', alias, aliases).slice(`unknown part ${quote(alias)}`.length)}: a robot's joints and motors join only its own parts`;
}

/** The unique `name` of entry i of a robot's joints or motors, default `<kind><i>`. */
function uniqueName(r: Reader, o: JsonObject, path: string, i: number, kind: string, names: Map<string, number>, listPath: string): string {
  const name = has(o, 'name') ? readPlainName(r, o['name'], childPath(path, 'name'), `a ${kind} name`) : `${kind}${i}`;
  const prev = names.get(name);
  if (prev !== undefined) {
    r.fail(has(o, 'name') ? childPath(path, 'name') : path, `duplicate ${kind} name ${quote(name)} (already used by ${indexPath(listPath, prev)}); give each ${kind} a unique "name"`);
  }
  names.set(name, i);
  return name;
}

/** Checks every template and robot of the namespace (so a library is checked whole, also what no scene uses). */
export function checkDefinitions(ns: Namespace): Map<string, RobotDef> {
  for (const d of ns.defs['body template'].values()) checkTemplate(ns, d);
  const robots = new Map<string, RobotDef>();
  for (const d of ns.defs.robot.values()) robots.set(d.name, checkRobot(ns, d));
  return robots;
}

/** An InputError's file is one of the namespace's files (for callers that remap errors). */
export function isFromFiles(e: unknown, files: readonly SourceFile[]): e is InputError {
  return e instanceof InputError && files.some((f) => f.file === e.file);
}

export { define };
