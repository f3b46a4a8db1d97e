/**
 * Independent measurements of joint quantities for the joint tests, computed
 * from the body state alone (not through the solver's own error routine).
 */
import type { World } from '../../src/dynamics/world.ts';
import { bodyIndex } from '../dynamics/helpers.ts';

export type V3 = [number, number, number];
export type Q4 = [number, number, number, number];

export function quat(w: World, name: string): Q4 {
  const i = bodyIndex(w, name);
  const q = w.bodies.quat;
  return [q[4 * i]!, q[4 * i + 1]!, q[4 * i + 2]!, q[4 * i + 3]!];
}

export function angVel(w: World, name: string): V3 {
  const i = bodyIndex(w, name);
  const a = w.bodies.angVel;
  return [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
}

/** v rotated by the unit quaternion q = [x, y, z, w]. */
export function rotate(q: Q4, v: V3): V3 {
  const [x, y, z, s] = q;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + s * tx + (y * tz - z * ty), v[1] + s * ty + (z * tx - x * tz), v[2] + s * tz + (x * ty - y * tx)];
}

export function mul(a: Q4, b: Q4): Q4 {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

export function conj(q: Q4): Q4 {
  return [-q[0], -q[1], -q[2], q[3]];
}

/** Rotation angle of a unit quaternion (0..pi). */
export function angleOf(q: Q4): number {
  return 2 * Math.atan2(Math.hypot(q[0], q[1], q[2]), Math.abs(q[3]));
}

export const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const dot = (a: V3, b: V3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const norm = (a: V3): number => Math.hypot(a[0], a[1], a[2]);
export const scale = (a: V3, s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];

/** Angle between two vectors (0..pi). */
export function angleBetween(a: V3, b: V3): number {
  return Math.atan2(norm(cross(a, b)), dot(a, b));
}

/**
 * World position of a point given in the body's *shape* frame (as joint anchors
 * are written in scene files): x + R (local - comOffset).
 */
export function worldPoint(w: World, name: string, local: V3): V3 {
  const i = bodyIndex(w, name);
  const c = w.shapes[w.bodies.shape[i]!]!.comOffset;
  const p = w.bodies.pos;
  return add([p[3 * i]!, p[3 * i + 1]!, p[3 * i + 2]!], rotate(quat(w, name), [local[0] - c[0], local[1] - c[1], local[2] - c[2]]));
}

/** Kinetic plus potential energy (potential relative to y = 0, along gravity). */
export function totalEnergy(w: World): number {
  const B = w.bodies;
  let e = w.kineticEnergy();
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    e -= B.mass[i]! * (w.gravity[0] * B.pos[3 * i]! + w.gravity[1] * B.pos[3 * i + 1]! + w.gravity[2] * B.pos[3 * i + 2]!);
  }
  return e;
}
