/**
 * The figures that say whether a run went well (`stackfield run` prints them
 * on standard error when it ends; `--summary json` as one JSON object):
 * steps, simulated and wall time, bodies at rest, the deepest penetration,
 * the change of energy, the lowest and highest point, bodies that ended
 * behind a static plane (fell through the ground), and non-finite values.
 *
 * "Up" is against gravity (+y without gravity). Energy is kinetic plus
 * potential, m (-g . x) summed over dynamic bodies, so with y up the
 * potential is m g y: a tower that settles by a few millimetres loses the
 * matching m g dy, a bouncing ball with restitution 1 keeps its energy.
 * Joints and motors add or take energy, so only its change is reported.
 *
 * Soft bodies count as dynamic bodies: their energy is the soft system's
 * (kinetic, gravitational as above, and the springs' and volume terms),
 * their particles count toward the extent, a soft body is at rest when every
 * particle is slower than REST_SPEED, and below ground when its centre of
 * mass is behind a static plane.
 */
import type { World } from '../dynamics/world.ts';
import { quatToMat3 } from '../dynamics/math.ts';
import { SoftCoupling } from '../soft/coupling.ts';
import type { SoftSystem } from '../soft/system.ts';

/** At rest: centre speed and the rotation's speed at the body's radius both below min(REST_SPEED, REST_SIZES x radius per second). */
export const REST_SPEED = 0.01;
export const REST_SIZES = 0.05;

export interface RunSummary {
  /** The scene file as it was named on the command line (a plain path, not quoted), or "built-in NAME". */
  scene: string;
  /** The query backend: "cpu" or "gpu". */
  backend: string;
  /** Threads the CPU queries ran on (1 for the GPU backend). */
  threads: number;
  /** The contact solver the run used: the scene's solver.contactSolver, or --solver ("sequential", "pgs" or "accumulated"). */
  contactSolver: string;
  steps: number;
  dt: number;
  /** Seconds of simulated time. */
  simulatedTime: number;
  /** Wall-clock seconds: building the world, and stepping. */
  buildSeconds: number;
  stepSeconds: number;
  msPerStep: number;
  /** Rigid and soft bodies. */
  bodies: number;
  /** Dynamic rigid bodies and soft bodies. */
  dynamicBodies: number;
  /** Soft bodies (counted in bodies and dynamicBodies too). */
  softBodies: number;
  /** Dynamic bodies at rest at the end (asleep, or slower than the rest thresholds). */
  atRest: number;
  asleep: number;
  /** Deepest penetration of the last step, and the deepest of the run with its step (m). */
  penetration: { end: number; max: number; maxStep: number };
  /** Kinetic + potential energy at the start and the end (J for kg and m), their difference, and the kinetic part at the end. */
  energy: { start: number; end: number; change: number; kineticEnd: number };
  /** Lowest and highest point of any dynamic body's mesh along "up" (m); null without dynamic bodies. */
  lowestPoint: number | null;
  highestPoint: number | null;
  /** Dynamic bodies whose centre of mass ended behind a static plane. */
  belowGround: string[];
  /** Non-finite numbers met in the state (a run that meets one stops with exit code 1, so 0 here). */
  nonFinite: number;
}

function upOf(world: World): [number, number, number] {
  const [gx, gy, gz] = world.gravity;
  const g = Math.hypot(gx, gy, gz);
  return g > 0 ? [-gx / g, -gy / g, -gz / g] : [0, 1, 0];
}

/** The world's soft bodies, or null when it has none. */
function softOf(world: World): SoftSystem | null {
  return world.soft instanceof SoftCoupling ? world.soft.system : null;
}

/** Kinetic energy of the rigid and soft bodies. */
function kineticEnergy(world: World): number {
  return world.kineticEnergy() + (world.soft ? world.soft.kineticEnergy() : 0);
}

