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
 * radius of its shape; 25 mm for bodies above 25 cm, a tenth of r for
 * smaller ones, so a tower of millimetre cubes sleeps as a tower of metre
 * cubes does); and a window counts only if it ends *steady*: the means of
 * the body's pose over the window's first and second halves agree to a
 * smaller fraction of the same scale. A window that ends still and steady
 * starts the next one at the body's pose, and its stillness timer runs on;
 * leaving the ball starts both again. What is measured is where the body
 * goes, not how fast it goes at one step: a resting contact that jitters
 * (a ring that drops g dt for a step and is put back) or a body that rocks
 * about a place stays in its ball, and its halves' means agree whatever
 * the phase, so it sleeps; a body sliding on, however slowly each step,
 * has halves that part, so sleeping does not stop a slide that would carry
 * it further. (With one ball per stillness, set when it began, a creep of a
 * few millimetres per second carried a body out of it after some seconds
 * and restarted its timer: the twenty rings of a stack on one peg, each
 * creeping so at its own time, kept restarting their island's clock and
 * never slept.) Position correction moves bodies without velocity, and
 * counts too: bodies being pushed apart are not still.
 *
 * How far the halves may part depends on what the body touches. Piles
 * creep on each other for seconds before they settle, so a body touching
 * another moving body may creep at a mean 2.5 cm/s (SLEEP_DRIFT_COUPLED).
 * A body that touches no other moving body (only static or sleeping ones,
 * or nothing) has nothing to creep on, and a slow steady motion of it is
 * physics: a box on a slope a hair steeper than its friction starts from
 * rest at a few cm/s^2, a puck glides on ice at millimetres per second.
 * Its halves must agree to SLEEP_DRIFT_ALONE of the scale (0.5 mm for
 * bodies above 25 cm, a mean drift under 2 mm/s), which a start from rest
 * at 0.008 m/s^2 or more does not pass (the halves' means part by
 * a T^2 / 4). A window that fails hands its second half on as the next
 * window's first, so a body that has just come to rest waits half a
 * window more, not a whole one.
 */
import type { ConstraintSystem } from './constraints.ts';
import type { ContactSet } from './contacts.ts';
import { pairCell } from './material.ts';
import { norm3 } from './math.ts';
import type { PairList } from './pairs.ts';
import type { StepContext } from './stepContext.ts';
import * as det from '../util/detmath.ts';

/** Seconds an island must stay still to fall asleep. */
export const SLEEP_TIME = 0.5;
/** Speed scale of stillness, m/s (for bodies larger than SLEEP_SPEED / SLEEP_SIZES). */
const SLEEP_SPEED = 0.05;
/** Sizes per second of stillness (small bodies). */
const SLEEP_SIZES = 0.2;
/**
 * The fraction of SLEEP_TIME times the speed scale that a still body may
 * wander from where its window began: 25 mm for bodies above 25 cm, so a
 * body rocking about a place stays in its ball in whatever phase its window
 * began up to 12.5 mm either way. (At half that, a box rocking 7 mm either
 * way on two neighbours kept a settled heap of 1000 boxes awake for three
 * seconds.) How far it may creep is SLEEP_DRIFT_COUPLED's.
 */
const SLEEP_DRIFT = 1;
/**
 * The same for the means of the two halves of a window of a body that
 * touches another moving body: a creep under a mean 2.5 cm/s for bodies
 * above 25 cm (a creep at v parts them by v T / 2), a start from rest under
 * 0.1 m/s^2 (a T^2 / 4). Piles creep on each other for seconds before they
 * settle (with a fifth of this as the only limit, 10 of 19 ring piles and
 * heaps did not sleep within 8-15 s, against 1), but three
 * boxes gliding together on ice at 2.7 cm/s, which a ball of 18.75 mm put to
 * sleep, glide on. Over 13 piles (boxes of 150-1000, rings of 20-75, 30 and
 * 50 bunnies) against the one ball of 12.5 mm it replaced, rings slept at
 * 2.4-4.3 s instead of 2.4-5.6, 30 bunnies at 4.7 s instead of never, the
 * box heaps (chaotic: each moved either way) at 4.5-11.8 s against 4.5-10.8.
 */
const SLEEP_DRIFT_COUPLED = 0.25;
/**
 * The same for the means of the two halves of a window of a body that
 * touches no other moving body (only static or sleeping ones, or none).
 */
const SLEEP_DRIFT_ALONE = 0.02;
/** How far a body of radius r may wander (or its windows' means part) and count as still, for a drift fraction. */
function driftRadius(fraction: number, r: number): number {
  return fraction * Math.min(SLEEP_SPEED, SLEEP_SIZES * r) * SLEEP_TIME;
}
/**
 * Depth at the current poses, in cells of the pair's field, beyond which a
 * pair counts as crossed and its bodies as not still (Islands.crossed):
 * fifty times position correction's slop, far below what two bodies started
 * in each other still overlap by when they creep apart slowly enough to
 * count as still (over a millimetre for two cups).
 */
