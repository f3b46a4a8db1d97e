/**
 * Two bodies' distance fields at a world point, and the point where their
 * surfaces meet: for the smooth contact point of a curved patch
 * (PatchBuilder.refine in patches.ts, and the accumulated stage's curved
 * manifolds in accumulatedSolver.ts).
 *
 * A body's field is read through a pose held in a slot (centre, 3 floats;
 * rotation, 9); a plane body's field is its plane, exactly.
 */
import type { StepContext } from './stepContext.ts';
import { bodyPoint, integrateQuat, mulMat3Vec, norm3, quatToMat3, tangentBasis } from './math.ts';
import { OUTSIDE_DISTANCE, sampleSdf, type SdfGrid } from '../sdf/grid.ts';

/** A field's central difference whose length is off 1 by more than this straddles a crease (fieldGradient). */
const CD_SLACK = 0.02;

const LOCAL = new Float64Array(3);
/** A world point in a body's frame (toBody). */
const AT = new Float64Array(3);

/**
 * The unit gradient of a body's field (grid g; the body at slot: centre at
 * P[3 slot..], rotation at R[9 slot..]) at world point (x, y, z), in world
 * axes, into out; false outside its grid.
 *
 * Central differences a cell wide: the interpolated field's own derivative
 * is first order in the cell (a sphere's read up to a degree off radial),
 * its differences a cell apart second order (the interpolation's error
 * repeats from cell to cell and cancels). Where they straddle a crease of
 * the field (the middle of a thin wall, a sharp edge) their length falls
 * short of a distance field's 1: then the field's own derivative.
 */
function fieldGradient(g: SdfGrid, P: Float64Array, R: Float64Array, slot: number, x: number, y: number, z: number, out: Float64Array): boolean {
  const o = 9 * slot;
  toBody(P, R, slot, x, y, z);
  const lx = AT[0]!, ly = AT[1]!, lz = AT[2]!;
  const n = LOCAL;
  const h = g.cellSize;
  const xp = sampleSdf(g, lx + h, ly, lz), xm = sampleSdf(g, lx - h, ly, lz);
  const yp = sampleSdf(g, lx, ly + h, lz), ym = sampleSdf(g, lx, ly - h, lz);
  const zp = sampleSdf(g, lx, ly, lz + h), zm = sampleSdf(g, lx, ly, lz - h);
  n[0] = xp - xm; n[1] = yp - ym; n[2] = zp - zm;
  const cd = norm3(n[0], n[1], n[2]) / (2 * h);
  if (!(Math.abs(cd - 1) < CD_SLACK) || xp === OUTSIDE_DISTANCE || xm === OUTSIDE_DISTANCE || yp === OUTSIDE_DISTANCE ||
    ym === OUTSIDE_DISTANCE || zp === OUTSIDE_DISTANCE || zm === OUTSIDE_DISTANCE) {
    if (sampleSdf(g, lx, ly, lz, n) === OUTSIDE_DISTANCE) return false;
  }
  mulMat3Vec(R, o, n[0]!, n[1]!, n[2]!, out);
  const l = norm3(out[0]!, out[1]!, out[2]!);
  if (!(l > 0)) return false;
  out[0] = out[0]! / l; out[1] = out[1]! / l; out[2] = out[2]! / l;
  return true;
}

/** A body's field value at world point (x, y, z) (OUTSIDE_DISTANCE beyond its grid). */
function fieldValue(g: SdfGrid, P: Float64Array, R: Float64Array, slot: number, x: number, y: number, z: number): number {
  toBody(P, R, slot, x, y, z);
  return sampleSdf(g, AT[0]!, AT[1]!, AT[2]!);
}

/** World point (x, y, z) in the frame of the body at slot (centre P[3 slot..], rotation R[9 slot..]), R^T (x - p), into AT. */
function toBody(P: Float64Array, R: Float64Array, slot: number, x: number, y: number, z: number): void {
  const o = 9 * slot;
  const dx = x - P[3 * slot]!, dy = y - P[3 * slot + 1]!, dz = z - P[3 * slot + 2]!;
  AT[0] = R[o]! * dx + R[o + 3]! * dy + R[o + 6]! * dz;
  AT[1] = R[o + 1]! * dx + R[o + 4]! * dy + R[o + 7]! * dz;
  AT[2] = R[o + 2]! * dx + R[o + 5]! * dy + R[o + 8]! * dz;
}

