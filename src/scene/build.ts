/**
 * From a validated scene (SceneDesc) to a World: build each named shape once
 * (mesh -> validation -> mass properties -> re-centre on the centre of mass ->
 * samples -> SDF), then add the bodies, joints and motors.
 */
import type { TriMesh, Vec3 } from '../geometry/mesh.ts';
import { meshBounds, translatedMesh, scaledMesh } from '../geometry/mesh.ts';
import { buildSamples, type CollisionSamples } from '../geometry/samples.ts';
import {
  boxMesh, capsuleMesh, cylinderMesh, extrudeMesh, planeQuadMesh, revolveMesh, sphereMesh, torusMesh,
} from '../geometry/shapes.ts';
import { parseObjWithWarnings } from '../geometry/obj.ts';
import { validateMesh } from '../geometry/validate.ts';
import { bakeSdfCpu } from '../sdf/bake.ts';
import { massFromMesh, invertInertia } from '../sdf/mass.ts';
import type { SdfGrid } from '../sdf/grid.ts';
import type { PenetrationBackend } from '../collision/query.ts';
import { InputError } from '../errors.ts';
import { World } from '../dynamics/world.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import type { SceneDesc, ShapeDesc, SdfSettings } from './types.ts';

export interface SceneIo {
  /** Reads a mesh file named by a shape's resolvedPath. */
  readText(path: string): Promise<string>;
  /** Bakes an SDF (default: the exact CPU bake); the GPU backend passes its own. */
  bake?: (mesh: TriMesh, opts: { cells: number; padding: number }) => Promise<SdfGrid>;
  /** Receives warnings (e.g. a mesh that was flipped outward). */
  warn?: (message: string) => void;
}

const EMPTY_SAMPLES: CollisionSamples = { points: new Float32Array(0), vertexCount: 0, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) };

/** The shape's mesh in its own frame, validated. */
async function shapeMesh(name: string, d: Exclude<ShapeDesc, { type: 'plane' }>, scene: SceneDesc, io: SceneIo): Promise<TriMesh> {
  const where = `shapes.${name}`;
  let mesh: TriMesh;
  let file = scene.file;
  try {
    switch (d.type) {
      case 'box':
        mesh = boxMesh(d.size);
        break;
      case 'sphere':
        mesh = sphereMesh(d.radius, d.segments[0], d.segments[1]);
        break;
      case 'cylinder':
        mesh = cylinderMesh(d.radius, d.height, d.segments);
        break;
      case 'capsule':
        mesh = capsuleMesh(d.radius, d.height, d.segments[0], d.segments[1]);
        break;
      case 'torus':
        mesh = torusMesh(d.majorRadius, d.minorRadius, d.segments[0], d.segments[1]);
        break;
      case 'revolve':
        mesh = revolveMesh(d.profile, d.segments);
        break;
      case 'extrude':
        mesh = extrudeMesh(d.polygon, d.depth);
        break;
      case 'mesh': {
        file = d.path;
        let text: string;
        try {
          text = await io.readText(d.resolvedPath);
        } catch (e) {
          throw new InputError(`cannot read mesh file "${d.resolvedPath}": ${(e as Error).message}`, scene.file, `${where}.path`);
        }
        const r = parseObjWithWarnings(text, d.path);
        for (const w of r.warnings) io.warn?.(`${d.path}: ${w}`);
        mesh = d.scale === 1 ? r.mesh : scaledMesh(r.mesh, d.scale);
        break;
      }
    }
  } catch (e) {
    if (e instanceof InputError) throw d.type === 'mesh' ? new InputError(e.message, scene.file, `${where}.path`) : e;
    throw new InputError((e as Error).message, scene.file, where);
  }
  try {
    const v = validateMesh(mesh, file);
    for (const w of v.warnings) io.warn?.(`${file}: ${w}`);
    return v.mesh;
  } catch (e) {
    // Name the scene and the shape too: "scene.json: shapes.bunny.path: bunny.obj: edge 3-7: ...".
    if (e instanceof InputError) throw new InputError(e.message, scene.file, d.type === 'mesh' ? `${where}.path` : where);
    throw e;
  }
}

export async function buildShape(name: string, d: ShapeDesc, scene: SceneDesc, io: SceneIo): Promise<RigidShape> {
  if (d.type === 'plane') {
    const n = d.normal;
    return {
      name,
      kind: 'plane',
      mesh: planeQuadMesh(n, 60),
      samples: EMPTY_SAMPLES,
      sdf: null,
      comOffset: [0, 0, 0],
      volume: 1,
      inertiaUnit: Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1),
      localBounds: { min: [-60, -60, -60], max: [60, 60, 60] },
      radius: Infinity,
      planeNormal: [n[0], n[1], n[2]],
    };
  }
  const own = await shapeMesh(name, d, scene, io);
  const mp = massFromMesh(own);
  // Snap rounding noise (a symmetric shape's centre of mass is exactly 0).
  let size = 1e-300;
  for (let i = 0; i < own.positions.length; i++) size = Math.max(size, Math.abs(own.positions[i]!));
  const com = mp.centerOfMass.map((c) => (Math.abs(c) < 1e-12 * size ? 0 : c)) as Vec3;
  const mesh = translatedMesh(own, com);
  const sdfOpts: SdfSettings = d.sdf;
  const bake = io.bake ?? (async (m: TriMesh, o: { cells: number; padding: number }) => bakeSdfCpu(m, o));
  const sdf = await bake(mesh, { cells: sdfOpts.cells, padding: sdfOpts.padding });
  // Face samples on triangles whose interior is wider than ~4 SDF cells (see samples.ts).
  const samples = buildSamples(mesh, scene.solver.edgeSamples, 2 * sdf.cellSize);
  const bounds = meshBounds(mesh);
  let radius = 0;
  for (let i = 0; i < mesh.positions.length; i += 3) {
    radius = Math.max(radius, Math.hypot(mesh.positions[i]!, mesh.positions[i + 1]!, mesh.positions[i + 2]!));
  }
  return {
    name,
    kind: 'mesh',
    mesh,
    samples,
    sdf,
    comOffset: [com[0], com[1], com[2]],
    volume: mp.volume,
    inertiaUnit: mp.inertia,
    localBounds: bounds,
    radius,
  };
}

