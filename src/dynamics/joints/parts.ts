/**
 * The primitive joint constraints ("parts") as a structure of arrays.
 *
 * The scene's nine joint types reduce to the seed's six primitives (ch. 9):
 *
 *   kind   removes                       composite types built from it
 *   BALL   3 translational DOF (9.1.1)   hinge = BALL + AXIS, fixed = BALL + LOCK
 *   LINE   2 translational DOF (9.1.2)   slider = LINE + LOCK
 *   PLANE  1 translational DOF (9.1.3)
 *   LOCK   3 rotational DOF    (9.2.1)
 *   AXIS   2 rotational DOF    (9.2.2)
 *   ANGLE  1 rotational DOF    (9.2.3)
 *   DIST   the anchors' distance          distance (d = L), rope (d <= L)
 *
 * Per part p (all vectors in the centre-of-mass frame of the body named):
 *   kind[p], a[p], b[p]   primitive and the two body indices
 *   joint[p]              index of the scene joint it belongs to
 *   rA[3p..], rB[3p..]    anchors on A and B (BALL, LINE, PLANE, DIST)
 *   axA[3p..]             LINE: the line direction on A; PLANE: the plane's
 *                         normal on A (axisA x axis2A); AXIS: a1; ANGLE: a
 *   axB[3p..]             AXIS: a2; ANGLE: b (both on B)
 *   ref[4p..]             LOCK: the rest relative orientation conj(qA0) qB0;
 *                         ANGLE: ref[4p] = the rest angle phi0 between a and b;
 *                         DIST: ref[4p] = the length L, ref[4p+1] = 1 for a
 *                         rope (0: distance), ref[4p+2] = the rope's
 *                         restitution, ref[4p+3] = the speed it goes taut
 *                         with in this step (0: none; solve.ts ropeImpact)
 */
import { growColumns } from '../../util/growable.ts';
export const BALL = 0;
export const LINE = 1;
export const PLANE = 2;
export const LOCK = 3;
export const AXIS = 4;
export const ANGLE = 5;
export const DIST = 6;

/** True for the parts whose error is a distance (m); the others are angles (rad). */
export function isTranslational(kind: number): boolean {
  return kind <= PLANE || kind === DIST;
}

/** A part's columns. */
const PART_COLUMNS = { kind: 1, a: 1, b: 1, joint: 1, rA: 3, rB: 3, axA: 3, axB: 3, ref: 4 } as const;

export class JointParts {
  count = 0;
  kind = new Uint8Array(8);
  a = new Int32Array(8);
  b = new Int32Array(8);
  joint = new Int32Array(8);
  rA = new Float64Array(24);
  rB = new Float64Array(24);
  axA = new Float64Array(24);
  axB = new Float64Array(24);
  ref = new Float64Array(32);

  /** Appends a part with zero vectors; returns its index (fill the vectors afterwards). */
  add(kind: number, joint: number, a: number, b: number): number {
    if (this.count === this.kind.length) growColumns(this, PART_COLUMNS, 2 * this.count);
    const p = this.count++;
    this.kind[p] = kind;
    this.joint[p] = joint;
    this.a[p] = a;
    this.b[p] = b;
    return p;
  }
}
