/**
 * From a validated scene to a SoftSystem: each soft body's shape is built
 * like a rigid body's (src/scene/shapeBuild.ts: mesh, centre of mass, SDF), then
 * the construction turns it into particles and springs, the material into
 * spring constants, and the pose into particle positions and velocities.
 *
 * Two ways to get one:
 *  - attachSoftBodies(world, ...) (what createWorld does for a scene with
 *    soft bodies): the system as World's stage "soft" (coupling.ts); the
 *    soft bodies' rest shapes join World's shape list, so their SDFs are
 *    uploaded with the rigid shapes, and pins follow World's bodies;
 *  - buildSoftSystem(scene, ...): the soft bodies alone among the scene's
 *    static planes, pins at their bodies' initial poses (tests of the soft
 *    dynamics by themselves, the solver benchmark).
 *
 * Problems that only show once the geometry exists (a lattice too coarse for
 * a thin part, a pin anchor away from the body, a material too stiff for the
 * substep budget) are InputErrors naming the scene file and the JSON path.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import { translatedMesh } from '../geometry/mesh.ts';
import { extrudeMesh } from '../geometry/shapes.ts';
import { InputError } from '../errors.ts';
import { buildShape, fmtValue, inRange, type SceneIo } from '../scene/shapeBuild.ts';
import { fileLabel, quote } from '../util/echo.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import type { SceneDesc, SoftBodyDesc } from '../scene/types.ts';
import { buildLatticeModel } from './lattice.ts';
import { extrudeSeedModel } from './seedNet.ts';
import type { SoftModel } from './model.ts';
import { PlaneCollider, type StaticPlane } from './collide.ts';
import { SoftSystem, StaticPinFrames, type PinFrames } from './system.ts';
import type { World } from '../dynamics/world.ts';
import { SoftCoupling } from './coupling.ts';

export interface BuiltSoft {
  system: SoftSystem;
  /** The static planes the soft bodies collide with (also in system.colliders). */
  planes: PlaneCollider;
}

function rotate(q: readonly number[], v: readonly number[]): Vec3 {
  const [x, y, z, w] = q as [number, number, number, number];
  const tx = 2 * (y * v[2]! - z * v[1]!), ty = 2 * (z * v[0]! - x * v[2]!), tz = 2 * (x * v[1]! - y * v[0]!);
  return [v[0]! + w * tx + (y * tz - z * ty), v[1]! + w * ty + (z * tx - x * tz), v[2]! + w * tz + (x * ty - y * tx)];
}

/** The soft model of one body (its construction applied to its shape). */
export function buildSoftModel(desc: SoftBodyDesc, shape: RigidShape, scene: SceneDesc, index: number): SoftModel {
  const d = scene.shapes[desc.shape]!;
  const path = `softBodies[${index}].construction`;
  try {
    if (desc.construction.method === 'seed') {
      if (d.type !== 'extrude') throw new RangeError(`the seed construction needs an extrude shape, got ${d.type}`);
      // extrudeMesh's own layout (outline twice, caps among it), moved into the frame the shape was re-centred to.
      const com = shape.comOffset;
      const mesh = translatedMesh(extrudeMesh(d.polygon, d.depth), com);
      return extrudeSeedModel(mesh, (desc.construction.minAngle * Math.PI) / 180);
    }
    return buildLatticeModel(shape.mesh, shape.sdf!, desc.construction.resolution);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`soft body "${desc.name}": ${(e as Error).message}`, scene.file, desc.construction.method === 'lattice' ? `${path}.resolution` : path);
  }
}

/** The scene's static planes, which the soft bodies meet analytically (collide.ts). */
function staticPlanes(scene: SceneDesc): PlaneCollider {
  const planes: StaticPlane[] = [];
  for (const b of scene.bodies) {
    const d = scene.shapes[b.shape];
    if (!b.static || d?.type !== 'plane') continue;
    planes.push({ normal: rotate(b.orientation, d.normal), point: [...b.position], friction: b.friction, restitution: b.restitution, name: b.name });
  }
  return new PlaneCollider(planes);
}

function newSystem(scene: SceneDesc): SoftSystem {
  const system = new SoftSystem({ ...scene.softSolver });
  system.gravity = [scene.gravity[0], scene.gravity[1], scene.gravity[2]];
  return system;
}