const CROSSED_CELLS = 0.1;
/**
 * The same for the accumulated contact stage, judged on its fitted manifolds
 * (AccumulatedSolver.pairDepth): soft contacts rest deeper under the weight
 * above them (the loaded contacts of a still 1000-box heap lay 2.5-4.3 mm in,
 * up to 0.17 cell, and five of them kept 850 still boxes awake at 0.1).
 */
const CROSSED_CELLS_ACCUMULATED = 0.25;
/** Islands.halves floats per body. */
const HALF_FLOATS = 16;

export class Islands {
  /** The contact solver's resting slop in cells (ContactSolver.restingSlop), added to CROSSED_CELLS. */
  private slop = 0;
  /** Seconds each body has stayed still (near its reference pose). */
  timer = new Float64Array(0);
  /** Per body, the pose its current window started from: position (3), orientation (4). */
  private ref = new Float64Array(0);
  /** Per body, seconds since its current window started. */
  private age = new Float64Array(0);
  /** Per body alone (not coupled), the still seconds of its current window, counted when the window ends steady. */
  private pending = new Float64Array(0);
  /** Per body, its window's pose sums: first half (position 3, orientation 4, count), then the second. */
  private halves = new Float64Array(0);
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
  /** Per body, this update: touching or jointed to another moving body (the loose stillness test applies). */
  private coupled = new Uint8Array(0);
  private ctx: StepContext | null = null;
  /** Joint edges: a joint acting between an awake body and a sleeping one wakes the sleeper's island. */
  private readonly union = (a: number, b: number): void => {
    const B = this.ctx!.bodies;
    if (B.asleep[a] !== B.asleep[b]) this.wake(this.ctx!, B.asleep[a] ? a : b);
    this.join(a, b);
    if (B.isStatic[a] === 0 && B.isStatic[b] === 0) {
      this.coupled[a] = 1;
      this.coupled[b] = 1;
    }
  };
  private readonly keepAwake = (i: number): void => {
    this.keep[i] = 1;
  };

  resize(n: number): void {
    if (this.timer.length === n) return;
    this.timer = new Float64Array(n);
    this.ref = new Float64Array(7 * n);
    this.age = new Float64Array(n);
    this.pending = new Float64Array(n);
    this.halves = new Float64Array(HALF_FLOATS * n);
    this.hasRef = new Uint8Array(n);
    this.sleepId = new Int32Array(n).fill(-1);
    this.parent = new Int32Array(n);
    this.minTimer = new Float64Array(n);
    this.keep = new Uint8Array(n);
    this.coupled = new Uint8Array(n);
  }

