/**
 * Reading parsed JSON with messages that say where (docs/SCENE_FORMAT.md,
 * "Errors"): JSON paths (`bodies[3].friction`, `shapes["my ring"]`), value
 * descriptions, number rules, the typed Reader whose every method returns a
 * checked value or throws an InputError naming the file and path, the name
 * index of a list's entries, and the pose and body-reference readers the
 * rigid part (validate.ts), the soft part (softValidate.ts), libraries and
 * instances share.
 *
 * Keys are read with Object.hasOwn and records written with `define`, so a
 * name is data: "__proto__" or "constructor" is a name like any other.
 */
import { InputError } from '../errors.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import type { BodyDesc, Quat } from './types.ts';
import { closestMatch, didYouMean, listChoices } from '../util/suggest.ts';
import { ECHO_MAX, quote } from '../util/echo.ts';
import * as det from '../util/detmath.ts';

/** Below this length a direction or quaternion counts as zero (it cannot be normalised meaningfully). */
export const ZERO_LENGTH = 1e-9;

// ---------------------------------------------------------------------------
// JSON paths and value descriptions for messages

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `shapes.ring`, or `shapes["my ring"]` when the key is not an identifier. */
export function childPath(path: string, key: string): string {
  if (key.length <= ECHO_MAX && IDENTIFIER.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${quote(key)}]`;
}

export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** A short description of a JSON value for "got ..." in messages. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    if (v.length === 0) return 'an empty array';
    return `an array of ${v.length} element${v.length === 1 ? '' : 's'}`;
  }
  switch (typeof v) {
    case 'string':
      return quote(v, 40);
    case 'number':
      // JSON has no infinity, but JSON.parse turns 1e999 into one; NaN comes only from code (the library).
      // -0 as written (String gives "0", which reads as if a 0 was refused).
      if (Object.is(v, -0)) return '-0';
      return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN (not a number)' : `${v} (the number is too large for a 64-bit float)`;
    case 'boolean':
      return String(v);
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

export interface NumberRule {
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
  integer?: boolean;
}

export const POSITIVE: NumberRule = { min: 0, minExclusive: true };
export const NON_NEGATIVE: NumberRule = { min: 0 };
export const ANY: NumberRule = {};

function describeRule(r: NumberRule): string {
  const kind = r.integer ? 'an integer' : 'a number';
  if (r.min === 0 && r.minExclusive && r.max === undefined) return `${r.integer ? 'a positive integer' : 'a positive number'} (> 0)`;
  if (r.min !== undefined && r.max !== undefined && !r.minExclusive && !r.maxExclusive) {
    return `${kind} from ${r.min} to ${r.max}`;
  }
  const parts = [r.integer ? kind : 'a finite number'];
  if (r.min !== undefined) parts.push(`${r.minExclusive ? '>' : '>='} ${r.min}`);
  if (r.min !== undefined && r.max !== undefined) parts.push('and');
  if (r.max !== undefined) parts.push(`${r.maxExclusive ? '<' : '<='} ${r.max}`);
  return parts.join(' ');
}

export function vectorLabel(n: number): string {
  return n === 3 ? 'an array of 3 numbers [x, y, z]' : n === 4 ? 'an array of 4 numbers [x, y, z, w]' : `an array of ${n} numbers`;
}

export type JsonObject = Record<string, unknown>;

export function has(o: JsonObject, key: string): boolean {
  return Object.hasOwn(o, key);
}

export function get(o: JsonObject, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Adds a key without going through setters: a shape called "__proto__" must stay a shape. */
export function define<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The Euclidean length without overflow or underflow: scaled by the largest
 * component first, so [1e308, 1e308, 1e308] has a finite (if huge) length
 * and normalises to a unit vector instead of [0, 0, 0] (validate what the
 * numbers produce, not only the numbers).
 */
export function safeLength(v: readonly number[]): number {
  let m = 0;
  for (const x of v) m = Math.max(m, Math.abs(x));
  if (m === 0 || !Number.isFinite(m)) return m;
  let s = 0;
  for (const x of v) s += (x / m) * (x / m);
  return m * Math.sqrt(s);
}

/** v / |v| through safeLength's scaling (finite for any finite non-zero v). */
export function normalised(v: readonly number[]): number[] {
  let m = 0;
  for (const x of v) m = Math.max(m, Math.abs(x));
  const u = v.map((x) => x / m);
  const len = Math.hypot(...u);
  return u.map((x) => x / len);
}

/** v is a finite number satisfying the rule. */
function fits(v: unknown, r: NumberRule): v is number {
  return (
    typeof v === 'number' &&
    Number.isFinite(v) &&
    !(r.integer && !Number.isInteger(v)) &&
    !(r.min !== undefined && (r.minExclusive ? v <= r.min : v < r.min)) &&
    !(r.max !== undefined && (r.maxExclusive ? v >= r.max : v > r.max))
  );
}

// ---------------------------------------------------------------------------
// Typed readers: each either returns a checked value or throws an InputError.

export class Reader {
  constructor(readonly file: string) {}

  fail(path: string, message: string): never {
    throw new InputError(message, this.file, path || undefined);
  }

  missing(path: string, key: string, expected: string): never {
    this.fail(childPath(path, key), `missing required key "${key}" (expected ${expected})`);
  }

  object(v: unknown, path: string, what: string): JsonObject {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `expected ${what}, got ${describeValue(v)}`);
    return v as JsonObject;
  }

  array(v: unknown, path: string, what: string): unknown[] {
    if (!Array.isArray(v)) this.fail(path, `expected ${what}, got ${describeValue(v)}`);
    return v;
  }

  /**
   * Rejects any key outside `allowed`, suggesting the closest one, or listing them all when none is close.
   * `elsewhere`: keys the object may have when it is read another way (a scene's library keys, which
   * resolveScene takes out first): suggested and listed as accepted, and one of them given here is
   * refused with `note`.
   */
  keys(o: JsonObject, path: string, allowed: readonly string[], elsewhere?: { keys: readonly string[]; note: string }): void {
    for (const k of Object.keys(o)) {
      if (allowed.includes(k)) continue;
      if (elsewhere?.keys.includes(k)) this.fail(childPath(path, k), elsewhere.note);
      const accepted = elsewhere ? [...allowed, ...elsewhere.keys] : allowed;
      const hint = closestMatch(k, accepted);
      this.fail(
        childPath(path, k),
        hint !== undefined ? `unknown key (did you mean "${hint}"?)` : `unknown key (expected one of: ${accepted.join(', ')})`,
      );
    }
  }

  number(v: unknown, path: string, rule: NumberRule): number {
    if (!fits(v, rule)) this.fail(path, `expected ${describeRule(rule)}, got ${describeValue(v)}`);
    return v;
  }

  /** A number field; `def` undefined means required. */
  num(o: JsonObject, path: string, key: string, def: number | undefined, rule: NumberRule): number {
    if (!has(o, key)) {
      if (def === undefined) this.missing(path, key, describeRule(rule));
      return def;
    }
    const v = o[key];
    // The path string is only built for the message: a 10k-body scene reads 150k numbers.
    return fits(v, rule) ? v : this.number(v, childPath(path, key), rule);
  }

  bool(o: JsonObject, path: string, key: string, def: boolean): boolean {
    if (!has(o, key)) return def;
    const v = o[key];
    if (typeof v !== 'boolean') this.fail(childPath(path, key), `expected true or false, got ${describeValue(v)}`);
    return v;
  }

  /** A non-empty string value. */
  string(v: unknown, path: string, what: string): string {
    if (typeof v !== 'string' || v.length === 0) this.fail(path, `expected ${what}, got ${describeValue(v)}`);
    return v;
  }

  choice<T extends string>(o: JsonObject, path: string, key: string, choices: readonly T[], def: T): T {
    if (!has(o, key)) return def;
    const v = o[key];
    if (typeof v === 'string' && (choices as readonly string[]).includes(v)) return v as T;
    const hint = typeof v === 'string' ? didYouMean(v, choices) : '';
    this.fail(childPath(path, key), `expected ${orList(choices.map((c) => `"${c}"`))}, got ${describeValue(v)}${hint}`);
  }

  /** An array of exactly n numbers, each checked against `rule`; always a fresh array. */
  vector(v: unknown, path: string, n: number, rule: NumberRule = ANY, label = vectorLabel(n)): number[] {
    if (!Array.isArray(v)) this.fail(path, `expected ${label}, got ${describeValue(v)}`);
    if (v.length !== n) this.fail(path, `expected ${label}, got ${describeValue(v)}`);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      out[i] = fits(x, rule) ? x : this.number(x, indexPath(path, i), rule);
    }
    return out;
  }

  vec3(o: JsonObject, path: string, key: string, def: Readonly<Vec3> | undefined, rule: NumberRule = ANY): Vec3 {
    if (!has(o, key)) {
      if (def === undefined) this.missing(path, key, vectorLabel(3));
      return [def[0], def[1], def[2]];
    }
    return this.vector(o[key], childPath(path, key), 3, rule) as Vec3;
  }

  /** A direction: a non-zero 3-vector, returned normalised. */
  direction(o: JsonObject, path: string, key: string, def: Readonly<Vec3> | undefined): Vec3 {
    const v = this.vec3(o, path, key, def);
    const len = safeLength(v);
    if (len < ZERO_LENGTH) {
      this.fail(childPath(path, key), `expected a non-zero direction [x, y, z], got [${v.join(', ')}]`);
    }
    return normalised(v) as Vec3;
  }

  /** Integer segment counts: a single number, or a fixed-length array, with per-entry minimum. */
  segments(o: JsonObject, path: string, mins: readonly number[], labels: readonly string[], def: readonly number[], max: number): number[] {
    if (!has(o, 'segments')) return [...def];
    const p = childPath(path, 'segments');
    const rules = mins.map((min) => ({ min, max, integer: true }));
    if (mins.length === 1) return [this.number(o['segments'], p, rules[0]!)];
    const v = o['segments'];
    const label = `an array of ${mins.length} integers [${labels.join(', ')}]`;
    if (!Array.isArray(v) || v.length !== mins.length) this.fail(p, `expected ${label}, got ${describeValue(v)}`);
    return rules.map((rule, i) => this.number(v[i], indexPath(p, i), rule));
  }
}

/** Joins a relative path to a directory with "/" and folds "." and ".." (no node:path: this runs in the browser too). */
export function joinPath(dir: string, rel: string): string {
  const isAbsolute = rel.startsWith('/') || rel.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(rel);
  const full = isAbsolute || dir === '' ? rel : `${dir.replace(/[\\/]+$/, '')}/${rel}`;
  const lead = full.startsWith('/') ? '/' : '';
  const out: string[] = [];
  for (const part of full.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (part === '..' && lead) continue; // "/.." is "/"
    else out.push(part);
  }
  return lead + out.join('/') || '.';
}

// ---------------------------------------------------------------------------
// Names, poses and references

export type NameIndex = Map<string, { index: number; isDefault: boolean }>;

export function unknownReference(kind: 'shape' | 'body', name: string, defined: string[]): string {
  return unknownName(kind, name, defined, kind === 'shape' ? '; add it under "shapes"' : '');
}

/** `unknown KIND "name" (did you mean "x"?)`, or the names there are (or that there are none, with `addHint`). */
export function unknownName(kind: string, name: string, defined: readonly string[], addHint = ''): string {
  const hint = didYouMean(name, defined);
  if (hint) return `unknown ${kind} ${quote(name)}${hint}`;
  const kinds = kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`;
  if (defined.length === 0) return `unknown ${kind} ${quote(name)} (no ${kinds} are defined${addHint})`;
  return `unknown ${kind} ${quote(name)} (defined ${kinds}: ${listChoices(defined)})`;
}

