/**
 * Scenes of instances -> the plain scene format (docs/LIBRARY_FORMAT.md).
 *
 * A scene may place body templates and robots from libraries (library.ts)
 * with a pose and per-instance overrides. It is resolved by writing the
 * equivalent self-contained scene (every instance a plain body, joint and
 * motor, named "instance/alias"), which then goes through the one scene
 * validator (validate.ts). `stackfield run --flatten --dump` prints exactly
 * that scene, so a scene and its flattened form build the same world, bit
 * for bit, by construction: there is no second path from instances to bodies.
 *
 * The flattened scene's errors would name paths in a file nobody wrote, so
 * every value written records where it came from (an `Origins` map: flat
 * path -> file and path of the instance, template, material, part or
 * override that gave it), and errors are mapped back through it.
 *
 * Layers of a body's properties (each later one wins): the built-in
 * defaults (validate.ts), the scene's "defaults", the template's material,
 * the template's own keys, then per layer above it (a robot's part, a
 * robot instance's override of that part, a scene body) its material and
 * its own keys. "mass" and "density" replace each other.
 */
import { InputError, bareMessage } from '../errors.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { quatMul, rotateByQuat } from '../dynamics/math.ts';
import {
  MATERIAL_KEYS, MOTOR_OVERRIDE_KEYS, PART_OVERRIDE_KEYS, PROPERTY_KEYS, ROBOT_INSTANCE_KEYS, SCENE_BODY_KEYS, SCENE_INSTANCE_KEYS, SCENE_KEYS,
  TEMPLATE_KEYS, Namespace, alternatives, checkDefinitions, readMaterial, readPlainName, relativePath,
  type Def, type RobotDef, type SourceFile,
} from './library.ts';
import { MAX_BODIES, MAX_JOINTS, MOTOR_ALTERNATIVES, SCENE_FORMAT_ID, checkCount, tooManyMessage, validateScene } from './validate.ts';
import { Reader, childPath, define, has, indexPath, joinPath, readOrientation, readRotation, unknownName, type JsonObject } from './reader.ts';
import type { Quat, SceneDesc } from './types.ts';
import { fileLabel, quote } from '../util/echo.ts';

/** Where a value of the flattened scene came from. */
export interface Origin {
  file: string;
  path: string;
  /** The value was copied as it is written there, so a path below it (`[1]`, `.axisB`) is the same below the origin. */
  copy: boolean;
}

/**
 * What a robot instance's override changed in one flat body or motor: its
 * keys (each with where it is written) and the library keys it replaced
 * (an alternative of an override's key, removed: key -> the override's key).
 */
interface Overridden {
  keys: Map<string, Origin>;
  replaced: Map<string, string>;
}

/** Flat path -> origin, and the mapping of errors back to the files the user wrote. */
export class Origins {
  private readonly map = new Map<string, Origin>();
  /** Flat body or motor path (`bodies[3]`, `motors[0]`) -> what an instance's override changed in it. */
  private readonly overrides = new Map<string, Overridden>();

  /** `file`: the name the flattened scene is validated under. */
  constructor(readonly file: string) {}

  set(flat: string, origin: Origin): void {
    this.map.set(flat, origin);
  }

  /**
   * Records that `key` of the flat body or motor at `flat` was set by an
   * instance's override, written at `origin`, replacing the keys `replaces`
   * that the library gave.
   */
  override(flat: string, key: string, origin: Origin, replaces: readonly string[] = []): void {
    let o = this.overrides.get(flat);
    if (!o) this.overrides.set(flat, (o = { keys: new Map(), replaced: new Map() }));
    o.keys.set(key, origin);
    for (const r of replaces) o.replaced.set(r, key);
  }

  /** The origin of a flat path: its own, or its nearest ancestor's (with the rest of the path, for copies). */
  lookup(flat: string): { file: string; path: string } | undefined {
    let p = flat;
    let rest = '';
    for (;;) {
      const o = this.map.get(p);
      if (o) return { file: o.file, path: o.copy ? o.path + rest : o.path };
      const m = /(\.[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])$/.exec(p);
      if (!m) return undefined;
      rest = m[1] + rest;
      p = p.slice(0, p.length - m[1]!.length);
    }
  }

