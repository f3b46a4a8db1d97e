/**
 * What the camera frames: the world box of every body but the analytic
 * planes (which are infinite), soft bodies by their particles, or of one
 * body, and where bodies hung from static ones by joints can swing; the
 * safety net that widens the view while bodies, rigid or soft, head out of
 * it (AutoFrame); keeping a followed body clear of the overlays; and
 * picking the body under a pixel (a ray against each body's local box,
 * then its triangles).
 */
import { JointSystem } from '../dynamics/joints/system.ts';
import type { JointType } from '../dynamics/joints/types.ts';
import { rotateByQuat } from '../dynamics/math.ts';
import { fitPan, followPoint, framePoints, panBy, panToFit, pointsFit, widenToFit, type OrbitCamera, type Viewport, type WidenGoal } from './camera.ts';
import { shadowPlane, type Plane } from './frameData.ts';
import { worldAabb } from './overlays.ts';
import { grown } from '../util/growable.ts';
import { pickBody as pickHit, type Ray } from './picking.ts';
import { softSystemOf, type RenderWorld } from './sceneRenderer.ts';
import type { SoftSystem } from '../soft/system.ts';

/** What framing reads of a world: what a renderer reads, and the gravity where it has one (World.gravity). */
export type FramingWorld = RenderWorld & { readonly gravity?: ArrayLike<number> };

/** The box a whole-scene framing framed (frameWorld): its middle, the distance to its farthest corner, its bottom. */
export interface FramedRegion {
  centre: [number, number, number];
  radius: number;
  bottom: number;
}

/**
 * World box of the non-plane bodies (all of them, or only body `only`),
 * as min xyz then max xyz; false when there is none.
 */
export function worldBounds(world: RenderWorld, out: Float64Array, only = -1): boolean {
  const b = world.bodies;
  const box = scratchBox;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  let any = false;
  for (let i = only >= 0 ? only : 0; i < (only >= 0 ? Math.min(only + 1, b.count) : b.count); i++) {
    const s = world.shapes[b.shape[i]!]!;
    if (s.kind === 'plane') continue;
    worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, box);
    for (let k = 0; k < 3; k++) {
      out[k] = Math.min(out[k]!, box[k]!);
      out[k + 3] = Math.max(out[k + 3]!, box[k + 3]!);
    }
    any = true;
  }
  if (only < 0 && softBounds(world, box)) {
    for (let k = 0; k < 3; k++) {
      out[k] = Math.min(out[k]!, box[k]!);
      out[k + 3] = Math.max(out[k + 3]!, box[k + 3]!);
    }
    any = true;
  }
  return any;
}
const scratchBox = new Float64Array(6);

/** World box of every soft body's particles (min xyz, max xyz); false when the world has none. */
export function softBounds(world: RenderWorld, out: Float64Array): boolean {
  const sys = softSystemOf(world);
  if (!sys || sys.particleCount === 0) return false;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  const p = sys.pos;
  for (let i = 0; i < sys.particleCount; i++) {
    for (let k = 0; k < 3; k++) {
      const x = p[3 * i + k]!;
      if (x < out[k]!) out[k] = x;
      if (x > out[k + 3]!) out[k + 3] = x;
    }
  }
  return true;
}

/**
 * Soft body `k`'s particles: their world box into `out` (min xyz, max xyz),
 * and their mass-weighted mean squared speed (returned: twice the body's
 * kinetic energy over its mass), by which AutoFrame tells a moving soft
 * body from one at rest. A body without particles gives an empty box (min
 * above max) and 0.
 */
function softBodyBox(sys: SoftSystem, k: number, out: Float64Array): number {
  const body = sys.bodies[k]!;
  const p = sys.pos, v = sys.vel, m = sys.mass;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  let mv2 = 0, mass = 0;
  for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
    for (let c = 0; c < 3; c++) {
      const x = p[3 * i + c]!;
      if (x < out[c]!) out[c] = x;
      if (x > out[c + 3]!) out[c + 3] = x;
    }
    mv2 += m[i]! * (v[3 * i]! ** 2 + v[3 * i + 1]! ** 2 + v[3 * i + 2]! ** 2);
    mass += m[i]!;
  }
  return mass > 0 ? mv2 / mass : 0;
}

