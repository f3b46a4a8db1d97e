/**
 * Scene validation (docs/SCENE_FORMAT.md): parsed JSON in, a SceneDesc with every
 * default filled in out, or an InputError naming the file, the JSON path
 * (`bodies[3].friction`, `shapes.ring.majorRadius`) and what was expected.
 *
 * Rules of thumb that shape this file:
 * - The first problem found is thrown; within an object unknown keys are
 *   checked before anything else, because a typo ("shpe") would otherwise
 *   surface as a confusing "missing shape".
 * - Only InputError ever escapes: every value is type-checked before use and
 *   keys are read with Object.hasOwn, so `null`, arrays, strings or keys like
 *   "constructor" where an object is expected cannot turn into a TypeError.
 * - Nothing here touches the file system (the browser app imports it);
 *   mesh paths are joined to `baseDir` as strings, and load.ts checks them.
 * - Dimensions that the spec leaves without a stated default get unit-scale
 *   defaults (box 1 m, sphere radius 0.5 m, ...), because the spec says that
 *   everything not marked required has one. The defaults are exported so the
 *   docs and the app can show them.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type {
  BodyDesc,
  MaterialProperty,
  JointDesc,
  JointType,
  MotorDesc,
  MotorSegment,
  Quat,
  SceneDesc,
  SdfSettings,
  ShapeDesc,
  SolverSettings,
} from './types.ts';
import { didYouMean } from '../util/suggest.ts';
import { readSoftSection } from './softValidate.ts';
import { readDrag, readFluid, readForces } from './forcesValidate.ts';
import { quote } from '../util/echo.ts';
import {
  ANY, NON_NEGATIVE, POSITIVE, Reader, bodyReference, childPath, define, describeValue, get, has, indexPath, joinPath,
  readOrientation, readRotation, safeLength, unknownName, unknownReference, vectorLabel, type JsonObject, type NameIndex, type NumberRule,
} from './reader.ts';
import { GRAVITY_MAX, SPEED_MAX, TURN_PER_STEP_MAX, checkPosition, shortNumber, vectorText } from './magnitudes.ts';

export const SCENE_FORMAT_ID = 'stackfield-scene/1';

export const DEFAULT_GRAVITY: Readonly<Vec3> = [0, -9.81, 0];
export const DEFAULT_DT = 0.01;
export const MAX_DT = 0.1;
/**
 * The shortest step, 1 us. Shorter steps resolve nothing a rigid body does,
 * and they let the spin rule (|w| dt <= pi) admit angular velocities whose
 * energy overflows: dt 1e-200 with 1e200 rad/s passed it and failed at step 0.
 */
export const MIN_DT = 1e-6;

export const DEFAULT_SOLVER: Readonly<SolverSettings> = {
  scheme: 'separated',
  contactSolver: 'sequential',
  contactPose: 'current',
  collisionIterations: 5,
  contactIterations: 10,
  pgsErrMax: 0,
  pgsBeta: 0.2,
  pgsSlop: 0.1,
  jointIterations: 10,
  contactGraph: true,
  shockPropagation: true,
  edgeSamples: 3,
  edgeSpacing: 0,
  ccd: true,
  jointPrestabilization: true,
  sleep: true,
};

export const DEFAULT_SDF: Readonly<SdfSettings> = { cells: 48, padding: 2 };

/** Defaults for shape dimensions the spec does not give (see the file comment). */
export const DEFAULT_SHAPE_SIZES = {
  boxSize: [1, 1, 1] as Readonly<Vec3>,
  sphereRadius: 0.5,
  sphereSegments: [16, 12] as const,
  cylinderRadius: 0.5,
  cylinderHeight: 1,
  cylinderSegments: 16,
  capsuleRadius: 0.25,
  capsuleHeight: 1,
  capsuleSegments: [16, 8] as const,
  torusMajorRadius: 0.5,
  torusMinorRadius: 0.125,
  torusSegments: [24, 9] as const,
  planeNormal: [0, 1, 0] as Readonly<Vec3>,
  meshScale: 1,
  revolveSegments: 24,
  extrudeDepth: 1,
};

/** The material properties a contact pair combines (BodyDesc.materialDefaults). */
const MATERIAL_PROPERTIES: readonly MaterialProperty[] = ['restitution', 'friction', 'staticFriction', 'rollingFriction', 'spinningFriction'];

export const DEFAULT_BODY = {
  density: 1000,
  restitution: 0.5,
  friction: 0.5,
  rollingFriction: 0,
  spinningFriction: 0,
};

/**
 * Upper bounds that the spec does not state but that keep a bad file from
 * hanging the program or exhausting memory (an iteration count of 1e9, a
 * sphere with a million segments, an O(n^2) polygon check on 1e6 points).
 */
export const LIMITS = {
  iterations: 10_000,
  segments: 1024,
  polygonPoints: 4096,
};

const ITERATIONS: NumberRule = { min: 0, max: LIMITS.iterations, integer: true };

/**
 * Most bodies (robots' parts counted) and most joints in one scene: a body
 * takes about 1 KB of memory as it is read and checked, and 4.5 million
 * minimal bodies took 4.7 GB, past Node's default heap on many machines (a
 * crash with a native stack trace, not a message). Refused as bad input
 * before the bodies are read (docs/SCENE_FORMAT.md, "Size limits").
 */
export const MAX_BODIES = 1_000_000;
export const MAX_JOINTS = 1_000_000;

/** The message for a list of `count` entries past `max` ("bodies", "joints"); `how` says where the count came from. */
export function tooManyMessage(what: 'bodies' | 'joints', max: number, how = `more than ${max} ${what}`): string {
  return `${how}: a scene holds at most ${max} ${what} (each takes memory as the scene is read; a larger scene would run out of it): split the scene`;
}

/** Refuses `list` (the scene's `key` array) when it is longer than `max`, at its first entry past it. */
export function checkCount(r: Reader, list: readonly unknown[], key: 'bodies' | 'joints', max: number): void {
  if (list.length > max) r.fail(indexPath(key, max), tooManyMessage(key, max));
}

/** A body's material keys and their ranges (also those of a library material and of scene defaults). */
export const MATERIAL_RULES = {
  density: POSITIVE,
  restitution: { min: 0, max: 1 },
  friction: NON_NEGATIVE,
  staticFriction: NON_NEGATIVE,
  rollingFriction: NON_NEGATIVE,
  spinningFriction: NON_NEGATIVE,
} as const satisfies Record<string, NumberRule>;
export type MaterialKey = keyof typeof MATERIAL_RULES;

