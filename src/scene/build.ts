/**
 * From a validated scene (SceneDesc) to a World: each named shape built once
 * (shapeBuild.ts), then the bodies (mass and inertia checked), joints and
 * motors, and the soft bodies as the stage "soft" (soft/build.ts).
 */
import type { PenetrationBackend } from '../collision/query.ts';
import { InputError } from '../errors.ts';
import { World } from '../dynamics/world.ts';
import { JointSystem } from '../dynamics/joints/system.ts';
import { quatToMat3, rotateByQuat } from '../dynamics/math.ts';
import { sampleSdf } from '../sdf/grid.ts';
import { BodyStore, MATERIAL_ALL, MATERIAL_FRICTION, MATERIAL_RESTITUTION, MATERIAL_ROLLING, MATERIAL_SPINNING, MATERIAL_STATIC } from '../dynamics/bodies.ts';
import type { BodyDesc, GustDesc, SceneDesc } from './types.ts';
import type { Gust } from '../dynamics/forces.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import { fileLabel, quote } from '../util/echo.ts';
import { originsOf } from './instances.ts';
import { checkPositionPrecision } from './precision.ts';
import { attachSoftBodies } from '../soft/build.ts';
import { bakerOf, bodyMassProperties, checkShape, finishShape, fmtValue, shapeCost, startShape, type SceneIo, type ShapeMass, type UnbakedShape } from './shapeBuild.ts';
import { childPath } from './reader.ts';
import { checkForceSpeeds } from './forcesValidate.ts';

export async function createWorld(scene: SceneDesc, backend: PenetrationBackend, io: SceneIo): Promise<World> {
  try {
    return await buildWorld(scene, backend, io);
  } catch (e) {
    // A scene of library instances: name the file and path the value came from.
    throw originsOf(scene)?.remap(e) ?? e;
  }
}