  /**
   * After integration: the stillness timers, the islands of the awake bodies (the
   * pairs of `cs` that touch, and joints), and the islands that fall asleep
   * (only when `enabled`). `depth`: the solver's per-pair depths
   * (ContactSolver.pairDepth), else the raw points judged beyond `slop`
   * cells more than CROSSED_CELLS.
   */
  update(ctx: StepContext, pairs: PairList, cs: ContactSet, c: ConstraintSystem | null, enabled: boolean, depth: Float64Array | null = null, slop = 0): void {
    const B = ctx.bodies;
    this.slop = slop;
    const n = B.count;
    const dt = ctx.dt;
    const parent = this.parent;
    this.ctx = ctx;
    this.keep.fill(0);
    c?.awakeBodies?.(ctx, this.keepAwake);
    for (let i = 0; i < n; i++) parent[i] = i;
    const coupled = this.coupled;
    coupled.fill(0);
    const active = (i: number): boolean => B.isStatic[i] === 0 && B.asleep[i] === 0;
    for (let k = 0; k < pairs.count; k++) {
      if (cs.start[k] === cs.end[k]) continue;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      // Still crossed (deeper now than resting contacts ever are): being
      // pushed apart, however slowly, is not being still.
      if (depth ? depth[k]! < -CROSSED_CELLS_ACCUMULATED * pairCell(ctx.shapes, B, a, b) : this.crossed(ctx, cs, k, a, b)) {
        this.keep[a] = 1;
        this.keep[b] = 1;
      }
      if (active(a) && active(b)) {
        this.join(a, b);
        coupled[a] = 1;
        coupled[b] = 1;
      }
    }
    c?.graphEdges(ctx, this.union);
    for (let i = 0; i < n; i++) {
      if (B.isStatic[i] || B.asleep[i]) continue;
      if (this.keep[i] || !this.hasRef[i] || !this.still(ctx, i)) {
        this.restart(B, i);
        continue;
      }
      this.age[i] += dt;
      this.addToHalf(B, i);
      if (coupled[i]) this.timer[i] += dt;
      else this.pending[i] += dt;
      // (Half a step of slack: the window's steps add up to it in rounding.)
      if (this.age[i]! >= SLEEP_TIME - 0.5 * dt) {
        // A window ends still: the next one starts here, the timer runs on.
        // The window counts only if the means of its two halves agree
        // (steady(): the body is not on its way somewhere; more closely for
        // a body that touches nothing that moves); if not, its second half
        // begins the next window, so a body that has just come to rest
        // counts from there.
        if (!this.steady(ctx, i, coupled[i] ? SLEEP_DRIFT_COUPLED : SLEEP_DRIFT_ALONE)) {
          this.timer[i] = 0;
          this.shiftHalf(i);
          continue;
        }
        this.timer[i] += this.pending[i]!;
        this.anchor(B, i);
      }
    }
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
      // (Half a step of slack, as for the window: 30 steps of 1/60 s add up to 0.49999999999999994.)
      if (enabled && minT[root]! >= SLEEP_TIME - 0.5 * dt) {
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

  /**
   * Whether pair k's bodies are still in each other at the current poses
   * by more than CROSSED_CELLS of its field: position correction is
   * pushing them apart (a tenth of the excess a step, so millimetres take a
   * while), and an island that fell asleep so would stay crossed for good,
   * since a sleeping pair is neither queried nor corrected.
   */
  private crossed(ctx: StepContext, cs: ContactSet, k: number, a: number, b: number): boolean {
    let deepest = 0;
    for (let i = cs.start[k]!, e = cs.end[k]!; i < e; i++) if (cs.gap[i]! < deepest) deepest = cs.gap[i]!;
    return deepest < -(CROSSED_CELLS + this.slop) * pairCell(ctx.shapes, ctx.bodies, a, b);
  }

  /** Whether body i is still within its ball around the reference pose. */
  private still(ctx: StepContext, i: number): boolean {
    const B = ctx.bodies;
    const r = ctx.shapeOf(i).radius;
    const D = driftRadius(SLEEP_DRIFT, r);
    const R = this.ref, o = 7 * i;
    const d = norm3(B.pos[3 * i]! - R[o]!, B.pos[3 * i + 1]! - R[o + 1]!, B.pos[3 * i + 2]! - R[o + 2]!);
    if (!(d < D)) return false;
    const q = B.quat;
    const dot = Math.abs(q[4 * i]! * R[o + 3]! + q[4 * i + 1]! * R[o + 4]! + q[4 * i + 2]! * R[o + 5]! + q[4 * i + 3]! * R[o + 6]!);
    // The angle between the orientations is 2 acos |q . q_ref|.
    return 2 * det.acos(Math.min(dot, 1)) * r < D;
  }

  /**
   * Adds body i's pose to the sums of its window's first or second half
   * (position, and orientation on the reference's side of the double cover).
   */
  private addToHalf(B: StepContext['bodies'], i: number): void {
    const h = this.halves, o = HALF_FLOATS * i + (this.age[i]! <= 0.5 * SLEEP_TIME ? 0 : 8);
    const R = this.ref, ro = 7 * i, q = B.quat;
    const sign = q[4 * i]! * R[ro + 3]! + q[4 * i + 1]! * R[ro + 4]! + q[4 * i + 2]! * R[ro + 5]! + q[4 * i + 3]! * R[ro + 6]! < 0 ? -1 : 1;
    for (let k = 0; k < 3; k++) h[o + k] += B.pos[3 * i + k]!;
    for (let k = 0; k < 4; k++) h[o + 3 + k] += sign * q[4 * i + k]!;
    h[o + 7] += 1;
  }

  /**
   * Whether body i's mean pose over the first half of its window and over
   * the second agree to driftRadius(fraction) (position, and angle
   * times its radius): a body that jitters about a place has the same mean
   * in both, one that creeps or starts to slide or roll has not.
   */
  private steady(ctx: StepContext, i: number, fraction: number): boolean {
    const h = this.halves, o = HALF_FLOATS * i;
    const n1 = h[o + 7]!, n2 = h[o + 15]!;
    if (!(n1 > 0 && n2 > 0)) return false;
    const r = ctx.shapeOf(i).radius;
    const D = driftRadius(fraction, r);
    const d = norm3(h[o]! / n1 - h[o + 8]! / n2, h[o + 1]! / n1 - h[o + 9]! / n2, h[o + 2]! / n1 - h[o + 10]! / n2);
    if (!(d < D)) return false;
    let dot = 0, l1 = 0, l2 = 0;
    for (let k = 3; k < 7; k++) {
      dot += h[o + k]! * h[o + 8 + k]!;
      l1 += h[o + k]! * h[o + k]!;
      l2 += h[o + 8 + k]! * h[o + 8 + k]!;
    }
    const c = Math.abs(dot) / Math.sqrt(l1 * l2);
    return 2 * det.acos(Math.min(c, 1)) * r < D;
  }

  /**
   * Makes the second half of body i's window the first half of the next
   * (the reference pose stays: the ball still bounds the whole of it).
   */
  private shiftHalf(i: number): void {
    const h = this.halves, o = HALF_FLOATS * i;
    for (let k = 0; k < 8; k++) {
      h[o + k] = h[o + 8 + k]!;
      h[o + 8 + k] = 0;
    }
    this.age[i] = 0.5 * SLEEP_TIME;
    this.pending[i] = 0.5 * SLEEP_TIME;
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
    this.pending[i] = 0;
    this.halves.fill(0, HALF_FLOATS * i, HALF_FLOATS * (i + 1));
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