/**
 * Frames the non-plane bodies (or body `only`): the target at the middle of
 * their world box, the distance from which every corner of every body's box
 * lies inside the viewport's free part. A whole scene gets some room around
 * it, so a lone body shows what it stands on and a walker has somewhere to
 * walk: the box grows sideways by a body's size (and a sixth of its own
 * size), and down to the ground under its middle; and it takes in where
 * bodies hung from static ones by joints can swing (reachPoints: a chain
 * that starts level swung out of a view framed on where it started). The
 * framed box goes to `region` when given. False when there is nothing to frame.
 */
export function frameWorld(c: OrbitCamera, world: FramingWorld, v: Viewport, only = -1, margin = 1.1, region?: FramedRegion): boolean {
  const all = new Float64Array(6);
  if (!worldBounds(world, all, only)) return false;
  const b = world.bodies;
  const corners: number[] = [];
  for (let i = only >= 0 ? only : 0; i < (only >= 0 ? only + 1 : b.count); i++) {
    const s = world.shapes[b.shape[i]!]!;
    if (s.kind === 'plane') continue;
    worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, scratchBox);
    pushCorners(corners, scratchBox);
  }
  if (only < 0) {
    let radius = 0;
    for (let i = 0; i < b.count; i++) {
      const s = world.shapes[b.shape[i]!]!;
      if (s.kind !== 'plane') radius = Math.max(radius, s.radius);
    }
    // Soft bodies: each one's particle box, and its half size as a body's size. (One box around
    // them all made two blobs 6 m apart a 6 m body, padding the view by that much each side.)
    const sys = softSystemOf(world);
    for (let k = 0; sys && k < sys.bodies.length; k++) {
      if (sys.bodies[k]!.particleCount === 0) continue;
      softBodyBox(sys, k, scratchBox);
      pushCorners(corners, scratchBox);
      radius = Math.max(radius, 0.5 * Math.max(scratchBox[3]! - scratchBox[0]!, scratchBox[4]! - scratchBox[1]!, scratchBox[5]! - scratchBox[2]!));
    }
    for (const k of [0, 2]) {
      const pad = Math.max(radius, (all[k + 3]! - all[k]!) / 6);
      scratchBox[k] = all[k]! - pad;
      scratchBox[k + 3] = all[k + 3]! + pad;
    }
    scratchBox[1] = all[1]!;
    scratchBox[4] = all[4]!;
    const ground = shadowPlane(world, scratchPlane);
    if (ground && Math.abs(ground.n[1]) > 1e-6) {
      // The ground's height under the middle of the box: n . (x, y, z) = d.
      const x = 0.5 * (all[0]! + all[3]!), z = 0.5 * (all[2]! + all[5]!);
      const y = (ground.d - ground.n[0] * x - ground.n[2] * z) / ground.n[1];
      if (y < scratchBox[1]!) scratchBox[1] = Math.max(y, all[1]! - Math.max(2 * radius, all[4]! - all[1]!));
    }
    pushCorners(corners, scratchBox);
    for (let k = 0; k < 3; k++) {
      all[k] = scratchBox[k]!;
      all[k + 3] = scratchBox[k + 3]!;
    }
    // Where the hanging bodies can swing, with no more room around it: the reach is already generous.
    const from = corners.length;
    reachPoints(world, corners);
    for (let p = from; p < corners.length; p += 3) {
      for (let k = 0; k < 3; k++) {
        all[k] = Math.min(all[k]!, corners[p + k]!);
        all[k + 3] = Math.max(all[k + 3]!, corners[p + k]!);
      }
    }
  }
  const centre = [0.5 * (all[0]! + all[3]!), 0.5 * (all[1]! + all[4]!), 0.5 * (all[2]! + all[5]!)];
  framePoints(c, corners, centre, v, margin);
  if (region) {
    region.centre = [centre[0]!, centre[1]!, centre[2]!];
    region.radius = 0.5 * Math.hypot(all[3]! - all[0]!, all[4]! - all[1]!, all[5]! - all[2]!);
    region.bottom = all[1]!;
  }
  return true;
}

