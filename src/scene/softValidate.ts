/**
 * Validation of the soft-body part of a scene (docs/soft-bodies.md):
 * `softSolver`, `softMaterials` and `softBodies`, in the style of validate.ts
 * (JSON paths, unknown keys first, "did you mean" suggestions, only
 * InputError escapes).
 *
 * validate.ts imports this module and this module imports validate.ts's
 * reader; nothing here touches validate.ts's bindings at load time (only
 * inside functions), so the cycle is harmless in either load order.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type {
  BodyDesc,
  ShapeDesc,
  SoftBodyDesc,
  SoftConstruction,
  SoftMaterialDesc,
  SoftPinDesc,
  SoftSolverSettings,
} from './types.ts';
import { SEED_MAX_POINTS } from '../soft/seedNet.ts';
import { MAX_LATTICE_RESOLUTION } from '../soft/lattice.ts';
import { DEFAULT_SOFT_SOLVER, SOFT_INTEGRATORS } from '../soft/settings.ts';
import { didYouMean, listChoices } from '../util/suggest.ts';
import { quote } from '../util/echo.ts';
import { bodyReference, childPath, define, has, indexPath, readOrientation, readRotation, unknownReference, type JsonObject, type NameIndex, type NumberRule, type Reader } from './reader.ts';


export const SOFT_METHODS = ['lattice', 'seed'] as const;

export { DEFAULT_SOFT_SOLVER, SOFT_INTEGRATORS };

/**
 * Material defaults; volumeStiffness, stretchStiffness and perimeterStiffness
 * default to VOLUME_STIFFNESS_FACTOR, STRETCH_STIFFNESS_FACTOR and
 * PERIMETER_STIFFNESS_FACTOR x stiffness; preventStretch and
 * preservePerimeter, when no material or body says, are on for the seed
 * construction and off for the lattice.
 */
export const DEFAULT_SOFT_MATERIAL: Readonly<Omit<SoftMaterialDesc, 'volumeStiffness' | 'stretchStiffness' | 'perimeterStiffness'>> = {
  stiffness: 1e5,
  damping: 0.1,
  outerScale: 0.3,
  density: 1000,
  friction: 0.5,
  restitution: 0,
  preserveVolume: false,
  stretchDamping: 1,
};
export const VOLUME_STIFFNESS_FACTOR = 10;
/** The seed makes a stretched spring "a stiff spring" without a number; ten times the modulus (docs/soft-bodies.md). */
export const STRETCH_STIFFNESS_FACTOR = 10;
export const PERIMETER_STIFFNESS_FACTOR = 3;

export const DEFAULT_SOFT_CONSTRUCTION = { resolution: 8, minAngleDegrees: 20 };

/** Bounds beyond which a file would hang or exhaust memory (a 40-cell lattice is about 70 000 particles). */
export const SOFT_LIMITS = { resolution: MAX_LATTICE_RESOLUTION, substeps: 10_000, maxSubsteps: 100_000 };

const SOLVER_KEYS = Object.keys({ integrator: 0, substeps: 0, maxSubsteps: 0, maxStretch: 0 } satisfies Record<keyof SoftSolverSettings, 0>);
const MATERIAL_KEYS = [
  'stiffness',
  'damping',
  'outerScale',
  'density',
  'friction',
  'restitution',
  'preserveVolume',
  'volumeStiffness',
  'preventStretch',
  'stretchStiffness',
  'stretchDamping',
  'preservePerimeter',
  'perimeterStiffness',
];
const BODY_KEYS = [
  'name',
  'shape',
  'material',
  'construction',
  'pins',
  'position',
  'orientation',
  'rotation',
  'velocity',
  'angularVelocity',
  'mass',
  ...MATERIAL_KEYS,
];
const CONSTRUCTION_KEYS: Record<(typeof SOFT_METHODS)[number], readonly string[]> = {
  lattice: ['method', 'resolution'],
  seed: ['method', 'minAngle'],
};
const PIN_KEYS = ['body', 'anchor', 'radius'];