async function buildWorld(scene: SceneDesc, backend: PenetrationBackend, io: SceneIo): Promise<World> {
  const world = new World(backend, { ...scene.solver });
  world.gravity = [scene.gravity[0], scene.gravity[1], scene.gravity[2]];
  world.dt = scene.dt;
  const shapeIndex = new Map<string, number>();
  const used = new Set(scene.bodies.map((b) => b.shape)).size;
  // Build the shapes bodies use, each once: every one loaded and checked
  // first (a broken shape fails before any bake), then all their fields baked
  // in one call (one submission on the GPU), then each finished.
  const started: (RigidShape | UnbakedShape)[] = [];
  const keys: string[] = [];
  for (const b of scene.bodies) {
    if (shapeIndex.has(b.shape)) continue;
    const d = scene.shapes[b.shape];
    if (!d) throw new InputError(`unknown shape ${quote(b.shape)}`, scene.file, `bodies[${scene.bodies.indexOf(b)}].shape`);
    shapeIndex.set(b.shape, started.length);
    const key = `${scene.solver.edgeSamples}|${scene.solver.edgeSpacing}|${b.shape}|${JSON.stringify(d)}`;
    keys.push(key);
    started.push(io.shapes?.get(key) ?? (await startShape(b.shape, d, scene, io, { index: started.length, count: used })));
  }
  const unbaked = started.filter((s): s is UnbakedShape => 'job' in s);
  const grids = unbaked.length > 0 ? await bakerOf(io)(unbaked.map((u) => u.job)) : [];
  if (grids.length !== unbaked.length) throw new Error(`the SDF baker returned ${grids.length} grids for ${unbaked.length} shapes`);
  for (let i = 0, j = 0; i < started.length; i++) {
    const s = started[i]!;
    const shape = 'job' in s ? finishShape(s, grids[j++]!) : s;
    io.shapes?.set(keys[i]!, shape);
    world.shapes.push(shape);
  }
  // Check the others too (without baking): a broken shape should not wait until someone uses it.
  const unused = unusedShapes(scene);
  for (const [index, name] of unused.entries()) {
    await checkShape(name, scene.shapes[name]!, scene, io, { index, count: unused.length });
    io.warn?.(unusedShapeWarning(scene, name));
  }
  warnCoincident(scene, io);
  warnBehindPlanes(scene, (name) => world.shapes[shapeIndex.get(name)!]?.comOffset ?? null, io.warn);
  const B = world.bodies;
  scene.bodies.forEach((b, bi) => {
    const si = shapeIndex.get(b.shape)!;
    const s = world.shapes[si]!;
    if (s.sdf) checkPositionPrecision(b.position, s.sdf.cellSize, scene.file, `bodies[${bi}].position`, io.warn, s.comOffset);
    const i = B.add(b.name, si);
    const q = b.orientation;
    // The body's position places the shape's own origin; the state is the centre of mass.
    rotateByQuat(q, 0, s.comOffset[0], s.comOffset[1], s.comOffset[2], B.pos, 3 * i);
    B.pos[3 * i] += b.position[0];
    B.pos[3 * i + 1] += b.position[1];
    B.pos[3 * i + 2] += b.position[2];
    for (let k = 0; k < 4; k++) B.quat[4 * i + k] = q[k]!;
    B.restitution[i] = b.restitution;
    B.friction[i] = b.friction;
    B.staticFriction[i] = b.staticFriction;
    B.rollingFriction[i] = b.rollingFriction;
    B.spinningFriction[i] = b.spinningFriction;
    B.materialGiven[i] = materialGiven(b);
    if (b.static) {
      B.isStatic[i] = 1;
      B.invMass[i] = 0;
      B.mass[i] = 0;
      return;
    }
    if (s.kind === 'plane') throw new InputError('a plane can only be used by a static body', scene.file, `bodies[${bi}].shape`);
    const { mass, invInertia: inv } = bodyMassProperties(s, b, scene.file, `bodies[${bi}]`);
    B.mass[i] = mass;
    B.invMass[i] = 1 / mass;
    for (let k = 0; k < 9; k++) B.invInertia[9 * i + k] = inv[k]!;
    for (let k = 0; k < 3; k++) {
      B.vel[3 * i + k] = b.velocity[k]!;
      B.angVel[3 * i + k] = b.angularVelocity[k]!;
    }
    // A body spinning about an off-centre shape origin: the scene gives the
    // velocity of the centre of mass directly (docs/SCENE_FORMAT.md, the body's "velocity").
  });
  if (io.warn) warnDeepOverlaps(scene, world, io.warn);
  if (io.warn) warnIntoPlanes(scene, world, io.warn);
  if (io.warn) warnThinForStep(scene, world, io.warn);
  if (scene.joints.length > 0 || scene.motors.length > 0) {
    const byName = new Map(scene.bodies.map((b, i) => [b.name, i] as const));
    const joints = new JointSystem(B, scene.joints, scene.motors, (name) => world.shapes[B.shape[byName.get(name)!]!]!);
    world.constraints = joints;
    if (io.warn) warnOpenJoints(scene, joints, B, (name) => world.shapes[B.shape[byName.get(name)!]!]!.radius, io.warn);
  }
  addForces(world, scene);
  if (scene.softBodies.length > 0) {
    // Stage "soft" (src/soft/coupling.ts).
    await attachSoftBodies(world, scene, io);
  }
  // Every shape's samples ordered and bounded for the queries (the CPU
  // kernel's spatial order): seconds for a shape of 80 000 triangles.
  const triangles = world.shapes.reduce((n, sh) => n + (sh.sdf ? sh.mesh.indices.length / 3 : 0), 0);
  io.stage?.({ step: 'preparing', shape: null, index: 0, count: world.shapes.length, triangles, estimate: shapeCost(triangles, 0).seconds });
  world.uploadShapes();
  return world;
}

/**
 * The scene's drag, wind, fields, forces and impulses into world.forces
 * (forces.ts): names to indices, gust phases to radians, points from the
 * shape frame (as written) to the centre of mass.
 */