export const SHAPE_TYPES = ['box', 'sphere', 'cylinder', 'capsule', 'torus', 'plane', 'mesh', 'revolve', 'extrude'] as const;
type ShapeType = (typeof SHAPE_TYPES)[number];

export const JOINT_TYPES: readonly JointType[] = [
  'ball',
  'line',
  'plane',
  'lockRotation',
  'axis',
  'angle',
  'hinge',
  'slider',
  'fixed',
  'distance',
  'rope',
];

export const TOP_KEYS = ['format', 'gravity', 'dt', 'sleep', 'solver', 'shapes', 'bodies', 'joints', 'motors', 'fluid', 'forces', 'softSolver', 'softMaterials', 'softBodies'];
/**
 * What a scene may add to the plain format through libraries
 * (docs/LIBRARY_FORMAT.md): at the top level, and in a body. resolveScene
 * takes them out before validateScene sees the scene, so validateScene never
 * accepts them; but a misspelt one reaches it (the scene looks plain), and
 * its message must list them and suggest them ("robts": did you mean
 * "robots"?). Defined here, not in library.ts, which imports this file.
 */
export const SCENE_LIBRARY_KEYS = ['include', 'materials', 'defaults', 'robots'];
export const BODY_LIBRARY_KEYS = ['template', 'material'];
/** What validateScene says of a library key it is given (only a scene validated on its own, loadScene(object), can have one). */
const LIBRARY_KEY_HERE = 'a library key, read only with the scene\'s libraries (load the scene from its file); this scene is validated on its own';
const SOLVER_KEYS = Object.keys(DEFAULT_SOLVER).filter((k) => k !== 'sleep');
const SDF_KEYS = ['cells', 'padding'];
const SHAPE_KEYS: Record<ShapeType, readonly string[]> = {
  box: ['type', 'size', 'sdf', 'massFrom'],
  sphere: ['type', 'radius', 'segments', 'sdf', 'massFrom'],
  cylinder: ['type', 'radius', 'height', 'segments', 'sdf', 'massFrom'],
  capsule: ['type', 'radius', 'height', 'segments', 'sdf', 'massFrom'],
  torus: ['type', 'majorRadius', 'minorRadius', 'segments', 'sdf', 'massFrom'],
  plane: ['type', 'normal'],
  mesh: ['type', 'path', 'scale', 'sdf', 'massFrom'],
  revolve: ['type', 'profile', 'segments', 'sdf', 'massFrom'],
  extrude: ['type', 'polygon', 'depth', 'sdf', 'massFrom'],
};
const ALL_SHAPE_KEYS = [...new Set(Object.values(SHAPE_KEYS).flat())];
export const BODY_KEYS = [
  'name',
  'shape',
  'static',
  'position',
  'orientation',
  'rotation',
  'velocity',
  'angularVelocity',
  'density',
  'mass',
  'restitution',
  'friction',
  'staticFriction',
  'rollingFriction',
  'spinningFriction',
  'drag',
];
/** Per joint type, the vectors it needs (all required); the composite types are the union of their parts. */
export const JOINT_VECTORS: Record<JointType, readonly JointVectorKey[]> = {
  ball: ['anchorA', 'anchorB'],
  line: ['anchorA', 'anchorB', 'axisA'],
  plane: ['anchorA', 'anchorB', 'axisA', 'axis2A'],
  lockRotation: [],
  axis: ['axisA', 'axisB'],
  angle: ['axisA', 'axisB'],
  hinge: ['anchorA', 'anchorB', 'axisA', 'axisB'],
  slider: ['anchorA', 'anchorB', 'axisA'],
  fixed: ['anchorA', 'anchorB'],
  distance: ['anchorA', 'anchorB'],
  rope: ['anchorA', 'anchorB'],
};
/** Per joint type, the numbers it takes (all optional). */
export const JOINT_NUMBERS: Partial<Record<JointType, readonly ('length' | 'restitution')[]>> = {
  distance: ['length'],
  rope: ['length', 'restitution'],
};
type JointVectorKey = 'anchorA' | 'anchorB' | 'axisA' | 'axisB' | 'axis2A';
const JOINT_COMMON_KEYS = ['name', 'type', 'bodyA', 'bodyB', 'collide'];
const ALL_JOINT_KEYS = [...JOINT_COMMON_KEYS, 'anchorA', 'anchorB', 'axisA', 'axisB', 'axis2A', 'length', 'restitution'];
/** The keys a joint of type t takes. */
const jointKeys = (t: JointType): string[] => [...JOINT_COMMON_KEYS, ...JOINT_VECTORS[t], ...(JOINT_NUMBERS[t] ?? [])];
/** What a JointDesc holds for a vector its type does not use. */
const JOINT_VECTOR_DEFAULTS: Record<JointVectorKey, Readonly<Vec3>> = {
  anchorA: [0, 0, 0],
  anchorB: [0, 0, 0],
  axisA: [1, 0, 0],
  axisB: [1, 0, 0],
  axis2A: [0, 1, 0],
};
export const MOTOR_KEYS = [
  'name', 'body', 'joint', 'targetAngularVelocity', 'axis', 'frame', 'speed', 'program', 'repeat',
  'startTorque', 'torqueIncrement', 'torqueIncrementFraction', 'maxTorque', 'from', 'until', 'fromStep', 'untilStep',
];
/**
 * Motor keys that are alternatives to each other: giving one of a group in an
 * instance's motor override drops the definition's others (src/scene/instances.ts).
 */
export const MOTOR_ALTERNATIVES: readonly (readonly string[])[] = [
  ['targetAngularVelocity', 'axis'],
  ['targetAngularVelocity', 'speed', 'program'],
  ['torqueIncrement', 'torqueIncrementFraction'],
  ['from', 'fromStep'],
  ['until', 'untilStep'],
];
const SEGMENT_KEYS = ['speed', 'duration'];


/** Refuses a velocity faster than light, and an angular velocity of more than half a turn per step. */
export function checkMotion(r: Reader, velocity: readonly number[], angularVelocity: readonly number[], path: string, dt: number): void {
  const v = safeLength(velocity);
  if (v > SPEED_MAX) {
    r.fail(
      childPath(path, 'velocity'),
      `expected a speed of at most 299792458 m/s (the speed of light), got ${vectorText(velocity)} (${shortNumber(v)} m/s)`,
    );
  }
  const w = safeLength(angularVelocity);
  if (w * dt > TURN_PER_STEP_MAX) {
    r.fail(
      childPath(path, 'angularVelocity'),
      `expected at most ${shortNumber(TURN_PER_STEP_MAX / dt)} rad/s (half a turn per step of "dt" ${shortNumber(dt)} s; ` +
        `a faster spin needs a smaller "dt"), got ${vectorText(angularVelocity)} (${shortNumber(w)} rad/s)`,
    );
  }
}

