/**
 * The seed's chapter-12 scenes of scanned meshes (docs/ALGORITHM.md 7), with the
 * Stanford bunny (examples/meshes/bunny.obj, 3 674 triangles) standing in for
 * the seed's skulls of 2 970 triangles:
 *  - "skulls": 50 of them dropped into a heap (seed: 1 s per step once stacked);
 *  - "jointed-skulls": 108 of them, six at a time joined by ball joints into a
 *    closed necklace, dropped over pegs (seed: 6 s of simulation took 26 min).
 * src/scene/builtins.ts registers them.
 *
 * The mesh file is named by an absolute location computed from this module's
 * own URL: a file path under Node (the CLI, the tests), an http URL in the
 * browser, where Vite serves (or, when building, copies) the file it points
 * to. So the built-ins load from any working directory, and `--dump` writes a
 * scene file whose mesh path still resolves.
 */
import { FORMAT, floorShape, ground, lcg, pileSolver, round, type Builtin, type Json } from './sceneKit.ts';
import * as det from '../util/detmath.ts';

const BUNNY_URL = new URL('../../examples/meshes/bunny.obj', import.meta.url);

/** Where the bunny is, as a mesh path a scene can hold (file path under Node, URL in a browser). */
export function bunnyPath(url: URL = BUNNY_URL): string {
  if (url.protocol !== 'file:') return url.href;
  const path = decodeURIComponent(url.pathname);
  // file:///C:/x on Windows has the pathname /C:/x.
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

/**
 * The bunny at the size of a skull: the file's 9.9 x 9.7 x 7.5 units scaled
 * to about 0.20 x 0.19 x 0.15 m. 40 SDF cells (5 mm) resolve its ears.
 */
function bunnyShape(): Json {
  return { type: 'mesh', path: bunnyPath(), scale: 0.02, sdf: { cells: 40 } };
}

/**
 * The bunny piles' solver: the accumulated stage, and edge samples a cell
 * apart (`edgeSpacing`; ALGORITHM.md 4.3). The bunny's edges are 1.5 cells
 * long at the median, so three samples an edge put them 0.4 cells apart, far
 * finer than its field resolves: 7 791 samples instead of 18 372, half the
 * step on 50 and 108 bunnies, each pair's deepest point within 0.15 mm of
 * the dense samples' (DESIGN.md 6).
 */
function bunnySolver(): Json {
  return { ...pileSolver(), edgeSpacing: 1 };
}

/** Centre of the scaled bunny's bounding box in its own frame (its origin is under its feet). */
const BUNNY_CENTRE = [0, 0.0965, 0.0008];
/** Distance from that centre to the farthest vertex, plus a margin. */
const BUNNY_RADIUS = 0.16;

/**
 * A random orientation as axis and angle, and the body position that puts
 * the bunny's centre (not its origin) at `at`: p = at - R c.
 */
function tumbled(rnd: () => number, at: number[]): { position: number[]; rotation: Json } {
  let ax = rnd() - 0.5, ay = rnd() - 0.5, az = rnd() - 0.5 + 0.01;
  const len = Math.hypot(ax, ay, az);
  ax /= len; ay /= len; az /= len;
  const deg = round(rnd() * 360, 3);
  const th = (deg * Math.PI) / 180, c = det.cos(th), s = det.sin(th);
  const [vx, vy, vz] = BUNNY_CENTRE as [number, number, number];
  // Rodrigues: R v = v cos + (k x v) sin + k (k . v)(1 - cos).
  const kv = ax * vx + ay * vy + az * vz;
  const rx = vx * c + (ay * vz - az * vy) * s + ax * kv * (1 - c);
  const ry = vy * c + (az * vx - ax * vz) * s + ay * kv * (1 - c);
  const rz = vz * c + (ax * vy - ay * vx) * s + az * kv * (1 - c);
  return {
    position: [round(at[0]! - rx), round(at[1]! - ry), round(at[2]! - rz)],
    rotation: { axis: [round(ax), round(ay), round(az)], degrees: deg },
  };
}

export const meshBuiltins: Builtin[] = [
  {
    name: 'skulls',
    title: 'Pile of bunnies standing in for the seed\'s 50 skulls (Stanford bunnies of 3674 triangles)',
    description: "Scanned meshes tumble into a heap (seed ch. 12, 50 skulls), the Stanford bunny standing in for the seed's skull. Their edge samples lie a cell apart (edgeSpacing 1), which halves the step. On one CPU thread (an AMD EPYC VM) about 11 ms a step while they land and 1 ms on average while the heap settles; the last bunny is asleep by about 6 s, and a sleeping heap costs almost nothing.",
    params: [{ name: 'count', default: 50, min: 1, max: 500, step: 1, description: 'number of bunnies' }],
    count: 'count',
    make: (p) => {
      const n = p['count']!;
      const rnd = lcg(31);
      // Layers of 3 x 3, far enough apart that no two overlap in any orientation:
      // they fall as a column and spill into a heap.
      const bodies: Json[] = [ground({ friction: 0.6 })];
      const spacing = 2 * BUNNY_RADIUS + 0.01;
      for (let i = 0; i < n; i++) {
        const layer = Math.floor(i / 9), c = i % 9;
        const x = ((c % 3) - 1) * spacing + (rnd() - 0.5) * 0.01;
        const z = (Math.floor(c / 3) - 1) * spacing + (rnd() - 0.5) * 0.01;
        bodies.push({
          name: `skull${i}`,
          shape: 'skull',
          ...tumbled(rnd, [x, BUNNY_RADIUS + 0.01 + layer * spacing, z]),
          density: 1100,
          restitution: 0.1,
          friction: 0.6,
          rollingFriction: 0.02,
        });
      }
      return { format: FORMAT, dt: 0.01, solver: bunnySolver(), shapes: { floor: floorShape, skull: bunnyShape() }, bodies };
    },
  },
  {
    name: 'jointed-skulls',
    title: 'Jointed bunnies for the seed\'s 108 jointed skulls: necklaces of 6 joined by ball joints, dropped over pegs',
    description: "Necklaces of six bunnies joined by ball joints land over pegs (seed fig. 37, 108 skulls). About 8 ms a step on one CPU thread over 6 s (an AMD EPYC VM; about 50 ms while they land), and the heap sleeps by about 2.5 s; under the seed's contact passes (--solver sequential) about 0.25 s a step, and all 108 stay awake.",
    params: [{ name: 'count', default: 108, min: 6, max: 600, step: 6, description: 'number of bunnies (6 per necklace)' }],
    count: 'count',
    make: (p) => {
      const loops = Math.max(1, Math.round(p['count']! / 6));
      const rnd = lcg(17);
      // As the seed's 60 rings on 3 pegs: up to 6 necklaces per peg, 3 pegs or more.
      const pegs = Math.max(3, Math.ceil(loops / 6));
      const cols = Math.ceil(Math.sqrt(pegs));
      const pegSpacing = 1.1;
      const pegPos: [number, number][] = [];
      const bodies: Json[] = [ground({ friction: 0.6 })];
      for (let k = 0; k < pegs; k++) {
        const x = pegs === 3 ? (k - 1) * pegSpacing : ((k % cols) - (cols - 1) / 2) * pegSpacing;
        const z = pegs === 3 ? 0 : (Math.floor(k / cols) - (Math.ceil(pegs / cols) - 1) / 2) * pegSpacing;
        pegPos.push([x, z]);
        bodies.push({ name: `peg${k}`, shape: 'peg', static: true, position: [round(x), 0.7, round(z)], friction: 0.4 });
      }
      // A necklace: bunny origins on a hexagon of side 0.26 m around the peg, so the
      // 0.2 m bunnies leave the 0.05 m peg room in the middle; each joined to the next
      // at the midpoint between their origins. Every bunny turns with its necklace (a
      // small random tilt), so an anchor in its own frame is the unrotated offset.
      const side = 0.26;
      const joints: Json[] = [];
      for (let g = 0; g < loops; g++) {
        const k = g % pegs;
        const [px, pz] = pegPos[k]!;
        const cy = 1.7 + 0.45 * Math.floor(g / pegs);
        const phi = rnd() * 2 * Math.PI;
        const deg = 5 + rnd() * 10;
        const ax = det.cos(phi), az = det.sin(phi);
        const th = (deg * Math.PI) / 180, c = det.cos(th), sn = det.sin(th);
        const flat: number[][] = [];
        for (let i = 0; i < 6; i++) {
          const a = ((30 + 60 * i) * Math.PI) / 180;
          flat.push([side * det.cos(a), 0, side * det.sin(a)]);
        }
        flat.forEach((f, i) => {
          // Rodrigues about the horizontal axis (ax, 0, az); f lies in the plane y = 0.
          const kf = ax * f[0]! + az * f[2]!;
          const kx = 0, ky = az * f[0]! - ax * f[2]!, kz = 0;
          bodies.push({
            name: `skull${6 * g + i}`,
            shape: 'skull',
            position: [round(px + f[0]! * c + kx * sn + ax * kf * (1 - c)), round(cy + ky * sn), round(pz + f[2]! * c + kz * sn + az * kf * (1 - c))],
            rotation: { axis: [round(ax), 0, round(az)], degrees: round(deg) },
            density: 1100,
            restitution: 0.03,
            friction: 0.6,
          });
        });
        for (let i = 0; i < 6; i++) {
          const j = (i + 1) % 6;
          const a = flat[i]!, b = flat[j]!;
          const mid = [(a[0]! + b[0]!) / 2, 0, (a[2]! + b[2]!) / 2];
          joints.push({
            type: 'ball',
            bodyA: `skull${6 * g + i}`,
            bodyB: `skull${6 * g + j}`,
            anchorA: [round(mid[0]! - a[0]!), 0, round(mid[2]! - a[2]!)],
            anchorB: [round(mid[0]! - b[0]!), 0, round(mid[2]! - b[2]!)],
          });
        }
      }
      return {
        format: FORMAT,
        dt: 0.01,
        solver: bunnySolver(),
        shapes: {
          floor: floorShape,
          skull: bunnyShape(),
          peg: { type: 'cylinder', radius: 0.05, height: 1.4, segments: 14, sdf: { cells: 64 } },
        },
        bodies,
        joints,
      };
    },
  },
];