const ROTATION_KEYS = ['axis', 'degrees'];

export function readOrientation(r: Reader, o: JsonObject, bodyPath: string): Quat {
  if (!has(o, 'orientation')) return [0, 0, 0, 1];
  const path = childPath(bodyPath, 'orientation');
  const q = r.vector(o['orientation'], path, 4, ANY, 'a quaternion [x, y, z, w] (4 numbers)');
  if (safeLength(q) < ZERO_LENGTH) r.fail(path, `expected a quaternion [x, y, z, w] of non-zero length (e.g. [0, 0, 0, 1]), got [${q.join(', ')}]`);
  return unitAlready(q) ? [q[0]!, q[1]!, q[2]!, q[3]!] : (normalised(q) as Quat);
}

/**
 * |q|^2 off 1 by at most this: a quaternion the loader made (normalised, or
 * from "rotation") is unit to a few ulps, and such a one is kept as written.
 * Normalising it again moves its last bits (0.9961946980917454 became
 * ...455), so a scene written out by `run --dump` would not load back to the
 * state it was dumped from; and at 2e-15 the norm's own error is below what
 * the integrator's renormalisation rounds anyway.
 */
const UNIT_NORM2_TOLERANCE = 8 * Number.EPSILON;

function unitAlready(q: readonly number[]): boolean {
  let n2 = 0;
  for (const x of q) n2 += x * x;
  return Math.abs(n2 - 1) <= UNIT_NORM2_TOLERANCE;
}