/** |sin| of the angle between two unit axes below which they count as parallel. */
const PARALLEL_SIN = 1e-6;

// ---------------------------------------------------------------------------
// The scene

/**
 * Checks a parsed scene and fills in defaults. `file` names the source in
 * messages (and becomes SceneDesc.file); mesh paths are joined to `baseDir`
 * (the scene file's directory) into `resolvedPath` when it is given.
 */
export function validateScene(json: unknown, file: string, baseDir?: string): SceneDesc {
  const r = new Reader(file);
  const root = r.object(json, '', `a JSON object at the top level ({"format": "${SCENE_FORMAT_ID}", ...})`);

  // A file from a newer version should say so before complaining about keys it may legitimately use.
  if (has(root, 'format') && root['format'] !== SCENE_FORMAT_ID) {
    const f = root['format'];
    const message =
      typeof f === 'string' && f.startsWith('stackfield-scene/')
        ? `unsupported version ${describeValue(f)} (this program reads "${SCENE_FORMAT_ID}")`
        : `expected "${SCENE_FORMAT_ID}", got ${describeValue(f)}`;
    r.fail('format', message);
  }
  r.keys(root, '', TOP_KEYS, { keys: SCENE_LIBRARY_KEYS, note: LIBRARY_KEY_HERE });
  if (!has(root, 'format')) r.missing('', 'format', `"${SCENE_FORMAT_ID}"`);

  const gravity = r.vec3(root, '', 'gravity', DEFAULT_GRAVITY);
  const g = safeLength(gravity);
  if (g > GRAVITY_MAX) {
    r.fail('gravity', `expected an acceleration of at most 1e6 m/s^2 (some 100 000 g; no solid stays rigid beyond it), got ${vectorText(gravity)} (${shortNumber(g)} m/s^2)`);
  }
  const dt = r.num(root, '', 'dt', DEFAULT_DT, { min: MIN_DT, max: MAX_DT });
  const solver = readSolver(r, get(root, 'solver'));
  // Sleeping is a property of the scene (islands at rest fall asleep), kept with the solver's settings.
  solver.sleep = r.bool(root, '', 'sleep', DEFAULT_SOLVER.sleep);

  const shapes: Record<string, ShapeDesc> = {};
  if (has(root, 'shapes')) {
    const so = r.object(root['shapes'], 'shapes', 'an object mapping shape names to shapes');
    for (const name of Object.keys(so)) {
      const path = childPath('shapes', name);
      if (name.length === 0) r.fail(path, 'a shape name must not be empty');
      define(shapes, name, readShape(r, so[name], path, baseDir));
    }
  }

  if (!has(root, 'bodies')) r.missing('', 'bodies', 'an array with at least one body');
  const bodyList = r.array(root['bodies'], 'bodies', 'an array of bodies');
  if (bodyList.length === 0) r.fail('bodies', 'expected at least one body, got an empty array');
  checkCount(r, bodyList, 'bodies', MAX_BODIES);
  if (Array.isArray(root['joints'])) checkCount(r, root['joints'], 'joints', MAX_JOINTS);
  const bodies: BodyDesc[] = [];
  /** name -> index of the body that has it, and whether it was the default name. */
  const byName = new Map<string, { index: number; isDefault: boolean }>();
  for (let i = 0; i < bodyList.length; i++) {
    const body = readBody(r, bodyList[i], i, shapes, byName);
    checkMotion(r, body.velocity, body.angularVelocity, indexPath('bodies', i), dt);
    bodies.push(body);
  }

  const joints: JointDesc[] = [];
  if (has(root, 'joints')) {
    const list = r.array(root['joints'], 'joints', 'an array of joints');
    const jointNames: NameIndex = new Map();
    for (let i = 0; i < list.length; i++) joints.push(readJoint(r, list[i], i, bodies, byName, jointNames));
  }

  const motors: MotorDesc[] = [];
  if (has(root, 'motors')) {
    const list = r.array(root['motors'], 'motors', 'an array of motors');
    const motorNames: NameIndex = new Map();
    for (let i = 0; i < list.length; i++) motors.push(readMotor(r, list[i], i, { bodies, byName, joints, motorNames, dt }));
  }

  const fluidDensity = readFluid(r, root);
  const forces = readForces(r, root, bodies, byName);

  const soft = readSoftSection(r, root, shapes, bodies, byName);
  soft.softBodies.forEach((b, i) => {
    const path = indexPath('softBodies', i);
    checkPosition(r, b.position, childPath(path, 'position'));
    checkMotion(r, b.velocity, b.angularVelocity, path, dt);
  });
  return { file, gravity, dt, solver, shapes, bodies, joints, motors, fluidDensity, forces, ...soft };
}

function readSolver(r: Reader, v: unknown): SolverSettings {
  if (v === undefined) return { ...DEFAULT_SOLVER };
  const path = 'solver';
  const o = r.object(v, path, 'an object of solver settings');
  r.keys(o, path, SOLVER_KEYS);
  const d = DEFAULT_SOLVER;
  return {
    scheme: r.choice(o, path, 'scheme', ['separated', 'standard'] as const, d.scheme),
    // "seed" names the seed's scheme too: the sequential impulses with shock propagation.
    contactSolver: o.contactSolver === 'seed' ? 'sequential' : r.choice(o, path, 'contactSolver', ['sequential', 'pgs', 'accumulated'] as const, d.contactSolver),
    contactPose: r.choice(o, path, 'contactPose', ['predicted', 'current'] as const, d.contactPose),
    collisionIterations: r.num(o, path, 'collisionIterations', d.collisionIterations, ITERATIONS),
    contactIterations: r.num(o, path, 'contactIterations', d.contactIterations, ITERATIONS),
    pgsErrMax: r.num(o, path, 'pgsErrMax', d.pgsErrMax, NON_NEGATIVE),
    pgsBeta: r.num(o, path, 'pgsBeta', d.pgsBeta, { min: 0, max: 1 }),
    pgsSlop: r.num(o, path, 'pgsSlop', d.pgsSlop, { min: 0, max: 100 }),
    jointIterations: r.num(o, path, 'jointIterations', d.jointIterations, ITERATIONS),
    contactGraph: r.bool(o, path, 'contactGraph', d.contactGraph),
    shockPropagation: r.bool(o, path, 'shockPropagation', d.shockPropagation),
    edgeSamples: r.num(o, path, 'edgeSamples', d.edgeSamples, { min: 0, max: 16, integer: true }),
    edgeSpacing: r.num(o, path, 'edgeSpacing', d.edgeSpacing, { min: 0, max: 1000 }),
    ccd: r.bool(o, path, 'ccd', d.ccd),
    jointPrestabilization: r.bool(o, path, 'jointPrestabilization', d.jointPrestabilization),
    sleep: d.sleep,
  };
}

