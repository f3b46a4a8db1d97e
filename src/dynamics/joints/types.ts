/**
 * Joints and motors as the engine takes them. The scene format (docs/SCENE_FORMAT.md
 * "joints", "motors") maps one to one onto these; anchors and axes are in each
 * shape's own frame as written, and the joint system moves anchors onto the
 * centre-of-mass frame itself.
 */
import type { Vec3 } from '../../geometry/mesh.ts';

export type JointType = 'ball' | 'line' | 'plane' | 'lockRotation' | 'axis' | 'angle' | 'hinge' | 'slider' | 'fixed';

export interface JointDesc {
  /** Unique among the scene's joints ("joint<i>" by default); joint motors name it. */
  name: string;
  type: JointType;
  bodyA: string;
  bodyB: string;
  /** Anchors and axes in each shape's own frame, as written in the file. */
  anchorA: Vec3;
  anchorB: Vec3;
  axisA: Vec3;
  axisB: Vec3;
  axis2A: Vec3;
  collide: boolean;
}

/** One segment of a motor program: hold `speed` for `duration` seconds. */
export interface MotorSegment {
  /** rad/s (body motors, hinges) or m/s (sliders), signed along the motor's axis. */
  speed: number;
  /** Seconds; Infinity for a constant target. */
  duration: number;
}

/**
 * A motor (docs/SCENE_FORMAT.md "motors"). Exactly one of `body` and `joint`
 * is non-empty: a body motor turns one body by a pure couple (seed 003); a
 * joint motor drives a hinge or slider with equal and opposite torques or
 * forces on the joint's two bodies.
 */
export interface MotorDesc {
  name: string;
  /** The driven body of a body motor, else "". */
  body: string;
  /** The hinge or slider a joint motor drives, else "". */
  joint: string;
  /** Body motors: the unit axis ([0, 0, 0]: the motor does nothing), in `frame`. Joint motors: unused. */
  axis: Vec3;
  /** Body motors: the axis is fixed in the world, or turns with the body (its shape's own frame). */
  frame: 'world' | 'body';
  /** Target speed segments from `from` on; a constant target is one segment of infinite duration. */
  program: MotorSegment[];
  /** Start the program again when it ends (otherwise the motor stops there). */
  repeat: boolean;
  startTorque: number;
  /** N m (or N) added every active step that did not reach the target. */
  torqueIncrement: number;
  maxTorque: number;
  /** Seconds: a step is active when its midpoint lies in [from, until). */
  from: number;
  until: number;
}