/** Kinetic plus potential energy of the dynamic bodies (soft bodies: their elastic energy too). */
export function totalEnergy(world: World): number {
  const B = world.bodies;
  const [gx, gy, gz] = world.gravity;
  let potential = 0;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    potential -= B.mass[i]! * (gx * B.pos[3 * i]! + gy * B.pos[3 * i + 1]! + gz * B.pos[3 * i + 2]!);
  }
  const soft = softOf(world);
  return world.kineticEnergy() + potential + (soft ? soft.energy().total : 0);
}

/** Collects the run's figures as it goes: construct after the world is built, call `afterStep` after each step. */
export class RunTracker {
  private readonly startEnergy: number;
  private maxPenetration = 0;
  private maxPenetrationStep = 0;
  steps = 0;

  constructor(
    private readonly world: World,
    private readonly scene: string,
    private readonly backend: string,
    private readonly threads: number,
    private readonly buildSeconds: number,
  ) {
    this.startEnergy = totalEnergy(world);
  }

  afterStep(): void {
    this.steps++;
    const d = this.world.deepestPenetration();
    if (d > this.maxPenetration) {
      this.maxPenetration = d;
      this.maxPenetrationStep = this.world.stepCount;
    }
  }

  summary(stepSeconds: number): RunSummary {
    const world = this.world;
    const B = world.bodies;
    const up = upOf(world);
    const R = new Float64Array(9);
    let dynamic = 0, atRest = 0, asleep = 0, nonFinite = 0;
    let lowest = Infinity, highest = -Infinity;
    const planes: { p: number[]; n: number[] }[] = [];
    for (let i = 0; i < B.count; i++) {
      const s = world.shapes[B.shape[i]!]!;
      if (B.isStatic[i] && s.kind === 'plane' && s.planeNormal) {
        quatToMat3(B.quat, 4 * i, R);
        const [a, b, c] = s.planeNormal;
        planes.push({
          p: [B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!],
          n: [R[0]! * a + R[1]! * b + R[2]! * c, R[3]! * a + R[4]! * b + R[5]! * c, R[6]! * a + R[7]! * b + R[8]! * c],
        });
      }
    }
    const below: string[] = [];
    for (let i = 0; i < B.count; i++) {
      for (const arr of [B.pos.subarray(3 * i, 3 * i + 3), B.vel.subarray(3 * i, 3 * i + 3), B.angVel.subarray(3 * i, 3 * i + 3), B.quat.subarray(4 * i, 4 * i + 4)]) {
        for (const x of arr) if (!Number.isFinite(x)) nonFinite++;
      }
      if (B.isStatic[i]) continue;
      dynamic++;
      const s = world.shapes[B.shape[i]!]!;
      const limit = Math.min(REST_SPEED, REST_SIZES * s.radius);
      const v = Math.hypot(B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!);
      const w = Math.hypot(B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!) * s.radius;
      if (B.asleep[i]) asleep++;
      if (B.asleep[i] || (v < limit && w < limit)) atRest++;
      // Extent along "up" from the mesh's vertices (the mesh is in the body frame, centred on the centre of mass).
      quatToMat3(B.quat, 4 * i, R);
      const P = s.mesh.positions;
      const cu = up[0] * B.pos[3 * i]! + up[1] * B.pos[3 * i + 1]! + up[2] * B.pos[3 * i + 2]!;
      // up . (R x) = (R^T up) . x
      const ux = R[0]! * up[0] + R[3]! * up[1] + R[6]! * up[2];
      const uy = R[1]! * up[0] + R[4]! * up[1] + R[7]! * up[2];
      const uz = R[2]! * up[0] + R[5]! * up[1] + R[8]! * up[2];
      for (let k = 0; k < P.length; k += 3) {
        const h = cu + ux * P[k]! + uy * P[k + 1]! + uz * P[k + 2]!;
        if (h < lowest) lowest = h;
        if (h > highest) highest = h;
      }
      for (const pl of planes) {
        const d = (B.pos[3 * i]! - pl.p[0]!) * pl.n[0]! + (B.pos[3 * i + 1]! - pl.p[1]!) * pl.n[1]! + (B.pos[3 * i + 2]! - pl.p[2]!) * pl.n[2]!;
        if (d < 0) {
          below.push(B.names[i]!);
          break;
        }
      }
    }
    const soft = softOf(world);
    const softBodies = soft ? soft.bodies.length : 0;
    if (soft) {
      const X = soft.pos, V = soft.vel;
      for (let b = 0; b < softBodies; b++) {
        const body = soft.bodies[b]!;
        dynamic++;
        let fastest = 0;
        for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
          const x = X[3 * i]!, y = X[3 * i + 1]!, z = X[3 * i + 2]!;
          for (const c of [x, y, z, V[3 * i]!, V[3 * i + 1]!, V[3 * i + 2]!]) if (!Number.isFinite(c)) nonFinite++;
          fastest = Math.max(fastest, Math.hypot(V[3 * i]!, V[3 * i + 1]!, V[3 * i + 2]!));
          const h = up[0] * x + up[1] * y + up[2] * z;
          if (h < lowest) lowest = h;
          if (h > highest) highest = h;
        }
        if (fastest < REST_SPEED) atRest++;
        const c = soft.centroid(b);
        for (const pl of planes) {
          if ((c[0] - pl.p[0]!) * pl.n[0]! + (c[1] - pl.p[1]!) * pl.n[1]! + (c[2] - pl.p[2]!) * pl.n[2]! < 0) {
            below.push(body.name);
            break;
          }
        }
      }
    }
    const end = totalEnergy(world);
    return {
      scene: this.scene,
      backend: this.backend,
      threads: this.threads,
      contactSolver: world.solver.contactSolver,
      steps: this.steps,
      dt: world.dt,
      simulatedTime: this.steps * world.dt,
      buildSeconds: this.buildSeconds,
      stepSeconds,
      msPerStep: this.steps > 0 ? (1000 * stepSeconds) / this.steps : 0,
      bodies: B.count + softBodies,
      dynamicBodies: dynamic,
      softBodies,
      atRest,
      asleep,
      penetration: { end: world.deepestPenetration(), max: this.maxPenetration, maxStep: this.maxPenetrationStep },
      energy: { start: this.startEnergy, end, change: end - this.startEnergy, kineticEnd: kineticEnergy(world) },
      lowestPoint: dynamic > 0 ? lowest : null,
      highestPoint: dynamic > 0 ? highest : null,
      belowGround: below,
      nonFinite,
    };
  }
}