  /** An InputError about the flattened scene, as an error about the file and path the value came from; anything else unchanged. */
  remap(e: unknown): unknown {
    if (!(e instanceof InputError) || e.file !== this.file || !e.where) return e;
    // "bodies[3] ("cat/h0")": the derived checks of shapeBuild.ts name the body after its path.
    const m = /^(.*?)( \(".*"\))?$/.exec(e.where)!;
    const o = this.lookup(m[1]!);
    if (!o) return e;
    return this.blameOverride(e, m[1]!, o, m[2] ?? '') ?? new InputError(bareMessage(e), o.file, o.path + (m[2] ?? ''));
  }

  /**
   * An error at a library's value of a body or motor that a robot instance
   * overrides, caused by the override: the library's values passed on their
   * own (checkLibraryValues), so the error is reported at the override's key
   * (docs/LIBRARY_FORMAT.md: a bad value is reported where it is written).
   * That is the key the error replaced (a "speed" override removes the
   * motor's "targetAngularVelocity"), or the first overridden key the message
   * names ("expected maxTorque >= startTorque (100)", `mass ... (from
   * "mass")`). Null when the error is not one of these: the library's own.
   */
  private blameOverride(e: InputError, flat: string, at: { file: string; path: string }, suffix: string): InputError | null {
    if (at.file === this.file) return null;
    const m = /^((?:bodies|motors)\[\d+\])(?:\.([A-Za-z_$][\w$]*))?/.exec(flat);
    const ov = m ? this.overrides.get(m[1]!) : undefined;
    if (!m || !ov) return null;
    const key = m[2];
    const replacer = key !== undefined ? ov.replaced.get(key) : undefined;
    if (replacer !== undefined) {
      const origin = ov.keys.get(replacer)!;
      return new InputError(
        `${quote(replacer)} replaces the motor's ${quote(key!)} (${fileLabel(at.file)}: ${at.path}), and without it: ${bareMessage(e)}`,
        origin.file,
        origin.path + suffix,
      );
    }
    const message = bareMessage(e);
    let best: { at: number; origin: Origin; key: string } | null = null;
    for (const [k, origin] of ov.keys) {
      const i = message.search(new RegExp(`(?<![\\w$])${k}(?![\\w$])`));
      if (i >= 0 && (!best || i < best.at)) best = { at: i, origin, key: k };
    }
    if (!best) return null;
    // The other value the message compares comes from the library: say where.
    const other = key !== undefined && key !== best.key ? ` (${quote(key)} from ${fileLabel(at.file)}: ${at.path})` : '';
    return new InputError(`${message}${other}`, best.origin.file, best.origin.path + suffix);
  }
}

export interface Flattened {
  json: JsonObject;
  origins: Origins;
}

/** Whether a scene uses nothing beyond the plain format (then it is its own flattened form). */
export function isPlainScene(json: JsonObject): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return true;
  if (SCENE_INSTANCE_KEYS.some((k) => has(json, k))) return false;
  const bodies = json['bodies'];
  return !Array.isArray(bodies) || !bodies.some((b) => b !== null && typeof b === 'object' && (has(b as JsonObject, 'template') || has(b as JsonObject, 'material')));
}

/** -0 -> 0: JSON writes -0 as 0, and the flattened file must hold exactly what was validated. */
function clean(x: number): number {
  return x + 0;
}

/** A pose read from an instance or part: position and unit quaternion. */
interface Pose {
  p: Vec3;
  q: Quat;
}

function readPose(r: Reader, o: JsonObject, path: string): Pose {
  alternatives(r, o, path, 'orientation', 'rotation');
  const p = r.vec3(o, path, 'position', [0, 0, 0]);
  const q = has(o, 'rotation') ? readRotation(r, o['rotation'], childPath(path, 'rotation')) : readOrientation(r, o, path);
  return { p, q };
}