function addForces(world: World, scene: SceneDesc): void {
  // Bodies were added in the scene's order: body i of the scene is body i of the world.
  checkForceSpeeds(scene, (i) => world.bodies.mass[i]!);
  const F = world.forces;
  F.density = scene.fluidDensity;
  const index = (name: string): number => world.bodies.names.indexOf(name);
  scene.bodies.forEach((b, i) => {
    if (b.drag) F.setDrag(i, b.drag);
  });
  const gust = (g: GustDesc | undefined): Gust | undefined => g && { amplitude: [...g.amplitude], period: g.period, phase: (g.phase * Math.PI) / 180 };
  const local = (body: number, p: Vec3 | undefined): Vec3 | undefined => {
    if (!p) return undefined;
    const c = world.shapes[world.bodies.shape[body]!]!.comOffset;
    return [p[0] - c[0]!, p[1] - c[1]!, p[2] - c[2]!];
  };
  for (const f of scene.forces) {
    const window = f.type === 'impulse' ? {} : { from: f.from, until: f.until };
    switch (f.type) {
      case 'wind':
      case 'field': {
        const g = gust(f.gust);
        const common = { ...(g ? { gust: g } : {}), ...(f.bodies ? { bodies: f.bodies.map(index) } : {}), ...window };
        if (f.type === 'wind') F.addWind({ velocity: [...f.velocity], ...common });
        else F.addField({ force: [...f.force], ...common });
        break;
      }
      case 'force': {
        const i = index(f.body), p = local(i, f.point);
        F.addForce({ body: i, force: [...f.force], ...(p ? { point: p } : {}), frame: f.frame, ...window });
        break;
      }
      case 'impulse': {
        const i = index(f.body), p = local(i, f.point);
        F.addImpulse({ body: i, impulse: [...f.impulse], ...(p ? { point: p } : {}), frame: f.frame, at: f.at });
        break;
      }
    }
  }
}

/** The MATERIAL_* bits of the properties a body was given (BodyDesc.materialDefaults lists the others). */
function materialGiven(b: BodyDesc): number {
  const d = b.materialDefaults;
  if (!d) return MATERIAL_ALL;
  let bits = MATERIAL_ALL;
  if (d.includes('restitution')) bits &= ~MATERIAL_RESTITUTION;
  if (d.includes('friction')) bits &= ~MATERIAL_FRICTION;
  // Static friction is given by either key ("friction" is both unless "staticFriction" is said).
  if (d.includes('friction') && d.includes('staticFriction')) bits &= ~MATERIAL_STATIC;
  if (d.includes('rollingFriction')) bits &= ~MATERIAL_ROLLING;
  if (d.includes('spinningFriction')) bits &= ~MATERIAL_SPINNING;
  return bits;
}

/** The shapes no body or soft body uses, in the scene's order: loaded and checked all the same, and named in a warning. */
export function unusedShapes(scene: SceneDesc): string[] {
  const used = new Set([...scene.bodies.map((b) => b.shape), ...scene.softBodies.map((b) => b.shape)]);
  return Object.keys(scene.shapes).filter((name) => !used.has(name));
}

/** The warning for a shape no body uses (createWorld, and `stackfield check` of a scene). */
export function unusedShapeWarning(scene: SceneDesc, name: string): string {
  return `${fileLabel(scene.file)}: ${childPath('shapes', name)}: no body uses this shape`;
}

/**
 * Warns, once per shape, of dynamic bodies thinner than gravity moves a body
 * in one step (|g| dt^2, the speed one step adds, over one step): the contact
 * passes then cannot hold them resting on anything. Two cubes of 0.1 mm
 * stacked at dt 0.01 s (|g| dt^2 = 0.98 mm) flew apart spinning at 250 rad/s,
 * and two of 1 um ended inside each other; at dt 1 ms both stacks rest. The
 * thickness is the shape's smallest extent along its own axes.
 */
export function warnThinForStep(scene: SceneDesc, world: World, warn: (message: string) => void): void {
  const g = Math.hypot(...scene.gravity);
  const fall = g * scene.dt * scene.dt;
  if (!(fall > 0)) return;
  const B = world.bodies;
  const first = new Map<number, { body: number; count: number }>();
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    const si = B.shape[i]!;
    const seen = first.get(si);
    if (seen) seen.count++;
    else first.set(si, { body: i, count: 1 });
  }
  for (const [si, { body, count }] of first) {
    const s = world.shapes[si]!;
    if (s.kind !== 'mesh') continue;
    const { min, max } = s.localBounds;
    const thick = Math.min(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    if (!(thick < fall)) continue;
    const others = count > 1 ? ` and ${count - 1} other bod${count > 2 ? 'ies' : 'y'} of this shape` : '';
    warn(
      `${fileLabel(scene.file)}: bodies[${body}] (${quote(B.names[body]!, 60)})${others}: the shape ${quote(s.name, 60)} is ${fmtValue(thick)} m thick, ` +
        `less than gravity moves a body in one step (|g| dt^2 = ${fmtValue(fall)} m at "dt" ${fmtValue(scene.dt)} s): it will not rest on anything; ` +
        `a "dt" up to ${fmtValue(Math.sqrt(thick / g))} s holds it`,
    );
  }
}

