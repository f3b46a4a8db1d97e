/**
 * Built-in joint demos (docs/ALGORITHM.md 7: multi-pendulum, 2-DOF joints, jointed
 * rings; docs/EXTRAS.md: the caterpillar robot). Like the other built-ins they are
 * plain scene JSON; src/scene/builtins.ts registers this list.
 *
 * Anchors and axes are written in each shape's own frame, as a scene file
 * would; every body here starts unrotated, so an anchor is simply the joint
 * point minus the body's position.
 */
import { FORMAT, floorShape, ground as groundBody, lcg, pileSolver, round, seedRingShape, type Builtin, type Json } from './sceneKit.ts';
import * as det from '../util/detmath.ts';

const ground = (extra: Json = {}): Json => groundBody(extra, 0.2);

function sub(a: readonly number[], b: readonly number[]): number[] {
  return [round(a[0]! - b[0]!), round(a[1]! - b[1]!), round(a[2]! - b[2]!)];
}

/** Joint spacing and box of a chain link: the boxes are a little shorter, so the joints sit in visible gaps. */
const LINK = 0.4;
const LINK_BOX = [0.36, 0.1, 0.1];

/**
 * A chain of `links` boxes starting horizontal from a static pivot, so it
 * swings down. The pivot joint is a ball joint; the links are joined by
 * `linkJoint` ("ball": fig. 34; "fixed" = ball + lockRotation: fig. 35).
 * The pivot is `height` above the floor (0: high enough that the chain hangs
 * clear of it).
 */
function chain(links: number, linkJoint: 'ball' | 'fixed', solver: Json, height = 0): Json {
  const top = height > 0 ? height : Math.max(3, LINK * links + 0.5);
  const pivot = [0, top, 0];
  const bodies: Json[] = [ground(), { name: 'pivot', shape: 'pivot', static: true, position: pivot }];
  const joints: Json[] = [];
  for (let i = 0; i < links; i++) {
    const c = [round(LINK / 2 + i * LINK), top, 0];
    bodies.push({ name: `link${i}`, shape: 'link', position: c, density: 500, friction: 0.4, restitution: 0.1 });
    const left = [round(i * LINK), top, 0];
    if (i === 0) {
      joints.push({ type: 'ball', bodyA: 'pivot', bodyB: 'link0', anchorA: sub(left, pivot), anchorB: sub(left, c) });
    } else {
      const prev = [round(LINK / 2 + (i - 1) * LINK), top, 0];
      joints.push({ type: linkJoint, bodyA: `link${i - 1}`, bodyB: `link${i}`, anchorA: sub(left, prev), anchorB: sub(left, c) });
    }
  }
  return {
    format: FORMAT,
    dt: 0.01,
    solver,
    shapes: {
      floor: floorShape,
      pivot: { type: 'box', size: [0.12, 0.12, 0.12], sdf: { cells: 8 } },
      link: { type: 'box', size: LINK_BOX, sdf: { cells: 16 } },
    },
    bodies,
    joints,
  };
}

