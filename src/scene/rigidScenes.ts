/**
 * The rigid-body built-in scenes (docs/ALGORITHM.md 7, the seed's demos):
 * stacks, piles, rings on pegs, billiards, the seesaw, dominoes and others,
 * each a generator of plain scene JSON with its description and parameters.
 * builtins.ts lists them with the joint, mesh and soft-body scenes.
 */
import { FORMAT, floorShape, ground, lcg, pileSolver, round, seedRingShape, type Builtin, type Json } from './sceneKit.ts';
import * as det from '../util/detmath.ts';

/** The tallest peg segment of "rings": 512 cells (the most an SDF may have) of the seed's 2.5 cm. */
const RINGS_MAX_SEGMENT = (512 / 128) * 3.2;

/** The step rate parameter of the built-ins that take one. */
const HZ_PARAM = { name: 'hz', default: 60, min: 10, max: 1000, step: 1, description: 'steps per second (dt = 1 / hz)' } as const;

export const rigidBuiltins: Builtin[] = [
  {
    name: 'tower',
    title: 'Box tower',
    description: 'Cubes stacked a hair apart settle into a tower that stands: shock propagation keeps the bottom cube from sinking under the weight above it, at any size and step rate. That is the seed\'s contact passes (the default); under the accumulated stage a tower of more than about 50 cubes bends and falls, under PGS one of 20.',
    params: [
      { name: 'height', default: 20, min: 1, max: 400, step: 1, description: 'number of cubes' },
      { name: 'size', default: 1, min: 0.001, max: 100, description: 'edge of each cube (m)' },
      HZ_PARAM,
    ],
    count: 'height',
    make: (p) => {
      const n = p['height']!;
      const h = p['size']!;
      // 0.2 % of an edge between boxes, so the first step finds them just apart.
      const gap = 0.002 * h;
      const bodies: Json[] = [ground()];
      for (let i = 0; i < n; i++) {
        bodies.push({ name: `box${i}`, shape: 'box', position: [0, round(h / 2 + i * (h + gap) + gap / 2, 9), 0], restitution: 0, friction: 0.6, density: 500 });
      }
      return { format: FORMAT, dt: 1 / p['hz']!, shapes: { floor: floorShape, box: { type: 'box', size: [h, h, h], sdf: { cells: 24 } } }, bodies };
    },
  },
  {
    name: 'rings',
    title: 'Rings onto pegs',
    description: "The seed's torus rings (216 triangles) dropped tilted over pegs: each ring threads onto a peg and they stack flat, nonconvex contact all the way down.",
    params: [
      { name: 'rings', default: 60, min: 1, max: 2000, step: 1, description: 'number of rings' },
      { name: 'pegs', default: 3, min: 1, max: 100, step: 1, description: 'number of pegs (they grow tall enough for their rings; past 12.8 m a peg is a column of static segments)' },
      {
        name: 'rolling',
        default: 0.05,
        min: 0,
        max: 2,
        step: 0.05,
        description: 'rolling friction of the rings (rad/s per N s); it damps a stack rocking on its contact points: at 0.3 piles of 20-63 rings sleep by about 2.3 s',
      },
    ],
    count: 'rings',
    make: (p) => {
      const n = p['rings']!;
      const pegs = p['pegs']!;
      const cols = Math.ceil(Math.sqrt(pegs));
      const spacing = 0.9;
      const perPeg = Math.ceil(n / pegs);
      // The seed's pegs: 20 rings lying flat (20 x 0.14 m) fit on 3.2 m; more
      // rings per peg get a taller peg, at the same SDF cell size (3.2 m / 128
      // = 2.5 cm, a third of the peg's radius). An SDF has at most 512 cells
      // along its longest side (docs/SCENE_FORMAT.md), 12.8 m at that cell: a
      // taller peg (more than 88 rings on it) is a column of equal static
      // segments end to end, each at most 12.8 m, so the cell never coarsens.
      const pegHeight = round(Math.max(3.2, 0.14 * perPeg + 0.4), 3);
      const segments = Math.ceil(pegHeight / RINGS_MAX_SEGMENT);
      const segHeight = round(pegHeight / segments);
      const pegCells = Math.min(512, Math.ceil(128 * (segHeight / 3.2)));
      const rnd = lcg(7);
      const bodies: Json[] = [ground({ friction: 0.5 })];
      const pegPos: [number, number][] = [];
      for (let k = 0; k < pegs; k++) {
        const row = pegs <= 3 ? 0 : Math.floor(k / cols);
        const col = pegs <= 3 ? k : k % cols;
        const across = pegs <= 3 ? pegs : cols;
        const rows = pegs <= 3 ? 1 : Math.ceil(pegs / cols);
        const x = (col - (across - 1) / 2) * spacing;
        const z = (row - (rows - 1) / 2) * spacing;
        pegPos.push([x, z]);
        for (let j = 0; j < segments; j++) {
          // The bottom segment keeps the name of a one-piece peg.
          const name = j === 0 ? `peg${k}` : `peg${k}-${j}`;
          bodies.push({ name, shape: 'peg', static: true, position: [round(x), round((j + 0.5) * segHeight), round(z)], friction: 0.4 });
        }
      }
      for (let i = 0; i < n; i++) {
        const k = i % pegs;
        const layer = Math.floor(i / pegs);
        const [x, z] = pegPos[k]!;
        const tilt = (rnd() - 0.5) * 40;
        const ax = rnd() - 0.5, az = rnd() - 0.5;
        bodies.push({
          name: `ring${i}`,
          shape: 'ring',
          position: [round(x + (rnd() - 0.5) * 0.12), round(pegHeight + 0.4 + layer * 0.32), round(z + (rnd() - 0.5) * 0.12)],
          rotation: { axis: [round(ax || 0.1), 0, round(az || 0.1)], degrees: round(tilt) },
          density: 800,
          restitution: 0.2,
          friction: 0.4,
          rollingFriction: p['rolling'],
        });
      }
      return {
        format: FORMAT,
        solver: pileSolver(),
        dt: 0.01,
        shapes: {
          floor: floorShape,
          // The seed's sizes: rings of 216 triangles, pegs of 84.
          ring: seedRingShape(),
          peg: { type: 'cylinder', radius: 0.08, height: segHeight, segments: 21, sdf: { cells: pegCells } },
        },
        bodies,
      };
    },
  },
  {
    name: 'boxes',
    title: 'Pile of boxes: a block of randomly turned cubes dropped on the ground',
    description: 'A block of cubes, each turned at random, falls and spreads into a heap that comes to rest: many simultaneous convex contacts, a benchmark of scale.',
    count: 'count',
    params: [
      { name: 'count', default: 125, min: 1, max: 8000, step: 1, description: 'number of boxes (a cube of side ceil(count^(1/3)), filled layer by layer)' },
      { name: 'size', default: 0.5, min: 0.01, max: 10, description: 'edge of each box (m)' },
      HZ_PARAM,
    ],
    make: (p) => {
      const n = p['count']!;
      const a = p['size']!;
      const side = cubeSide(n);
      // A turned cube reaches sqrt(3)/2 of its edge from its centre: a spacing
      // of 1.8 edges keeps the block apart at the start.
      const spacing = 1.8 * a;
      const rnd = lcg(3);
      const bodies: Json[] = [ground({ friction: 0.6 })];
      for (let i = 0; i < n; i++) {
        const ix = i % side, iz = Math.floor(i / side) % side, iy = Math.floor(i / (side * side));
        bodies.push({
          name: `box${i}`,
          shape: 'box',
          position: [round((ix - (side - 1) / 2) * spacing), round(a + iy * spacing), round((iz - (side - 1) / 2) * spacing)],
          rotation: { axis: [round(rnd() - 0.5), round(rnd() - 0.5), round(rnd() - 0.5 + 0.01)], degrees: round(rnd() * 360) },
          density: 500,
          restitution: 0.1,
          friction: 0.6,
        });
      }
      return { format: FORMAT, dt: 1 / p['hz']!, solver: pileSolver(), shapes: { floor: floorShape, box: { type: 'box', size: [a, a, a], sdf: { cells: 16 } } }, bodies };
    },
  },
  {
    name: 'balls',
    title: 'Ball pit: balls dropped into a walled box',
    description: 'A block of balls falls into a box of four static walls and comes to rest: two balls, a ball and a wall, and a ball on the floor each meet at one exact point, so nothing is queried.',
    count: 'count',
    params: [
      { name: 'count', default: 343, min: 1, max: 8000, step: 1, description: 'number of balls (a cube of side ceil(count^(1/3)), filled layer by layer)' },
      { name: 'radius', default: 0.25, min: 0.01, max: 10, description: 'radius of each ball (m)' },
      HZ_PARAM,
      {
        name: 'spinning', default: 0.05, min: 0, max: 2,
        description: 'spinning friction of the balls (rad/s per N s): balls touch at points, which hold no spin about their normal; at 0 balls of the bottom layer, pressed between the floor and the balls above, keep turning and creep',
      },
    ],
    make: (p) => {
      const n = p['count']!;
      const r = p['radius']!;
      const side = cubeSide(n);
      const spacing = 2.4 * r;
      // The walls stand a fifth of a radius clear of the block, 0.8 radii thick, as high as the block.
      const half = (side * spacing) / 2 + 0.2 * r, t = 0.8 * r, h = Math.max(8 * r, 2 * r * side);
      const rnd = lcg(5);
      const wall = (name: string, x: number, z: number, shape: string): Json => ({ name, shape, static: true, position: [round(x), round(h / 2), round(z)], friction: 0.5 });
      const bodies: Json[] = [
        ground({ friction: 0.5 }),
        wall('wall+x', half + t / 2, 0, 'wallX'), wall('wall-x', -half - t / 2, 0, 'wallX'),
        wall('wall+z', 0, half + t / 2, 'wallZ'), wall('wall-z', 0, -half - t / 2, 'wallZ'),
      ];
      for (let i = 0; i < n; i++) {
        const ix = i % side, iz = Math.floor(i / side) % side, iy = Math.floor(i / (side * side));
        // A little jitter sideways, so the block does not land as a lattice.
        const jx = 0.1 * r * (rnd() - 0.5), jz = 0.1 * r * (rnd() - 0.5);
        bodies.push({
          name: `ball${i}`,
          shape: 'ball',
          position: [round((ix - (side - 1) / 2) * spacing + jx), round(r + 0.2 * r + iy * spacing), round((iz - (side - 1) / 2) * spacing + jz)],
          density: 500,
          restitution: 0.2,
          friction: 0.5,
          spinningFriction: p['spinning'],
          // Slows a lone ball of radius 0.25 rolling on the floor by about
          // 0.16 m/s^2. Without it a ball the heap leaves rolling free rolls
          // on for ever: 343 balls of radius 0.3 were not all asleep by 10 s.
          rollingFriction: 0.002,
        });
      }
      const across = 2 * half + 2 * t;
      // Three cells across a wall's thickness (cells count along its longest side), enough to catch a ball pressing into it.
      const cells = Math.min(512, Math.ceil((3 * Math.max(across, h)) / t) + 1);
      return {
        format: FORMAT, dt: 1 / p['hz']!, solver: pileSolver(),
        shapes: {
          floor: floorShape,
          ball: { type: 'sphere', radius: r },
          wallX: { type: 'box', size: [round(t), round(h), round(across)], sdf: { cells } },
          wallZ: { type: 'box', size: [round(across), round(h), round(t)], sdf: { cells } },
        },
        bodies,
      };
    },
  },
  {
    name: 'pile',
    title: 'Pile of nonconvex bodies (bones, cups, L-blocks)',
    description: 'Bones, cups and L-blocks tumble into a heap that comes to rest: cups catch bones, blocks hook over each other.',
    params: [{ name: 'count', default: 30, min: 1, max: 2000, step: 1, description: 'number of bodies (a third each of bones, cups and L-blocks)' }],
    count: 'count',
    make: (p) => {
      const n = p['count']!;
      const rnd = lcg(11);
      const kinds = ['bone', 'cup', 'lblock'];
      const cols = Math.max(2, Math.ceil(Math.sqrt(n / 4)));
      const bodies: Json[] = [ground({ rollingFriction: 0.02 })];
      for (let i = 0; i < n; i++) {
        bodies.push({
          name: `${kinds[i % 3]}${i}`,
          shape: kinds[i % 3],
          ...tumbledInGrid(i, cols, 0.7, 0.5, 0.6, rnd),
          density: 700,
          restitution: 0.2,
          friction: 0.5,
          // Bones and cups are round: without rolling resistance a block lying
          // on two bones rolls on them forever at whatever speed it landed with.
          rollingFriction: 0.02,
        });
      }
      return {
        format: FORMAT,
        solver: pileSolver(),
        dt: 0.01,
        shapes: {
          floor: floorShape,
          bone: {
            type: 'revolve',
            profile: [[0, -0.3], [0.07, -0.29], [0.09, -0.25], [0.08, -0.2], [0.035, -0.16], [0.03, 0], [0.035, 0.16], [0.08, 0.2], [0.09, 0.25], [0.07, 0.29], [0, 0.3]],
            segments: 12,
            sdf: { cells: 40 },
          },
          cup: {
            type: 'revolve',
            profile: [[0, -0.12], [0.15, -0.12], [0.16, 0.12], [0.12, 0.12], [0.115, -0.08], [0, -0.08]],
            segments: 16,
            sdf: { cells: 40 },
          },
          lblock: { type: 'extrude', polygon: [[0, 0], [0.4, 0], [0.4, 0.12], [0.12, 0.12], [0.12, 0.3], [0, 0.3]], depth: 0.15, sdf: { cells: 32 } },
        },
        bodies,
      };
    },
  },
  {
    name: 'cups',
    title: 'Tumbling cups: finely tessellated nonconvex meshes',
    description: 'Cups of a smooth revolved profile (4224 triangles and about 20 000 collision samples each at the default tessellation), thrown spinning onto the ground: the case where the penetration queries, not the solver, cost the step.',
    params: [
      { name: 'count', default: 24, min: 1, max: 500, step: 1, description: 'number of cups' },
      { name: 'segments', default: 64, min: 8, max: 256, step: 1, description: 'segments around the axis (the profile has 35 points: 66 triangles per segment)' },
    ],
    count: 'count',
    make: (p) => {
      const n = p['count']!;
      const rnd = lcg(23);
      const cols = Math.max(2, Math.ceil(Math.sqrt(n / 2)));
      const bodies: Json[] = [ground({ rollingFriction: 0.02 })];
      for (let i = 0; i < n; i++) {
        bodies.push({
          name: `cup${i}`,
          shape: 'cup',
          ...tumbledInGrid(i, cols, 0.5, 0.6, 0.5, rnd),
          angularVelocity: [round(6 * (rnd() - 0.5)), round(6 * (rnd() - 0.5)), round(6 * (rnd() - 0.5))],
          density: 700,
          restitution: 0.2,
          friction: 0.5,
          rollingFriction: 0.02,
        });
      }
      return {
        format: FORMAT,
        solver: pileSolver(),
        dt: 0.01,
        shapes: { floor: floorShape, cup: { type: 'revolve', profile: cupProfile(), segments: p['segments'], sdf: { cells: 64 } } },
        bodies,
      };
    },
  },
  {
    name: 'incline',
    title: 'Perfectly elastic box on an incline',
    description:
      'A box with restitution 1 slides down a slope (seed fig. 27). The separated scheme keeps it in contact, sliding at g (sin - mu cos); ' +
      'the standard scheme (standard = 1) makes every resting contact a collision, and the box bounces down the slope.',
    params: [
      { name: 'standard', default: 0, min: 0, max: 1, step: 1, description: '0: the separated scheme (the box slides in contact); 1: the standard scheme (it bounces)' },
      { name: 'degrees', default: 20, min: 0, max: 60, step: 1, description: 'slope angle, degrees' },
      // Below tan(20 deg) = 0.36, so the box moves at the defaults; at 1 it would rest and show nothing.
      { name: 'friction', default: 0.2, min: 0, max: 2, step: 0.05, description: 'friction coefficient of box and slope (the box sticks above tan(degrees))' },
    ],
    make: (p) => {
      const deg = p['degrees']!;
      const th = (deg * Math.PI) / 180;
      const s = 0.4;
      // Box resting on the inclined plane (the plane rotated about z through the origin).
      const nx = -det.sin(th), ny = det.cos(th);
      const d = s / 2 + 0.001;
      return {
        format: FORMAT,
        dt: 0.01,
        solver: { scheme: p['standard'] ? 'standard' : 'separated' },
        shapes: { slope: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [s, s, s], sdf: { cells: 16 } } },
        bodies: [
          { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, restitution: 1, friction: p['friction'] },
          { name: 'box', shape: 'box', position: [round(nx * d), round(ny * d), 0], rotation: { axis: [0, 0, 1], degrees: deg }, restitution: 1, friction: p['friction'], density: 500 },
        ],
      };
    },
  },
  {
    name: 'seesaw',
    title: 'Seesaw',
    description: 'A heavy box falls onto the raised end of a plank resting on a wedge and throws the light box on the other end into the air (seed fig. 28). With the box placed on the plank and shock propagation alone (no collision or contact passes), the plank never feels its weight and stays put.',
    params: [
      { name: 'heavy', default: 20, min: 1, max: 100, step: 1, description: 'mass of the heavy box, kg (the light one is 1 kg, the plank 4 kg)' },
      { name: 'drop', default: 1.5, min: 0, max: 5, step: 0.05, description: 'height the heavy box falls from, m above the plank (0: it starts resting on the plank)' },
      { name: 'shockOnly', default: 0, min: 0, max: 1, step: 1, description: '1: no collision or contact passes, shock propagation alone (seed fig. 28: the plank does not move)' },
    ],
    make: seesaw,
  },
  {
    name: 'topple',
    title: 'Toppling plank',
    description: 'A plank overhanging a ledge starts to tip; two boxes dropped on its inner end stop it, and a larger box landing on its outer end then tips plank and boxes over together (seed fig. 29).',
    params: [
      { name: 'big', default: 12, min: 1, max: 200, step: 1, description: 'mass of the larger box, kg (the plank weighs 4 kg, each small box 2 kg)' },
      { name: 'bigDrop', default: 1.2, min: 0.1, max: 5, step: 0.05, description: 'height the larger box falls from onto the outer end, m' },
    ],
    make: (p) => ({
      format: FORMAT,
      dt: 0.01,
      shapes: {
        floor: floorShape,
        ledge: { type: 'box', size: [2, 1, 1.2], sdf: { cells: 32 } },
        plank: { type: 'box', size: [2.4, 0.1, 0.5], sdf: { cells: 64 } },
        box: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 16 } },
        big: { type: 'box', size: [0.6, 0.6, 0.6], sdf: { cells: 16 } },
      },
      bodies: [
        ground(),
        { name: 'ledge', shape: 'ledge', static: true, position: [0, 0.5, 0], friction: 0.8 },
        // Overhanging the ledge's right edge (x = 1) by 1.45 m, its centre
        // 0.25 m beyond the edge: it starts to tip at once.
        { name: 'plank', shape: 'plank', position: [1.25, 1.051, 0], mass: 4, friction: 0.8, restitution: 0 },
        // Two boxes falling onto its inner end, landing about 0.2 s in (the
        // plank has tipped a few degrees by then), which takes it back.
        { name: 'box0', shape: 'box', position: [0.3, 1.5, 0], mass: 2, friction: 0.8, restitution: 0 },
        { name: 'box1', shape: 'box', position: [0.3, 1.82, 0], mass: 2, friction: 0.8, restitution: 0 },
        // The larger box, falling onto the outer end a little later.
        { name: 'big', shape: 'big', position: [2.1, round(1.101 + p['bigDrop']! + 0.3), 0], mass: p['big'], friction: 0.8, restitution: 0 },
      ],
    }),
  },
  {
    name: 'billiards',
    title: 'Billiards: an impulse travels down a row of balls',
    description: 'A rolling cue ball hits a row of touching balls: the impulse passes through the row and the last ball rolls away (seed fig. 30-31); rolling friction brings it to a stop.',
    params: [
      { name: 'balls', default: 5, min: 1, max: 30, step: 1, description: 'balls in the row (the cue ball comes on top)' },
      { name: 'rolling', default: 1, min: 0, max: 20, step: 0.05, description: 'rolling friction of balls and table: angular velocity lost per unit normal impulse (0: a ball rolls for ever)' },
      { name: 'collisions', default: 5, min: 0, max: 50, step: 1, description: 'collision iterations per step (too few, and the impulse stops partway down the row: seed fig. 31)' },
    ],
    count: 'balls',
    make: (p) => {
      const n = p['balls']!;
      const r = 0.1;
      const bodies: Json[] = [ground({ friction: 0.2, restitution: 0.3, rollingFriction: p['rolling'] })];
      bodies.push({ name: 'cue', shape: 'ball', position: [-1, r, 0], velocity: [3, 0, 0], angularVelocity: [0, 0, -3 / r], restitution: 1, friction: 0.2, rollingFriction: p['rolling'] });
      for (let i = 0; i < n; i++) {
        bodies.push({ name: `ball${i}`, shape: 'ball', position: [round(i * 2 * r), r, 0], restitution: 1, friction: 0.2, rollingFriction: p['rolling'] });
      }
      return {
        format: FORMAT,
        dt: 0.005,
        solver: { collisionIterations: p['collisions'] },
        shapes: { floor: floorShape, ball: { type: 'sphere', radius: r, segments: [36, 24], sdf: { cells: 32 } } },
        bodies,
      };
    },
  },
  {
    name: 'tops',
    title: 'Spinning tops: precession and collisions',
    description: 'Tops spun fast about their tilted axes on a floor: each axis circles the vertical at m g l / (I w) while the tilt holds; they wander, knock into each other and wobble, and slow tops fall.',
    params: [
      { name: 'count', default: 7, min: 1, max: 200, step: 1, description: 'number of tops (on a grid, random tilts)' },
      { name: 'spin', default: 60, min: 0, max: 300, description: 'spin of each top about its axis, rad/s (random +-20 %)' },
      { name: 'tilt', default: 12, min: 0, max: 60, description: 'largest tilt of a top\'s axis from the vertical, degrees' },
    ],
    count: 'count',
    make: (p) => {
      const n = p['count']!;
      const rnd = lcg(7);
      const side = Math.ceil(Math.sqrt(n));
      const gap = 0.6;
      const bodies: Json[] = [ground({ friction: 0.3, restitution: 0.2 })];
      for (let i = 0; i < n; i++) {
        const gx = (i % side) - (side - 1) / 2, gz = Math.floor(i / side) - (side - 1) / 2;
        const tilt = (p['tilt']! * (0.5 + 0.5 * rnd()) * Math.PI) / 180;
        const az = 2 * Math.PI * rnd();
        // The axis (sin t cos a, cos t, sin t sin a): y turned by t about (sin a, 0, -cos a).
        const ax = [det.sin(tilt) * det.cos(az), det.cos(tilt), det.sin(tilt) * det.sin(az)];
        const w = p['spin']! * (0.8 + 0.4 * rnd()) * (rnd() < 0.5 ? -1 : 1);
        bodies.push({
          name: `top${i}`, shape: 'top',
          position: [round(gap * gx), round(0.14 * ax[1]! + 0.003), round(gap * gz)],
          rotation: { axis: [round(det.sin(az)), 0, round(-det.cos(az))], degrees: round((tilt * 180) / Math.PI) },
          angularVelocity: ax.map((c) => round(w * c)),
          friction: 0.3, restitution: 0.2,
        });
      }
      return {
        format: FORMAT,
        dt: 1 / 120,
        shapes: {
          floor: floorShape,
          // A cone on a rounded tip under a broad disc, with a stem to spin it by.
          top: { type: 'revolve', profile: [[0, 0], [0.02, 0.02], [0.25, 0.12], [0.25, 0.16], [0.03, 0.18], [0.03, 0.3], [0, 0.3]], segments: 48, sdf: { cells: 48 } },
        },
        bodies,
      };
    },
  },
  {
    name: 'dominoes',
    title: 'Dominoes in a circle',
    description: 'Dominoes stand in a ring; the first is tipped and they fall one after another all the way round (seed fig. 32): the contact graph becomes a cycle.',
    params: [{ name: 'count', default: 30, min: 4, max: 500, step: 1, description: 'number of dominoes (the ring grows with them)' }],
    count: 'count',
    make: (p) => {
      const n = p['count']!;
      const h = 0.5, w = 0.25, t = 0.06;
      const spacing = 0.26;
      const R = (n * spacing) / (2 * Math.PI);
      const bodies: Json[] = [ground({ friction: 0.6 })];
      for (let i = 0; i < n; i++) {
        const a = (2 * Math.PI * i) / n;
        // Thin side (the domino's local x) along the tangent (-sin a, 0, cos a):
        // a rotation about y by -(a + 90 deg).
        const deg = -((a * 180) / Math.PI + 90);
        const b: Json = {
          name: `domino${i}`,
          shape: 'domino',
          position: [round(R * det.cos(a)), h / 2 + 0.001, round(R * det.sin(a))],
          rotation: { axis: [0, 1, 0], degrees: round(deg) },
          friction: 0.5,
          restitution: 0,
          density: 600,
        };
        if (i === 0) {
          // Tip the first one toward the next: omega = y x tangent = (cos a, 0, sin a).
          b['angularVelocity'] = [round(det.cos(a) * 2.5), 0, round(det.sin(a) * 2.5)];
        }
        bodies.push(b);
      }
      return {
        format: FORMAT,
        dt: 0.005,
        shapes: { floor: floorShape, domino: { type: 'box', size: [t, h, w], sdf: { cells: 32 } } },
        bodies,
      };
    },
  },
  {
    name: 'wind',
    title: 'Wind, drag and forces at a point',
    description:
      'Three balls of equal size and different mass fall in a gusting wind with quadratic drag (docs/forces.md): the light one drifts ' +
      'furthest and falls slowest, and is pinned against the wall. A force at one end lifts a plank and turns it (tau = r x F), an impulse off-centre spins a crate; ' +
      'the "forces (arrows)" view shows them.',
    params: [
      { name: 'wind', default: 6, min: 0, max: 30, description: 'mean wind speed along +x, m/s' },
      { name: 'gust', default: 3, min: 0, max: 20, description: 'amplitude of the gust, m/s (period 2.5 s)' },
    ],
    make: (p) => {
      const drag = { cd: 0.47, area: 0.0707 }; // a sphere of radius 0.15 m
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: { floor: floorShape, ball: { type: 'sphere', radius: 0.15, segments: [32, 24] }, crate: { type: 'box', size: [0.5, 0.5, 0.5] }, plank: { type: 'box', size: [2, 0.1, 0.4] }, wall: { type: 'box', size: [0.2, 2, 4] } },
        bodies: [
          ground(),
          { name: 'wall', shape: 'wall', static: true, position: [6, 1, 0] },
          { name: 'light', shape: 'ball', position: [-3, 5, -1], mass: 0.05, drag },
          { name: 'medium', shape: 'ball', position: [-3, 5, 0], mass: 0.5, drag },
          { name: 'heavy', shape: 'ball', position: [-3, 5, 1], mass: 5, drag },
          { name: 'plank', shape: 'plank', position: [1, 0.05, -2.5], mass: 4 },
          { name: 'crate', shape: 'crate', position: [3.5, 0.25, 0], mass: 5 },
        ],
        forces: [
          { type: 'wind', velocity: [p['wind']!, 0, 0], ...(p['gust']! > 0 ? { gust: { amplitude: [p['gust']!, 0, 0], period: 2.5 } } : {}) },
          { type: 'force', body: 'plank', force: [0, 30, 0], point: [1, 0, 0], from: 0.5, until: 0.8 },
          { type: 'impulse', body: 'crate', impulse: [0, 0, 6], point: [0.25, 0, 0], at: 1 },
        ],
      };
    },
  },
];