// Rules as functions: this module may load before validate.ts finishes (file comment), so no shared constants at top level.
const positive = (): NumberRule => ({ min: 0, minExclusive: true });
const nonNegative = (): NumberRule => ({ min: 0 });
const unit = (): NumberRule => ({ min: 0, max: 1 });

/** The soft part of SceneDesc, defaults filled in. */
export interface SoftSection {
  softSolver: SoftSolverSettings;
  softMaterials: Record<string, SoftMaterialDesc>;
  softBodies: SoftBodyDesc[];
}

export function readSoftSection(
  r: Reader,
  root: JsonObject,
  shapes: Record<string, ShapeDesc>,
  bodies: BodyDesc[],
  byName: NameIndex,
): SoftSection {
  const softSolver = readSoftSolver(r, root['softSolver']);
  const softMaterials: Record<string, SoftMaterialDesc> = {};
  const given: Record<string, JsonObject> = {};
  if (has(root, 'softMaterials')) {
    const mo = r.object(root['softMaterials'], 'softMaterials', 'an object mapping material names to soft materials');
    for (const name of Object.keys(mo)) {
      const path = childPath('softMaterials', name);
      if (name.length === 0) r.fail(path, 'a material name must not be empty');
      const o = r.object(mo[name], path, 'a soft material object like {"stiffness": 100000, "damping": 0.1}');
      define(given, name, o);
      define(softMaterials, name, readMaterial(r, o, path));
    }
  }
  const softBodies: SoftBodyDesc[] = [];
  if (has(root, 'softBodies')) {
    const list = r.array(root['softBodies'], 'softBodies', 'an array of soft bodies');
    const softNames = new Map<string, number>();
    for (let i = 0; i < list.length; i++) {
      softBodies.push(readSoftBody(r, list[i], i, { shapes, bodies, byName, softMaterials, given, softNames }));
    }
  }
  return { softSolver, softMaterials, softBodies };
}

function readSoftSolver(r: Reader, v: unknown): SoftSolverSettings {
  const d = DEFAULT_SOFT_SOLVER;
  if (v === undefined) return { ...d };
  const path = 'softSolver';
  const o = r.object(v, path, 'an object of soft-body solver settings like {"integrator": "semiImplicit", "substeps": 4}');
  r.keys(o, path, SOLVER_KEYS);
  const settings: SoftSolverSettings = {
    integrator: r.choice(o, path, 'integrator', SOFT_INTEGRATORS, d.integrator),
    substeps: r.num(o, path, 'substeps', d.substeps, { min: 1, max: SOFT_LIMITS.substeps, integer: true }),
    maxSubsteps: r.num(o, path, 'maxSubsteps', d.maxSubsteps, { min: 1, max: SOFT_LIMITS.maxSubsteps, integer: true }),
    maxStretch: r.num(o, path, 'maxStretch', d.maxStretch, { min: 1, minExclusive: true }),
  };
  if (settings.substeps > settings.maxSubsteps) {
    r.fail(childPath(path, has(o, 'maxSubsteps') ? 'maxSubsteps' : 'substeps'), `expected substeps (${settings.substeps}) <= maxSubsteps (${settings.maxSubsteps})`);
  }
  return settings;
}

/** Which moduli the base material gave itself (the others follow the stiffness). */
interface GaveModuli {
  volumeStiffness: boolean;
  stretchStiffness: boolean;
  perimeterStiffness: boolean;
}
const GAVE_NONE: GaveModuli = { volumeStiffness: false, stretchStiffness: false, perimeterStiffness: false };