/** outer o inner: the inner pose (in the outer frame) placed in the world. */
function compose(outer: Pose, inner: Pose): Pose {
  const p = [0, 0, 0];
  rotateByQuat(outer.q, 0, inner.p[0], inner.p[1], inner.p[2], p, 0);
  const q = [0, 0, 0, 0];
  quatMul(outer.q, 0, inner.q, 0, q, 0);
  return {
    p: [clean(p[0]! + outer.p[0]), clean(p[1]! + outer.p[1]), clean(p[2]! + outer.p[2])],
    q: [clean(q[0]!), clean(q[1]!), clean(q[2]!), clean(q[3]!)],
  };
}

/** A body's properties as the layers give them, each with its origin. */
class Layers {
  readonly values = new Map<string, { value: unknown; origin: Origin }>();

  set(key: string, value: unknown, origin: Origin): void {
    // "mass" and "density" are alternatives: a later layer's one replaces an earlier layer's other.
    if (key === 'mass') this.values.delete('density');
    if (key === 'density') this.values.delete('mass');
    this.values.set(key, { value, origin });
  }

  /** The keys of `o` among `keys`, as written at file / path. */
  object(o: JsonObject, file: string, path: string, keys: readonly string[]): void {
    for (const k of keys) if (has(o, k)) this.set(k, o[k], { file, path: childPath(path, k), copy: true });
  }

  material(ns: Namespace, name: string): void {
    const d = ns.defs.material.get(name)!;
    const m = ns.materials.get(name)!;
    for (const k of MATERIAL_KEYS) if (m[k] !== undefined) this.set(k, m[k], { file: d.source.file, path: childPath(d.path, k), copy: true });
  }
}

/** The body keys in the order a flattened body writes them. */
const FLAT_BODY_ORDER = ['name', 'shape', 'static', 'position', 'orientation', 'rotation', 'velocity', 'angularVelocity', 'density', 'mass', 'restitution', 'friction', 'staticFriction', 'rollingFriction', 'spinningFriction'];

/**
 * The flattening of one scene (a SourceFile of kind "scene") against its
 * namespace. `allShapes` writes every shape of the namespace, not only the
 * used ones (for checking a library whole).
 */
class Flattener {
  readonly origins: Origins;
  readonly shapes: Record<string, unknown> = {};
  readonly bodies: unknown[] = [];
  readonly joints: unknown[] = [];
  readonly motors: unknown[] = [];
  /** Flat body name -> origin of the instance that has it (for duplicates). */
  private readonly names = new Map<string, Origin>();
  private readonly r: Reader;
  private readonly defaults: JsonObject;

  constructor(
    readonly root: SourceFile,
    readonly ns: Namespace,
    readonly robots: Map<string, RobotDef>,
  ) {
    this.origins = new Origins(root.file);
    this.r = new Reader(root.file);
    const S = root.json;
    this.defaults = {};
    if (has(S, 'defaults')) {
      const d = this.r.object(S['defaults'], 'defaults', 'an object of default material values, like {"friction": 0.7}');
      Object.assign(this.defaults, readMaterial(this.r, d, 'defaults'));
    }
  }

  /** A flat body name, unique, or an error at `path` naming the earlier instance. */
  private claim(name: string, origin: Origin): void {
    const prev = this.names.get(name);
    if (prev) {
      new Reader(origin.file).fail(origin.path, `the body name ${quote(name)} is already used by ${prev.file === origin.file ? '' : `${prev.file}: `}${prev.path}; body names must be unique`);
    }
    this.names.set(name, origin);
  }

  /** A shape reference: checked against the namespace; a library's shape is written into the flat scene on first use. */
  useShape(name: string, from: SourceFile, path: string): void {
    const d = this.ns.lookup('shape', name, from, path);
    if (d.source !== this.root) this.addLibraryShape(d);
  }