/** Translational joints hold their anchors together (or at most `length` apart); the others leave them free along a line or a plane, or hold only the turn. */
const HOLDS_ANCHORS: ReadonlySet<JointType> = new Set<JointType>(['ball', 'hinge', 'fixed', 'distance', 'rope']);
/**
 * Reach spheres are pushed as 26 points on them, whose hull falls short of
 * the sphere by at most 11 % (between the points); the framing's margin
 * (a tenth of the view) takes that up, and a hung body seldom swings out
 * to its full reach in those directions.
 */
const DIRECTIONS: readonly number[] = (() => {
  const out: number[] = [];
  for (let x = -1; x <= 1; x++) {
    for (let y = -1; y <= 1; y++) {
      for (let z = -1; z <= 1; z++) {
        const l = Math.hypot(x, y, z);
        if (l > 0) out.push(x / l, y / l, z / l);
      }
    }
  }
  return out;
})();

/**
 * Pushes points (xyz triples) whose hull holds every place a body hung from
 * a static body by a chain of joints can reach. Each translational joint
 * keeps its two anchors together (ball, hinge, fixed) or within its length
 * (distance, rope), and an anchor sits a fixed distance from its body's
 * centre, so by the triangle inequality a body's centre stays within the
 * sum of those distances along the shortest chain of joints from a static
 * anchor (found by relaxing over the joints, as Bellman-Ford does), and
 * the body within that plus its radius. Lines, planes and rotation locks
 * bound nothing. Without motors (which add energy) the swing is also
 * capped above, by a rule of thumb rather than a bound: no body rises
 * above its group's highest point plus the group's kinetic energy over the
 * lightest body's weight. Energy alone bounds only the group's centre of
 * mass; a whip (one body thrown up as the others fall), wind or a push
 * can beat the rule, and AutoFrame then widens the view. Framing the
 * whole sphere instead put the ropes' balls and a level chain up to a
 * third farther away (a 1920 x 1080 window: chain 6.2 m, capped 4.8 m).
 */
