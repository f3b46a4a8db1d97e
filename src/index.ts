/// <reference types="@webgpu/types" />
/**
 * Stackfield as a library: `import { loadScene, createWorld, ... } from 'stackfield'`.
 *
 * A small API over the engine the command line and the app use: load a scene
 * (a file, its JSON text, or a scene object built in code), build a {@link World} on the CPU
 * or GPU backend, step it, read poses, switch backends between steps, and
 * bake a mesh's signed distance field. The package exports this entry point
 * alone: {@link World} and its members give the rest (`World.bodies` holds
 * the state as typed arrays), and the types those members use are exported
 * here too (docs/DESIGN.md lists what each engine module owns).
 *
 * This entry point runs in Node (it reads mesh files and shaders from disk).
 * The reference is docs/api/README.md, generated from these comments by
 * `npm run docs:api`.
 *
 * @example
 * ```ts
 * import { loadScene, createWorld, bodyPose } from 'stackfield';
 * const world = await createWorld(await loadScene('scene.json'));
 * for (let i = 0; i < 100; i++) await world.step();
 * console.log(bodyPose(world, 'box0').position);
 * ```
 */
import { createBackend as createBackendOf, type Backend } from './backends.ts';
import type { BackendKind } from './collision/query.ts';
import { installNodePlatform } from './cli/nodePlatform.ts';
import { nodeSceneIo } from './cli/nodeIo.ts';
import { InputError, SimulationError } from './errors.ts';
import type { TriMesh, Vec3 } from './geometry/mesh.ts';
import { World } from './dynamics/world.ts';
import { createWorld as buildWorld } from './scene/build.ts';
import type { BuildLimits } from './scene/shapeBuild.ts';
import { checkMeshFiles, loadSceneFile, parseSceneText } from './scene/load.ts';
import type { Quat, SceneDesc } from './scene/types.ts';
import { validateScene } from './scene/validate.ts';
import { describeValue } from './scene/reader.ts';
import { gridLayout, type SdfGrid } from './sdf/grid.ts';
import { validateMesh } from './geometry/validate.ts';
import { meshBounds } from './geometry/mesh.ts';
import { BUILD_LIMITS } from './scene/shapeBuild.ts';
import { quote } from './util/echo.ts';


/**
 * A query backend with its SDF baker: `"cpu"` (exact, one thread) or `"gpu"`
 * (WebGPU through Dawn; throws {@link GpuUnavailableError} without an
 * adapter). Destroy it when done.
 */
export async function createBackend(kind: BackendKind = 'cpu'): Promise<Backend> {
  // (A name from a config file or argv is not checked by the compiler.)
  if (kind !== 'cpu' && kind !== 'gpu') throw new InputError(`expected "cpu" or "gpu", got ${quote(String(kind), 60)}`, undefined, 'backend');
  installNodePlatform();
  return createBackendOf(kind);
}

/**
 * A scene, validated and with every default filled in, from a file path
 * (mesh paths resolve against the file's directory), from the scene's JSON
 * text (a string that starts with `{`) or from a scene object built in code
 * (docs/SCENE_FORMAT.md; for both, mesh paths resolve against the working
 * directory, and `include` needs the scene's file). Throws {@link InputError} naming the file, the JSON
 * path and what was expected. Every mesh file must exist (a missing one is
 * an InputError naming `shapes.NAME.path` and the path looked for); its
 * contents are read and checked by {@link createWorld}.
 */