/** Most secant steps of SurfaceMeet.find, and the tangential residual |grad phi_a + grad phi_b| it stops at (about 0.006 degrees). */
const MEET_STEPS = 8;
const MEET_TOL = 1e-4;

/**
 * Where the surfaces of two bodies meet near a start point, at the bodies'
 * current poses or a moment ahead of them: the point x where the two fields' gradients are opposite
 * (phi_a + phi_b is least across the normal), found by a few secant steps on
 * the tangential residual of grad phi_a + grad phi_b. There the normal is
 * grad phi_b - grad phi_a (pointing from b into a) and the surfaces lie
 * phi_a(x) + phi_b(x) apart (negative: overlapping). On two smooth bodies it
 * is the contact point a rolling body turns about: the line from it along
 * the normal passes through a ball's centre, so the ball's spin moves it
 * along the surface, not into it.
 */
export class SurfaceMeet {
  px = 0; py = 0; pz = 0;
  nx = 0; ny = 0; nz = 0;
  gap = 0;
  /** The poses read: each body's centre (3 per slot, a then b) and rotation (9 per slot). */
  private readonly pos = new Float64Array(6);
  private readonly rot = new Float64Array(18);
  private readonly quat = new Float64Array(4);
  private readonly gA = new Float64Array(3);
  private readonly gB = new Float64Array(3);

  /**
   * From (x, y, z), for bodies a and b of ctx at their current poses, or
   * where their velocities carry them in `ahead` seconds; false (nothing
   * set) when a field has no value there, the steps do not settle, x moves
   * farther than `reach` from the start, or the normal turns more than
   * acos(minCos) from (mx, my, mz), the expected one.
   */
  find(ctx: StepContext, a: number, b: number, x: number, y: number, z: number, mx: number, my: number, mz: number, reach: number, minCos: number, ahead = 0): boolean {
    const sa = ctx.shapeOf(a), sb = ctx.shapeOf(b);
    const ga = sa.sdf, gb = sb.sdf;
    const planeA = sa.kind === 'plane', planeB = sb.kind === 'plane';
    if ((!ga && !planeA) || (!gb && !planeB) || (planeA && planeB)) return false;
    this.pose(ctx, a, 0, ahead);
    this.pose(ctx, b, 1, ahead);
    const x0 = x, y0 = y, z0 = z;
    // The radii of curvature are unknown: the first step assumes two equal
    // spheres of the smaller body's size, later ones the secant's.
    let alpha = 0.5 * Math.min(planeA ? Infinity : sa.radius, planeB ? Infinity : sb.radius);
    let prevT = 0, prevRx = 0, prevRy = 0, prevRz = 0;
    let ux = 0, uy = 0, uz = 0;
    const A = this.gA, G = this.gB;
    for (let it = 0; it < MEET_STEPS; it++) {
      if (!this.gradient(ctx, planeA ? null : ga, a, 0, x, y, z, A) || !this.gradient(ctx, planeB ? null : gb, b, 1, x, y, z, G)) return false;
      ux = G[0]! - A[0]!; uy = G[1]! - A[1]!; uz = G[2]! - A[2]!;
      const ul = norm3(ux, uy, uz);
      if (!(ul > 0)) return false;
      ux /= ul; uy /= ul; uz /= ul;
      // The residual's part across the normal.
      let rx = A[0]! + G[0]!, ry = A[1]! + G[1]!, rz = A[2]! + G[2]!;
      const rn = rx * ux + ry * uy + rz * uz;
      rx -= rn * ux; ry -= rn * uy; rz -= rn * uz;
      const rl = norm3(rx, ry, rz);
      if (rl < MEET_TOL) break;
      if (it === MEET_STEPS - 1) return false;
      if (it > 0) {
        const dr = (rx - prevRx) * prevRx + (ry - prevRy) * prevRy + (rz - prevRz) * prevRz;
        // Secant along the last step: the residual fell from prevT by -dr over alpha * prevT.
        if (dr < 0) alpha = Math.min(4 * alpha, (alpha * prevT * prevT) / -dr);
      }
      prevT = rl; prevRx = rx; prevRy = ry; prevRz = rz;
      x -= alpha * rx; y -= alpha * ry; z -= alpha * rz;
      if (norm3(x - x0, y - y0, z - z0) > reach) return false;
    }
    if (ux * mx + uy * my + uz * mz < minCos) return false;
    const va = this.value(ctx, planeA ? null : ga, a, 0, x, y, z);
    const vb = this.value(ctx, planeB ? null : gb, b, 1, x, y, z);
    if (va === OUTSIDE_DISTANCE || vb === OUTSIDE_DISTANCE) return false;
    this.px = x; this.py = y; this.pz = z;
    this.nx = ux; this.ny = uy; this.nz = uz;
    this.gap = va + vb;
    return true;
  }