export function reachPoints(world: FramingWorld, out: number[]): void {
  const js = world.constraints instanceof JointSystem ? world.constraints : null;
  if (!js || js.joints.length === 0) return;
  const b = world.bodies;
  const n = b.count;
  const J = js.joints.length;
  // Per joint and side: the anchor's distance from its body's centre, and its place in the world.
  const arm = new Float64Array(2 * J);
  const at = new Float64Array(6 * J);
  const slack = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    const d = js.joints[j]!;
    for (let side = 0; side < 2; side++) {
      const i = side === 0 ? js.jointA[j]! : js.jointB[j]!;
      const anchor = side === 0 ? d.anchorA : d.anchorB;
      const com = world.shapes[b.shape[i]!]!.comOffset;
      const rx = anchor[0] - com[0], ry = anchor[1] - com[1], rz = anchor[2] - com[2];
      arm[2 * j + side] = Math.hypot(rx, ry, rz);
      rotateByQuat(b.quat, 4 * i, rx, ry, rz, at, 6 * j + 3 * side);
      for (let k = 0; k < 3; k++) at[6 * j + 3 * side + k] = at[6 * j + 3 * side + k]! + b.pos[3 * i + k]!;
    }
    if (d.type === 'distance' || d.type === 'rope') {
      const gap = Math.hypot(at[6 * j + 3]! - at[6 * j]!, at[6 * j + 4]! - at[6 * j + 1]!, at[6 * j + 5]! - at[6 * j + 2]!);
      slack[j] = Math.max(d.length, gap);
    }
  }
  // reach[i]: a bound on body i's centre's distance from the static anchor source[i] (a joint index and side, 2 j + side).
  const reach = new Float64Array(n).fill(Infinity);
  const source = new Int32Array(n).fill(-1);
  for (let j = 0; j < J; j++) {
    if (!HOLDS_ANCHORS.has(js.joints[j]!.type)) continue;
    const a = js.jointA[j]!, c = js.jointB[j]!;
    if (b.isStatic[a] === b.isStatic[c]) continue;
    const [fixed, hung, side] = b.isStatic[a] ? [0, c, 1] : [1, a, 0];
    const r = arm[2 * j + side]! + slack[j]!;
    if (r < reach[hung]!) {
      reach[hung] = r;
      source[hung] = 2 * j + fixed;
    }
  }
  if (!source.some((s) => s >= 0)) return;
  for (let changed = true, pass = 0; changed && pass < n; pass++) {
    changed = false;
    for (let j = 0; j < J; j++) {
      const a = js.jointA[j]!, c = js.jointB[j]!;
      if (!HOLDS_ANCHORS.has(js.joints[j]!.type) || b.isStatic[a] || b.isStatic[c]) continue;
      const w = arm[2 * j]! + slack[j]! + arm[2 * j + 1]!;
      for (const [from, to] of [[a, c], [c, a]] as const) {
        if (reach[from]! + w < reach[to]!) {
          reach[to] = reach[from]! + w;
          source[to] = source[from]!;
          changed = true;
        }
      }
    }
  }
  const top = energyCeilings(world, js);
  // The bounds that share a static anchor are spheres about one point: the largest holds the others.
  const rho = new Float64Array(2 * J);
  const ceiling = new Float64Array(2 * J).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    const s = source[i]!;
    if (s < 0 || b.isStatic[i]) continue;
    rho[s] = Math.max(rho[s]!, reach[i]! + world.shapes[b.shape[i]!]!.radius);
    ceiling[s] = Math.max(ceiling[s]!, top[i]!);
  }
  // The ground holds them up too (a chain swinging along the floor).
  const ground = shadowPlane(world, scratchPlane);
  for (let s = 0; s < 2 * J; s++) {
    if (rho[s] === 0) continue;
    const r = rho[s]!;
    for (let k = 0; k < DIRECTIONS.length; k += 3) {
      const x = at[3 * s]! + r * DIRECTIONS[k]!, z = at[3 * s + 2]! + r * DIRECTIONS[k + 2]!;
      let y = Math.min(at[3 * s + 1]! + r * DIRECTIONS[k + 1]!, ceiling[s]!);
      if (ground && ground.n[1] > 1e-6) y = Math.max(y, (ground.d - ground.n[0] * x - ground.n[2] * z) / ground.n[1]);
      out.push(x, y, z);
    }
  }
}

/**
 * Per body, the highest its group (the dynamic bodies joined to it) can lift
 * it without a drive (reachPoints): the group's highest point plus its
 * kinetic energy over the lightest body's weight. A rotating body's energy
 * is at most half its mass times (radius times spin) squared. Infinity
 * where gravity does not pull down or motors drive the joints.
 */
function energyCeilings(world: FramingWorld, js: JointSystem): Float64Array {
  const b = world.bodies;
  const n = b.count;
  const out = new Float64Array(n).fill(Infinity);
  const g = world.gravity ? -world.gravity[1]! : 0;
  if (!(g > 0) || js.motors.count > 0) return out;
  const group = dynamicGroups(world, js);
  const high = new Float64Array(n).fill(-Infinity);
  const energy = new Float64Array(n);
  const lightest = new Float64Array(n).fill(Infinity);
  for (let i = 0; i < n; i++) {
    if (b.isStatic[i]) continue;
    const r = group[i]!;
    const radius = world.shapes[b.shape[i]!]!.radius;
    const v2 = b.vel[3 * i]! ** 2 + b.vel[3 * i + 1]! ** 2 + b.vel[3 * i + 2]! ** 2;
    const w2 = b.angVel[3 * i]! ** 2 + b.angVel[3 * i + 1]! ** 2 + b.angVel[3 * i + 2]! ** 2;
    high[r] = Math.max(high[r]!, b.pos[3 * i + 1]! + radius);
    energy[r] = energy[r]! + 0.5 * b.mass[i]! * (v2 + radius * radius * w2);
    lightest[r] = Math.min(lightest[r]!, b.mass[i]!);
  }
  for (let i = 0; i < n; i++) {
    if (b.isStatic[i]) continue;
    const r = group[i]!;
    out[i] = high[r]! + (lightest[r]! > 0 ? energy[r]! / (lightest[r]! * g) : Infinity);
  }
  return out;
}

