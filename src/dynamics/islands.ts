/**
 * Stage "islands": bodies connected by contacts and joints form islands; an
 * island whose bodies have all stayed still (below) for SLEEP_TIME seconds
 * falls asleep. A sleeping body costs nothing: it is predicted where it is
 * with infinite mass, never integrated, and the broad phase pairs it only
 * with awake bodies. It wakes, with its whole island, when
 * an awake body touches it (World checks every query round), when a joint or
 * an active motor acts on its island, or when the app edits it
 * (World.bodyEdited).
 *
 * A body counts as still while, in every window of SLEEP_TIME seconds, it
 * stays near where the window began: its centre within D of that position
 * and its orientation within D / r radians of that orientation, D =
 * SLEEP_DRIFT * min(SLEEP_SPEED, SLEEP_SIZES * r) * SLEEP_TIME (r: the
 * radius of its shape; 12.5 mm, a mean 2.5 cm/s, for bodies above 25 cm, a
 * twentieth of r for smaller ones, so a tower of millimetre cubes sleeps as
 * a tower of metre cubes does). A window that ends still starts the next
 * one at the body's pose, and its stillness timer runs on; leaving the ball
 * starts both again. What is measured is where the body goes, not how fast
 * it goes at one step: a resting contact that jitters (a ring that drops
 * g dt for a step and is put back) stays in its ball and sleeps, while a
 * body sliding faster than D per SLEEP_TIME, however slowly each step,
 * never does, so sleeping does not stop a slide that would carry it
 * further. (With one ball per stillness, set when it began, a creep of a
 * few millimetres per second carried a body out of it after some seconds
 * and restarted its timer: the twenty rings of a stack on one peg, each
 * creeping so at its own time, kept restarting their island's clock and
 * never slept.) Position correction moves bodies without velocity, and
 * counts too: bodies being pushed apart are not still.
 */
import type { ConstraintSystem } from './constraints.ts';
import type { ContactSet } from './contacts.ts';
import { norm3 } from './math.ts';
import type { PairList } from './pairs.ts';
import type { StepContext } from './stepContext.ts';

/** Seconds an island must stay still to fall asleep. */
export const SLEEP_TIME = 0.5;
/** Speed scale of stillness, m/s (for bodies larger than SLEEP_SPEED / SLEEP_SIZES). */
const SLEEP_SPEED = 0.05;
/** Sizes per second of stillness (small bodies). */
const SLEEP_SIZES = 0.2;
/** The fraction of SLEEP_TIME times the speed scale that a still body may wander. */
const SLEEP_DRIFT = 0.5;

export class Islands {
  /** Seconds each body has stayed still (near its reference pose). */
  timer = new Float64Array(0);
  /** Per body, the pose its current window started from: position (3), orientation (4). */
  private ref = new Float64Array(0);
  /** Per body, seconds since its current window started. */
  private age = new Float64Array(0);
  /** Per body, whether `ref` holds a pose (cleared when it wakes). */
  private hasRef = new Uint8Array(0);
  /** The island a sleeping body fell asleep with (its root body), -1 while awake. */
  sleepId = new Int32Array(0);
  /** Awake and sleeping dynamic bodies and islands after the last update. */
  awake = 0;
  asleep = 0;
  islands = 0;
  private parent = new Int32Array(0);
  private minTimer = new Float64Array(0);
  private keep = new Uint8Array(0);
  private ctx: StepContext | null = null;
  /** Joint edges: a joint acting between an awake body and a sleeping one wakes the sleeper's island. */
  private readonly union = (a: number, b: number): void => {
    const B = this.ctx!.bodies;
    if (B.asleep[a] !== B.asleep[b]) this.wake(this.ctx!, B.asleep[a] ? a : b);
    this.join(a, b);
  };
  private readonly keepAwake = (i: number): void => {
    this.keep[i] = 1;
  };

  resize(n: number): void {
    if (this.timer.length === n) return;
    this.timer = new Float64Array(n);
    this.ref = new Float64Array(7 * n);
    this.age = new Float64Array(n);
    this.hasRef = new Uint8Array(n);
    this.sleepId = new Int32Array(n).fill(-1);
    this.parent = new Int32Array(n);
    this.minTimer = new Float64Array(n);
    this.keep = new Uint8Array(n);
  }

