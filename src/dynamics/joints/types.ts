/**
 * Joints and motors as the engine takes them. The scene format (docs/SCENE_FORMAT.md
 * "joints", "motors") maps one to one onto these; anchors and axes are in each
 * shape's own frame as written, and the joint system moves anchors onto the
 * centre-of-mass frame itself.
 */
import type { Vec3 } from '../../geometry/mesh.ts';

export type JointType = 'ball' | 'line' | 'plane' | 'lockRotation' | 'axis' | 'angle' | 'hinge' | 'slider' | 'fixed' | 'distance' | 'rope';

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
  /** distance: the anchors' distance held; rope: the most it may reach (m, > 0). 0 for the other types. */
  length: number;
  /** rope: the restitution with which it goes taut (0 .. 1); 0 for the other types. */
  restitution: number;
}

// Motors describe themselves (motors.ts); the scene layer takes every description from here.
export type { MotorDesc, MotorSegment } from '../motors.ts';