/**
 * The safety net behind frameWorld: while the simulation runs and the user
 * has not moved the camera, when an awake body comes near the edge of the
 * free view (inside a twentieth of it) the view widens smoothly, keeping
 * its angles, until every such body has a fifth of the view around it
 * (camera.ts widenToFit: it pans only as far as it also zooms out, and
 * never zooms in). Orbiting, panning, zooming or framing a body by hand
 * stops it (stop); a new scene, a reset, "reset view" and "frame all"
 * start it again (arm, resume).
 *
 * Bodies that leave the scene are let go rather than followed: one farther
 * than FAR_RADII times the framed box's radius from its middle (thrown
 * away, or walking off), or one lower than the framed box and every static
 * body by a radius of the box (fallen off the edge of the world, where
 * nothing will stop it). Followed, they would zoom the view out without
 * bound, leaving the scene a speck; G follows such a body instead.
 *
 * Soft bodies count as bodies, each by its particles' box (the box's middle
 * for letting go). The soft system has no sleep, so a soft body counts as
 * asleep once its particles' mean speed (mass-weighted root mean square)
 * has stayed below SOFT_REST_SPEED for SOFT_REST_TIME seconds of simulated
 * time, as a rigid island must stay still for SLEEP_TIME (islands.ts), and
 * wakes as soon as it is faster. A mean rather than the fastest particle:
 * a blob resting under a box kept a few surface particles jittering at
 * 7-8 cm/s (soft-volume) while the rest lay still, which the fastest
 * particle would read as awake for ever; one moving, spinning or wobbling
 * as a whole moves all its particles.
 *
 * Once every body is at rest (asleep, or a soft body still as above), the
 * view glides in on the scene as a new scene is framed (frameWorld), where
 * that brings it nearer than REST_ZOOM of its distance: rings dropped
 * from a tall column onto pegs, framed at their start, ended a small heap
 * in the middle of the view. Once per rest: a body that moves and comes to
 * rest again lets it look again, and nothing is done while a body that
 * left the scene is still there to be framed. Bodies that come to rest
 * outside the view while it widens after them are widened for first.
 */
export class AutoFrame {
  /** Whether it may move the camera (off once the user has). */
  active = false;
  /** Whether it is widening the view now (it goes on until the goal is reached, not just until the bodies fit the edge). */
  gliding = false;
  private readonly home: FramedRegion = { centre: [0, 0, 0], radius: 0, bottom: 0 };
  /** Below this height a body is falling out of the world (the class comment). */
  private floor = -Infinity;
  private points = new Float64Array(0);
  private readonly goal: WidenGoal = { across: 0, up: 0, distance: 0 };
  /** Per soft body, the simulated seconds it has stayed slower than SOFT_REST_SPEED (the class comment). */
  private softStill = new Float64Array(0);
  /** The soft system and its time when softStill was last brought up to date (null: start the clocks again). */
  private softSeen: SoftSystem | null = null;
  private softTime = 0;
  /** Whether the scene at rest has been framed since a body last moved (the class comment's last paragraph). */
  private restFramed = false;
  /** While gliding in on the scene at rest: the view it glides to. */
  private restAim: OrbitCamera | null = null;