  /** Body i's pose `ahead` seconds on at its velocities (a moving body's), into slot. */
  private pose(ctx: StepContext, i: number, slot: number, ahead: number): void {
    const B = ctx.bodies, P = this.pos;
    if (ahead === 0 || !(ctx.invMass[i]! > 0)) {
      P[3 * slot] = B.pos[3 * i]!; P[3 * slot + 1] = B.pos[3 * i + 1]!; P[3 * slot + 2] = B.pos[3 * i + 2]!;
      quatToMat3(B.quat, 4 * i, this.rot, 9 * slot);
      return;
    }
    const V = B.vel, W = B.angVel;
    P[3 * slot] = B.pos[3 * i]! + ahead * V[3 * i]!;
    P[3 * slot + 1] = B.pos[3 * i + 1]! + ahead * V[3 * i + 1]!;
    P[3 * slot + 2] = B.pos[3 * i + 2]! + ahead * V[3 * i + 2]!;
    integrateQuat(B.quat, 4 * i, W[3 * i]!, W[3 * i + 1]!, W[3 * i + 2]!, ahead, this.quat, 0);
    quatToMat3(this.quat, 0, this.rot, 9 * slot);
  }

  /** How far body i's centre moves in `ahead` seconds (what find's point takes from its pose), into out. */
  centreMotion(ctx: StepContext, i: number, ahead: number, out: Float64Array): void {
    const moving = ahead !== 0 && ctx.invMass[i]! > 0, V = ctx.bodies.vel;
    out[0] = moving ? ahead * V[3 * i]! : 0;
    out[1] = moving ? ahead * V[3 * i + 1]! : 0;
    out[2] = moving ? ahead * V[3 * i + 2]! : 0;
  }

  /** A body's unit field gradient (its plane's normal for a plane body) at a world point. */
  private gradient(ctx: StepContext, g: SdfGrid | null, body: number, slot: number, x: number, y: number, z: number, out: Float64Array): boolean {
    if (g) return fieldGradient(g, this.pos, this.rot, slot, x, y, z, out);
    const nl = ctx.shapeOf(body).planeNormal!;
    mulMat3Vec(this.rot, 9 * slot, nl[0], nl[1], nl[2], out);
    return true;
  }

  /** A body's field value (its plane's signed distance for a plane body) at a world point. */
  private value(ctx: StepContext, g: SdfGrid | null, body: number, slot: number, x: number, y: number, z: number): number {
    const P = this.pos;
    if (g) return fieldValue(g, P, this.rot, slot, x, y, z);
    const nl = ctx.shapeOf(body).planeNormal!;
    const o = 9 * slot, R = this.rot;
    const nx = R[o]! * nl[0] + R[o + 1]! * nl[1] + R[o + 2]! * nl[2];
    const ny = R[o + 3]! * nl[0] + R[o + 4]! * nl[1] + R[o + 5]! * nl[2];
    const nz = R[o + 6]! * nl[0] + R[o + 7]! * nl[1] + R[o + 8]! * nl[2];
    return nx * (x - P[3 * slot]!) + ny * (y - P[3 * slot + 1]!) + nz * (z - P[3 * slot + 2]!);
  }
}

/**
 * A true sphere's contact normal against a mesh that lies within ~37
 * degrees of the mesh's field gradient at the sphere's centre is replaced
 * by that gradient (patches.ts underBall, pgs.ts buildRows; the accumulated
 * stage's clusters, CLUSTER_COS); farther off (the other side of a groove)
 * it keeps its own.
 */
export const BALL_CONE = 0.8;

/**
 * The true sphere (a `sphere` shape) of pair (a, b) when the other body is a
 * mesh with a field, or -1: against a plane, a sphere or a convex solid its
 * contact is one exact point already (narrowphase.ts).
 */
