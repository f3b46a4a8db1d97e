/**
 * Built-in soft-body scenes (seed 001; docs/soft-bodies.md, "Built-in
 * scenes"). Plain scene JSON like every built-in; builtins.ts lists them
 * with the others, so `stackfield run --builtin soft-pegs --dump` prints a
 * file anyone can edit.
 */
import { seesaw } from './rigidScenes.ts';
import { FORMAT, floorShape, ground, lcg, round, type Builtin, type Json } from './sceneKit.ts';
import { starPolygon } from '../geometry/shapes.ts';
import * as det from '../util/detmath.ts';

type Pt = [number, number];

/** The seed's plus-shaped body (fig. 5 and 9): arms one unit wide, three long, scaled by s. */
export function plusOutline(s: number): Pt[] {
  const P: Pt[] = [[-1, -3], [1, -3], [1, -1], [3, -1], [3, 1], [1, 1], [1, 3], [-1, 3], [-1, 1], [-3, 1], [-3, -1], [-1, -1]];
  return P.map(([x, y]) => [round(x * s), round(y * s)]);
}

/** A horseshoe: an arch of 207 degrees between radii r and 0.6 r, open at the bottom, in n segments. */
export function horseshoeOutline(r: number, n = 9): Pt[] {
  const out: Pt[] = [];
  const arc = (i: number) => Math.PI * 1.15 * (i / n) - 0.075 * Math.PI;
  for (let i = 0; i <= n; i++) out.push([round(r * det.cos(arc(i))), round(r * det.sin(arc(i)))]);
  for (let i = n; i >= 0; i--) out.push([round(0.6 * r * det.cos(arc(i))), round(0.6 * r * det.sin(arc(i)))]);
  return out;
}

/** The integrators in the order of the scenes' `integrator` parameter. */
export const INTEGRATOR_CHOICE = ['semiImplicit', 'euler', 'rk2', 'rk4'] as const;

const jelly = { stiffness: 30000, damping: 0.4, density: 1000, friction: 0.6, restitution: 0 };