/** A body's (or soft body's) shape and starting pose, as one string: equal for exact copies (warnCoincident). */
function startKey(b: Pick<BodyDesc, 'shape' | 'position' | 'orientation'>): string {
  return JSON.stringify([b.shape, b.position, b.orientation]);
}

/**
 * Warns of dynamic bodies whose centre of mass starts behind a static plane
 * (under a floor). A plane holds everything behind it, but pushes a body out
 * only as fast as the contact passes lift a deep overlap: a box started 5 m
 * under the floor rose 2.6 mm a step with no velocity, and a run's summary
 * called it resting. Named one by one up to COINCIDENT_TOLD, then counted.
 * `comOffsetOf` gives a shape's centre of mass in its own frame (null: the origin).
 */
export function warnBehindPlanes(scene: SceneDesc, comOffsetOf: (shape: string) => readonly number[] | null, warn: ((m: string) => void) | undefined): void {
  if (!warn) return;
  const planes: { index: number; p: Vec3; n: Vec3 }[] = [];
  scene.bodies.forEach((b, bi) => {
    const d = scene.shapes[b.shape];
    if (d?.type !== 'plane' || !b.static) return;
    const n = new Float64Array(3);
    rotateByQuat(b.orientation, 0, d.normal[0], d.normal[1], d.normal[2], n, 0);
    const l = Math.sqrt(n[0]! * n[0]! + n[1]! * n[1]! + n[2]! * n[2]!);
    if (l > 0) planes.push({ index: bi, p: b.position, n: [n[0]! / l, n[1]! / l, n[2]! / l] });
  });
  if (planes.length === 0) return;
  const c = new Float64Array(3);
  let told = 0, more = 0;
  scene.bodies.forEach((b, bi) => {
    if (b.static || scene.shapes[b.shape]?.type === 'plane') return;
    const o = comOffsetOf(b.shape) ?? [0, 0, 0];
    rotateByQuat(b.orientation, 0, o[0]!, o[1]!, o[2]!, c, 0);
    for (const pl of planes) {
      const depth = -((b.position[0] + c[0]! - pl.p[0]) * pl.n[0] + (b.position[1] + c[1]! - pl.p[1]) * pl.n[1] + (b.position[2] + c[2]! - pl.p[2]) * pl.n[2]);
      if (!(depth > 0)) continue;
      if (told++ >= COINCIDENT_TOLD) more++;
      else {
        warn(
          `${fileLabel(scene.file)}: bodies[${bi}] (${quote(b.name)}) starts with its centre of mass ${fmtValue(Number(depth.toPrecision(4)))} m behind the plane of ` +
            `bodies[${pl.index}] (${quote(scene.bodies[pl.index]!.name)}): a plane pushes a body out of it only slowly, so it may stay inside; move it to the plane's front`,
        );
      }
      break;
    }
  });
  if (more > 0) warn(`${fileLabel(scene.file)}: ${more} more bod${more === 1 ? 'y starts' : 'ies start'} with its centre of mass behind a static plane`);
}

/**
 * Warns of bodies that start exactly where another body of the same shape
 * is, turned the same way (not both static): every sample of each lies on
 * the other's surface (phi = 0, not inside), so the query finds neither in
 * the other and they never come apart. Any offset, however small, makes the
 * samples penetrate and the pair is pushed apart. (createWorld and
 * `stackfield check` of a scene call it; not checkScene, which also checks a
 * library by placing all it defines at the origin.)
 *
 * Soft bodies likewise, against each other and against rigid bodies (static
 * ones too). Two such soft bodies lie each inside the other, and their
 * particle pairs can only push them apart particle by particle, along
 * directions rounding picks: two 0.5 m lattice boxes so started and dropped
 * 0.75 m were still one inside the other after 0.5 s, their energy up from
 * 2.5 kJ to 4.6 kJ on the way (to 34 kJ within three steps before the
 * pairs' push was capped, contact.ts). A soft body on a rigid
 * body of its shape has its particles on and inside the rigid body's
 * surface, all pushed out at once: a 0.5 m box threw the rigid one at
 * 23 m/s within a second.
 */