  addLibraryShape(d: Def): void {
    if (Object.hasOwn(this.shapes, d.name)) return;
    let v: unknown = d.value;
    // A mesh path is relative to the library; the flattened scene needs it relative to the scene.
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as JsonObject)['type'] === 'mesh' && typeof (v as JsonObject)['path'] === 'string') {
      const mesh = v as JsonObject;
      v = { ...mesh, path: relativePath(this.root.dir, joinPath(d.source.dir, mesh['path'] as string)) };
    }
    define(this.shapes, d.name, v);
    this.origins.set(childPath('shapes', d.name), { file: d.source.file, path: d.path, copy: true });
  }

  /** The template's layers: its material, then its own keys (shape included). */
  private templateLayers(L: Layers, t: Def): void {
    if (has(t.value, 'material')) L.material(this.ns, t.value['material'] as string);
    L.object(t.value, t.source.file, t.path, TEMPLATE_KEYS.filter((k) => k !== 'material'));
    this.useShape(t.value['shape'] as string, t.source, t.path);
  }

  /** A layer with a material reference and own keys (a scene body, a part, an override). */
  private ownLayers(L: Layers, o: JsonObject, from: SourceFile, path: string, keys: readonly string[]): void {
    if (has(o, 'material')) L.material(this.ns, this.ns.reference('material', o, 'material', from, path).name);
    L.object(o, from.file, path, keys);
  }

  private defaultLayer(L: Layers): void {
    for (const k of MATERIAL_KEYS) {
      if (has(this.defaults, k)) L.set(k, this.defaults[k], { file: this.root.file, path: childPath('defaults', k), copy: true });
    }
  }

  /** Writes a flat body from its layers (plus fixed keys) and records the origins. */
  private emitBody(fixed: JsonObject, fixedOrigin: Origin, L: Layers, bodyOrigin: Origin): void {
    const k = this.bodies.length;
    const path = indexPath('bodies', k);
    const out: JsonObject = {};
    for (const key of FLAT_BODY_ORDER) {
      if (has(fixed, key)) {
        out[key] = fixed[key];
        this.origins.set(childPath(path, key), key === 'name' ? fixedOrigin : { ...fixedOrigin, copy: false });
      } else {
        const v = L.values.get(key);
        if (!v) continue;
        out[key] = v.value;
        this.origins.set(childPath(path, key), v.origin);
      }
    }
    this.origins.set(path, bodyOrigin);
    this.bodies.push(out);
  }

  sceneBody(v: unknown, i: number): void {
    const path = indexPath('bodies', i);
    const k = this.bodies.length;
    const origin: Origin = { file: this.root.file, path, copy: true };
    const r = this.r;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      // The validator says what a body must be.
      this.origins.set(indexPath('bodies', k), origin);
      this.bodies.push(v);
      return;
    }
    const o = v as JsonObject;
    r.keys(o, path, SCENE_BODY_KEYS);
    alternatives(r, o, path, 'template', 'shape');
    const name = has(o, 'name') && typeof o['name'] === 'string' ? o['name'] : `body${i}`;
    this.claim(name, { file: this.root.file, path: has(o, 'name') ? childPath(path, 'name') : path, copy: false });
    if (typeof o['shape'] === 'string') this.useShape(o['shape'], this.root, childPath(path, 'shape'));
    if (!has(o, 'template') && !has(o, 'material') && Object.keys(this.defaults).length === 0) {
      this.origins.set(indexPath('bodies', k), origin);
      this.bodies.push(o);
      return;
    }
    const L = new Layers();
    this.defaultLayer(L);
    if (has(o, 'template')) this.templateLayers(L, this.ns.reference('body template', o, 'template', this.root, path));
    this.ownLayers(L, o, this.root, path, SCENE_BODY_KEYS.filter((key) => key !== 'template' && key !== 'material'));
    if (!L.values.has('shape')) r.missing(path, 'shape', 'the name of a shape, or "template" with the name of a body template');
    this.emitBody({}, origin, L, origin);
  }

  robotInstance(v: unknown, i: number): void {
    const r = this.r;
    const path = indexPath('robots', i);
    const o = r.object(v, path, 'a robot instance like {"name": "cat1", "robot": "caterpillar", "position": [0, 0, 0]}');
    r.keys(o, path, ROBOT_INSTANCE_KEYS);
    const inst = has(o, 'name') ? readPlainName(r, o['name'], childPath(path, 'name'), 'a robot instance name') : `robot${i}`;
    if (!has(o, 'robot')) r.missing(path, 'robot', 'the name of a robot defined in an included library');
    const def = this.ns.reference('robot', o, 'robot', this.root, path);
    const robot = this.robots.get(def.name)!;
    const pose = readPose(r, o, path);
    const here: Origin = { file: this.root.file, path, copy: false };

    const partOverrides = this.overrides(o, path, 'parts', robot.parts.map((p) => p.alias), 'part', `part of robot ${quote(def.name)}`);
    const motorOverrides = this.overrides(o, path, 'motors', robot.motors.map((m) => m.name), 'motor', `motor of robot ${quote(def.name)}`);

    const rr = new Reader(def.source.file);
    for (const [what, have, more, max] of [['bodies', this.bodies.length, robot.parts.length, MAX_BODIES], ['joints', this.joints.length, robot.joints.length, MAX_JOINTS]] as const) {
      if (have + more > max) r.fail(path, tooManyMessage(what, max, `robot ${quote(def.name)} adds ${more} ${what} to ${have}`));
    }
    for (const part of robot.parts) {
      const L = new Layers();
      this.defaultLayer(L);
      if (part.template) this.templateLayers(L, part.template);
      this.ownLayers(L, part.value, def.source, part.path, ['shape', 'static', ...PROPERTY_KEYS]);
      if (has(part.value, 'shape')) this.useShape(part.value['shape'] as string, def.source, part.path);
      const ov = partOverrides.get(part.alias);
      if (ov) {
        this.ownLayers(L, ov.value, this.root, ov.path, PROPERTY_KEYS);
        // The body emitBody writes next: an error its override causes is the override's (Origins.remap).
        for (const key of PROPERTY_KEYS) {
          if (has(ov.value, key)) this.origins.override(indexPath('bodies', this.bodies.length), key, { file: this.root.file, path: childPath(ov.path, key), copy: true });
        }
      }
      const world = compose(pose, readPose(rr, part.value, part.path));
      const name = `${inst}/${part.alias}`;
      this.claim(name, { file: this.root.file, path, copy: false });
      this.emitBody({ name, position: world.p, orientation: world.q }, here, L, { file: def.source.file, path: part.path, copy: false });
    }
    for (const j of robot.joints) {
      const k = this.joints.length;
      this.joints.push({ ...j.value, name: `${inst}/${j.name}`, bodyA: `${inst}/${j.value['bodyA'] as string}`, bodyB: `${inst}/${j.value['bodyB'] as string}` });
      this.origins.set(indexPath('joints', k), { file: def.source.file, path: j.path, copy: true });
    }
    for (const m of robot.motors) {
      const k = this.motors.length;
      const fpath = indexPath('motors', k);
      const out: JsonObject = { ...m.value, name: `${inst}/${m.name}` };
      this.origins.set(fpath, { file: def.source.file, path: m.path, copy: true });
      const ov = motorOverrides.get(m.name);
      if (ov) {
        for (const key of Object.keys(ov.value)) {
          const replaced: string[] = [];
          for (const group of MOTOR_ALTERNATIVES) {
            if (!group.includes(key)) continue;
            for (const other of group) {
              if (other === key || !has(out, other)) continue;
              delete out[other];
              if (!has(ov.value, other)) replaced.push(other);
            }
          }
          out[key] = ov.value[key];
          const origin: Origin = { file: this.root.file, path: childPath(ov.path, key), copy: true };
          this.origins.set(childPath(fpath, key), origin);
          this.origins.override(fpath, key, origin, replaced);
        }
      }
      if (typeof out['body'] === 'string') out['body'] = `${inst}/${out['body']}`;
      if (typeof out['joint'] === 'string') out['joint'] = `${inst}/${out['joint']}`;
      // A world-frame axis in a robot is in the robot's frame: it turns with the instance.
      if (typeof out['body'] === 'string' && out['frame'] !== 'body') {
        for (const key of ['targetAngularVelocity', 'axis']) {
          const a = out[key];
          if (!Array.isArray(a) || a.length !== 3 || !a.every((x) => typeof x === 'number' && Number.isFinite(x))) continue;
          const w = [0, 0, 0];
          rotateByQuat(pose.q, 0, a[0] as number, a[1] as number, a[2] as number, w, 0);
          out[key] = w.map(clean);
        }
      }
      this.motors.push(out);
    }
  }

  /** An instance's `parts` or `motors` overrides: an object keyed by alias / motor name, each an object of allowed keys. */
  private overrides(o: JsonObject, path: string, key: 'parts' | 'motors', names: string[], kind: string, what: string): Map<string, { value: JsonObject; path: string }> {
    const out = new Map<string, { value: JsonObject; path: string }>();
    if (!has(o, key)) return out;
    const r = this.r;
    const p = childPath(path, key);
    const map = r.object(o[key], p, `an object mapping each ${what}'s name to its overrides`);
    for (const name of Object.keys(map)) {
      const op = childPath(p, name);
      if (!names.includes(name)) r.fail(op, `${unknownName(kind, name, names)}: overrides name a ${what}`);
      const v = r.object(map[name], op, `an object of the ${kind}'s keys to override`);
      r.keys(v, op, key === 'parts' ? PART_OVERRIDE_KEYS : MOTOR_OVERRIDE_KEYS);
      alternatives(r, v, op, 'density', 'mass');
      if (has(v, 'material')) this.ns.reference('material', v, 'material', this.root, op);
      out.set(name, { value: v, path: op });
    }
    return out;
  }

  /** The flattened scene: the root's own plain keys, then shapes, bodies, joints and motors. */
  build(): Flattened {
    const S = this.root.json;
    const json: JsonObject = {};
    for (const k of Object.keys(S)) {
      if (SCENE_INSTANCE_KEYS.includes(k) || k === 'shapes' || k === 'bodies' || k === 'joints' || k === 'motors') continue;
      json[k] = S[k];
    }
    json['shapes'] = this.shapes;
    if (this.bodies.length > 0 || has(S, 'bodies')) json['bodies'] = this.bodies;
    if (this.joints.length > 0) json['joints'] = this.joints;
    if (this.motors.length > 0) json['motors'] = this.motors;
    return { json, origins: this.origins };
  }
}