/**
 * The first figure of a summary that is not a finite number ("energy.end"),
 * or undefined. The state is checked every step, but a figure derived from
 * finite values can still overflow (m g y with huge values); a summary never
 * shows one: the run is a simulation error instead.
 */
export function nonFiniteFigure(s: RunSummary): { path: string; value: number } | undefined {
  const visit = (v: unknown, path: string): { path: string; value: number } | undefined => {
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : { path, value: v };
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) {
        const bad = visit(x, path ? `${path}.${k}` : k);
        if (bad) return bad;
      }
    }
    return undefined;
  };
  return visit(s, '');
}

/** `digits` significant digits, exponent form far from 1. */
function num(x: number, digits = 4): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e9)) return x.toExponential(digits - 1).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(digits)));
}

/**
 * The energy's change, signed; within round-off of the energies it is the
 * difference of (a ball falling from rest at height 0 ends at 0 J give or
 * take 1e-11 J of 50 J kinetic) it reads "0 J (round-off)". --summary json
 * keeps the exact difference.
 */
function energyChange(e: RunSummary['energy']): string {
  const scale = Math.max(Math.abs(e.start), Math.abs(e.end), Math.abs(e.kineticEnd));
  if (Math.abs(e.change) <= 1e-9 * scale) return '0 J (round-off)';
  return `${e.change >= 0 ? '+' : ''}${num(e.change)} J`;
}

/** A duration: milliseconds below a second. */
function duration(s: number): string {
  return s < 1 ? `${num(s * 1000, 3)} ms` : `${num(s, 3)} s`;
}

/**
 * A length: millimetres below 0.1 m, metres otherwise; below a picometre it
 * is round-off (a box resting exactly on its floor ends 1e-23 m below it),
 * printed as 0.
 */