/** Coincident bodies warnCoincident names one by one before it counts the rest. */
const COINCIDENT_TOLD = 10;

export function warnCoincident(scene: SceneDesc, io: Pick<SceneIo, 'warn'>): void {
  if (!io.warn) return;
  const first = new Map<string, number>();
  // Named one by one up to COINCIDENT_TOLD, then counted: 100 bodies at one spot gave 99 lines.
  let told = 0, more = 0;
  scene.bodies.forEach((b, bi) => {
    if (scene.shapes[b.shape]?.type === 'plane') return;
    const key = startKey(b);
    const at = first.get(key);
    if (at === undefined) {
      first.set(key, bi);
      return;
    }
    const a = scene.bodies[at]!;
    if (a.static && b.static) return;
    if (told++ >= COINCIDENT_TOLD) {
      more++;
      return;
    }
    io.warn!(
      `${fileLabel(scene.file)}: bodies[${bi}] (${quote(b.name)}) starts exactly where bodies[${at}] (${quote(a.name)}) is, with the same shape and orientation: ` +
        'each lies on the other\'s surface, not inside it, so they never come apart; move one',
    );
  });
  if (more > 0) io.warn!(`${fileLabel(scene.file)}: ${more} more bod${more === 1 ? 'y starts' : 'ies start'} exactly where another body is, with the same shape and orientation`);
  const firstSoft = new Map<string, number>();
  scene.softBodies.forEach((b, si) => {
    const key = startKey(b);
    const soft = firstSoft.get(key);
    if (soft === undefined) firstSoft.set(key, si);
    else {
      io.warn!(
        `${fileLabel(scene.file)}: softBodies[${si}] (${quote(b.name)}) starts exactly where softBodies[${soft}] (${quote(scene.softBodies[soft]!.name)}) is, ` +
          'with the same shape and orientation: each lies inside the other, and contact can only push their particles apart one by one, ' +
          'in no particular direction, so they tangle; move one',
      );
    }
    const rigid = first.get(key);
    if (rigid !== undefined) {
      io.warn!(
        `${fileLabel(scene.file)}: softBodies[${si}] (${quote(b.name)}) starts exactly where bodies[${rigid}] (${quote(scene.bodies[rigid]!.name)}) is, ` +
          'with the same shape and orientation: its particles lie on and inside the rigid body, and all are pushed out of it at once; move one',
      );
    }
  });
}

/**
 * Warns of bodies that start deep inside each other: each one's centre of
 * mass more than a cell inside the other's field. Contacts push bodies apart
 * from the surface samples' depths, and those only tell the way out while
 * the overlap is shallower than about half the thinner body: two equal
 * 0.5 m cubes started 2 or 6 cm apart were pushed into one another, to 1 cm
 * apart, with no penetration to report, and 10 cm apart they stuck 63 mm
 * deep. A body whose centre lies outside its own solid (a ring's, in its
 * hole) must also have its surface cross the other's (a sample more than a
 * cell inside): two rings linked like a chain's each have their centre on
 * the other's tube while their solids are apart. Pairs that never collide
 * (two static bodies; joined bodies unless the joint says "collide") and
 * the exact copies warnCoincident names are left out.
 */