/** The seesaw of seed fig. 28 (also the soft seesaw's rigid part, softScenes.ts). */
export function seesaw(p: Record<string, number>): Json {
  // The plank rests on the wedge's apex, tilted so its left end touches
  // the ground: centre (0, 0.443), angle th, along u, up n.
  const th = (11.3 * Math.PI) / 180;
  const ux = det.cos(th), uy = det.sin(th), nx = -det.sin(th), ny = det.cos(th);
  const at = 1.7, lift = 0.04 + 0.2 + 0.001;
  const drop = p['drop']!;
  // Resting: on the plank, turned with it; falling: upright, its bottom `drop` above the plank under it.
  const heavy = drop === 0
    ? { position: [round(at * ux + lift * nx), round(0.443 + at * uy + lift * ny), 0], rotation: { axis: [0, 0, 1], degrees: 11.3 } }
    : { position: [round(at * ux), round(0.443 + at * uy + 0.04 / det.cos(th) + drop + 0.2), 0] };
  return {
    format: FORMAT,
    dt: 0.01,
    ...(p['shockOnly'] ? { solver: { contactIterations: 0, collisionIterations: 0 } } : {}),
    shapes: {
      floor: floorShape,
      fulcrum: { type: 'extrude', polygon: [[-0.3, 0], [0.3, 0], [0, 0.4]], depth: 0.8, sdf: { cells: 24 } },
      // 3 cells across its 8 cm (a grid the build would otherwise refine, and say so).
      plank: { type: 'box', size: [4, 0.08, 0.6], sdf: { cells: 150 } },
      small: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 16 } },
      big: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } },
    },
    bodies: [
      ground(),
      { name: 'fulcrum', shape: 'fulcrum', static: true, position: [0, 0, 0], friction: 0.8 },
      { name: 'plank', shape: 'plank', position: [0, 0.443, 0], rotation: { axis: [0, 0, 1], degrees: 11.3 }, mass: 4, friction: 0.6, restitution: 0 },
      { name: 'light', shape: 'small', position: [-1.75, 0.25, 0], rotation: { axis: [0, 0, 1], degrees: 11.3 }, mass: 1, friction: 0.6, restitution: 0 },
      { name: 'heavy', shape: 'big', ...heavy, mass: p['heavy'], friction: 0.2, restitution: 0 },
    ],
  };
}