export function meshBall(ctx: StepContext, a: number, b: number): number {
  const sa = ctx.shapeOf(a), sb = ctx.shapeOf(b);
  const ball = sa.sphere ? a : sb.sphere ? b : -1;
  if (ball < 0) return -1;
  const o = ball === a ? sb : sa;
  return o.sphere || o.convex || !o.sdf ? -1 : ball;
}

/**
 * For the true sphere `ball` met by body `other`: the sphere's centre at the
 * current poses into out[4..7), and whether other's field reaches it, with
 * its unit gradient and value there into out[0..4) (fieldAt).
 */
export function ballField(ctx: StepContext, ball: number, other: number, out: Float64Array): boolean {
  bodyPoint(ctx.bodies.pos, ctx.bodies.quat, ball, ctx.shapeOf(ball).sphere!.centre, out, 4);
  return fieldAt(ctx, other, out[4]!, out[5]!, out[6]!, out);
}

/**
 * Body i's field at world point (x, y, z), at its current pose: its unit
 * gradient (central differences a cell wide, fieldGradient; a plane body's
 * normal) into out[0..3) and its value into out[3]; false for a body
 * without a field or a point beyond its grid.
 */
export function fieldAt(ctx: StepContext, i: number, x: number, y: number, z: number, out: Float64Array): boolean {
  const sh = ctx.shapeOf(i);
  const B = ctx.bodies;
  quatToMat3(B.quat, 4 * i, FLAT_ROT, 0);
  FLAT_POS[0] = B.pos[3 * i]!; FLAT_POS[1] = B.pos[3 * i + 1]!; FLAT_POS[2] = B.pos[3 * i + 2]!;
  if (sh.kind === 'plane') {
    const nl = sh.planeNormal!;
    mulMat3Vec(FLAT_ROT, 0, nl[0], nl[1], nl[2], out);
    out[3] = out[0]! * (x - FLAT_POS[0]!) + out[1]! * (y - FLAT_POS[1]!) + out[2]! * (z - FLAT_POS[2]!);
    return true;
  }
  const g = sh.sdf;
  if (!g || !fieldGradient(g, FLAT_POS, FLAT_ROT, 0, x, y, z, out)) return false;
  const v = fieldValue(g, FLAT_POS, FLAT_ROT, 0, x, y, z);
  if (v === OUTSIDE_DISTANCE) return false;
  out[3] = v;
  return true;
}

const FLAT_POS = new Float64Array(3);
const FLAT_ROT = new Float64Array(9);
const FLAT_N = new Float64Array(3);
const FLAT_T = new Float64Array(6);

/**
 * Whether body i's surface is flat around world point (x, y, z): its field's
 * gradient a distance `reach` away along both tangents of (nx, ny, nz), both
 * ways, within acos(minCos) of that normal (a box's face, a slab; not a
 * peg's side or a bowl). A plane body is flat everywhere; a body without a
 * field, or a point beyond its grid, is not.
 */
export function flatAround(ctx: StepContext, i: number, x: number, y: number, z: number, nx: number, ny: number, nz: number, reach: number, minCos: number): boolean {
  const sh = ctx.shapeOf(i);
  if (sh.kind === 'plane') return true;
  const g = sh.sdf;
  if (!g) return false;
  const B = ctx.bodies;
  FLAT_POS[0] = B.pos[3 * i]!; FLAT_POS[1] = B.pos[3 * i + 1]!; FLAT_POS[2] = B.pos[3 * i + 2]!;
  quatToMat3(B.quat, 4 * i, FLAT_ROT, 0);
  tangentBasis(nx, ny, nz, FLAT_T);
  for (let d = 0; d < 4; d++) {
    const t = d < 2 ? 0 : 3, sg = d % 2 === 0 ? reach : -reach;
    const px = x + sg * FLAT_T[t]!, py = y + sg * FLAT_T[t + 1]!, pz = z + sg * FLAT_T[t + 2]!;
    if (!fieldGradient(g, FLAT_POS, FLAT_ROT, 0, px, py, pz, FLAT_N)) return false;
    if (FLAT_N[0]! * nx + FLAT_N[1]! * ny + FLAT_N[2]! * nz < minCos) return false;
  }
  return true;
}