  /**
   * After integration: the stillness timers, the islands of the awake bodies (the
   * pairs of `cs` that touch, and joints), and the islands that fall asleep
   * (only when `enabled`).
   */
  update(ctx: StepContext, pairs: PairList, cs: ContactSet, c: ConstraintSystem | null, enabled: boolean): void {
    const B = ctx.bodies;
    const n = B.count;
    const dt = ctx.dt;
    const parent = this.parent;
    this.ctx = ctx;
    this.keep.fill(0);
    c?.awakeBodies?.(ctx, this.keepAwake);
    for (let i = 0; i < n; i++) {
      parent[i] = i;
      if (B.isStatic[i] || B.asleep[i]) continue;
      if (!this.keep[i] && this.hasRef[i] && this.still(ctx, i)) {
        this.timer[i] += dt;
        // A window ends still: the next one starts here, the timer runs on.
        this.age[i] += dt;
        if (this.age[i]! >= SLEEP_TIME) this.anchor(B, i);
      } else {
        this.restart(B, i);
      }
    }
    const active = (i: number): boolean => B.isStatic[i] === 0 && B.asleep[i] === 0;
    for (let k = 0; k < pairs.count; k++) {
      if (cs.start[k] === cs.end[k]) continue;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (active(a) && active(b)) this.join(a, b);
    }
    c?.graphEdges(ctx, this.union);
    // Per island: the shortest time any of its bodies has been slow.
    const minT = this.minTimer;
    minT.fill(Infinity);
    let islands = 0;
    for (let i = 0; i < n; i++) {
      if (!active(i)) continue;
      const root = this.find(i);
      if (root === i) islands++;
      minT[root] = Math.min(minT[root]!, this.timer[i]!);
    }
    let asleep = 0, awake = 0;
    for (let i = 0; i < n; i++) {
      if (B.isStatic[i]) continue;
      if (B.asleep[i]) {
        asleep++;
        continue;
      }
      const root = this.find(i);
      if (enabled && minT[root]! >= SLEEP_TIME) {
        B.asleep[i] = 1;
        this.sleepId[i] = root;
        for (let k = 0; k < 3; k++) {
          B.vel[3 * i + k] = 0;
          B.angVel[3 * i + k] = 0;
        }
        asleep++;
      } else {
        awake++;
      }
    }
    this.awake = awake;
    this.asleep = asleep;
    this.islands = islands;
  }

  /** Whether body i is still within its ball around the reference pose. */
  private still(ctx: StepContext, i: number): boolean {
    const B = ctx.bodies;
    const r = ctx.shapeOf(i).radius;
    const D = SLEEP_DRIFT * Math.min(SLEEP_SPEED, SLEEP_SIZES * r) * SLEEP_TIME;
    const R = this.ref, o = 7 * i;
    const d = norm3(B.pos[3 * i]! - R[o]!, B.pos[3 * i + 1]! - R[o + 1]!, B.pos[3 * i + 2]! - R[o + 2]!);
    if (!(d < D)) return false;
    const q = B.quat;
    const dot = Math.abs(q[4 * i]! * R[o + 3]! + q[4 * i + 1]! * R[o + 4]! + q[4 * i + 2]! * R[o + 5]! + q[4 * i + 3]! * R[o + 6]!);
    // The angle between the orientations is 2 acos |q . q_ref|.
    return 2 * Math.acos(Math.min(dot, 1)) * r < D;
  }

  /** Starts body i's stillness over at its current pose. */
  private restart(B: StepContext['bodies'], i: number): void {
    this.anchor(B, i);
    this.timer[i] = 0;
  }

  /** Starts a new window of body i at its current pose (its timer untouched). */
  private anchor(B: StepContext['bodies'], i: number): void {
    const R = this.ref, o = 7 * i;
    for (let k = 0; k < 3; k++) R[o + k] = B.pos[3 * i + k]!;
    for (let k = 0; k < 4; k++) R[o + 3 + k] = B.quat[4 * i + k]!;
    this.hasRef[i] = 1;
    this.age[i] = 0;
  }

  /** Wakes body i and every body that fell asleep in its island; returns whether any woke. */
  wake(ctx: StepContext, i: number): boolean {
    const B = ctx.bodies;
    if (!B.asleep[i]) return false;
    const id = this.sleepId[i]!;
    for (let j = 0; j < B.count; j++) {
      if (B.asleep[j] && (j === i || (id >= 0 && this.sleepId[j] === id))) {
        B.asleep[j] = 0;
        this.sleepId[j] = -1;
        this.timer[j] = 0;
        this.hasRef[j] = 0;
      }
    }
    return true;
  }

  /** Wakes every sleeping body. */
  wakeAll(ctx: StepContext): void {
    const B = ctx.bodies;
    for (let j = 0; j < B.count; j++) {
      B.asleep[j] = 0;
      this.sleepId[j] = -1;
      this.timer[j] = 0;
      this.hasRef[j] = 0;
    }
  }

  private find(i: number): number {
    const p = this.parent;
    while (p[i] !== i) {
      p[i] = p[p[i]!]!;
      i = p[i]!;
    }
    return i;
  }

  private join(a: number, b: number): void {
    const B = this.parent;
    const ra = this.find(a), rb = this.find(b);
    if (ra !== rb) B[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}