// ---------------------------------------------------------------------------
// Shapes

function readShape(r: Reader, v: unknown, path: string, baseDir: string | undefined): ShapeDesc {
  const s = readShapeGeometry(r, v, path, baseDir);
  const o = v as JsonObject;
  if (s.type !== 'plane' && has(o, 'massFrom')) s.massFrom = r.choice(o, path, 'massFrom', ['mesh', 'sdf'] as const, 'mesh');
  return s;
}

function readShapeGeometry(r: Reader, v: unknown, path: string, baseDir: string | undefined): ShapeDesc {
  const o = r.object(v, path, 'a shape object like {"type": "box", "size": [1, 1, 1]}');
  r.keys(o, path, ALL_SHAPE_KEYS);
  const validTypes = `valid types: ${SHAPE_TYPES.join(', ')}`;
  if (!has(o, 'type')) r.fail(childPath(path, 'type'), `missing required key "type" (${validTypes})`);
  const t = o['type'];
  if (typeof t !== 'string' || !(SHAPE_TYPES as readonly string[]).includes(t)) {
    const hint = typeof t === 'string' ? didYouMean(t, SHAPE_TYPES) : '';
    r.fail(childPath(path, 'type'), `unknown shape type ${describeValue(t)}${hint}; ${validTypes}`);
  }
  const type = t as ShapeType;
  const used = SHAPE_KEYS[type];
  for (const k of Object.keys(o)) {
    if (used.includes(k)) continue;
    r.fail(
      childPath(path, k),
      type === 'plane' && k === 'sdf'
        ? 'a plane has no SDF (its distance is computed analytically); remove "sdf"'
        : `a ${type} shape does not use "${k}" (its keys are: ${used.join(', ')})`,
    );
  }
  const D = DEFAULT_SHAPE_SIZES;
  const sdf = (): SdfSettings => readSdf(r, o, path);

  switch (type) {
    case 'box':
      return { type, size: r.vec3(o, path, 'size', D.boxSize, POSITIVE), sdf: sdf() };
    case 'sphere': {
      const radius = r.num(o, path, 'radius', D.sphereRadius, POSITIVE);
      const seg = r.segments(o, path, [3, 2], ['around', 'rings'], D.sphereSegments, LIMITS.segments);
      return { type, radius, segments: [seg[0]!, seg[1]!], sdf: sdf() };
    }
    case 'cylinder': {
      const radius = r.num(o, path, 'radius', D.cylinderRadius, POSITIVE);
      const height = r.num(o, path, 'height', D.cylinderHeight, POSITIVE);
      const seg = r.segments(o, path, [3], ['around'], [D.cylinderSegments], LIMITS.segments);
      return { type, radius, height, segments: seg[0]!, sdf: sdf() };
    }
    case 'capsule': {
      const radius = r.num(o, path, 'radius', D.capsuleRadius, POSITIVE);
      const height = r.num(o, path, 'height', D.capsuleHeight, POSITIVE);
      // height is the full length, caps included, so it cannot be shorter than the two caps.
      if (height < 2 * radius) {
        r.fail(
          childPath(path, 'height'),
          `expected a height >= 2 * radius = ${2 * radius} (height is the full length, caps included), got ${height}`,
        );
      }
      const seg = r.segments(o, path, [3, 2], ['around', 'rings'], D.capsuleSegments, LIMITS.segments);
      return { type, radius, height, segments: [seg[0]!, seg[1]!], sdf: sdf() };
    }
    case 'torus': {
      const majorRadius = r.num(o, path, 'majorRadius', D.torusMajorRadius, POSITIVE);
      const minorRadius = r.num(o, path, 'minorRadius', D.torusMinorRadius, POSITIVE);
      if (!(majorRadius > minorRadius)) {
        r.fail(
          childPath(path, has(o, 'minorRadius') ? 'minorRadius' : 'majorRadius'),
          `expected majorRadius > minorRadius (a torus with no hole is not supported), got majorRadius ${majorRadius}, minorRadius ${minorRadius}`,
        );
      }
      const seg = r.segments(o, path, [3, 3], ['around the axis', 'around the tube'], D.torusSegments, LIMITS.segments);
      return { type, majorRadius, minorRadius, segments: [seg[0]!, seg[1]!], sdf: sdf() };
    }
    case 'plane':
      return { type, normal: r.direction(o, path, 'normal', D.planeNormal) };
    case 'mesh': {
      if (!has(o, 'path')) r.missing(path, 'path', 'a mesh file name, relative to the scene file');
      const p = r.string(o['path'], childPath(path, 'path'), 'a mesh file name (a non-empty string), relative to the scene file');
      const scale = r.num(o, path, 'scale', D.meshScale, POSITIVE);
      return { type, path: p, resolvedPath: baseDir === undefined ? p : joinPath(baseDir, p), scale, sdf: sdf() };
    }
    case 'revolve': {
      const profile = readRevolveProfile(r, o, path);
      const seg = r.segments(o, path, [3], ['around'], [D.revolveSegments], LIMITS.segments);
      return { type, profile, segments: seg[0]!, sdf: sdf() };
    }
    case 'extrude': {
      const polygon = readExtrudePolygon(r, o, path);
      const depth = r.num(o, path, 'depth', D.extrudeDepth, POSITIVE);
      return { type, polygon, depth, sdf: sdf() };
    }
  }
}

function readSdf(r: Reader, o: JsonObject, shapePath: string): SdfSettings {
  if (!has(o, 'sdf')) return { ...DEFAULT_SDF };
  const path = childPath(shapePath, 'sdf');
  const s = r.object(o['sdf'], path, 'an object {"cells": 48, "padding": 2}');
  r.keys(s, path, SDF_KEYS);
  return {
    cells: r.num(s, path, 'cells', DEFAULT_SDF.cells, { min: 8, max: 512, integer: true }),
    padding: r.num(s, path, 'padding', DEFAULT_SDF.padding, { min: 1, max: 16, integer: true }),
  };
}

/** An array of at least `minPoints` 2D points, each a fresh [a, b] pair. */
function readPoints(r: Reader, o: JsonObject, shapePath: string, key: string, label: string, minPoints: number): [number, number][] {
  const path = childPath(shapePath, key);
  const what = `an array of at least ${minPoints} points ${label}`;
  if (!has(o, key)) r.missing(shapePath, key, what);
  const list = r.array(o[key], path, what);
  if (list.length < minPoints || list.length > LIMITS.polygonPoints) {
    r.fail(path, `expected ${what} (at most ${LIMITS.polygonPoints}), got ${describeValue(list)}`);
  }
  return list.map((p, i) => r.vector(p, indexPath(path, i), 2, ANY, `a point ${label}`) as [number, number]);
}

