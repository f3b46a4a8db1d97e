/**
 * The scene's external forces (docs/forces.md, docs/SCENE_FORMAT.md
 * "forces"): the top-level "fluid" and "forces", and a body's "drag".
 * Same rules as validate.ts: the first problem is thrown as an InputError
 * naming the JSON path and what was expected; unknown keys are suggested.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import { didYouMean } from '../util/suggest.ts';
import { quote } from '../util/echo.ts';
import type { BodyDesc, DragDesc, ForceDesc, GustDesc, SceneDesc } from './types.ts';
import { InputError } from '../errors.ts';
import {
  NON_NEGATIVE, POSITIVE, Reader, bodyReference, childPath, describeValue, has, indexPath, unknownReference, type JsonObject, type NameIndex,
} from './reader.ts';
import { SPEED_MAX, checkPosition, shortNumber } from './magnitudes.ts';

/** Air at sea level and 15 degrees C (kg/m^3). */
export const DEFAULT_FLUID_DENSITY = 1.225;

export const FORCE_TYPES = ['wind', 'field', 'force', 'impulse'] as const;
type ForceType = (typeof FORCE_TYPES)[number];

const FORCE_KEYS: Record<ForceType, readonly string[]> = {
  wind: ['type', 'velocity', 'gust', 'bodies', 'from', 'until'],
  field: ['type', 'force', 'gust', 'bodies', 'from', 'until'],
  force: ['type', 'body', 'force', 'point', 'frame', 'from', 'until'],
  impulse: ['type', 'body', 'impulse', 'point', 'frame', 'at'],
};
const ALL_FORCE_KEYS = [...new Set(Object.values(FORCE_KEYS).flat())];
const GUST_KEYS = ['amplitude', 'period', 'phase'];
export const DRAG_KEYS = ['linear', 'cd', 'area'];
const FLUID_KEYS = ['density'];

/** Largest force (N) or impulse (N s) a scene may give: beyond it derived velocities overflow nothing useful. */
const FORCE_MAX = 1e12;

/** The top-level "fluid": its density (kg/m^3). */
export function readFluid(r: Reader, root: JsonObject): number {
  if (!has(root, 'fluid')) return DEFAULT_FLUID_DENSITY;
  const o = r.object(root['fluid'], 'fluid', 'an object like {"density": 1.225}');
  r.keys(o, 'fluid', FLUID_KEYS);
  return r.num(o, 'fluid', 'density', DEFAULT_FLUID_DENSITY, NON_NEGATIVE);
}

/** A body's "drag": linear (N s/m) and/or cd with area (m^2); absent: undefined. */
export function readDrag(r: Reader, o: JsonObject, bodyPath: string, isStatic: boolean): DragDesc | undefined {
  if (!has(o, 'drag')) return undefined;
  const path = childPath(bodyPath, 'drag');
  if (isStatic) r.fail(path, 'a static body does not move, so it has no drag; remove "drag" or the body\'s "static"');
  const d = r.object(o['drag'], path, 'an object like {"linear": 0.5} or {"cd": 0.47, "area": 0.0314}');
  r.keys(d, path, DRAG_KEYS);
  if (Object.keys(d).length === 0) r.fail(path, 'expected "linear" (N s/m) and/or "cd" with "area" (m^2), got an empty object');
  if (has(d, 'cd') !== has(d, 'area')) {
    const missing = has(d, 'cd') ? 'area' : 'cd';
    r.missing(path, missing, missing === 'area'
      ? 'the reference area in m^2 (a number >= 0): quadratic drag needs both "cd" and "area"'
      : 'the drag coefficient (a number >= 0): quadratic drag needs both "cd" and "area"');
  }
  return {
    linear: r.num(d, path, 'linear', 0, NON_NEGATIVE),
    cd: r.num(d, path, 'cd', 0, NON_NEGATIVE),
    area: r.num(d, path, 'area', 0, NON_NEGATIVE),
  };
}

/** The top-level "forces" array. */
export function readForces(r: Reader, root: JsonObject, bodies: BodyDesc[], byName: NameIndex): ForceDesc[] {
  if (!has(root, 'forces')) return [];
  const list = r.array(root['forces'], 'forces', 'an array of forces ({"type": "wind" | "field" | "force" | "impulse", ...})');
  const out = list.map((v, i) => readForce(r, v, i, bodies, byName));
  checkWindOverlap(r, out);
  return out;
}