function length(x: number): string {
  if (Math.abs(x) < 1e-12) return '0 mm';
  return Math.abs(x) < 0.1 ? `${num(x * 1000)} mm` : `${num(x)} m`;
}

/** How the first line of the summary names each contact solver. */
const SOLVER_WORDS: Record<string, string> = {
  sequential: "the seed's contact passes",
  pgs: 'projected Gauss-Seidel contacts',
  accumulated: 'the accumulated contact stage',
};

/** Awake rigid bodies from which a run under the seed's passes ends with the hint below. */
export const PILE_HINT_AWAKE = 20;

/**
 * A pile left awake under the seed's contact passes (the format's default,
 * which keeps tall towers standing): the accumulated stage puts piles to
 * sleep (a 1000-box heap by 8-9 s, where the seed's passes have 73 asleep at
 * 12 s; docs/ALGORITHM.md 4.6). Said once, at the end of the text summary,
 * when at least PILE_HINT_AWAKE rigid bodies are awake and fewer are asleep.
 */
function solverHint(s: RunSummary): string | null {
  const awake = s.dynamicBodies - s.softBodies - s.asleep;
  if (s.contactSolver !== 'sequential' || awake < PILE_HINT_AWAKE || s.asleep >= awake) return null;
  return `${awake} bodies awake under the seed's contact passes: piles settle sooner with --solver accumulated ` +
    `("contactSolver": "accumulated"); towers stand best as they are`;
}

/**
 * The summary as a few aligned lines of text. `sceneLabel` is how the first
 * line names the scene (the caller quotes a file name; the summary's `scene`
 * is the plain path, as --summary json prints it).
 */
export function formatSummary(s: RunSummary, quoteName: (name: string) => string, sceneLabel = s.scene): string {
  const pen = s.penetration;
  const lines = [
    `stackfield: ${sceneLabel}: ${s.steps} step${s.steps === 1 ? '' : 's'} of ${num(s.dt)} s (${num(s.simulatedTime)} s simulated) in ${duration(s.stepSeconds)}` +
      `${s.steps > 0 ? `, ${num(s.msPerStep, 3)} ms per step` : ''} on the ${s.backend} backend${s.threads > 1 ? ` (${s.threads} threads)` : ''}, ${SOLVER_WORDS[s.contactSolver] ?? s.contactSolver}; world built in ${duration(s.buildSeconds)}`,
    // (With no step run a body at rest has not been seen to stay so: a box let go in mid-air read as resting.)
    s.steps === 0
      ? `  resting        not judged: no step run (${s.dynamicBodies} dynamic bod${s.dynamicBodies === 1 ? 'y' : 'ies'})`
      : `  resting        ${s.atRest} of ${s.dynamicBodies} dynamic bodies${s.softBodies > 0 ? ` (${s.softBodies} soft)` : ''}${s.asleep > 0 ? ` (${s.asleep} asleep)` : ''}`,
    // (Below a picometre a depth is round-off, as in length(): none.)
    !(pen.max >= 1e-12)
      ? '  penetration    none'
      : `  penetration    deepest ${length(pen.max)} (step ${pen.maxStep}); ${pen.end < 1e-12 ? 'none' : length(pen.end)} at the end`,
    // Energies to 7 digits: a settling tower changes the fourth or fifth.
    `  energy         ${num(s.energy.start, 7)} J -> ${num(s.energy.end, 7)} J (change ${energyChange(s.energy)}; kinetic at the end ${num(s.energy.kineticEnd)} J)`,
    s.lowestPoint === null
      ? '  extent         no dynamic bodies'
      : `  extent         lowest point ${length(s.lowestPoint)}, highest ${length(s.highestPoint!)} (against gravity)`,
    `  below ground   ${s.belowGround.length === 0 ? 'none' : `${s.belowGround.length}: ${s.belowGround.slice(0, 5).map(quoteName).join(', ')}${s.belowGround.length > 5 ? ', ...' : ''}`}`,
    `  non-finite     ${s.nonFinite === 0 ? 'none' : s.nonFinite}`,
  ];
  const hint = solverHint(s);
  if (hint) lines.push(`  hint           ${hint}`);
  return lines.join('\n');
}