/**
 * A revolve profile: [r, y] points, r >= 0, starting and ending on the axis.
 * Closed along the axis it must be a simple polygon, which makes the solid of
 * revolution a closed 2-manifold. Returned running bottom to top (the closed
 * (r, y) polygon counter-clockwise) so the mesh builder gets one winding.
 */
function readRevolveProfile(r: Reader, o: JsonObject, shapePath: string): [number, number][] {
  const path = childPath(shapePath, 'profile');
  const pts = readPoints(r, o, shapePath, 'profile', '[r, y]', 3);
  const last = pts.length - 1;
  for (let i = 0; i <= last; i++) {
    const rad = pts[i]![0];
    if (rad < 0) r.fail(indexPath(indexPath(path, i), 0), `expected a radius r >= 0, got ${rad}`);
    if ((i === 0 || i === last) && rad !== 0) {
      r.fail(indexPath(indexPath(path, i), 0), `the profile must ${i === 0 ? 'start' : 'end'} on the axis (r = 0), got r = ${rad}`);
    }
    if (i !== 0 && i !== last && rad === 0) {
      r.fail(indexPath(path, i), 'only the first and last profile points may lie on the axis (r = 0); the solid would pinch to a point there');
    }
  }
  const area = checkSimplePolygon(r, pts, path, 'the profile, closed along the axis,');
  return area > 0 ? pts : pts.reverse();
}

/** An extrude polygon: [x, y] points of a simple polygon, returned counter-clockwise. */
function readExtrudePolygon(r: Reader, o: JsonObject, shapePath: string): [number, number][] {
  const path = childPath(shapePath, 'polygon');
  const pts = readPoints(r, o, shapePath, 'polygon', '[x, y]', 3);
  // Writing the closing point explicitly (as in SVG paths) is common and harmless: the polygon closes itself.
  if (pts.length > 3 && pts[0]![0] === pts[pts.length - 1]![0] && pts[0]![1] === pts[pts.length - 1]![1]) pts.pop();
  const area = checkSimplePolygon(r, pts, path, 'the polygon');
  return area > 0 ? pts : pts.reverse();
}

function orient2d(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** c lies in the bounding box of segment ab (used once c is known to be collinear with it). */
function inBox(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);
}

function segmentsTouch(p: readonly [number, number][], i: number, j: number): boolean {
  const n = p.length;
  const [ax, ay] = p[i]!;
  const [bx, by] = p[(i + 1) % n]!;
  const [cx, cy] = p[j]!;
  const [dx, dy] = p[(j + 1) % n]!;
  const d1 = orient2d(cx, cy, dx, dy, ax, ay);
  const d2 = orient2d(cx, cy, dx, dy, bx, by);
  const d3 = orient2d(ax, ay, bx, by, cx, cy);
  const d4 = orient2d(ax, ay, bx, by, dx, dy);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (
    (d1 === 0 && inBox(cx, cy, dx, dy, ax, ay)) ||
    (d2 === 0 && inBox(cx, cy, dx, dy, bx, by)) ||
    (d3 === 0 && inBox(ax, ay, bx, by, cx, cy)) ||
    (d4 === 0 && inBox(ax, ay, bx, by, dx, dy))
  );
}

/**
 * Throws unless the closed polygon is simple (no repeated consecutive points,
 * no edge folding back on its neighbour, no two other edges touching) and has
 * non-zero area; returns the signed area (> 0 for counter-clockwise).
 * O(n^2) in the points, bounded by LIMITS.polygonPoints.
 */
function checkSimplePolygon(r: Reader, p: readonly [number, number][], path: string, what: string): number {
  const n = p.length;
  let area2 = 0;
  let extent = 0;
  // Area and extent about the first point, not the origin: a polygon of 0.5
  // square metres 1e12 m out read as zero area against its distance.
  const [x0, y0] = p[0]!;
  for (let i = 0; i < n; i++) {
    const [ax, ay] = p[i]!;
    const [bx, by] = p[(i + 1) % n]!;
    area2 += (ax - x0) * (by - y0) - (bx - x0) * (ay - y0);
    extent = Math.max(extent, Math.abs(ax - x0), Math.abs(ay - y0));
    if (ax === bx && ay === by) {
      r.fail(indexPath(path, (i + 1) % n), `${what} repeats point ${i} here; consecutive points must differ`);
    }
    const [cx, cy] = p[(i + 2) % n]!;
    // An edge that doubles back along the previous one is a zero-width spike.
    if (orient2d(ax, ay, bx, by, cx, cy) === 0 && (bx - ax) * (cx - bx) + (by - ay) * (cy - by) < 0) {
      r.fail(indexPath(path, (i + 1) % n), `${what} doubles back on itself at this point (a zero-width spike)`);
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue; // adjacent through the closing edge
      if (segmentsTouch(p, i, j)) {
        r.fail(path, `${what} intersects itself: edge ${i}-${(i + 1) % n} meets edge ${j}-${(j + 1) % n}`);
      }
    }
  }
  if (Math.abs(area2) <= 1e-12 * extent * extent) r.fail(path, `${what} has zero area`);
  return area2 / 2;
}

// ---------------------------------------------------------------------------
// Bodies

/**
 * The unique `name` of entry i of a list (`bodies`, `joints`, `motors`), or its
 * default `<kind><i>`, recorded in `names`.
 */
function readName(r: Reader, o: JsonObject, path: string, i: number, list: string, kind: string, names: NameIndex): string {
  let name: string;
  if (has(o, 'name')) {
    name = r.string(o['name'], childPath(path, 'name'), 'a non-empty string');
    const prev = names.get(name);
    if (prev) {
      r.fail(
        childPath(path, 'name'),
        `duplicate name ${quote(name)} (already used by ${list}[${prev.index}]${prev.isDefault ? ' as its default name' : ''}); ${kind} names must be unique`,
      );
    }
  } else {
    name = `${kind}${i}`;
    const prev = names.get(name);
    if (prev) r.fail(path, `its default name ${quote(name)} is already used by ${list}[${prev.index}]; give this ${kind} a unique "name"`);
  }
  names.set(name, { index: i, isDefault: !has(o, 'name') });
  return name;
}

/**
 * Static friction is at least the dynamic one: checked for a body, and for a
 * library material (or a scene's "defaults") that gives both
 * (library.ts readMaterial), where it is written.
 */