/**
 * A smooth cup, 35 profile points (r, y) from the outer bottom centre round
 * the rim to the inner bottom centre: a flat base, a flared outer wall, a
 * rounded lip, an inner wall and the inner floor.
 */
function cupProfile(): number[][] {
  const pts: number[][] = [];
  const push = (r: number, y: number) => pts.push([round(r, 5), round(y, 5)]);
  for (let k = 0; k < 5; k++) push((0.13 * k) / 5, -0.12); // base: 0 .. 0.104
  for (let k = 0; k < 4; k++) {
    // rounded outer foot, centre (0.13, -0.1), radius 0.02, from below to the side
    const a = -Math.PI / 2 + ((k + 0.5) * Math.PI) / 2 / 4;
    push(0.13 + 0.02 * det.cos(a), -0.1 + 0.02 * det.sin(a));
  }
  for (let k = 0; k < 10; k++) push(0.15 + (0.01 * k) / 9, -0.09 + (0.21 * k) / 9); // outer wall up to y 0.12
  for (let k = 1; k < 8; k++) {
    // the lip: half circle over the top, centre (0.1475, 0.12), radius 0.0125
    const a = (k * Math.PI) / 8;
    push(0.1475 + 0.0125 * det.cos(a), 0.12 + 0.0125 * det.sin(a));
  }
  for (let k = 0; k < 6; k++) push(0.135 - (0.015 * k) / 5, 0.12 - (0.19 * k) / 5); // inner wall down to y -0.07
  for (let k = 1; k < 3; k++) push(0.12 * (1 - k / 3), -0.07); // inner floor
  push(0, -0.07);
  return pts;
}

/**
 * Pose of body i of a pile dropped as layers of cols x cols cells `spacing`
 * apart (centred on the origin, jittered by up to 5 cm), the lowest layer at
 * height y0 and each next one dy higher, turned at random.
 */
function tumbledInGrid(i: number, cols: number, spacing: number, y0: number, dy: number, rnd: () => number): Json {
  const layer = Math.floor(i / (cols * cols));
  const c = i % (cols * cols);
  const x = ((c % cols) - (cols - 1) / 2) * spacing + (rnd() - 0.5) * 0.1;
  const z = (Math.floor(c / cols) - (cols - 1) / 2) * spacing + (rnd() - 0.5) * 0.1;
  return {
    position: [round(x), round(y0 + layer * dy), round(z)],
    rotation: { axis: [round(rnd() - 0.5), round(rnd() - 0.5), round(rnd() - 0.5 + 0.01)], degrees: round(rnd() * 360) },
  };
}


/** ceil(cbrt(n)) in exact arithmetic: the side of the smallest cube of cells that holds n bodies. */
function cubeSide(n: number): number {
  let side = 1;
  while (side * side * side < n) side++;
  return side;
}