export const jointBuiltins: Builtin[] = [
  {
    name: 'chain',
    title: 'Multi-pendulum: boxes chained by ball joints',
    description:
      'A chain of boxes hanging from a fixed pivot by ball joints swings chaotically (seed fig. 34); the joints stay closed. ' +
      'Without position pre-stabilisation the joints are closed after the position step instead, and a chain swinging along the floor (height = 0.3) is pulled into it (seed fig. 24).',
    params: [
      { name: 'links', default: 5, min: 1, max: 50, step: 1, description: 'number of boxes in the chain' },
      { name: 'prestabilization', default: 1, min: 0, max: 1, step: 1, description: '0: joints closed after the position step, where they pull the links into what they touch (seed fig. 24)' },
      { name: 'height', default: 0, min: 0, max: 30, step: 0.05, description: 'pivot height above the floor, m (0: the chain hangs clear of the floor; 0.3: it sweeps along it)' },
    ],
    count: 'links',
    make: (p) => chain(p['links']!, 'ball', p['prestabilization'] ? {} : { jointPrestabilization: false }, p['height']),
  },
  {
    name: 'chain-locked',
    title: 'Multi-pendulum with every DOF locked between links (ball + lockRotation)',
    description: 'The chain with every link locked to the next swings as one rigid arm; with one joint iteration it visibly bends (seed fig. 35).',
    params: [
      { name: 'links', default: 5, min: 1, max: 50, step: 1, description: 'number of boxes in the arm' },
      { name: 'jointIterations', default: 10, min: 1, max: 50, step: 1, description: 'joint passes per step; 1 shows the visible error of seed fig. 35' },
    ],
    count: 'links',
    make: (p) => chain(p['links']!, 'fixed', { jointIterations: p['jointIterations']! }),
  },
  {
    name: 'hinge-2dof',
    title: 'Hinge (ball + axis): a box swings about one tilted axis only',
    description: 'A door hinged to a fixed frame about a tilted axis swings about that axis and no other, whatever it was pushed with (seed fig. 36).',
    params: [{ name: 'tilt', default: 30, min: 0, max: 80, step: 1, description: 'hinge axis tilt from horizontal, degrees' }],
    make: (p) => {
      const t = (p['tilt']! * Math.PI) / 180;
      const axis = [0, round(det.sin(t)), round(det.cos(t))];
      // The hinge at the frame's lower face; the door hangs 60 degrees out from it.
      const frame = [0, 2.4, 0], hinge = [0, 2.2, 0];
      const door = [round(-0.4 * det.sin(Math.PI / 3)), round(2.2 - 0.4 * det.cos(Math.PI / 3)), 0];
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: {
          floor: floorShape,
          frame: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 12 } },
          door: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 12 } },
        },
        bodies: [
          ground(),
          { name: 'frame', shape: 'frame', static: true, position: frame },
          // Spun about x at the start: the hinge removes the part off its axis.
          { name: 'door', shape: 'door', position: door, angularVelocity: [1.5, 0, 0], density: 500 },
        ],
        joints: [{ type: 'hinge', bodyA: 'frame', bodyB: 'door', anchorA: sub(hinge, frame), anchorB: sub(hinge, door), axisA: axis, axisB: axis }],
      };
    },
  },
  {
    name: 'ropes',
    title: 'Ropes and a distance joint: a swinging rope, a falling ball caught by one, a rod with a rope under it',
    description:
      'Three hooks. A ball swings on a taut rope; a ball dropped inside its rope\'s length falls freely until the rope goes taut and rebounds with the given restitution; a ball on a rigid distance joint swings with a second ball hanging on a rope under it.',
    params: [{ name: 'restitution', default: 0.5, min: 0, max: 1, step: 0.05, description: 'restitution of the ropes going taut' }],
    make: (p) => {
      const e = p['restitution']!;
      const hook = (z: number): number[] => [0, 3, z];
      const ball = (name: string, position: number[], extra: Json = {}): Json => ({ name, shape: 'ball', position, ...extra });
      const rope = (a: string, b: string, extra: Json): Json => ({ type: 'rope', bodyA: a, bodyB: b, anchorA: [0, 0, 0], anchorB: [0, 0, 0], restitution: e, ...extra });
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: {
          floor: floorShape,
          hook: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } },
          ball: { type: 'sphere', radius: 0.1, sdf: { cells: 12 } },
        },
        bodies: [
          ground(),
          { name: 'hook0', shape: 'hook', static: true, position: hook(-1.5) },
          { name: 'hook1', shape: 'hook', static: true, position: hook(0) },
          { name: 'hook2', shape: 'hook', static: true, position: hook(1.5) },
          // Taut from the start (its length is the distance at load): it swings.
          ball('swing', [0.9, 2.1, -1.5]),
          // 0.2 m under its hook on a 1.5 m rope: it falls 1.3 m before the rope catches it.
          ball('drop', [0, 2.8, 0]),
          ball('rod', [0.8, 2.4, 1.5]),
          ball('tail', [1.6, 2.4, 1.5]),
        ],
        joints: [
          rope('hook0', 'swing', {}),
          rope('hook1', 'drop', { length: 1.5 }),
          { type: 'distance', bodyA: 'hook2', bodyB: 'rod', anchorA: [0, 0, 0], anchorB: [0, 0, 0] },
          rope('rod', 'tail', {}),
        ],
      };
    },
  },
  {
    name: 'slider-2dof',
    title: 'Slider (lockRotation + line): a box slides along one axis only',
    description: 'A box pushed sideways and spun keeps only the motion along a sloping rail: it slides down it without turning (seed fig. 36).',
    params: [{ name: 'slope', default: 0.5, min: 0, max: 2, step: 0.05, description: 'drop of the rail per metre' }],
    make: (p) => {
      const s = p['slope']!;
      const l = Math.hypot(1, s);
      const axis = [round(-1 / l), round(-s / l), 0];
      const rail = [0.25, 2, 0], cart = [-0.25, 2, 0];
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: { floor: floorShape, cube: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 12 } } },
        bodies: [
          ground(),
          { name: 'rail', shape: 'cube', static: true, position: rail },
          // Pushed sideways and spun at the start: the slider keeps only the motion along its axis.
          { name: 'cart', shape: 'cube', position: cart, velocity: [0, 0, 1], angularVelocity: [0, 2, 1], density: 500 },
        ],
        joints: [
          { type: 'lockRotation', bodyA: 'rail', bodyB: 'cart' },
          // The line through the cart's centre, written in the rail's frame.
          { type: 'line', bodyA: 'rail', bodyB: 'cart', anchorA: sub(cart, rail), anchorB: [0, 0, 0], axisA: axis },
        ],
      };
    },
  },
  {
    name: 'jointed-rings',
    title: 'Jointed rings: loops of 6 rings joined by ball joints, falling onto pegs',
    description: 'Loops of six rings held together by ball joints fall over pegs and hang on them: joints and nonconvex contact at once.',
    params: [{ name: 'count', default: 12, min: 6, max: 600, step: 6, description: 'number of rings (6 per loop)' }],
    count: 'count',
    make: (p) => {
      const loops = Math.max(1, Math.round(p['count']! / 6));
      const side = 0.8; // hexagon of ring centres; the rings' outer radius is 0.37
      const rnd = lcg(5);
      const bodies: Json[] = [ground({ friction: 0.5 })];
      // Three pegs under every other ring of the hexagon.
      for (let k = 0; k < 3; k++) {
        const a = ((90 + 120 * k) * Math.PI) / 180;
        bodies.push({ name: `peg${k}`, shape: 'peg', static: true, position: [round(side * det.cos(a)), 0.6, round(side * det.sin(a))], friction: 0.4 });
      }
      const joints: Json[] = [];
      for (let g = 0; g < loops; g++) {
        // Each loop is tilted as a whole about a random horizontal axis, so it
        // lands unevenly. Every ring turns with the loop, so an anchor in the
        // ring's own frame is the unrotated offset mid - centre.
        const phi = rnd() * 2 * Math.PI;
        const deg = 10 + rnd() * 15;
        const ax = det.cos(phi), az = det.sin(phi);
        const th = (deg * Math.PI) / 180;
        const cy = 1.7 + 0.6 * g;
        const flat: number[][] = [];
        for (let i = 0; i < 6; i++) {
          const a = ((90 + 60 * i) * Math.PI) / 180;
          flat.push([side * det.cos(a), 0, side * det.sin(a)]);
        }
        flat.forEach((f, i) => {
          // Rodrigues: f cos + (k x f) sin + k (k.f)(1 - cos), k = (ax, 0, az).
          const kf = ax * f[0]! + az * f[2]!;
          const kx = -az * f[1]!, ky = az * f[0]! - ax * f[2]!, kz = ax * f[1]!;
          const c = det.cos(th), sn = det.sin(th);
          const pos = [
            round(f[0]! * c + kx * sn + ax * kf * (1 - c)),
            round(cy + f[1]! * c + ky * sn),
            round(f[2]! * c + kz * sn + az * kf * (1 - c)),
          ];
          bodies.push({
            name: `ring${6 * g + i}`, shape: 'ring', position: pos,
            rotation: { axis: [round(ax), 0, round(az)], degrees: round(deg) },
            density: 800, restitution: 0.1, friction: 0.4,
          });
        });
        for (let i = 0; i < 6; i++) {
          const j = (i + 1) % 6;
          const a = flat[i]!, b = flat[j]!;
          const mid = [(a[0]! + b[0]!) / 2, 0, (a[2]! + b[2]!) / 2];
          joints.push({ type: 'ball', bodyA: `ring${6 * g + i}`, bodyB: `ring${6 * g + j}`, anchorA: sub(mid, a), anchorB: sub(mid, b) });
        }
      }
      return {
        format: FORMAT,
        dt: 0.01,
        solver: pileSolver(),
        shapes: {
          floor: floorShape,
          ring: seedRingShape(),
          peg: { type: 'cylinder', radius: 0.08, height: 1.2, segments: 14, sdf: { cells: 48 } },
        },
        bodies,
        joints,
      };
    },
  },
  {
    name: 'caterpillar',
    title: 'Caterpillar robot: three plates, two hinges, a motor on the first',
    description: "Three plates joined by two hinges; a motor spins the first like a two-spoke wheel whose tips push the robot along +x (the seed's housenka).",
    params: [
      { name: 'speed', default: 4, min: 0, max: 20, step: 0.5, description: "the motor's target angular velocity, rad/s" },
      { name: 'maxTorque', default: 60, min: 0, max: 500, step: 1, description: "the motor's largest torque, N m" },
    ],
    make: (p) => caterpillar(p['speed']!, p['maxTorque']!),
  },
];