export function checkStaticFriction(r: Reader, path: string, friction: number, staticFriction: number): void {
  if (staticFriction < friction) {
    r.fail(
      childPath(path, 'staticFriction'),
      `expected a static friction at least the dynamic "friction" (${friction}), got ${staticFriction}: a contact that starts to slide at mu_s cannot be held back harder by mu_d`,
    );
  }
}

function readBody(r: Reader, v: unknown, i: number, shapes: Record<string, ShapeDesc>, byName: NameIndex): BodyDesc {
  const path = indexPath('bodies', i);
  const o = r.object(v, path, 'a body object like {"shape": "box", "position": [0, 1, 0]}');
  r.keys(o, path, BODY_KEYS, { keys: BODY_LIBRARY_KEYS, note: LIBRARY_KEY_HERE });

  const name = readName(r, o, path, i, 'bodies', 'body', byName);

  if (!has(o, 'shape')) r.missing(path, 'shape', `the name of a shape defined under "shapes"`);
  const shapePath = childPath(path, 'shape');
  const shape = r.string(o['shape'], shapePath, 'the name of a shape defined under "shapes" (a string)');
  if (!Object.hasOwn(shapes, shape)) r.fail(shapePath, unknownReference('shape', shape, Object.keys(shapes)));

  const isStatic = r.bool(o, path, 'static', false);
  if (!isStatic && shapes[shape]!.type === 'plane') {
    r.fail(shapePath, `shape ${quote(shape)} is a plane, which only static bodies can use (add "static": true)`);
  }

  const position = r.vec3(o, path, 'position', [0, 0, 0]);
  checkPosition(r, position, childPath(path, 'position'));
  if (has(o, 'orientation') && has(o, 'rotation')) {
    r.fail(path, '"orientation" and "rotation" are alternatives; give only one');
  }
  const orientation = has(o, 'rotation') ? readRotation(r, o['rotation'], childPath(path, 'rotation')) : readOrientation(r, o, path);

  const velocity = r.vec3(o, path, 'velocity', [0, 0, 0]);
  const angularVelocity = r.vec3(o, path, 'angularVelocity', [0, 0, 0]);
  if (isStatic) {
    for (const [key, value] of [
      ['velocity', velocity],
      ['angularVelocity', angularVelocity],
    ] as const) {
      if (value[0] !== 0 || value[1] !== 0 || value[2] !== 0) {
        r.fail(childPath(path, key), `static bodies cannot move: expected [0, 0, 0] or no "${key}", got [${value.join(', ')}]`);
      }
    }
  }

  const friction = r.num(o, path, 'friction', DEFAULT_BODY.friction, MATERIAL_RULES.friction);
  // Static friction: the sticking limit, "friction" (the dynamic one) unless given.
  const staticFriction = r.num(o, path, 'staticFriction', friction, MATERIAL_RULES.staticFriction);
  checkStaticFriction(r, path, friction, staticFriction);
  const body: BodyDesc = {
    name,
    shape,
    static: isStatic,
    position,
    orientation,
    velocity,
    angularVelocity,
    restitution: r.num(o, path, 'restitution', DEFAULT_BODY.restitution, MATERIAL_RULES.restitution),
    friction,
    staticFriction,
    rollingFriction: r.num(o, path, 'rollingFriction', DEFAULT_BODY.rollingFriction, MATERIAL_RULES.rollingFriction),
    spinningFriction: r.num(o, path, 'spinningFriction', DEFAULT_BODY.spinningFriction, MATERIAL_RULES.spinningFriction),
  };
  const defaulted = MATERIAL_PROPERTIES.filter((k) => !has(o, k));
  if (defaulted.length > 0) body.materialDefaults = defaulted;
  const drag = readDrag(r, o, path, isStatic);
  if (drag) body.drag = drag;
  if (has(o, 'density') && has(o, 'mass')) r.fail(path, 'give either "density" or "mass", not both');
  if (has(o, 'mass')) body.mass = r.num(o, path, 'mass', undefined, POSITIVE);
  else body.density = r.num(o, path, 'density', DEFAULT_BODY.density, MATERIAL_RULES.density);
  return body;
}

// ---------------------------------------------------------------------------
// Joints and motors