/** The material keys of one object over `base` (a material's values, or the defaults). */
function readMaterialKeys(r: Reader, o: JsonObject, path: string, base: SoftMaterialDesc, gave: GaveModuli): SoftMaterialDesc {
  const stiffness = r.num(o, path, 'stiffness', base.stiffness, positive());
  const preserveVolume = r.bool(o, path, 'preserveVolume', base.preserveVolume);
  // A modulus in the same object as its switch set to false contradicts it; say so rather than ignore it.
  const contradiction = (key: string, switchKey: string): void => {
    if (has(o, key) && has(o, switchKey) && o[switchKey] === false) r.fail(childPath(path, key), `has no effect with "${switchKey}": false; remove one of the two`);
  };
  contradiction('volumeStiffness', 'preserveVolume');
  contradiction('stretchStiffness', 'preventStretch');
  contradiction('stretchDamping', 'preventStretch');
  contradiction('perimeterStiffness', 'preservePerimeter');
  // Unless a material gave one, a modulus follows the stiffness (the body's own, when it sets one).
  const follow = (key: keyof GaveModuli, factor: number): number => (gave[key] ? base[key] : factor * stiffness);
  const volumeDefault = follow('volumeStiffness', VOLUME_STIFFNESS_FACTOR);
  const optionalBool = (key: 'preventStretch' | 'preservePerimeter'): { [k in typeof key]?: boolean } => {
    if (has(o, key)) return { [key]: r.bool(o, path, key, false) };
    return base[key] === undefined ? {} : { [key]: base[key] };
  };
  return {
    stiffness,
    damping: r.num(o, path, 'damping', base.damping, nonNegative()),
    outerScale: r.num(o, path, 'outerScale', base.outerScale, unit()),
    density: r.num(o, path, 'density', base.density, positive()),
    friction: r.num(o, path, 'friction', base.friction, nonNegative()),
    restitution: r.num(o, path, 'restitution', base.restitution, unit()),
    preserveVolume,
    volumeStiffness: r.num(o, path, 'volumeStiffness', volumeDefault, positive()),
    ...optionalBool('preventStretch'),
    stretchStiffness: r.num(o, path, 'stretchStiffness', follow('stretchStiffness', STRETCH_STIFFNESS_FACTOR), positive()),
    stretchDamping: r.num(o, path, 'stretchDamping', base.stretchDamping, nonNegative()),
    ...optionalBool('preservePerimeter'),
    perimeterStiffness: r.num(o, path, 'perimeterStiffness', follow('perimeterStiffness', PERIMETER_STIFFNESS_FACTOR), positive()),
  };
}

function defaultMaterial(): SoftMaterialDesc {
  return { ...DEFAULT_SOFT_MATERIAL, volumeStiffness: 0, stretchStiffness: 0, perimeterStiffness: 0 };
}

function readMaterial(r: Reader, o: JsonObject, path: string): SoftMaterialDesc {
  if (has(o, 'mass')) r.fail(childPath(path, 'mass'), 'a material has a density, not a mass (give "mass" on the soft body)');
  r.keys(o, path, MATERIAL_KEYS);
  return readMaterialKeys(r, o, path, defaultMaterial(), GAVE_NONE);
}

interface SoftContext {
  shapes: Record<string, ShapeDesc>;
  bodies: BodyDesc[];
  byName: NameIndex;
  softMaterials: Record<string, SoftMaterialDesc>;
  given: Record<string, JsonObject>;
  softNames: Map<string, number>;
}