  /** Starts it for a newly framed scene: `region` from frameWorld bounds what it will follow. */
  arm(world: FramingWorld, region: FramedRegion): void {
    this.home.centre = [region.centre[0], region.centre[1], region.centre[2]];
    this.home.radius = region.radius;
    this.home.bottom = region.bottom;
    let lowest = region.bottom;
    const b = world.bodies;
    for (let i = 0; i < b.count; i++) {
      const s = world.shapes[b.shape[i]!]!;
      if (!b.isStatic[i] || s.kind === 'plane') continue;
      worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, scratchBox);
      lowest = Math.min(lowest, scratchBox[1]!);
    }
    this.floor = lowest - region.radius;
    this.resume();
  }

  /** Starts it again on the scene it was armed for (reset, reset view, frame all). */
  resume(): void {
    this.active = this.home.radius > 0;
    this.gliding = false;
    this.restFramed = false;
    this.restAim = null;
    // The soft bodies' clocks did not run while it was off: they start again, the bodies awake.
    this.softSeen = null;
  }

  /** The user moved the camera: leave it to them. */
  stop(): void {
    this.active = false;
    this.gliding = false;
    this.restAim = null;
  }

  /**
   * One frame: widens the view by the share of the way to the goal a time
   * constant of TAU seconds gives `dt`. True when it moved the camera.
   */
  update(c: OrbitCamera, world: FramingWorld, v: Viewport, dt: number): boolean {
    if (!this.active) return false;
    let n = this.gather(world, false);
    // Bodies that came to rest while the view widened after them: it widens on while they do not
    // fit (a box thrown off a tower fell asleep out of the view, the glide stopped halfway).
    if (n === 0 && this.gliding) {
      n = this.gather(world, true);
      if (pointsFit(c, v, this.points.subarray(0, 3 * n), EDGE_MARGIN)) n = 0;
    }
    if (n === 0) return this.frameRest(c, world, v, dt);
    this.restFramed = false;
    this.restAim = null;
    const pts = this.points.subarray(0, 3 * n);
    if (!this.gliding && pointsFit(c, v, pts, EDGE_MARGIN)) return false;
    const goal = widenToFit(c, v, pts, ROOM_MARGIN, this.goal);
    const step = Math.hypot(goal.across, goal.up) + (goal.distance - c.distance);
    // Close enough: a thousandth of the view is less than a pixel.
    if (step <= 1e-3 * c.distance) {
      this.gliding = false;
      return false;
    }
    this.gliding = true;
    const a = 1 - Math.exp(-Math.max(0, dt) / TAU);
    panBy(c, a * goal.across, a * goal.up);
    c.distance += a * (goal.distance - c.distance);
    return true;
  }

  /**
   * One frame with every body at rest: glides in on the scene as frameWorld
   * frames it, once, where that view is nearer than REST_ZOOM of this one.
   * True when it moved the camera.
   */
  private frameRest(c: OrbitCamera, world: FramingWorld, v: Viewport, dt: number): boolean {
    this.gliding = false;
    let aim = this.restAim;
    if (!aim) {
      if (this.restFramed) return false;
      this.restFramed = true;
      // A body that left the scene would be framed too, the rest a speck beside it.
      if (this.anyGone(world)) return false;
      aim = { ...c, target: [c.target[0], c.target[1], c.target[2]] };
      if (!frameWorld(aim, world, v) || !(aim.distance < REST_ZOOM * c.distance)) return false;
      this.restAim = aim;
    }
    followPoint(c, aim.target, dt, TAU);
    c.distance += (1 - Math.exp(-Math.max(0, dt) / TAU)) * (aim.distance - c.distance);
    let off = Math.abs(aim.distance - c.distance);
    for (let k = 0; k < 3; k++) off += Math.abs(aim.target[k]! - c.target[k]!);
    // Close enough: a thousandth of the view is less than a pixel.
    if (off <= 1e-3 * c.distance) {
      c.target = [aim.target[0], aim.target[1], aim.target[2]];
      c.distance = aim.distance;
      this.restAim = null;
      return true;
    }
    this.gliding = true;
    return true;
  }

  /** Whether a dynamic rigid body has left the scene (gone). */
  private anyGone(world: FramingWorld): boolean {
    const b = world.bodies;
    for (let i = 0; i < b.count; i++) {
      if (!b.isStatic[i] && world.shapes[b.shape[i]!]!.kind !== 'plane' && this.gone(b.pos[3 * i]!, b.pos[3 * i + 1]!, b.pos[3 * i + 2]!)) return true;
    }
    return false;
  }

  /** The box corners of the awake (`resting`: and the resting) dynamic bodies still in the scene, rigid and soft, into this.points; their count. */
  private gather(world: FramingWorld, resting: boolean): number {
    const b = world.bodies;
    let n = 0;
    for (let i = 0; i < b.count; i++) {
      const s = world.shapes[b.shape[i]!]!;
      if (b.isStatic[i] || (b.asleep[i] && !resting) || s.kind === 'plane') continue;
      if (this.gone(b.pos[3 * i]!, b.pos[3 * i + 1]!, b.pos[3 * i + 2]!)) continue;
      worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, scratchBox);
      n = this.pushBox(n);
    }
    const sys = softSystemOf(world);
    if (!sys) return n;
    const count = sys.bodies.length;
    // Simulated seconds since the last look: none for a new system or one set back (a reset, the
    // timeline), at most MAX_SOFT_DT for a jump forward.
    const fresh = sys !== this.softSeen || sys.time < this.softTime;
    const dt = fresh ? 0 : Math.min(sys.time - this.softTime, MAX_SOFT_DT);
    this.softStill = grown(this.softStill, count);
    if (fresh) this.softStill.fill(0, 0, count);
    this.softSeen = sys;
    this.softTime = sys.time;
    for (let k = 0; k < count; k++) {
      if (sys.bodies[k]!.particleCount === 0) continue;
      const v2 = softBodyBox(sys, k, scratchBox);
      this.softStill[k] = v2 > SOFT_REST_SPEED * SOFT_REST_SPEED ? 0 : this.softStill[k]! + dt;
      if (this.softStill[k]! >= SOFT_REST_TIME && !resting) continue;
      if (this.gone(0.5 * (scratchBox[0]! + scratchBox[3]!), 0.5 * (scratchBox[1]! + scratchBox[4]!), 0.5 * (scratchBox[2]! + scratchBox[5]!))) continue;
      n = this.pushBox(n);
    }
    return n;
  }

  /** Whether a body whose middle is at (x, y, z) has left the scene (the class comment). */
  private gone(x: number, y: number, z: number): boolean {
    const h = this.home;
    return y < this.floor || Math.hypot(x - h.centre[0], y - h.centre[1], z - h.centre[2]) > FAR_RADII * h.radius;
  }

  /** Appends scratchBox's 8 corners to this.points after the first n points; the new count. */
  private pushBox(n: number): number {
    this.points = grown(this.points, 3 * (n + 8));
    for (let k = 0; k < 8; k++) {
      this.points[3 * n] = scratchBox[k & 1 ? 3 : 0]!;
      this.points[3 * n + 1] = scratchBox[k & 2 ? 4 : 1]!;
      this.points[3 * n + 2] = scratchBox[k & 4 ? 5 : 2]!;
      n++;
    }
    return n;
  }
}