function warnDeepOverlaps(scene: SceneDesc, world: World, warn: (m: string) => void): void {
  const B = world.bodies;
  const joined = new Set<string>();
  for (const j of scene.joints) if (!j.collide) joined.add(`${j.bodyA}\u0000${j.bodyB}`).add(`${j.bodyB}\u0000${j.bodyA}`);
  const R = new Float64Array(9);
  // How deep body i's centre lies in body j's field (> 0 inside), at the start poses.
  const depthIn = (i: number, j: number): number => {
    const g = world.shapes[B.shape[j]!]!.sdf!;
    quatToMat3(B.quat, 4 * j, R);
    const dx = B.pos[3 * i]! - B.pos[3 * j]!, dy = B.pos[3 * i + 1]! - B.pos[3 * j + 1]!, dz = B.pos[3 * i + 2]! - B.pos[3 * j + 2]!;
    const x = R[0]! * dx + R[3]! * dy + R[6]! * dz, y = R[1]! * dx + R[4]! * dy + R[7]! * dz, z = R[2]! * dx + R[5]! * dy + R[8]! * dz;
    return -sampleSdf(g, x, y, z) - g.cellSize;
  };
  const Ri = new Float64Array(9);
  // Whether a sample of body i's surface lies more than a cell inside body j:
  // a ring's centre lies in its hole, and two rings linked like a chain's
  // each have their centre on the other's tube while their solids are apart.
  const surfaceIn = (i: number, j: number): boolean => {
    const g = world.shapes[B.shape[j]!]!.sdf!;
    const pts = world.shapes[B.shape[i]!]!.samples.points;
    quatToMat3(B.quat, 4 * i, Ri);
    quatToMat3(B.quat, 4 * j, R);
    const ox = B.pos[3 * i]! - B.pos[3 * j]!, oy = B.pos[3 * i + 1]! - B.pos[3 * j + 1]!, oz = B.pos[3 * i + 2]! - B.pos[3 * j + 2]!;
    for (let k = 0; k + 3 < pts.length; k += 4) {
      const px = pts[k]!, py = pts[k + 1]!, pz = pts[k + 2]!;
      const dx = Ri[0]! * px + Ri[1]! * py + Ri[2]! * pz + ox, dy = Ri[3]! * px + Ri[4]! * py + Ri[5]! * pz + oy, dz = Ri[6]! * px + Ri[7]! * py + Ri[8]! * pz + oz;
      const x = R[0]! * dx + R[3]! * dy + R[6]! * dz, y = R[1]! * dx + R[4]! * dy + R[7]! * dz, z = R[2]! * dx + R[5]! * dy + R[8]! * dz;
      if (sampleSdf(g, x, y, z) < -g.cellSize) return true;
    }
    return false;
  };
  const ownCentreInside = (i: number): boolean => sampleSdf(world.shapes[B.shape[i]!]!.sdf!, 0, 0, 0) < 0;
  let told = 0;
  forEachSphereOverlap(world, (a, b) => {
    if (B.isStatic[a] && B.isStatic[b]) return true;
    const da = scene.bodies[a]!, db = scene.bodies[b]!;
    if (joined.has(`${da.name}\u0000${db.name}`)) return true;
    if (startKey(da) === startKey(db)) return true;
    const inB = depthIn(a, b), inA = depthIn(b, a);
    if (!(inB > 0 && inA > 0)) return true;
    // A centre outside its own solid (a ring's, in its hole) says nothing of overlap: then the surfaces must cross.
    const ownCentres = ownCentreInside(a) && ownCentreInside(b);
    if (!ownCentres && !(surfaceIn(a, b) || surfaceIn(b, a))) return true;
    told++;
    warn(
      `${fileLabel(scene.file)}: bodies[${b}] (${quote(db.name)}) starts deep inside bodies[${a}] (${quote(da.name)}): each one's centre of mass lies inside the other ` +
        `(${fmtValue(inB + world.shapes[B.shape[b]!]!.sdf!.cellSize)} m and ${fmtValue(inA + world.shapes[B.shape[a]!]!.sdf!.cellSize)} m deep); contacts push bodies apart only from shallow overlaps, ` +
        'so these may stay inside each other; move one out',
    );
    return told < 10;
  });
}

/**
 * Warns of dynamic bodies that start with part of their surface more than a
 * cell into a static plane while their centre of mass is in front of it
 * (warnBehindPlanes names those behind). The contacts lift such a body out
 * over its first steps: a 1 m box started 0.4 m into a floor rose 5 mm a
 * step for 0.8 s, and the run's energy grew fivefold by the lift, with no
 * word of why. Named one by one up to COINCIDENT_TOLD, then counted.
 */
