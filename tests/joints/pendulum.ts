/**
 * The pendulum the rope and distance-joint tests share: a static pivot and a
 * small ball joined at their centres, so the ball does not turn (a point-mass
 * pendulum).
 */
import type { World } from '../../src/dynamics/world.ts';
import { FORMAT, pos } from '../dynamics/helpers.ts';
import { sub, type V3 } from './geometry.ts';

export type Json = Record<string, unknown>;

export const PIVOT: V3 = [0, 3, 0];
export const G = 9.81;

/** The pivot and the ball (its keys merged in) joined by `joint`; `solver` as a scene's "solver" keys. */
export function pendulumScene(joint: Json, ball: Json, gravity: V3 = [0, -G, 0], dt = 0.01, solver?: Json): Json {
  return {
    format: FORMAT,
    dt,
    gravity,
    ...(solver ? { solver } : {}),
    shapes: {
      pivot: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } },
      ball: { type: 'sphere', radius: 0.05, sdf: { cells: 8 } },
    },
    bodies: [
      { name: 'pivot', shape: 'pivot', static: true, position: PIVOT },
      { name: 'ball', shape: 'ball', ...ball },
    ],
    joints: [{ bodyA: 'pivot', bodyB: 'ball', anchorA: [0, 0, 0], anchorB: [0, 0, 0], ...joint }],
  };
}

/** The ball's offset from the pivot. */
export const arm = (w: World): V3 => sub(pos(w, 'ball'), PIVOT);