/**
 * The seed's "housenka" (seed 003, 4.2): three plates joined by two hinges
 * about z, the motor on the first. As in the seed the first plate overlaps the
 * second (joined bodies do not collide): its hinge sits at its own centre, on
 * the second plate's rear end, so the motor spins it like a two-spoke wheel
 * whose tips dig into the ground and push the robot along +x.
 */
function caterpillar(speed: number, maxTorque: number): Json {
  const plate = [0.5, 0.06, 0.4];
  const gap = 0.04;
  const y = plate[1]! / 2 + 0.001;
  const h0 = [round(-plate[0]! / 2), y, 0];
  const xs = [h0[0]!, 0, plate[0]! + gap];
  const bodies: Json[] = [ground({ friction: 0.3 })];
  xs.forEach((x, i) => bodies.push({
    name: `plate${i}`, shape: 'plate', position: [round(x), y, 0], density: i === 0 ? 1000 : 500,
    friction: i === 0 ? 1 : 0.3, restitution: 0,
  }));
  const hinges = [h0, [round((xs[1]! + xs[2]!) / 2), y, 0]];
  const joints: Json[] = hinges.map((h, i) => ({
    type: 'hinge', bodyA: `plate${i}`, bodyB: `plate${i + 1}`,
    anchorA: sub(h, [xs[i]!, y, 0]), anchorB: sub(h, [xs[i + 1]!, y, 0]),
    axisA: [0, 0, 1], axisB: [0, 0, 1],
  }));
  return {
    format: FORMAT,
    dt: 0.01,
    shapes: { floor: floorShape, plate: { type: 'box', size: plate, sdf: { cells: 24 } } },
    bodies,
    joints,
    motors: [{ body: 'plate0', targetAngularVelocity: [0, 0, -speed], startTorque: maxTorque / 4, torqueIncrement: maxTorque / 100, maxTorque }],
  };
}