export const softBuiltins: Builtin[] = [
  {
    name: 'soft-plus',
    title: "Soft: the seed's plus-shaped body falls on the ground",
    description:
      `The seed's own soft body: a plus outline whose inner springs the seed's algorithm adds widest angle first down to a minimum angle, extruded, dropped on the ground. Raise minAngle for fewer outline springs (braces then fill in the faces the rule leaves open).`,
    params: [
      { name: 'minAngle', default: 20, min: 5, max: 60, step: 1, description: 'smallest angle (degrees) of an added spring' },
    ],
    make: (p) => ({
      format: FORMAT,
      dt: 0.01,
      shapes: { floor: floorShape, plus: { type: 'extrude', polygon: plusOutline(0.15), depth: 0.3 } },
      bodies: [ground()],
      softMaterials: { jelly },
      softBodies: [
        {
          name: 'plus',
          shape: 'plus',
          material: 'jelly',
          construction: { method: 'seed', minAngle: p['minAngle'] },
          position: [0, 1.2, 0],
          rotation: { axis: [0, 0, 1], degrees: 12 },
        },
      ],
    }),
  },
  {
    name: 'soft-outlines',
    title: "Soft: horseshoe, star and plus, each net built by the seed's algorithm",
    description:
      `A horseshoe, a star and a plus, each net built from its outline by the seed's algorithm (springs outside a concavity are the weaker outer springs), falling side by side.`,
    params: [{ name: 'minAngle', default: 20, min: 5, max: 60, step: 1, description: 'smallest angle (degrees) of an added spring' }],
    make: (p) => {
      const seed = { method: 'seed', minAngle: p['minAngle'] };
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: {
          floor: floorShape,
          horseshoe: { type: 'extrude', polygon: horseshoeOutline(0.4), depth: 0.25 },
          star: { type: 'extrude', polygon: starPolygon(5, 0.45, 0.2).map(([x, y]) => [round(x), round(y)]), depth: 0.25 },
          plus: { type: 'extrude', polygon: plusOutline(0.13), depth: 0.25 },
        },
        bodies: [ground()],
        // Stiffer than the plus alone: the horseshoe's thin arch sagged to half its volume at 30 kPa.
        softMaterials: { jelly: { ...jelly, stiffness: 150000 } },
        softBodies: [
          { name: 'horseshoe', shape: 'horseshoe', material: 'jelly', construction: seed, position: [-1.1, 1, 0] },
          { name: 'star', shape: 'star', material: 'jelly', construction: seed, position: [0, 1.3, 0], rotation: { axis: [0, 0, 1], degrees: 8 } },
          { name: 'plus', shape: 'plus', material: 'jelly', construction: seed, position: [1.1, 1.1, 0], rotation: { axis: [0, 0, 1], degrees: 20 } },
        ],
      };
    },
  },
  {
    name: 'soft-integrators',
    title: 'Soft: a stiff cube at 30 steps per second (explicit Euler explodes)',
    description:
      `The seed's comparison: a stiff soft cube at 30 steps per second. Explicit Euler (1) and RK2 (2) blow up within a second and stop the run with an error naming the cube; the default (0) and RK4 (3) hold it.`,
    params: [
      { name: 'integrator', default: 0, min: 0, max: 3, step: 1, description: '0 semiImplicit (default), 1 explicit Euler, 2 RK2, 3 RK4' },
    ],
    make: (p) => ({
      format: FORMAT,
      dt: round(1 / 30, 12),
      shapes: { floor: floorShape, cube: { type: 'box', size: [0.5, 0.5, 0.5] } },
      bodies: [ground()],
      softSolver: { integrator: INTEGRATOR_CHOICE[p['integrator']!] },
      softBodies: [
        { name: 'stiffCube', shape: 'cube', position: [0, 0.6, 0], stiffness: 10000, damping: 0.1, construction: { resolution: 2 } },
      ],
    }),
  },
  {
    name: 'soft-pegs',
    count: 'blobs',
    title: "Soft: blobs dropped onto the rings' pegs",
    description:
      `Jelly blobs with volume preservation dropped onto three of the rings' pegs: they drape over the pegs, slide off and pile up, pushed apart by their surface particles.`,
    params: [
      { name: 'blobs', default: 20, min: 1, max: 200, step: 1, description: 'number of soft blobs' },
      { name: 'resolution', default: 7, min: 3, max: 16, step: 1, description: 'lattice cells across a blob (7: 432 particles, 8: 613)' },
    ],
    make: (p) => {
      const n = p['blobs']!;
      const spacing = 0.9;
      const rnd = lcg(5);
      const bodies: Json[] = [ground({ friction: 0.6 })];
      const pegs: Pt[] = [[-spacing, 0], [0, 0], [spacing, 0]];
      pegs.forEach(([x, z], k) => bodies.push({ name: `peg${k}`, shape: 'peg', static: true, position: [x, 0.8, z], friction: 0.4 }));
      const softBodies: Json[] = [];
      // Columns over and between the pegs, layers upwards.
      const cols: Pt[] = [[-spacing, 0], [0, 0], [spacing, 0], [-spacing / 2, 0.35], [spacing / 2, -0.35]];
      for (let i = 0; i < n; i++) {
        const [x, z] = cols[i % cols.length]!;
        const layer = Math.floor(i / cols.length);
        softBodies.push({
          name: `blob${i}`,
          shape: 'blob',
          material: 'jelly',
          construction: { resolution: p['resolution'] },
          position: [round(x + (rnd() - 0.5) * 0.1), round(2.2 + layer * 0.5), round(z + (rnd() - 0.5) * 0.1)],
          rotation: { axis: [round(rnd() - 0.5), 1, round(rnd() - 0.5)], degrees: round(rnd() * 90) },
        });
      }
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: {
          floor: floorShape,
          // The rings scene's pegs, shorter.
          peg: { type: 'cylinder', radius: 0.08, height: 1.6, segments: 21, sdf: { cells: 64 } },
          blob: { type: 'sphere', radius: 0.2, segments: [24, 16] },
        },
        bodies,
        softMaterials: { jelly: { ...jelly, stiffness: 15000, damping: 0.5, preserveVolume: true } },
        softBodies,
      };
    },
  },
  {
    name: 'soft-seesaw',
    title: 'Soft: a heavy soft ball tips the seesaw',
    description:
      `A heavy soft ball lands on the raised end of the seesaw: its contact impulses go back into the plank, which tips and throws the light box. A ball of a few kilograms does not tip it.`,
    params: [{ name: 'mass', default: 40, min: 1, max: 400, step: 1, description: 'mass of the soft ball (kg); the plank is 4 kg' }],
    make: (p) => {
      // The rigid seesaw (rigidScenes.ts, its defaults) without its heavy box: the plank rests on the
      // apex, its left end (and the light box) down; the soft ball comes down on the raised right end.
      const rigid = seesaw({ heavy: 20, drop: 1.5, shockOnly: 0 }) as Json & { shapes: Json; bodies: Json[] };
      const { big: _unused, ...shapes } = rigid.shapes;
      return {
        ...rigid,
        shapes: { ...shapes, ball: { type: 'sphere', radius: 0.3 } },
        bodies: rigid.bodies.filter((b) => b['name'] !== 'heavy'),
        softBodies: [
          {
            name: 'ball',
            shape: 'ball',
            mass: p['mass'],
            stiffness: 100000,
            damping: 1,
            friction: 0.8,
            construction: { resolution: 7 },
            position: [1.5, 1.15, 0],
          },
        ],
      };
    },
  },
  {
    name: 'soft-volume',
    title: 'Soft: volume preservation on (left) and off (right) under a load',
    description:
      `Two soft cubes under rigid boxes: the left keeps its volume (volume preservation on) and holds its box higher, the right gives way.`,
    params: [{ name: 'load', default: 60, min: 1, max: 500, step: 1, description: 'mass of each box dropped on a soft cube (kg)' }],
    make: (p) => {
      const cube = (name: string, x: number, preserve: boolean): Json => ({
        name,
        shape: 'cube',
        position: [x, 0.3, 0],
        stiffness: 20000,
        damping: 0.5,
        preserveVolume: preserve,
        construction: { resolution: 7 },
      });
      return {
        format: FORMAT,
        dt: 0.01,
        shapes: { floor: floorShape, cube: { type: 'box', size: [0.6, 0.6, 0.6] }, load: { type: 'box', size: [0.5, 0.2, 0.5], sdf: { cells: 32 } } },
        bodies: [
          ground(),
          { name: 'loadOn', shape: 'load', position: [-0.6, 0.9, 0], mass: p['load'], friction: 0.6, restitution: 0 },
          { name: 'loadOff', shape: 'load', position: [0.6, 0.9, 0], mass: p['load'], friction: 0.6, restitution: 0 },
        ],
        softBodies: [cube('preserved', -0.6, true), cube('free', 0.6, false)],
      };
    },
  },
];