/** Flattens a scene of instances (the namespace's definitions checked by checkDefinitions). */
export function flattenScene(root: SourceFile, ns: Namespace, robots: Map<string, RobotDef>): Flattened {
  const S = root.json;
  const r = new Reader(root.file);
  // A wrong version says so before anything complains about keys (as validateScene does).
  if (has(S, 'format') && S['format'] !== SCENE_FORMAT_ID) validateScene(S, root.file);
  r.keys(S, '', SCENE_KEYS);
  const f = new Flattener(root, ns, robots);
  // The scene's own shapes first (each checked by the validator, used or not), then library shapes as used.
  if (has(S, 'shapes') && S['shapes'] !== null && typeof S['shapes'] === 'object') {
    for (const [name, v] of Object.entries(S['shapes'] as JsonObject)) define(f.shapes, name, v);
  }
  // Counted before they are copied (validateScene counts them again with robots' parts).
  if (Array.isArray(S['bodies'])) checkCount(r, S['bodies'], 'bodies', MAX_BODIES);
  if (Array.isArray(S['joints'])) checkCount(r, S['joints'], 'joints', MAX_JOINTS);
  if (Array.isArray(S['bodies'])) (S['bodies'] as unknown[]).forEach((b, i) => f.sceneBody(b, i));
  // The scene's own joints and motors come first, so their default names ("joint<i>") and paths stay the same.
  for (const key of ['joints', 'motors'] as const) {
    if (!Array.isArray(S[key])) continue;
    (S[key] as unknown[]).forEach((v, i) => {
      f.origins.set(indexPath(key, i), { file: root.file, path: indexPath(key, i), copy: true });
      f[key].push(v);
    });
  }
  if (has(S, 'robots')) r.array(S['robots'], 'robots', 'an array of robot instances').forEach((v, i) => f.robotInstance(v, i));
  const out = f.build();
  // What is not an array is the validator's to report, as written.
  for (const key of ['bodies', 'joints', 'motors']) if (has(S, key) && !Array.isArray(S[key])) out.json[key] = S[key];
  return out;
}