function rotate(q: readonly number[], v: Vec3): Vec3 {
  const [x, y, z, w] = q as [number, number, number, number];
  // v' = v + 2 w (u x v) + 2 u x (u x v)
  const cx = y * v[2] - z * v[1], cy = z * v[0] - x * v[2], cz = x * v[1] - y * v[0];
  return [
    v[0] + 2 * (w * cx + y * cz - z * cy),
    v[1] + 2 * (w * cy + z * cx - x * cz),
    v[2] + 2 * (w * cz + x * cy - y * cx),
  ];
}

/** Hook for the joints module: installed by src/dynamics/joints.ts when it is loaded. */
export type JointInstaller = (world: World, scene: SceneDesc, shapeOf: (body: string) => RigidShape) => void;
let jointInstaller: JointInstaller | null = null;
export function setJointInstaller(f: JointInstaller): void {
  jointInstaller = f;
}

export async function createWorld(scene: SceneDesc, backend: PenetrationBackend, io: SceneIo): Promise<World> {
  const world = new World(backend, { ...scene.solver });
  world.gravity = [scene.gravity[0], scene.gravity[1], scene.gravity[2]];
  world.dt = scene.dt;
  const shapeIndex = new Map<string, number>();
  // Build only the shapes bodies use, each once.
  for (const b of scene.bodies) {
    if (shapeIndex.has(b.shape)) continue;
    const d = scene.shapes[b.shape];
    if (!d) throw new InputError(`unknown shape "${b.shape}"`, scene.file, `bodies[${scene.bodies.indexOf(b)}].shape`);
    shapeIndex.set(b.shape, world.shapes.length);
    world.shapes.push(await buildShape(b.shape, d, scene, io));
  }
  const B = world.bodies;
  scene.bodies.forEach((b, bi) => {
    const si = shapeIndex.get(b.shape)!;
    const s = world.shapes[si]!;
    const i = B.add(b.name, si);
    const q = b.orientation;
    // The body's position places the shape's own origin; the state is the centre of mass.
    const c = rotate(q, s.comOffset);
    B.pos[3 * i] = b.position[0] + c[0];
    B.pos[3 * i + 1] = b.position[1] + c[1];
    B.pos[3 * i + 2] = b.position[2] + c[2];
    for (let k = 0; k < 4; k++) B.quat[4 * i + k] = q[k]!;
    B.restitution[i] = b.restitution;
    B.friction[i] = b.friction;
    B.rollingFriction[i] = b.rollingFriction;
    B.spinningFriction[i] = b.spinningFriction;
    if (b.static) {
      B.isStatic[i] = 1;
      B.invMass[i] = 0;
      B.mass[i] = 0;
      return;
    }
    if (s.kind === 'plane') throw new InputError('a plane can only be used by a static body', scene.file, `bodies[${bi}].shape`);
    const density = b.mass !== undefined ? b.mass / s.volume : (b.density ?? 1000);
    const mass = density * s.volume;
    if (!(mass > 0) || !Number.isFinite(mass)) {
      throw new InputError(`mass must be positive and finite, got ${mass}`, scene.file, `bodies[${bi}]`);
    }
    B.mass[i] = mass;
    B.invMass[i] = 1 / mass;
    const I = new Float64Array(9);
    for (let k = 0; k < 9; k++) I[k] = s.inertiaUnit[k]! * density;
    const inv = invertInertia(I);
    for (let k = 0; k < 9; k++) B.invInertia[9 * i + k] = inv[k]!;
    for (let k = 0; k < 3; k++) {
      B.vel[3 * i + k] = b.velocity[k]!;
      B.angVel[3 * i + k] = b.angularVelocity[k]!;
    }
    // A body spinning about an off-centre shape origin: the scene gives the
    // velocity of the centre of mass directly (documented in the README).
  });
  if (scene.joints.length > 0 || scene.motors.length > 0) {
    if (!jointInstaller) {
      throw new InputError('joints and motors are not available in this build', scene.file, scene.joints.length ? 'joints' : 'motors');
    }
    const byName = new Map(scene.bodies.map((b, i) => [b.name, i] as const));
    jointInstaller(world, scene, (name) => world.shapes[B.shape[byName.get(name)!]!]!);
  }
  world.uploadShapes();
  if (scene.softBodies.length > 0) {
    // World steps rigid bodies only; soft bodies run in a SoftSystem (src/soft/build.ts) until World hosts one.
    io.warn?.(
      `${scene.file}: ${scene.softBodies.length} soft bod${scene.softBodies.length === 1 ? 'y is' : 'ies are'} validated but not simulated here: ` +
        'this world steps the rigid bodies only (soft bodies run through SoftSystem, docs/soft-bodies.md)',
    );
  }
  return world;
}