/** AutoFrame starts when a body comes inside a twentieth of the free view's edge... */
const EDGE_MARGIN = 1.05;
/** ...and widens the view until the bodies have a fifth of it around them (as a followed body), so that it does not start again at once. */
const ROOM_MARGIN = 1.25;
/** Time constant of the widening (s): quick enough to keep up with a swing, slow enough to read as a glide. */
const TAU = 0.25;
/**
 * AutoFrame glides in on a scene come to rest only where framing it brings
 * the camera nearer than this share of its distance: a pile under the tall
 * column it fell from (60 rings on pegs: 0.57 of the start's distance), not
 * a scene whose start already framed it.
 */
const REST_ZOOM = 0.8;
/** Bodies farther than this many framed radii from the framed middle have left the scene (AutoFrame). */
export const FAR_RADII = 4;
/**
 * A soft body slower than this (m/s, its particles' mean speed) for
 * SOFT_REST_TIME seconds counts as asleep (AutoFrame): the speed scale of a
 * rigid body's stillness (islands.ts, SLEEP_SPEED), the time a rigid island
 * must stay still (SLEEP_TIME). Settled soft bodies measured at most
 * 2.2 cm/s under the soft-volume scene's boxes and under 0.5 cm/s on a
 * floor; blobs still sliding off the soft-pegs pegs, 3 to 6 cm/s.
 */
export const SOFT_REST_SPEED = 0.05;
export const SOFT_REST_TIME = 0.5;
/**
 * The most simulated time one look (AutoFrame.update) adds to a soft body's
 * still clock: half SOFT_REST_TIME, so no single look rests a body, however
 * far it jumps (a slow software renderer's frame of several steps, a seek
 * forward along the timeline).
 */