/** {"axis": [x, y, z], "degrees": a} -> unit quaternion [x, y, z, w]. */
export function readRotation(r: Reader, v: unknown, path: string): Quat {
  const o = r.object(v, path, 'an object {"axis": [x, y, z], "degrees": angle}');
  r.keys(o, path, ROTATION_KEYS);
  const axis = r.direction(o, path, 'axis', undefined);
  const degrees = r.num(o, path, 'degrees', undefined, ANY);
  // Any finite angle is a rotation, but 1e308 * pi overflows: reduce first. 720 degrees is the
  // quaternion's period (360 only flips its sign), and the remainder is exact.
  const half = ((degrees % 720) * Math.PI) / 360;
  const s = det.sin(half);
  return [axis[0] * s, axis[1] * s, axis[2] * s, det.cos(half)];
}

export function bodyReference(r: Reader, o: JsonObject, path: string, key: string, bodies: BodyDesc[], byName: NameIndex): BodyDesc {
  if (!has(o, key)) r.missing(path, key, 'the name of a body');
  const p = childPath(path, key);
  const name = r.string(o[key], p, 'the name of a body (a string)');
  const found = byName.get(name);
  if (!found) r.fail(p, unknownReference('body', name, bodies.map((b) => b.name)));
  return bodies[found.index]!;
}

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length > 2 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : items.join(' or ');
}
