/**
 * A validated scene back to scene JSON (`stackfield run SCENE.json --dump`):
 * every default written out, and only keys the loader accepts, so the result
 * loads to the same scene (docs/SCENE_FORMAT.md). What validation turned into
 * another form is turned back: the solver's "sleep" is the top-level key, a
 * mesh's path is written relative to where the dump goes, a joint lists only
 * the anchors and axes its type takes, a motor's constant target is "speed"
 * (or a zero "targetAngularVelocity"), and a motor window without an end has
 * no "until" (JSON has no Infinity).
 */
import type { BodyDesc, ForceDesc, JointDesc, MotorDesc, SceneDesc, ShapeDesc, SoftBodyDesc } from './types.ts';
import { DEFAULT_FLUID_DENSITY } from './forcesValidate.ts';
import { JOINT_NUMBERS, JOINT_VECTORS, SCENE_FORMAT_ID } from './validate.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/**
 * @param meshPath the path to write for a mesh shape (its `resolvedPath`
 *   relative to the directory the dump is read from); default: as written
 */
export function sceneToJson(scene: SceneDesc, meshPath: (shape: Extract<ShapeDesc, { type: 'mesh' }>) => string = (d) => d.path): JsonObject {
  const { sleep, ...solver } = scene.solver;
  const out: JsonObject = {
    format: SCENE_FORMAT_ID,
    gravity: [...scene.gravity],
    dt: scene.dt,
    sleep,
    solver: { ...solver },
    shapes: Object.fromEntries(Object.entries(scene.shapes).map(([name, d]) => [name, shapeJson(d, meshPath)])),
    bodies: scene.bodies.map(bodyJson),
    joints: scene.joints.map(jointJson),
    motors: scene.motors.map(motorJson),
  };
  if (scene.fluidDensity !== DEFAULT_FLUID_DENSITY) out['fluid'] = { density: scene.fluidDensity };
  if (scene.forces.length > 0) out['forces'] = scene.forces.map(forceJson);
  if (scene.softBodies.length > 0 || Object.keys(scene.softMaterials).length > 0) {
    out['softSolver'] = { ...scene.softSolver };
    out['softMaterials'] = Object.fromEntries(
      Object.entries(scene.softMaterials).map(([name, m]) => {
        const o = structuredClone(m) as unknown as JsonObject;
        // "volumeStiffness" is refused without volume preservation (it would have no effect).
        if (!m.preserveVolume) delete o['volumeStiffness'];
        // Likewise the stretch and perimeter moduli with their switches off.
        if (m.preventStretch === false) {
          delete o['stretchStiffness'];
          delete o['stretchDamping'];
        }
        if (m.preservePerimeter === false) delete o['perimeterStiffness'];
        return [name, o];
      }),
    );
    out['softBodies'] = scene.softBodies.map(softBodyJson);
  }
  return out;
}

/**
 * A scene's JSON as written (a built-in's, or the plain scene that library
 * instances flatten to) with each mesh shape's path replaced by
 * meshPath(its shape in `scene`, the same JSON validated): `--dump` writes
 * every mesh path relative to where the dump goes, whichever form it writes.
 */
export function withMeshPaths<T>(json: T, scene: SceneDesc, meshPath: (shape: Extract<ShapeDesc, { type: 'mesh' }>) => string): T {
  const out = structuredClone(json) as T & { shapes?: unknown };
  const shapes = out.shapes;
  if (shapes === null || typeof shapes !== 'object' || Array.isArray(shapes)) return out;
  for (const [name, raw] of Object.entries(shapes as Record<string, unknown>)) {
    const d = Object.hasOwn(scene.shapes, name) ? scene.shapes[name] : undefined;
    if (d?.type !== 'mesh' || raw === null || typeof raw !== 'object') continue;
    (raw as Record<string, unknown>)['path'] = meshPath(d);
  }
  return out;
}

function shapeJson(d: ShapeDesc, meshPath: (shape: Extract<ShapeDesc, { type: 'mesh' }>) => string): JsonObject {
  if (d.type === 'mesh') {
    const { resolvedPath: _resolved, ...rest } = d;
    return { ...(structuredClone(rest) as unknown as JsonObject), path: meshPath(d) };
  }
  return structuredClone(d) as unknown as JsonObject;
}

function bodyJson(b: BodyDesc): JsonObject {
  // A property left at the format's default stays unsaid, so the dump's
  // pairs combine materials as the original's do (material.ts).
  const o = structuredClone(b) as unknown as JsonObject;
  for (const k of b.materialDefaults ?? []) delete o[k];
  delete o['materialDefaults'];
  return o;
}

function forceJson(f: ForceDesc): JsonObject {
  const o = structuredClone(f) as unknown as JsonObject;
  // JSON cannot say Infinity: no "until" is no end.
  if ('until' in f && !Number.isFinite(f.until)) delete o['until'];
  return o;
}

function jointJson(j: JointDesc): JsonObject {
  const o: JsonObject = { name: j.name, type: j.type, bodyA: j.bodyA, bodyB: j.bodyB };
  for (const key of JOINT_VECTORS[j.type]) o[key] = [...j[key]];
  for (const key of JOINT_NUMBERS[j.type] ?? []) o[key] = j[key];
  o['collide'] = j.collide;
  return o;
}

function motorJson(m: MotorDesc): JsonObject {
  const o: JsonObject = { name: m.name };
  const constant = m.program.length === 1 && m.program[0]!.duration === Infinity && !m.repeat;
  if (m.joint !== '') o['joint'] = m.joint;
  else {
    o['body'] = m.body;
    o['frame'] = m.frame;
    const zero = m.axis[0] === 0 && m.axis[1] === 0 && m.axis[2] === 0;
    // No axis: the target was a zero vector (a motor holding the body still).
    if (zero) o['targetAngularVelocity'] = [0, 0, 0];
    else o['axis'] = [...m.axis];
  }
  if (!('targetAngularVelocity' in o)) {
    if (constant) o['speed'] = m.program[0]!.speed;
    else {
      o['program'] = m.program.map((s) => ({ speed: s.speed, duration: s.duration }));
      o['repeat'] = m.repeat;
    }
  }
  o['startTorque'] = m.startTorque;
  o['torqueIncrement'] = m.torqueIncrement;
  o['maxTorque'] = m.maxTorque;
  o['from'] = m.from;
  if (Number.isFinite(m.until)) o['until'] = m.until;
  return o;
}

function softBodyJson(b: SoftBodyDesc): JsonObject {
  const o = structuredClone(b) as unknown as JsonObject;
  // Without volume preservation the loader sets volumeStiffness to 0, a value it does not accept.
  if (!b.preserveVolume) delete o['volumeStiffness'];
  if (!b.preventStretch) {
    delete o['stretchStiffness'];
    delete o['stretchDamping'];
  }
  if (!b.preservePerimeter) delete o['perimeterStiffness'];
  return o;
}