export async function buildSoftSystem(scene: SceneDesc, io: SceneIo): Promise<BuiltSoft> {
  const system = newSystem(scene);
  const built = new Map<string, RigidShape>();
  const shapes: RigidShape[] = [];
  for (const desc of scene.softBodies) {
    let shape = built.get(desc.shape);
    if (!shape) {
      shape = await buildShape(desc.shape, scene.shapes[desc.shape]!, scene, io);
      built.set(desc.shape, shape);
    }
    shapes.push(shape);
  }
  const planes = staticPlanes(scene);
  system.colliders.push(planes);
  addSoftBodies(system, scene, shapes, new StaticPinFrames(scene.bodies.map((b) => ({ position: b.position, orientation: b.orientation }))));
  return { system, planes };
}

/**
 * The scene's soft bodies as World's stage "soft": their rest shapes are
 * appended to world.shapes (or reused when a rigid body has the same shape),
 * so call it before world.uploadShapes().
 */
export async function attachSoftBodies(world: World, scene: SceneDesc, io: SceneIo): Promise<SoftCoupling> {
  const system = newSystem(scene);
  const shapes: RigidShape[] = [];
  const restShape: number[] = [];
  for (const desc of scene.softBodies) {
    let k = world.shapes.findIndex((s) => s.name === desc.shape);
    if (k < 0) {
      k = world.shapes.length;
      world.shapes.push(await buildShape(desc.shape, scene.shapes[desc.shape]!, scene, io));
    }
    restShape.push(k);
    shapes.push(world.shapes[k]!);
  }
  const coupling = new SoftCoupling(system, staticPlanes(scene), restShape, world);
  addSoftBodies(system, scene, shapes, coupling.pinFrames(world));
  const slow = softCostWarning(system, scene);
  if (slow) io.warn?.(slow);
  world.soft = coupling;
  return coupling;
}

/** Adds the scene's soft bodies (shapes[i] is soft body i's shape) and their pins to the system. */
function addSoftBodies(system: SoftSystem, scene: SceneDesc, shapes: readonly RigidShape[], frames: PinFrames): void {
  const rigidIndex = new Map(scene.bodies.map((b, i) => [b.name, i] as const));
  for (let i = 0; i < scene.softBodies.length; i++) {
    const desc = scene.softBodies[i]!;
    const shape = shapes[i]!;
    const model = buildSoftModel(desc, shape, scene, i);
    const mass = desc.mass ?? (desc.density ?? 1000) * shape.volume;
    // The range a rigid body's mass must lie in (shapeBuild.ts): beyond it the
    // weights and springs' impulses overflow, and the body "blew up" at step 1.
    if (!inRange(mass)) {
      const source = desc.mass !== undefined ? '"mass"' : `"density" ${fmtValue(desc.density ?? 1000)} kg/m^3 x volume ${fmtValue(shape.volume)} m^3`;
      throw new InputError(`mass ${fmtValue(mass)} kg (from ${source}) is outside the range the solver computes with (1e-100 to 1e100 kg)`, scene.file, `softBodies[${i}] (${quote(desc.name)})`);
    }
    // The model lives in the centre-of-mass frame; `position` places the shape's own origin, as for rigid bodies.
    const com = rotate(desc.orientation, shape.comOffset);
    const index = system.addBody({
      name: desc.name,
      model,
      mass,
      material: {
        stiffness: desc.stiffness,
        damping: desc.damping,
        outerScale: desc.outerScale,
        friction: desc.friction,
        restitution: desc.restitution,
        volumeStiffness: desc.preserveVolume ? desc.volumeStiffness : 0,
        stretchStiffness: desc.preventStretch ? desc.stretchStiffness : 0,
        stretchDamping: desc.stretchDamping,
        perimeterStiffness: desc.preservePerimeter ? desc.perimeterStiffness : 0,
      },
      placement: {
        origin: [desc.position[0] + com[0], desc.position[1] + com[1], desc.position[2] + com[2]],
        orientation: desc.orientation,
        velocity: desc.velocity,
        angularVelocity: desc.angularVelocity,
      },
    });
    checkSubsteps(system, index, scene, i);
    desc.pins.forEach((pin, j) => {
      const where = `softBodies[${i}].pins[${j}]`;
      const rb = rigidIndex.get(pin.body)!;
      const rigid = scene.bodies[rb]!;
      const a = rotate(rigid.orientation, pin.anchor);
      const anchor: Vec3 = [rigid.position[0] + a[0], rigid.position[1] + a[1], rigid.position[2] + a[2]];
      const body = system.bodies[index]!;
      const chosen: number[] = [];
      let nearest = -1, nearestDistance = Infinity;
      for (let p = body.particleStart; p < body.particleStart + body.particleCount; p++) {
        const dist = Math.hypot(system.pos[3 * p]! - anchor[0], system.pos[3 * p + 1]! - anchor[1], system.pos[3 * p + 2]! - anchor[2]);
        if (dist < nearestDistance) {
          nearestDistance = dist;
          nearest = p;
        }
        if (pin.radius > 0 && dist <= pin.radius) chosen.push(p);
      }
      // An anchor well away from the body is a mistake in the file, not a request for a long invisible rod.
      const reach = Math.max(pin.radius, 1.5 * model.spacing);
      if (nearestDistance > reach) {
        throw new InputError(
          `the anchor (world [${anchor.map((c) => +c.toFixed(4)).join(', ')}]) is ${nearestDistance.toFixed(3)} m from the nearest particle of soft body "${desc.name}"; ` +
            `put it on the soft body${pin.radius > 0 ? ' or widen "radius"' : ' or give a "radius" that reaches it'}`,
          scene.file,
          where,
        );
      }
      if (chosen.length === 0) chosen.push(nearest);
      for (const p of chosen) system.addPin(p, rb, frames);
    });
  }
}

