/**
 * The app's notion of a robot: the dynamic bodies joined to one another by
 * joints (a library robot's parts are; so are the seed's caterpillar plates),
 * and the motors that act on them. main.ts uses it to open a scene with
 * motors following its first robot, and the motor panel (motorPanel.ts) to
 * list the motors of the chosen body's robot. Pure functions over the world,
 * so they are unit-tested without a browser.
 */
import type { World } from '../dynamics/world.ts';

/** What these functions read of a world (a World has it all). */
export type RobotWorld = Pick<World, 'bodies' | 'constraints'>;

/**
 * The dynamic bodies joined to body `i` by joints, directly or through other
 * dynamic bodies, `i` included, in index order; a static body (a pivot, the
 * ground) joins nothing, so two arms on one post are two robots. Empty for
 * a static body or an index out of range.
 */
export function robotBodies(world: RobotWorld, i: number): number[] {
  const B = world.bodies;
  if (!(i >= 0 && i < B.count) || B.isStatic[i]) return [];
  const edges = jointEdges(world);
  const seen = new Uint8Array(B.count);
  seen[i] = 1;
  const stack = [i];
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (const v of edges.get(u) ?? []) {
      if (seen[v] || B.isStatic[v]) continue;
      seen[v] = 1;
      stack.push(v);
    }
  }
  const out: number[] = [];
  for (let k = 0; k < B.count; k++) if (seen[k]) out.push(k);
  return out;
}

/**
 * The names of the motors that act on the robot of body `i` (robotBodies):
 * a body motor on one of its bodies, a joint motor whose joint holds one,
 * in the scene's order. Empty when the body has none.
 */
export function robotMotors(world: RobotWorld, i: number): string[] {
  const set = world.constraints?.motors;
  if (!set) return [];
  const mine = new Set(robotBodies(world, i));
  const out: string[] = [];
  for (let m = 0; m < set.count; m++) {
    if (mine.has(set.body[m]!) || mine.has(set.bodyA[m]!)) out.push(set.names[m]!);
  }
  return out;
}

/**
 * The body a scene with motors opens following: the root of the robot that
 * the scene's first motor drives, i.e. the robot's first body (a library
 * robot's first part, such as a cart's chassis); -1 when no motor acts on a
 * dynamic body.
 */
export function followedRobotBody(world: RobotWorld): number {
  const set = world.constraints?.motors;
  if (!set) return -1;
  for (let m = 0; m < set.count; m++) {
    for (const b of [set.bodyA[m]!, set.body[m]!]) {
      const robot = robotBodies(world, b);
      if (robot.length > 0) return robot[0]!;
    }
  }
  return -1;
}

/** Body index -> the bodies it shares a scene joint with (the joint system's jointA / jointB, when it has them). */
function jointEdges(world: RobotWorld): Map<number, number[]> {
  const edges = new Map<number, number[]>();
  const js = world.constraints as { jointA?: ArrayLike<number>; jointB?: ArrayLike<number> } | null;
  const a = js?.jointA, b = js?.jointB;
  if (!a || !b) return edges;
  const add = (u: number, v: number) => {
    if (u < 0 || v < 0) return;
    const list = edges.get(u);
    if (list) list.push(v);
    else edges.set(u, [v]);
  };
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    add(a[k]!, b[k]!);
    add(b[k]!, a[k]!);
  }
  return edges;
}