function readForce(r: Reader, v: unknown, i: number, bodies: BodyDesc[], byName: NameIndex): ForceDesc {
  const path = indexPath('forces', i);
  const o = r.object(v, path, 'a force object like {"type": "force", "body": "box", "force": [10, 0, 0]}');
  const t0 = o['type'];
  const typed = typeof t0 === 'string' && (FORCE_TYPES as readonly string[]).includes(t0);
  // Keys no force takes are suggested from what this type takes (when it is known).
  r.keys(Object.fromEntries(Object.entries(o).filter(([k]) => !ALL_FORCE_KEYS.includes(k))), path, typed ? FORCE_KEYS[t0 as ForceType] : ALL_FORCE_KEYS);
  const validTypes = `valid types: ${FORCE_TYPES.join(', ')}`;
  if (!has(o, 'type')) r.fail(childPath(path, 'type'), `missing required key "type" (${validTypes})`);
  if (!typed) {
    const hint = typeof t0 === 'string' ? didYouMean(t0, FORCE_TYPES) : '';
    r.fail(childPath(path, 'type'), `unknown force type ${describeValue(t0)}${hint}; ${validTypes}`);
  }
  const type = t0 as ForceType;
  const keys = FORCE_KEYS[type];
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) r.fail(childPath(path, k), `a ${type} does not use "${k}" (its keys are: ${keys.join(', ')})`);
  }
  const magnitude = (key: string, what: string): Vec3 => {
    const vec = r.vec3(o, path, key, undefined);
    if (Math.hypot(vec[0], vec[1], vec[2]) > FORCE_MAX) r.fail(childPath(path, key), `expected ${what} of at most 1e12, got [${vec.join(', ')}]`);
    return vec;
  };
  switch (type) {
    case 'wind':
    case 'field': {
      const key = type === 'wind' ? 'velocity' : 'force';
      if (!has(o, key)) r.missing(path, key, type === 'wind' ? 'the air velocity [x, y, z] in m/s' : 'the force [x, y, z] in N on each body');
      const base = magnitude(key, type === 'wind' ? 'a speed (m/s)' : 'a force (N)');
      const gust = readGust(r, o, path);
      const names = readBodyList(r, o, path, bodies, byName);
      const { from, until } = readWindow(r, o, path);
      const common = { ...(gust ? { gust } : {}), ...(names ? { bodies: names } : {}), from, until };
      return type === 'wind' ? { type, velocity: base, ...common } : { type, force: base, ...common };
    }
    case 'force':
    case 'impulse': {
      const b = bodyReference(r, o, path, 'body', bodies, byName);
      if (b.static) r.fail(childPath(path, 'body'), `${quote(b.name)} is static; a ${type} can only act on a dynamic body`);
      const key = type;
      if (!has(o, key)) r.missing(path, key, type === 'force' ? 'the force [x, y, z] in N' : 'the impulse [x, y, z] in N s');
      const vec = magnitude(key, type === 'force' ? 'a force (N)' : 'an impulse (N s)');
      const point = has(o, 'point') ? r.vec3(o, path, 'point', undefined) : undefined;
      // As far out as a body may be placed (1e9 m), like a joint's anchor: 1e300 made the state non-finite at step 0.
      if (point) checkPosition(r, point, childPath(path, 'point'));
      const frame = r.choice(o, path, 'frame', ['world', 'body'] as const, 'world');
      const p = point ? { point } : {};
      if (type === 'force') return { type, body: b.name, force: vec, ...p, frame, ...readWindow(r, o, path) };
      if (!has(o, 'at')) r.missing(path, 'at', 'the time in seconds (a number >= 0) at which the impulse acts');
      return { type, body: b.name, impulse: vec, ...p, frame, at: r.num(o, path, 'at', undefined, NON_NEGATIVE) };
    }
  }
}

function readGust(r: Reader, o: JsonObject, path: string): GustDesc | undefined {
  if (!has(o, 'gust')) return undefined;
  const p = childPath(path, 'gust');
  const g = r.object(o['gust'], p, 'an object like {"amplitude": [2, 0, 0], "period": 3}');
  r.keys(g, p, GUST_KEYS);
  if (!has(g, 'amplitude')) r.missing(p, 'amplitude', 'the gust\'s amplitude [x, y, z], in the units of the base vector');
  const amplitude = r.vec3(g, p, 'amplitude', undefined);
  if (Math.hypot(amplitude[0], amplitude[1], amplitude[2]) > FORCE_MAX) r.fail(childPath(p, 'amplitude'), `expected an amplitude of at most 1e12, got [${amplitude.join(', ')}]`);
  return {
    amplitude,
    period: r.num(g, p, 'period', undefined, POSITIVE),
    phase: r.num(g, p, 'phase', 0, { min: -360, max: 360 }),
  };
}