/** The instance names of a library's definitions in the scene that checks it (checkLibraryValues). */
export const checkName = {
  shape: (name: string) => `shape ${name}`,
  template: (name: string) => `template ${name}`,
  robot: (name: string) => `robot ${name.replace(/\//g, ' ')}`,
};

/**
 * A scene that places one of everything a library defines (each shape on a
 * body of its own, each template, each robot at the origin), so that
 * flattening and validating it checks the library whole, also what no scene
 * uses; errors map back to the library. Returns that scene (null for a
 * library that defines nothing), for listing masses.
 */
export function checkLibraryValues(ns: Namespace, robots: Map<string, RobotDef>, lib: SourceFile): SceneDesc | null {
  const bodies: JsonObject[] = [];
  const own = (d: Def) => d.source === lib;
  for (const d of ns.defs.shape.values()) {
    if (own(d)) bodies.push({ name: checkName.shape(d.name), shape: d.name, static: (d.value as JsonObject | null)?.['type'] === 'plane' });
  }
  for (const d of ns.defs['body template'].values()) if (own(d)) bodies.push({ name: checkName.template(d.name), template: d.name });
  const insts: JsonObject[] = [];
  for (const d of ns.defs.robot.values()) if (own(d)) insts.push({ name: checkName.robot(d.name), robot: d.name });
  if (bodies.length === 0 && insts.length === 0) return null;
  const root: SourceFile = {
    file: `${lib.file} (checked as a scene)`,
    dir: lib.dir,
    kind: 'scene',
    json: { format: SCENE_FORMAT_ID, bodies, robots: insts },
    includes: [lib.file],
  };
  const flat = flattenScene(root, new Namespace([root, ...ns.files]), robots);
  let scene: SceneDesc;
  try {
    scene = validateScene(flat.json, root.file, lib.dir);
  } catch (e) {
    throw flat.origins.remap(e);
  }
  Object.defineProperty(scene, 'origins', { value: flat.origins, enumerable: false });
  return scene;
}