function readSoftBody(r: Reader, v: unknown, i: number, ctx: SoftContext): SoftBodyDesc {
  const path = indexPath('softBodies', i);
  const o = r.object(v, path, 'a soft body object like {"shape": "ball", "position": [0, 1, 0]}');
  r.keys(o, path, BODY_KEYS);

  // Names are unique among soft and rigid bodies alike: output and pins refer to bodies by name.
  let name: string;
  if (has(o, 'name')) {
    name = r.string(o['name'], childPath(path, 'name'), 'a non-empty string');
  } else {
    name = `soft${i}`;
  }
  const where = has(o, 'name') ? childPath(path, 'name') : path;
  const rigid = ctx.byName.get(name);
  if (rigid) r.fail(where, `name ${quote(name)} is already used by bodies[${rigid.index}]; soft and rigid bodies need different names`);
  const prev = ctx.softNames.get(name);
  if (prev !== undefined) r.fail(where, `duplicate name ${quote(name)} (already used by softBodies[${prev}]); soft body names must be unique`);
  ctx.softNames.set(name, i);

  if (!has(o, 'shape')) r.missing(path, 'shape', 'the name of a closed shape defined under "shapes"');
  const shapePath = childPath(path, 'shape');
  const shape = r.string(o['shape'], shapePath, 'the name of a shape defined under "shapes" (a string)');
  if (!Object.hasOwn(ctx.shapes, shape)) r.fail(shapePath, unknownReference('shape', shape, Object.keys(ctx.shapes)));
  const shapeDesc = ctx.shapes[shape]!;
  if (shapeDesc.type === 'plane') r.fail(shapePath, `shape ${quote(shape)} is a plane, which encloses no volume; a soft body needs a closed shape`);

  let base = defaultMaterial();
  let material: string | undefined;
  if (has(o, 'material')) {
    const mp = childPath(path, 'material');
    material = r.string(o['material'], mp, 'the name of a material defined under "softMaterials" (a string)');
    if (!Object.hasOwn(ctx.softMaterials, material)) {
      const defined = Object.keys(ctx.softMaterials);
      const hint = didYouMean(material, defined);
      r.fail(
        mp,
        hint
          ? `unknown soft material ${quote(material)}${hint}`
          : defined.length === 0
            ? `unknown soft material ${quote(material)} (no materials are defined; add it under "softMaterials")`
            : `unknown soft material ${quote(material)} (defined materials: ${listChoices(defined)})`,
      );
    }
    base = ctx.softMaterials[material]!;
  }
  const gave = (key: keyof GaveModuli): boolean => material !== undefined && has(ctx.given[material]!, key);
  const m = readMaterialKeys(r, o, path, base, { volumeStiffness: gave('volumeStiffness'), stretchStiffness: gave('stretchStiffness'), perimeterStiffness: gave('perimeterStiffness') });
  if (has(o, 'volumeStiffness') && !m.preserveVolume) {
    r.fail(childPath(path, 'volumeStiffness'), 'has no effect without volume preservation; add "preserveVolume": true');
  }
  if (has(o, 'density') && has(o, 'mass')) r.fail(path, 'give either "density" or "mass", not both');

  const construction = readConstruction(r, o, path, shape, shapeDesc);
  // Stretch prevention and perimeter preservation are the seed's: on by default for its construction.
  const seed = construction.method === 'seed';
  const preventStretch = m.preventStretch ?? seed;
  const preservePerimeter = m.preservePerimeter ?? seed;
  for (const key of ['stretchStiffness', 'stretchDamping']) {
    if (has(o, key) && !preventStretch) r.fail(childPath(path, key), 'has no effect without stretch prevention; add "preventStretch": true');
  }
  if (has(o, 'perimeterStiffness') && !preservePerimeter) {
    r.fail(childPath(path, 'perimeterStiffness'), 'has no effect without perimeter preservation; add "preservePerimeter": true');
  }
  if (preservePerimeter && !seed) {
    r.fail(
      has(o, 'preservePerimeter') ? childPath(path, 'preservePerimeter') : childPath(path, 'material'),
      `perimeter preservation acts on the outline of the seed construction, and this body uses the lattice${has(o, 'preservePerimeter') ? '' : ` (its material ${quote(material!)} turns it on)`}; use {"method": "seed"} on an extrude shape, or drop "preservePerimeter"`,
    );
  }
  const pins: SoftPinDesc[] = [];
  if (has(o, 'pins')) {
    const pp = childPath(path, 'pins');
    const list = r.array(o['pins'], pp, 'an array of pins like [{"body": "hook", "anchor": [0, -0.5, 0]}]');
    for (let j = 0; j < list.length; j++) pins.push(readPin(r, list[j], indexPath(pp, j), ctx));
  }

  const position = r.vec3(o, path, 'position', [0, 0, 0]);
  if (has(o, 'orientation') && has(o, 'rotation')) r.fail(path, '"orientation" and "rotation" are alternatives; give only one');
  const orientation = has(o, 'rotation') ? readRotation(r, o['rotation'], childPath(path, 'rotation')) : readOrientation(r, o, path);

  const { density, ...rest } = m;
  const body: SoftBodyDesc = {
    name,
    shape,
    ...rest,
    preventStretch,
    preservePerimeter,
    construction,
    pins,
    position,
    orientation,
    velocity: r.vec3(o, path, 'velocity', [0, 0, 0]),
    angularVelocity: r.vec3(o, path, 'angularVelocity', [0, 0, 0]),
  };
  if (!m.preserveVolume) body.volumeStiffness = 0;
  if (!preventStretch) body.stretchStiffness = 0;
  if (!preservePerimeter) body.perimeterStiffness = 0;
  if (material !== undefined) body.material = material;
  if (has(o, 'mass')) body.mass = r.num(o, path, 'mass', undefined, positive());
  else body.density = density;
  return body;
}