const MAX_SOFT_DT = 0.5 * SOFT_REST_TIME;

/**
 * One frame of following body `i`. The camera glides (camera.ts followPoint)
 * towards the middle of the body's group, the dynamic bodies joined to it
 * (a robot, whole), where the group fits the view, else towards the body;
 * then pans as little as keeps that group (or the body) inside the free
 * view with room around it, so the glide's lag (a fast body, a low frame
 * rate) never runs it under the panel or the corner overlays. Followed by
 * its back plate alone, the caterpillar's front plates walked to the panel.
 */
export function followBody(c: OrbitCamera, world: RenderWorld, v: Viewport, i: number, dt: number, margin = FOLLOW_MARGIN): void {
  const b = world.bodies;
  const corners = scratchCorners;
  const box = new Float64Array(6);
  const group = jointGroup(world, i);
  let fits = false;
  if (group.length > 1) {
    corners.length = 0;
    for (const k of group) {
      if (!worldBounds(world, scratchBox, k)) continue;
      pushCorners(corners, scratchBox);
      growBox(box, scratchBox, k === group[0]);
    }
    fits = fitPan(c, v, corners, margin, scratchPan);
  }
  if (!fits) {
    corners.length = 0;
    if (worldBounds(world, box, i)) pushCorners(corners, box);
    else for (let k = 0; k < 3; k++) box[k] = box[k + 3] = b.pos[3 * i + k]!;
  }
  followPoint(c, [0.5 * (box[0]! + box[3]!), 0.5 * (box[1]! + box[4]!), 0.5 * (box[2]! + box[5]!)], dt);
  if (corners.length > 0) panToFit(c, v, corners, margin);
}
/** A followed body (or its group) keeps a fifth of the free view around it. */
const FOLLOW_MARGIN = 1.25;
const scratchCorners: number[] = [];
const scratchPan = { across: 0, up: 0 };

function growBox(box: Float64Array, add: ArrayLike<number>, first: boolean): void {
  for (let k = 0; k < 3; k++) {
    box[k] = first ? add[k]! : Math.min(box[k]!, add[k]!);
    box[k + 3] = first ? add[k + 3]! : Math.max(box[k + 3]!, add[k + 3]!);
  }
}

/** Body `i` and the dynamic bodies joined to it, directly or through others (i first); just i when it is static. */
export function jointGroup(world: RenderWorld, i: number): number[] {
  const js = world.constraints instanceof JointSystem ? world.constraints : null;
  const st = world.bodies.isStatic;
  if (!js || st[i]) return [i];
  const root = dynamicGroups(world, js);
  const out = [i];
  for (let k = 0; k < world.bodies.count; k++) if (k !== i && root[k] === root[i]) out.push(k);
  return out;
}

/** Per body, a representative of its group: the dynamic bodies joined to each other (union-find over the joints). */
function dynamicGroups(world: RenderWorld, js: JointSystem): Int32Array {
  const n = world.bodies.count;
  const st = world.bodies.isStatic;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let j = 0; j < js.jointA.length; j++) {
    const a = js.jointA[j]!, c = js.jointB[j]!;
    if (!st[a] && !st[c]) parent[find(a)] = find(c);
  }
  for (let i = 0; i < n; i++) parent[i] = find(i);
  return parent;
}

function pushCorners(out: number[], box: ArrayLike<number>): void {
  for (let k = 0; k < 8; k++) out.push(box[k & 1 ? 3 : 0]!, box[k & 2 ? 4 : 1]!, box[k & 4 ? 5 : 2]!);
}

const scratchPlane: Plane = { n: [0, 1, 0], d: 0 };

/** The body whose surface a ray (unit direction) hits first, or -1; planes are not chosen (picking.ts). */
export function pickBody(world: RenderWorld, origin: ArrayLike<number>, dir: ArrayLike<number>): number {
  const ray: Ray = { origin: [origin[0]!, origin[1]!, origin[2]!], dir: [dir[0]!, dir[1]!, dir[2]!] };
  return pickHit(world, ray, (i) => world.shapes[world.bodies.shape[i]!]!.kind !== 'plane')?.body ?? -1;
}