/** Force evaluations per substep of each integrator (integrate.ts). */
const EVALUATIONS: Record<SceneDesc['softSolver']['integrator'], number> = { semiImplicit: 1, euler: 1, rk2: 2, rk4: 4 };
/**
 * Seconds a spring's force evaluation takes at the least: the compiled spring
 * passes run at 10-30 ns on a desktop (docs/soft-bodies.md, "Speed"), and a
 * whole substep costs more per spring (collisions, pins, volume, stretch
 * limits: 70-590 ns a spring on a 2-core VM).
 */
const SPRING_SECONDS = 2e-8;
/** A soft system whose step takes at least this long (s) by that rate is named at load time. */
const SLOW_STEP_SECONDS = 1;

/**
 * The warning for a soft system whose every step takes a second or more
 * (its substeps, force evaluations and springs at SPRING_SECONDS), or null:
 * a tiny scene asking for 10 000 substeps of rk4 on a fine lattice ran minutes
 * a step with nothing said. `run` and `check` give it.
 */
export function softCostWarning(system: SoftSystem, scene: SceneDesc): string | null {
  const springs = system.springCount;
  if (springs === 0) return null;
  const { integrator } = scene.softSolver;
  const n = system.substepsFor(scene.dt);
  const evals = EVALUATIONS[integrator];
  const seconds = n * evals * springs * SPRING_SECONDS;
  if (!(seconds >= SLOW_STEP_SECONDS)) return null;
  const work = `${n} substeps of ${springs} springs${evals > 1 ? `, ${evals} force evaluations each (${integrator})` : ''}`;
  // More substeps than asked for: the stiffest body's stability needs them (SoftSystem.substepsFor).
  const cuts = [n > scene.softSolver.substeps ? 'softer materials (the stiffest body needs that many substeps to stay stable)' : 'fewer "substeps"'];
  if (evals > 1) cuts.push('the "semiImplicit" integrator');
  cuts.push('a coarser "construction"');
  return `${fileLabel(scene.file)}: softSolver: each step will take at least about ${fmtValue(Number(seconds.toPrecision(2)))} s (${work}); ` +
    `${cuts.slice(0, -1).join(', ')} or ${cuts.at(-1)} cut it`;
}

/** A body that needs more substeps than softSolver.maxSubsteps at the scene's dt is refused at load time. */
function checkSubsteps(system: SoftSystem, index: number, scene: SceneDesc, i: number): void {
  if (scene.softSolver.integrator !== 'semiImplicit') return;
  const b = system.bodies[index]!;
  const needed = Math.ceil(scene.dt / system.stableSubstepOf(index) - 1e-9);
  if (needed > scene.softSolver.maxSubsteps) {
    throw new InputError(
      `soft body "${b.name}" needs ${needed < 1e9 ? needed : needed.toExponential(2)} substeps per step (dt = ${scene.dt} s) to stay stable, more than softSolver.maxSubsteps = ${scene.softSolver.maxSubsteps}; ` +
        'lower its stiffness, volumeStiffness or damping, make it coarser or heavier, shorten dt, or raise maxSubsteps',
      scene.file,
      `softBodies[${i}]`,
    );
  }
}