function warnIntoPlanes(scene: SceneDesc, world: World, warn: (m: string) => void): void {
  const B = world.bodies;
  const planes: number[] = [];
  for (let i = 0; i < B.count; i++) if (B.isStatic[i] && world.shapes[B.shape[i]!]!.kind === 'plane') planes.push(i);
  if (planes.length === 0) return;
  const R = new Float64Array(9), n = new Float64Array(3);
  let told = 0, more = 0;
  for (let i = 0; i < B.count; i++) {
    const sh = world.shapes[B.shape[i]!]!;
    if (B.isStatic[i] || sh.kind !== 'mesh' || !sh.sdf) continue;
    const pts = sh.samples.points;
    quatToMat3(B.quat, 4 * i, R);
    for (const j of planes) {
      const pn = world.shapes[B.shape[j]!]!.planeNormal;
      if (!pn) continue;
      rotateByQuat(B.quat, 4 * j, pn[0], pn[1], pn[2], n, 0);
      const ox = B.pos[3 * i]! - B.pos[3 * j]!, oy = B.pos[3 * i + 1]! - B.pos[3 * j + 1]!, oz = B.pos[3 * i + 2]! - B.pos[3 * j + 2]!;
      const centre = ox * n[0]! + oy * n[1]! + oz * n[2]!;
      if (!(centre >= 0)) continue;
      let deepest = 0;
      for (let k = 0; k + 3 < pts.length; k += 4) {
        const px = pts[k]!, py = pts[k + 1]!, pz = pts[k + 2]!;
        const d = centre
          + (R[0]! * px + R[1]! * py + R[2]! * pz) * n[0]!
          + (R[3]! * px + R[4]! * py + R[5]! * pz) * n[1]!
          + (R[6]! * px + R[7]! * py + R[8]! * pz) * n[2]!;
        if (d < deepest) deepest = d;
      }
      if (!(-deepest > sh.sdf.cellSize)) continue;
      if (told++ >= COINCIDENT_TOLD) more++;
      else {
        warn(
          `${fileLabel(scene.file)}: bodies[${i}] (${quote(B.names[i]!)}) starts ${fmtValue(Number((-deepest).toPrecision(4)))} m into the plane of ` +
            `bodies[${j}] (${quote(B.names[j]!)}): the contacts lift it out over the first steps, and its energy grows by the lift; ` +
            'start it on the plane or above',
        );
      }
      break;
    }
  }
  if (more > 0) warn(`${fileLabel(scene.file)}: ${more} more bod${more === 1 ? 'y starts' : 'ies start'} part of the way into a static plane`);
}

/**
 * warnOpenJoints without a world (`stackfield check`, which bakes no field):
 * the bodies at their start poses from the shapes' mass properties alone
 * (checkScene). A joint's error does not depend on where the body frame's
 * origin is (an anchor's world point is the body's position plus its
 * rotated anchor either way), so these are the warnings createWorld gives.
 */
export function warnOpenJointsAtStart(scene: SceneDesc, shapes: ReadonlyMap<string, ShapeMass | null>, warn: (m: string) => void): void {
  if (scene.joints.length === 0) return;
  const B = new BodyStore(Math.max(1, scene.bodies.length));
  const byName = new Map<string, number>();
  for (const b of scene.bodies) {
    const s = shapes.get(b.shape) ?? null;
    const c = s?.comOffset ?? [0, 0, 0];
    const i = B.add(b.name, 0);
    byName.set(b.name, i);
    // As buildWorld places the body: the state is the centre of mass.
    rotateByQuat(b.orientation, 0, c[0], c[1], c[2], B.pos, 3 * i);
    for (let k = 0; k < 3; k++) B.pos[3 * i + k] += b.position[k]!;
    for (let k = 0; k < 4; k++) B.quat[4 * i + k] = b.orientation[k]!;
  }
  const shapeOf = (name: string) => shapes.get(scene.bodies[byName.get(name)!]!.shape) ?? null;
  // JointSystem reads only a shape's comOffset.
  const joints = new JointSystem(B, scene.joints, scene.motors, (name) => ({ comOffset: shapeOf(name)?.comOffset ?? [0, 0, 0] }) as RigidShape);
  warnOpenJoints(scene, joints, B, (name) => shapeOf(name)?.radius ?? Infinity, warn);
}

/**
 * Calls `visit(a, b)` (a < b) for the bodies with a field whose bounding
 * spheres overlap at the start poses, by increasing a and then b, until it
 * returns false. The candidates come from a hash grid of cells twice the
 * largest ordinary radius (bodies more than 4 times the median radius are
 * checked against all), so a scene's build stays near linear: a sweep along
 * x over a 50 x 50 x 20 block of boxes met some 1 500 spheres per body,
 * 1.6 s of a 20 000-body build in the app, 10 s for 50 000.
 */