function readBodyList(r: Reader, o: JsonObject, path: string, bodies: BodyDesc[], byName: NameIndex): string[] | undefined {
  if (!has(o, 'bodies')) return undefined;
  const p = childPath(path, 'bodies');
  const list = r.array(o['bodies'], p, 'an array of body names (no "bodies": every dynamic body)');
  if (list.length === 0) r.fail(p, 'expected at least one body name, got an empty array (leave "bodies" out to act on every dynamic body)');
  const names: string[] = [];
  list.forEach((v, k) => {
    const name = r.string(v, indexPath(p, k), 'the name of a body (a string)');
    const found = byName.get(name);
    if (!found) r.fail(indexPath(p, k), unknownReference('body', name, bodies.map((b) => b.name)));
    const b = bodies[found.index]!;
    if (names.includes(b.name)) r.fail(indexPath(p, k), `body ${quote(b.name)} is listed twice`);
    if (b.static) r.fail(indexPath(p, k), `${quote(b.name)} is static; forces act on dynamic bodies only`);
    names.push(b.name);
  });
  return names;
}

function readWindow(r: Reader, o: JsonObject, path: string): { from: number; until: number } {
  const from = r.num(o, path, 'from', 0, NON_NEGATIVE);
  // JSON cannot say Infinity: no "until" means no end.
  const until = r.num(o, path, 'until', Infinity, NON_NEGATIVE);
  if (!(until > from)) r.fail(childPath(path, 'until'), `expected until > from (${from}), got ${until}`);
  return { from, until };
}

/**
 * A body takes its air velocity from one wind at a time: the one naming it,
 * else the one naming no bodies. Two winds naming the same body, or two
 * scene-wide winds, would be ambiguous where their windows overlap.
 */
function checkWindOverlap(r: Reader, forces: ForceDesc[]): void {
  const winds = forces.map((f, i) => [f, i] as const).filter(([f]) => f.type === 'wind');
  for (let a = 0; a < winds.length; a++) {
    for (let b = a + 1; b < winds.length; b++) {
      const [fa, ia] = winds[a]!, [fb, ib] = winds[b]!;
      if (fa.type !== 'wind' || fb.type !== 'wind') continue;
      if (!(fa.from < fb.until && fb.from < fa.until)) continue;
      const shared = !fa.bodies && !fb.bodies ? 'every body' : fa.bodies && fb.bodies ? fa.bodies.find((n) => fb.bodies!.includes(n)) : undefined;
      if (shared === undefined) continue;
      r.fail(
        indexPath('forces', ib),
        `this wind and forces[${ia}] both blow on ${shared === 'every body' ? 'every body' : `body ${quote(shared)}`} at the same time; ` +
          'a body has one air velocity: give the winds different "bodies" or windows that do not overlap',
      );
    }
  }
}

/**
 * Refuses a force, field or impulse that would change a body's velocity by
 * more than the speed of light (at once for an impulse, in one step for a
 * force or field): the limit a body's own "velocity" has (SCENE_FORMAT.md,
 * "Limits on magnitudes"). Each vector is at most 1e12, but on a body of
 * 1e-80 kg an impulse of 1e12 N s left it at 1e92 m/s and 1e91 m away, a
 * state no scene may set. `massOf(i)` is body i's mass (0 for a static one);
 * check and run both call this once the masses are known.
 */
export function checkForceSpeeds(scene: SceneDesc, massOf: (body: number) => number): void {
  const byName = new Map(scene.bodies.map((b, i) => [b.name, i] as const));
  const refuse = (k: number, key: string, what: string, body: number, dv: number, per: string) => {
    const b = scene.bodies[body]!;
    throw new InputError(
      `${what} on body ${quote(b.name)} (mass ${shortNumber(massOf(body))} kg) changes its velocity by ${shortNumber(dv)} m/s${per}, ` +
        'more than the speed of light (299792458 m/s); expected a smaller one or a heavier body',
      scene.file,
      childPath(indexPath('forces', k), key),
    );
  };
  scene.forces.forEach((f, k) => {
    if (f.type === 'wind') return;
    if (f.type === 'impulse') {
      const i = byName.get(f.body)!;
      const dv = Math.hypot(...f.impulse) / massOf(i);
      if (dv > SPEED_MAX) refuse(k, 'impulse', `an impulse of ${shortNumber(Math.hypot(...f.impulse))} N s`, i, dv, '');
      return;
    }
    const base = f.force;
    const amplitude = f.type === 'field' && f.gust ? Math.hypot(...f.gust.amplitude) : 0;
    const force = Math.hypot(...base) + amplitude;
    const targets = f.type === 'force' ? [byName.get(f.body)!] : f.bodies ? f.bodies.map((n) => byName.get(n)!) : scene.bodies.map((_, i) => i);
    for (const i of targets) {
      const m = massOf(i);
      if (!(m > 0)) continue;
      const dv = (force * scene.dt) / m;
      if (dv > SPEED_MAX) refuse(k, 'force', `a force of ${shortNumber(force)} N`, i, dv, ` in one step of ${scene.dt} s`);
    }
  });
}