function readConstruction(r: Reader, o: JsonObject, bodyPath: string, shapeName: string, shape: ShapeDesc): SoftConstruction {
  const D = DEFAULT_SOFT_CONSTRUCTION;
  if (!has(o, 'construction')) return { method: 'lattice', resolution: D.resolution };
  const path = childPath(bodyPath, 'construction');
  const c = r.object(o['construction'], path, 'an object like {"method": "lattice", "resolution": 8} or {"method": "seed", "minAngle": 20}');
  r.keys(c, path, ['method', 'resolution', 'minAngle']);
  const method = r.choice(c, path, 'method', SOFT_METHODS, 'lattice');
  for (const k of Object.keys(c)) {
    if (CONSTRUCTION_KEYS[method].includes(k)) continue;
    r.fail(childPath(path, k), `the ${method} construction does not use "${k}" (its keys are: ${CONSTRUCTION_KEYS[method].join(', ')})`);
  }
  if (method === 'lattice') {
    return { method, resolution: r.num(c, path, 'resolution', D.resolution, { min: 1, max: SOFT_LIMITS.resolution, integer: true }) };
  }
  if (shape.type !== 'extrude') {
    r.fail(
      childPath(path, 'method'),
      `the seed construction builds a net on a 2D outline and needs an "extrude" shape; shape ${quote(shapeName)} is a ${shape.type} (use "lattice")`,
    );
  }
  if (shape.polygon.length > SEED_MAX_POINTS) {
    r.fail(
      childPath(path, 'method'),
      `the seed construction takes at most ${SEED_MAX_POINTS} outline points (its cost grows with their cube); shape ${quote(shapeName)} has ${shape.polygon.length} (use "lattice")`,
    );
  }
  // Two springs at a point meet at less than 90 degrees whenever a third lies between them, so no net can hold more.
  return { method, minAngle: r.num(c, path, 'minAngle', D.minAngleDegrees, { min: 0, max: 90, minExclusive: true, maxExclusive: true }) };
}

function readPin(r: Reader, v: unknown, path: string, ctx: SoftContext): SoftPinDesc {
  const o = r.object(v, path, 'a pin object like {"body": "hook", "anchor": [0, -0.5, 0]}');
  r.keys(o, path, PIN_KEYS);
  const body = bodyReference(r, o, path, 'body', ctx.bodies, ctx.byName);
  const anchor: Vec3 = r.vec3(o, path, 'anchor', undefined);
  return { body: body.name, anchor, radius: r.num(o, path, 'radius', 0, nonNegative()) };
}