export function forEachSphereOverlap(world: World, visit: (a: number, b: number) => boolean): void {
  const B = world.bodies;
  const ids: number[] = [];
  for (let i = 0; i < B.count; i++) if (world.shapes[B.shape[i]!]!.sdf) ids.push(i);
  if (ids.length < 2) return;
  const r = (i: number): number => world.shapes[B.shape[i]!]!.radius;
  const radii = ids.map(r).sort((x, y) => x - y);
  const big = 4 * radii[radii.length >> 1]!;
  let h = 0;
  for (const i of ids) if (r(i) <= big) h = Math.max(h, 2 * r(i));
  const cells = new Map<string, number[]>();
  const cellOf = (i: number, dx = 0, dy = 0, dz = 0): string =>
    `${Math.floor(B.pos[3 * i]! / h) + dx},${Math.floor(B.pos[3 * i + 1]! / h) + dy},${Math.floor(B.pos[3 * i + 2]! / h) + dz}`;
  const large: number[] = [];
  for (const i of ids) {
    if (r(i) > big || !(h > 0)) {
      large.push(i);
      continue;
    }
    const key = cellOf(i);
    const list = cells.get(key);
    if (list) list.push(i);
    else cells.set(key, [i]);
  }
  const near = (i: number, j: number): boolean =>
    Math.hypot(B.pos[3 * i]! - B.pos[3 * j]!, B.pos[3 * i + 1]! - B.pos[3 * j + 1]!, B.pos[3 * i + 2]! - B.pos[3 * j + 2]!) <= r(i) + r(j);
  const isLarge = new Set(large);
  const found: number[] = [];
  for (const i of ids) {
    // Body i's partners of higher index: ordinary ones from the 27 cells around it, then every large one.
    found.length = 0;
    if (!isLarge.has(i)) {
      for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) for (let dz = -1; dz <= 1; dz++) {
        for (const j of cells.get(cellOf(i, dx, dy, dz)) ?? []) if (j > i && near(i, j)) found.push(j);
      }
      for (const j of large) if (j > i && near(i, j)) found.push(j);
    } else {
      for (const j of ids) if (j > i && near(i, j)) found.push(j);
    }
    found.sort((x, y) => x - y);
    for (const j of found) if (!visit(i, j)) return;
  }
}

/**
 * Warns of joints that start open: anchors apart by more than a hundredth
 * of the smaller body's radius, or axes more than a degree apart (an
 * orientation lock holds the relative orientation it starts with, so it
 * is never open). The joint closes them within its first steps, with the
 * impulse that takes: a pendulum whose anchors were a metre apart swung in
 * with some 50 J it never had.
 */
function warnOpenJoints(scene: SceneDesc, joints: JointSystem, bodies: BodyStore, radius: (body: string) => number, warn: (m: string) => void): void {
  const err = joints.errors({ bodies });
  // Named one by one up to COINCIDENT_TOLD, then counted (200 copies of one joint gave 200 lines).
  let told = 0, more = 0;
  scene.joints.forEach((j, ji) => {
    const size = Math.min(radius(j.bodyA), radius(j.bodyB));
    const tol = 0.01 * (Number.isFinite(size) ? size : 1);
    const lin = err.linear[ji]!, ang = err.angular[ji]!;
    const what: string[] = [];
    if (lin > tol) what.push(j.type === 'distance' || j.type === 'rope' ? `its anchors' distance is ${fmtValue(lin)} m off its length` : `its anchors are ${fmtValue(lin)} m apart`);
    if (ang > Math.PI / 180) what.push(`its axes are ${fmtValue((ang * 180) / Math.PI)} degrees apart`);
    if (what.length === 0) return;
    if (told++ >= COINCIDENT_TOLD) {
      more++;
      return;
    }
    warn(
      `${fileLabel(scene.file)}: joints[${ji}] (${quote(j.name)}): ${what.join(' and ')} at the start; the joint closes that in its first steps, ` +
        'with the impulse it takes; place the bodies so the anchors meet',
    );
  });
  if (more > 0) warn(`${fileLabel(scene.file)}: ${more} more joint${more === 1 ? ' starts' : 's start'} open`);
}