/**
 * A scene with its includes read: checks every definition, flattens, and
 * validates the flattened scene, errors mapped back to where they were
 * written. `files` are the root (first) and what it includes (library.ts
 * gatherFiles). Returns the scene and its flattened JSON; the SceneDesc
 * carries the origins (not enumerable) so the world builder can map its
 * errors back too.
 */
export function resolveScene(files: readonly SourceFile[], baseDir?: string): { scene: SceneDesc; flat: JsonObject } {
  const root = files[0]!;
  if (isPlainScene(root.json) && files.length === 1) {
    return { scene: validateScene(root.json, root.file, baseDir), flat: root.json };
  }
  const ns = new Namespace(files);
  const robots = checkDefinitions(ns);
  for (const f of files) if (f.kind === 'library') checkLibraryValues(ns, robots, f);
  const flat = flattenScene(root, ns, robots);
  let scene: SceneDesc;
  try {
    scene = validateScene(flat.json, root.file, baseDir);
  } catch (e) {
    throw flat.origins.remap(e);
  }
  Object.defineProperty(scene, 'origins', { value: flat.origins, enumerable: false });
  return { scene, flat: flat.json };
}

/** The origins of a scene resolved from instances (for mapping build errors back), if any. */
export function originsOf(scene: SceneDesc): Origins | undefined {
  return (scene as { origins?: Origins }).origins;
}