function rotate(q: Quat, v: Vec3): Vec3 {
  // v + 2 w (u x v) + 2 u x (u x v), u = q.xyz
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

function sinBetween(a: Vec3, b: Vec3): number {
  return safeLength([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]);
}

function readJoint(r: Reader, v: unknown, i: number, bodies: BodyDesc[], byName: NameIndex, names: NameIndex): JointDesc {
  const path = indexPath('joints', i);
  const o = r.object(v, path, 'a joint object like {"type": "ball", "bodyA": "a", "bodyB": "b", ...}');
  // A key no joint takes is suggested from, and listed with, what this joint's type takes (when the
  // type is known); a key of another type's is named below as one this type does not use.
  const t0 = o['type'];
  const ownKeys = typeof t0 === 'string' && (JOINT_TYPES as readonly string[]).includes(t0) ? jointKeys(t0 as JointType) : ALL_JOINT_KEYS;
  r.keys(Object.fromEntries(Object.entries(o).filter(([k]) => !ALL_JOINT_KEYS.includes(k))), path, ownKeys);
  const name = readName(r, o, path, i, 'joints', 'joint', names);
  const validTypes = `valid types: ${JOINT_TYPES.join(', ')}`;
  if (!has(o, 'type')) r.fail(childPath(path, 'type'), `missing required key "type" (${validTypes})`);
  const t = o['type'];
  if (typeof t !== 'string' || !(JOINT_TYPES as readonly string[]).includes(t)) {
    const hint = typeof t === 'string' ? didYouMean(t, JOINT_TYPES) : '';
    r.fail(childPath(path, 'type'), `unknown joint type ${describeValue(t)}${hint}; ${validTypes}`);
  }
  const type = t as JointType;
  const needs = JOINT_VECTORS[type];
  const own = jointKeys(type).filter((k) => !JOINT_COMMON_KEYS.includes(k));
  const takes = own.length > 0 ? `it takes ${own.join(', ')}` : 'it takes no anchors or axes';
  for (const k of Object.keys(o)) {
    if (jointKeys(type).includes(k)) continue;
    r.fail(childPath(path, k), `a ${type} joint does not use "${k}" (${takes})`);
  }

  const a = bodyReference(r, o, path, 'bodyA', bodies, byName);
  const b = bodyReference(r, o, path, 'bodyB', bodies, byName);
  if (a === b) r.fail(childPath(path, 'bodyB'), `a joint needs two different bodies, got ${quote(a.name)} for both`);
  if (a.static && b.static) r.fail(path, `both bodies (${quote(a.name)}, ${quote(b.name)}) are static; a joint needs at least one dynamic body`);

  const vectors = {} as Record<JointVectorKey, Vec3>;
  for (const key of Object.keys(JOINT_VECTOR_DEFAULTS) as JointVectorKey[]) {
    const d = JOINT_VECTOR_DEFAULTS[key];
    if (!(needs as readonly string[]).includes(key)) vectors[key] = [d[0], d[1], d[2]];
    else if (!has(o, key)) r.missing(path, key, `${vectorLabel(3)}: a ${type} joint needs ${needs.join(', ')}`);
    else if (key.startsWith('anchor')) {
      // Anchors far out are refused as positions are: at 1e17 m both ends of
      // a joint round to the same world point and the joint holds nothing.
      vectors[key] = r.vec3(o, path, key, undefined);
      checkPosition(r, vectors[key], childPath(path, key));
    } else vectors[key] = r.direction(o, path, key, undefined);
  }
  if (type === 'plane' && sinBetween(vectors.axisA, vectors.axis2A) < PARALLEL_SIN) {
    r.fail(childPath(path, 'axis2A'), 'must not be parallel to axisA: the two axes span the plane the anchor moves in');
  }
  // The 1-DOF angle joint holds the angle between the axes about c = a x b; with parallel axes c vanishes.
  if (type === 'angle' && sinBetween(rotate(a.orientation, vectors.axisA), rotate(b.orientation, vectors.axisB)) < PARALLEL_SIN) {
    r.fail(
      childPath(path, 'axisB'),
      'axisA and axisB are parallel in the initial pose, so there is no angle to hold (use an "axis" joint to keep axes aligned)',
    );
  }
  let length = 0, restitution = 0;
  if (type === 'distance' || type === 'rope') {
    // The default length is the anchors' distance in the initial pose (anchors in each shape's own frame).
    const pa = rotate(a.orientation, vectors.anchorA), pb = rotate(b.orientation, vectors.anchorB);
    const d0 = Math.hypot(
      a.position[0] + pa[0] - b.position[0] - pb[0],
      a.position[1] + pa[1] - b.position[1] - pb[1],
      a.position[2] + pa[2] - b.position[2] - pb[2],
    );
    if (has(o, 'length')) {
      length = r.num(o, path, 'length', undefined, { ...POSITIVE, max: MAX_JOINT_LENGTH });
    } else {
      // Anchors that meet up to the rounding of the sums above are the same
      // point: a body at y 2.7 with its anchor 0.3 up, under a hook's anchor
      // at 3, is 1.7e-16 m off, and that rounding is no length to keep.
      let scale = 0;
      for (const u of [a.position, pa, b.position, pb]) for (const c of u) scale = Math.max(scale, Math.abs(c));
      if (!(d0 > COINCIDENT_ULPS * Number.EPSILON * scale)) {
        const apart = d0 > 0 ? ` (${d0.toPrecision(3)} m apart, within the rounding of their coordinates)` : '';
        r.fail(path, `the anchors start at the same point${apart}, so the ${type} has no length to keep; give "length" (a positive number of metres)`);
      }
      length = d0;
    }
    if (type === 'rope') restitution = r.num(o, path, 'restitution', 0, MATERIAL_RULES.restitution);
  }
  return { name, type, bodyA: a.name, bodyB: b.name, ...vectors, collide: r.bool(o, path, 'collide', false), length, restitution };
}

/** What a motor may refer to. */
interface MotorContext {
  bodies: BodyDesc[];
  byName: NameIndex;
  joints: JointDesc[];
  motorNames: NameIndex;
  /** Seconds per step, for windows given in steps. */
  dt: number;
}

/** Longest distance or rope length (m): far beyond any scene, short of overflow in its square. */
const MAX_JOINT_LENGTH = 1e9;
/**
 * Anchors of a distance or rope joint without "length" closer than this many
 * ulps of their largest coordinate (each position and rotated anchor) start
 * at the same point: the rounding of the four-term sum and the rotation is a
 * few ulps; 64 leaves room and is still 1.4e-14 of the coordinates.
 */
const COINCIDENT_ULPS = 64;

/** Most segments in one motor program (a bad file must not allocate without bound). */
const MAX_PROGRAM_SEGMENTS = 10_000;
/**
 * The most torque (N m; N for a slider) a motor may apply, as forces are
 * capped (forcesValidate.ts): 1e300 made a body's state non-finite at step 0.
 */
export const MOTOR_TORQUE_MAX = 1e12;
const TORQUE: NumberRule = { min: 0, max: MOTOR_TORQUE_MAX };

/**
 * The fastest target a motor may have: for a turn (a body motor, a hinge)
 * half a turn per step, as for a body's angular velocity (checkMotion); for
 * a slider the speed of light. A target of 1e300 m/s drove a slider's body
 * to 1e297 m and the run's energy past 64-bit floats.
 */
function motorSpeedMax(dt: number, slider: boolean): { max: number; unit: string; why: string } {
  return slider
    ? { max: SPEED_MAX, unit: 'm/s', why: 'the speed of light' }
    : { max: TURN_PER_STEP_MAX / dt, unit: 'rad/s', why: `half a turn per step of "dt" ${shortNumber(dt)} s` };
}

function readMotor(r: Reader, v: unknown, i: number, c: MotorContext): MotorDesc {
  const path = indexPath('motors', i);
  const o = r.object(v, path, 'a motor object like {"body": "a", "targetAngularVelocity": [0, 0, 1], "maxTorque": 10}');
  r.keys(o, path, MOTOR_KEYS);
  const name = readName(r, o, path, i, 'motors', 'motor', c.motorNames);
  for (const group of MOTOR_ALTERNATIVES) {
    const given = group.filter((k) => has(o, k));
    if (given.length > 1) r.fail(childPath(path, given[1]!), `"${given[0]}" and "${given[1]}" are alternatives; give only one`);
  }
  if (has(o, 'body') && has(o, 'joint')) {
    r.fail(path, 'give either "body" (a motor turning one body) or "joint" (a motor between the two bodies of a hinge or slider), not both');
  }
  let body = '';
  let joint = '';
  let axis: Vec3 = [0, 0, 0];
  let frame: 'world' | 'body' = 'world';
  let program: MotorSegment[];
  if (has(o, 'joint')) {
    for (const k of ['targetAngularVelocity', 'axis', 'frame']) {
      if (has(o, k)) r.fail(childPath(path, k), `a joint motor acts along its joint's axis; it does not use "${k}" (give "speed" or "program")`);
    }
    const p = childPath(path, 'joint');
    joint = r.string(o['joint'], p, 'the name of a hinge or slider joint (a string)');
    const found = c.joints.find((j) => j.name === joint);
    if (!found) r.fail(p, unknownName('joint', joint, c.joints.map((j) => j.name)));
    if (found.type !== 'hinge' && found.type !== 'slider') {
      r.fail(p, `joint ${quote(joint)} is a ${found.type} joint; a joint motor drives a hinge (about its axis) or a slider (along its axis)`);
    }
    program = readProgram(r, o, path, 'the target speed (rad/s for a hinge, m/s for a slider)', motorSpeedMax(c.dt, found.type === 'slider'));
  } else {
    if (!has(o, 'body')) r.missing(path, 'body', 'the name of the driven body, or "joint" with the name of a hinge or slider');
    const b = bodyReference(r, o, path, 'body', c.bodies, c.byName);
    if (b.static) r.fail(childPath(path, 'body'), `${quote(b.name)} is static; a motor can only drive a dynamic body`);
    body = b.name;
    frame = r.choice(o, path, 'frame', ['world', 'body'] as const, 'world');
    if (has(o, 'targetAngularVelocity')) {
      // The seed's form: the direction is the axis, the length the target speed.
      const w = r.vec3(o, path, 'targetAngularVelocity', undefined);
      const s = safeLength(w);
      const lim = motorSpeedMax(c.dt, false);
      if (!(s <= lim.max)) {
        r.fail(childPath(path, 'targetAngularVelocity'), `expected at most ${shortNumber(lim.max)} rad/s (${lim.why}), got ${vectorText(w)} (${shortNumber(s)} rad/s)`);
      }
      if (s > 0) axis = [w[0] / s, w[1] / s, w[2] / s];
      program = [{ speed: s, duration: Infinity }];
    } else {
      if (!has(o, 'axis')) {
        r.missing(path, 'targetAngularVelocity', `${vectorLabel(3)} in rad/s, or "axis" with "speed" or "program"`);
      }
      axis = r.direction(o, path, 'axis', undefined);
      program = readProgram(r, o, path, 'the target angular velocity along "axis" (rad/s)', motorSpeedMax(c.dt, false));
    }
  }
  const repeat = r.bool(o, path, 'repeat', false);
  if (has(o, 'repeat') && !has(o, 'program')) r.fail(childPath(path, 'repeat'), '"repeat" applies to a "program" only');

  // Torque ramps from startTorque by an increment per step up to maxTorque. With only one of the
  // two ends given the torque is constant at it, unless an increment asks for a ramp from zero.
  const hasStart = has(o, 'startTorque');
  const hasMax = has(o, 'maxTorque');
  if (!hasStart && !hasMax) r.missing(path, 'maxTorque', 'a number >= 0; a motor needs "maxTorque" and/or "startTorque"');
  const givenMax = hasMax ? r.num(o, path, 'maxTorque', undefined, TORQUE) : undefined;
  let torqueIncrement: number;
  let startTorque: number;
  if (has(o, 'torqueIncrementFraction')) {
    // The seed's "increase": a fraction of the start torque per step, so the start torque must be given.
    const fraction = r.num(o, path, 'torqueIncrementFraction', undefined, NON_NEGATIVE);
    if (!hasStart) r.missing(path, 'startTorque', 'a number > 0: "torqueIncrementFraction" is a fraction of it');
    startTorque = r.num(o, path, 'startTorque', undefined, { ...TORQUE, minExclusive: true });
    torqueIncrement = fraction * startTorque;
  } else {
    torqueIncrement = r.num(o, path, 'torqueIncrement', 0, TORQUE);
    startTorque = r.num(o, path, 'startTorque', has(o, 'torqueIncrement') ? 0 : givenMax, TORQUE);
  }
  const maxTorque = givenMax ?? startTorque;
  if (maxTorque < startTorque) r.fail(childPath(path, 'maxTorque'), `expected maxTorque >= startTorque (${startTorque}), got ${maxTorque}`);
  // A window in steps is the seed's (time0, time1); step k is active when its midpoint lies in [k0 dt, k1 dt).
  const STEPS: NumberRule = { min: 0, integer: true, max: Number.MAX_SAFE_INTEGER };
  const from = has(o, 'fromStep') ? r.num(o, path, 'fromStep', undefined, STEPS) * c.dt : r.num(o, path, 'from', 0, NON_NEGATIVE);
  // JSON cannot say Infinity: no "until" means the motor runs forever.
  const until = has(o, 'untilStep') ? r.num(o, path, 'untilStep', undefined, STEPS) * c.dt : r.num(o, path, 'until', Infinity, NON_NEGATIVE);
  if (!(until > from)) {
    if (!has(o, 'untilStep') && !has(o, 'fromStep')) r.fail(childPath(path, 'until'), `expected until > from (${from}), got ${until}`);
    const key = has(o, 'untilStep') ? 'untilStep' : 'until';
    r.fail(childPath(path, key), `expected the window to end after it starts (at ${from} s), got ${until} s`);
  }
  return { name, body, joint, axis, frame, program, repeat, startTorque, torqueIncrement, maxTorque, from, until };
}

/** "speed" (a constant target) or "program" (segments of speed and duration), exactly one. */
function readProgram(r: Reader, o: JsonObject, path: string, what: string, lim: { max: number; unit: string; why: string }): MotorSegment[] {
  const speed = (so: JsonObject, sp: string): number => {
    const s = r.num(so, sp, 'speed', undefined, ANY);
    if (!(Math.abs(s) <= lim.max)) r.fail(childPath(sp, 'speed'), `expected a speed of at most ${shortNumber(lim.max)} ${lim.unit} either way (${lim.why}), got ${describeValue(s)}`);
    return s;
  };
  if (has(o, 'speed')) return [{ speed: speed(o, path), duration: Infinity }];
  if (!has(o, 'program')) r.missing(path, 'speed', `${what}, or "program": [{"speed": s, "duration": t}, ...]`);
  const p = childPath(path, 'program');
  const list = r.array(o['program'], p, 'an array of segments {"speed": s, "duration": t}');
  if (list.length === 0 || list.length > MAX_PROGRAM_SEGMENTS) {
    r.fail(p, `expected 1 to ${MAX_PROGRAM_SEGMENTS} segments {"speed": s, "duration": t}, got ${describeValue(list)}`);
  }
  return list.map((seg, k) => {
    const sp = indexPath(p, k);
    const so = r.object(seg, sp, 'a segment {"speed": s, "duration": t}');
    r.keys(so, sp, SEGMENT_KEYS);
    return { speed: speed(so, sp), duration: r.num(so, sp, 'duration', undefined, POSITIVE) };
  });
}
