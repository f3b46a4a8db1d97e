/**
 * What the built-in scene generators share (rigidScenes.ts, jointScenes.ts,
 * meshScenes.ts, softScenes.ts; builtins.ts lists them): the shape of an
 * entry, the format tag, the ground plane, rounding for tidy JSON and a
 * deterministic random generator.
 */
export type Json = Record<string, unknown>;

export interface BuiltinParam {
  name: string;
  default: number;
  min: number;
  max: number;
  /** Slider step; 1 or more makes the parameter an integer (values are rounded). */
  step?: number;
  /** What the parameter does, with its unit: `run --list` prints it, the app shows it as the control's tooltip. */
  description: string;
}

export interface BuiltinInfo {
  name: string;
  /** A few words for pickers and lists. */
  title: string;
  /** What the scene shows and what to look for, one or two sentences (`run --list`, the app's tooltip). */
  description: string;
  params: BuiltinParam[];
  /**
   * The parameter that sets how many bodies the scene has, if one does:
   * `stackfield bench --bodies N` and bench.html's `bodies=` set it, and
   * refuse a scene without one.
   */
  count?: string;
}

/** A built-in scene: what it is, and the generator of its scene JSON from its parameters (defaults filled in). */
export interface Builtin extends BuiltinInfo {
  make: (p: Record<string, number>) => Json;
}

export const FORMAT = 'stackfield-scene/1';

/**
 * The solver settings of the pile built-ins (boxes, rings, pile, cups,
 * skulls and the jointed heaps): the accumulated contact stage
 * (docs/ALGORITHM.md 4.6), under which heaps come to rest and sleep, at a
 * fraction of the seed's passes' cost. Towers, stacks and the seed's figure
 * scenes keep the seed's passes, the default, which hold a tower with no drift.
 */
export function pileSolver(): Json {
  return { contactSolver: 'accumulated' };
}

/** A plane through the origin facing +y; a static body named "ground" uses it. */
export const floorShape = { type: 'plane', normal: [0, 1, 0] };

export function ground(extra: Json = {}, restitution = 0.3): Json {
  return { name: 'ground', shape: 'floor', static: true, restitution, friction: 0.6, ...extra };
}

/** Rounds to `digits` decimals, so dumped scenes read well. */
export function round(x: number, digits = 6): number {
  const f = Number(`1e${digits}`); // exact on every engine, unlike a power through Math.pow
  return Math.round(x * f) / f;
}

/** A small deterministic generator (LCG) so scenes are the same on every run. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** The seed's ring: a torus of 216 triangles (a fresh object each call, callers may edit it). */
export function seedRingShape(): Json {
  return { type: 'torus', majorRadius: 0.3, minorRadius: 0.07, segments: [12, 9], sdf: { cells: 32 } };
}
