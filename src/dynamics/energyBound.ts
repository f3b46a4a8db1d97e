/**
 * Shock propagation that adds no kinetic energy of its own.
 *
 * Shock propagation (the seed's frozen levels, SequentialSolver.shockPass)
 * treats the levels below as immovable, so a lower body that is still
 * moving hands its motion to the bodies above it without slowing down: a
 * box shot sideways into a stack of ten (restitution 0) made the stack gain
 * 0.3-0.7 J in a step. On a resting stack the pass only stops what sinks
 * and takes energy out; on a struck one it can put energy in.
 *
 * So the pass is bounded per island. With v0 the velocities before it and
 * dv what it changed, scaling its change by alpha gives the island
 *
 *   E(alpha) = E0 + alpha L + alpha^2 Q / 2,
 *   L = sum m v0 . dv + w0 . I dw,   Q = sum m |dv|^2 + dw . I dw.
 *
 * An island whose E(1) exceeds E0 keeps the largest alpha with E(alpha) <=
 * E0, -2 L / Q (0 when L >= 0); every other island keeps the whole pass
 * (alpha = 1: on a resting stack L = -Q and E drops). An island a joint
 * holds keeps it whole too: the pass carries the joints' corrections, which
 * are not contact impulses (the accumulated stage's warm start bounds its
 * islands the same way, AccumulatedSolver.warmStart).
 */
import { DisjointSets } from '../geometry/disjointSets.ts';
import type { ConstraintSystem } from './constraints.ts';
import { quatToMat3 } from './math.ts';
import type { StepContext } from './stepContext.ts';

/** Energy an island may gain from the pass (J) and still keep it whole: round-off. */
const ENERGY_SLACK = 1e-9;

/**
 * The factor to scale an island's velocity change by, given L and Q (file
 * comment): 1 while E(1) - E0 = L + Q / 2 is at most `slack` (or not
 * finite: the step's guard reports that), else the largest alpha with
 * E(alpha) <= E0, -2 L / Q (0 when L >= 0). Shared by shock propagation
 * here and the accumulated stage's bounded warm start.
 */
export function energyAlpha(L: number, Q: number, slack: number): number {
  if (!(L + 0.5 * Q > slack) || !Number.isFinite(L + Q)) return 1;
  return L < 0 && Q > 0 ? (-2 * L) / Q : 0;
}

export class EnergyBound {
  private v0 = new Float64Array(0);
  private w0 = new Float64Array(0);
  /** Per island root: L and Q (file comment), then alpha in L's place. */
  private sums = new Float64Array(0);
  /** Per body: 1 when a joint holds it (its island keeps the pass whole). */
  private jointed = new Uint8Array(0);
  private sets = new DisjointSets(0);
  private size = -1;
  private readonly R = new Float64Array(9);
  /** Islands whose pass was scaled down by the last limit(). */
  scaled = 0;
  /** Kinetic energy the last pass changed (J), as it came and as bounded: > 0 where it added some. */
  unbounded = 0;
  gain = 0;
  /** Off: limit() only measures (tests compare). */
  enabled = true;

  /** Keeps the bodies' velocities before the pass. */
  snapshot(ctx: StepContext): void {
    const B = ctx.bodies, n = B.count;
    if (this.size !== n) {
      this.v0 = new Float64Array(3 * n);
      this.w0 = new Float64Array(3 * n);
      this.sums = new Float64Array(2 * n);
      this.jointed = new Uint8Array(n);
      this.sets = new DisjointSets(n);
      this.size = n;
    }
    this.scaled = 0;
    this.unbounded = 0;
    this.gain = 0;
    this.v0.set(B.vel.subarray(0, 3 * n));
    this.w0.set(B.angVel.subarray(0, 3 * n));
  }