export async function loadScene(source: string | object): Promise<SceneDesc> {
  if (typeof source === 'string' && /^\s*\{/.test(source)) {
    // Scene JSON as text (no path starts with a brace): checked as a file's
    // would be, its errors with line and column; mesh paths resolve against
    // the working directory, and includes need the scene's own file.
    const scene = parseSceneText(source, '<scene>', process.cwd());
    await checkMeshFiles(scene, '<scene>', process.cwd(), 'the working directory');
    return scene;
  }
  if (typeof source === 'string') return loadSceneFile(source);
  const scene = validateScene(source, '<scene>', process.cwd());
  await checkMeshFiles(scene, '<scene>', process.cwd(), 'the working directory');
  return scene;
}

/**
 * createWorld's argument must be what loadScene returns (checked, defaults
 * filled, paths resolved), not the scene JSON or a path: from plain
 * JavaScript those got "Cannot read properties of undefined".
 */
function checkLoadedScene(scene: unknown): asserts scene is SceneDesc {
  const s = scene as Partial<Record<keyof SceneDesc, unknown>> | null;
  const loaded = s !== null && typeof s === 'object' && typeof s.file === 'string' && Array.isArray(s.bodies) &&
    Array.isArray(s.joints) && Array.isArray(s.motors) && s.shapes !== null && typeof s.shapes === 'object' && s.solver !== null && typeof s.solver === 'object';
  if (loaded) return;
  const got = typeof scene === 'string' ? `the string ${quote(scene, 80)} (a path? loadScene reads it)`
    : s !== null && typeof s === 'object' && 'format' in s ? 'scene JSON (loadScene checks it and fills its defaults)'
    : describeValue(scene);
  throw new InputError(`expected the scene loadScene returns, as in createWorld(await loadScene(json or path)); got ${got}`, undefined, 'createWorld');
}

export interface CreateWorldOptions {
  /** Query backend and baker (default "cpu"). */
  backend?: BackendKind;
  /** Receives warnings (a repaired mesh, an unused shape); default: console.warn. */
  warn?: (message: string) => void;
  /** Per-shape limits on triangles and SDF nodes (default BUILD_LIMITS). */
  limits?: Partial<BuildLimits>;
}

/**
 * A world built from a scene: every shape's mesh, mass properties and SDF,
 * then the bodies, joints and motors. Step it with `await world.step()`;
 * the state is in `world.bodies` (see {@link bodyPose}). The world owns its
 * backend: {@link destroyWorld} releases it.
 */
export async function createWorld(scene: SceneDesc, options: CreateWorldOptions = {}): Promise<World> {
  checkLoadedScene(scene);
  const backend = await createBackend(options.backend ?? 'cpu');
  try {
    return await buildWorld(scene, backend.query, {
      ...nodeSceneIo(options.warn ?? ((m) => console.warn(`stackfield: warning: ${m}`))),
      bake: backend.bake,
      bakeAll: backend.bakeAll,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  } catch (e) {
    backend.destroy();
    throw e;
  }
}

/** `world` must be one createWorld made: from plain JavaScript, null or a plain object had given "Cannot read properties of null". */
function checkWorld(world: unknown, fn: string): asserts world is World {
  if (!(world instanceof World)) throw new InputError(`expected a world made by createWorld, got ${describeValue(world)}`, undefined, fn);
}

/**
 * Moves a world to another query backend between steps (shapes are
 * uploaded to it, cached contacts dropped); the old backend is released.
 */
export async function switchBackend(world: World, kind: BackendKind): Promise<void> {
  checkWorld(world, 'switchBackend');
  if (world.backend.kind === kind) return;
  const old = world.backend;
  const next = await createBackend(kind);
  world.setBackend(next.query);
  old.destroy();
}

/**
 * Releases the world's backend (GPU buffers); the world cannot step
 * afterwards: a step that needs a query throws a SimulationError saying so.
 */
export function destroyWorld(world: World): void {
  checkWorld(world, 'destroyWorld');
  const old = world.backend;
  old.destroy();
  const gone = (): never => {
    throw new SimulationError('this world was destroyed (destroyWorld): build another with createWorld');
  };
  world.setBackend({ kind: old.kind, counters: old.counters, setShapes: () => {}, setSampleSet: () => {}, query: async () => gone(), destroy: () => {} });
}

/** One body's state: centre of mass, orientation [x, y, z, w], linear and angular velocity (world frame). */
export interface BodyPose {
  name: string;
  position: Vec3;
  orientation: Quat;
  velocity: Vec3;
  angularVelocity: Vec3;
}

/** The state of a body given by name or index; throws RangeError for an unknown one. */
export function bodyPose(world: World, body: string | number): BodyPose {
  checkWorld(world, 'bodyPose');
  const B = world.bodies;
  const i = typeof body === 'number' ? body : B.names.indexOf(body);
  if (!(Number.isInteger(i) && i >= 0 && i < B.count)) throw new RangeError(`no body ${typeof body === 'number' ? body : JSON.stringify(body)} in this world`);
  const v3 = (a: Float64Array): Vec3 => [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
  return {
    name: B.names[i]!,
    position: v3(B.pos),
    orientation: [B.quat[4 * i]!, B.quat[4 * i + 1]!, B.quat[4 * i + 2]!, B.quat[4 * i + 3]!],
    velocity: v3(B.vel),
    angularVelocity: v3(B.angVel),
  };
}

/** Every body's state, in the scene's order. */
export function bodyPoses(world: World): BodyPose[] {
  checkWorld(world, 'bodyPoses');
  return Array.from({ length: world.bodies.count }, (_, i) => bodyPose(world, i));
}

export interface BakeSdfOptions {
  /** Cells along the longest side of the mesh's bounds (default 48, at least 8). */
  cells?: number;
  /** Extra cells on every side (default 2). */
  padding?: number;
  /** Bake on the CPU (exact, default) or the GPU. */
  backend?: BackendKind;
  /** Receives the mesh check's warnings (a repaired mesh); default: console.warn. */
  warn?: (message: string) => void;
}

/**
 * The signed distance field of a closed mesh: negative inside, sampled with
 * {@link sampleSdf}. The mesh is checked first as a scene's meshes are
 * ({@link validateMesh}: an open or non-finite mesh is an InputError, an
 * inside-out one is turned, a small hole filled, each with a warning to
 * `options.warn`), and the grid must stay within BUILD_LIMITS.maxSdfNodes.
 */
export async function bakeSdf(mesh: TriMesh, options: BakeSdfOptions = {}): Promise<SdfGrid> {
  const cells = options.cells ?? 48, padding = options.padding ?? 2;
  if (!Number.isInteger(cells) || cells < 8) throw new InputError(`cells must be an integer of at least 8, got ${cells}`, undefined, 'bakeSdf');
  if (!Number.isInteger(padding) || padding < 1) throw new InputError(`padding must be an integer of at least 1, got ${padding}`, undefined, 'bakeSdf');
  const valid = validateMesh(mesh, 'bakeSdf');
  for (const w of valid.warnings) (options.warn ?? ((m: string) => console.warn(`stackfield: warning: ${m}`)))(w);
  const dims = gridLayout(meshBounds(valid.mesh), cells, padding).dims;
  const nodes = dims[0] * dims[1] * dims[2];
  if (!(nodes <= BUILD_LIMITS.maxSdfNodes)) {
    throw new InputError(`${cells} cells make a grid of ${dims.join(' x ')} nodes, more than ${BUILD_LIMITS.maxSdfNodes} (BUILD_LIMITS.maxSdfNodes); use fewer cells`, undefined, 'bakeSdf');
  }
  const backend = await createBackend(options.backend ?? 'cpu');
  try {
    return await backend.bake(valid.mesh, { cells, padding });
  } finally {
    backend.destroy();
  }
}

// The engine's types and the building blocks the functions above use.
export { World } from './dynamics/world.ts';
export { MotorHandle, type MotorKind } from './dynamics/motorHandle.ts';
export {
  ForceSet, AIR_DENSITY, type WindSpec, type FieldSpec, type PointForceSpec, type PointImpulseSpec, type DragSpec, type Gust, type ForceFrame,
} from './dynamics/forces.ts';
export type { BodyStore } from './dynamics/bodies.ts';
export type { WorldState, ContactView } from './dynamics/world.ts';
// The types World's and Backend's public members use.
export type { RigidShape } from './dynamics/shape.ts';
export type { StepProfile } from './dynamics/profile.ts';
export type { ConstraintSystem } from './dynamics/constraints.ts';
export type { StepHook } from './dynamics/stepHook.ts';
export type { JointType } from './dynamics/joints/types.ts';
export type { QueryCounters } from './collision/query.ts';
export type { SoftSolverSettings } from './soft/settings.ts';
export type { Backend } from './backends.ts';
export type { BackendKind, PenetrationBackend } from './collision/query.ts';
export { BUILD_LIMITS, type BuildLimits, type BuildProgress, type BuildStage, type SceneIo } from './scene/shapeBuild.ts';
export { builtinScene, listBuiltins, type BuiltinInfo, type BuiltinParam } from './scene/builtins.ts';
export { parseSceneText } from './scene/load.ts';
export type { SceneDesc, BodyDesc, ShapeDesc, SdfSettings, Quat, JointDesc, MotorDesc, SolverSettings, ForceDesc, DragDesc, GustDesc, SoftBodyDesc, SoftMaterialDesc } from './scene/types.ts';
export { parseObjWithWarnings, type ObjResult } from './geometry/obj.ts';
export { validateMesh, type ValidatedMesh } from './geometry/validate.ts';
export { boxMesh, sphereMesh, cylinderMesh, capsuleMesh, torusMesh, revolveMesh, extrudeMesh } from './geometry/shapes.ts';
export type { TriMesh, Vec3, MeshNumbering } from './geometry/mesh.ts';
export { sampleSdf, OUTSIDE_DISTANCE, type SdfGrid } from './sdf/grid.ts';
export { massFromMesh, type MassProperties } from './sdf/mass.ts';
export { InputError, SimulationError, GpuUnavailableError, WorkerError } from './errors.ts';