  /**
   * Scales the change since snapshot() per island (pairs joining two moving
   * bodies: those `touching` says touch, and joints) where it added kinetic
   * energy; returns how many islands it scaled. (Static and sleeping bodies
   * do not move, so the bodies that do carry all the energy the pass changes.)
   */
  limit(ctx: StepContext, pairCount: number, pairA: Int32Array, pairB: Int32Array, touching: (k: number) => boolean, joints: ConstraintSystem | null): number {
    const B = ctx.bodies, n = B.count;
    const moving = (i: number): boolean => B.isStatic[i] === 0 && B.asleep[i] === 0;
    const sets = this.sets, sums = this.sums, jointed = this.jointed;
    for (let i = 0; i < n; i++) {
      sets.reset(i);
      jointed[i] = 0;
    }
    sums.fill(0, 0, 2 * n);
    for (let k = 0; k < pairCount; k++) {
      const a = pairA[k]!, b = pairB[k]!;
      if (moving(a) && moving(b) && touching(k)) sets.union(a, b);
    }
    if (joints) {
      joints.graphEdges(ctx, (u, v) => {
        jointed[u] = 1;
        jointed[v] = 1;
        if (moving(u) && moving(v)) sets.union(u, v);
      });
    }
    const v = B.vel, w = B.angVel, v0 = this.v0, w0 = this.w0, R = this.R;
    for (let i = 0; i < n; i++) {
      if (!moving(i)) continue;
      const o = 3 * i, m = B.mass[i]!;
      const dx = v[o]! - v0[o]!, dy = v[o + 1]! - v0[o + 1]!, dz = v[o + 2]! - v0[o + 2]!;
      let L = m * (v0[o]! * dx + v0[o + 1]! * dy + v0[o + 2]! * dz);
      let Q = m * (dx * dx + dy * dy + dz * dz);
      const ex = w[o]! - w0[o]!, ey = w[o + 1]! - w0[o + 1]!, ez = w[o + 2]! - w0[o + 2]!;
      if (ex !== 0 || ey !== 0 || ez !== 0) {
        // In the body frame: w0 . I dw and dw . I dw with I = (m / volume) inertiaUnit.
        quatToMat3(B.quat, 4 * i, R);
        const s = ctx.shapeOf(i), u = s.inertiaUnit, f = m / s.volume;
        const ax = R[0]! * w0[o]! + R[3]! * w0[o + 1]! + R[6]! * w0[o + 2]!;
        const ay = R[1]! * w0[o]! + R[4]! * w0[o + 1]! + R[7]! * w0[o + 2]!;
        const az = R[2]! * w0[o]! + R[5]! * w0[o + 1]! + R[8]! * w0[o + 2]!;
        const bx = R[0]! * ex + R[3]! * ey + R[6]! * ez;
        const by = R[1]! * ex + R[4]! * ey + R[7]! * ez;
        const bz = R[2]! * ex + R[5]! * ey + R[8]! * ez;
        const ix = f * (u[0]! * bx + u[1]! * by + u[2]! * bz);
        const iy = f * (u[3]! * bx + u[4]! * by + u[5]! * bz);
        const iz = f * (u[6]! * bx + u[7]! * by + u[8]! * bz);
        L += ax * ix + ay * iy + az * iz;
        Q += bx * ix + by * iy + bz * iz;
      }
      const r = 2 * sets.find(i);
      sums[r] += L;
      sums[r + 1] += Q;
    }
    for (let i = 0; i < n; i++) if (jointed[i]) jointed[sets.find(i)] = 1;
    let scaled = 0, unbounded = 0, gain = 0;
    for (let i = 0; i < n; i++) {
      if (!moving(i) || sets.find(i) !== i) continue;
      const L = sums[2 * i]!, Q = sums[2 * i + 1]!;
      const alpha = this.enabled && !jointed[i] ? energyAlpha(L, Q, ENERGY_SLACK) : 1;
      if (alpha !== 1) scaled++;
      unbounded += L + 0.5 * Q;
      gain += alpha * L + 0.5 * alpha * alpha * Q;
      sums[2 * i] = alpha;
    }
    this.unbounded = unbounded;
    this.gain = gain;
    if (scaled > 0) {
      for (let i = 0; i < n; i++) {
        if (!moving(i)) continue;
        const alpha = sums[2 * sets.find(i)]!;
        if (alpha === 1) continue;
        ctx.version[i]++;
        for (let c = 3 * i; c < 3 * i + 3; c++) {
          v[c] = v0[c]! + alpha * (v[c]! - v0[c]!);
          w[c] = w0[c]! + alpha * (w[c]! - w0[c]!);
        }
      }
    }
    this.scaled = scaled;
    return scaled;
  }
}
