/**
 * Spheres, capsules and cylinders as the solids they name, not as their
 * tessellations (docs/ALGORITHM.md 2). The mesh only draws the body; for
 * collisions and mass the body is the solid:
 *
 *  - its SDF holds the exact distance to the solid (exactField), on a grid
 *    laid over the solid, so contact normals are the solid's (a sphere's
 *    point at its centre);
 *  - its collision samples (samplesOnSolid) are the tessellation's vertices,
 *    one sample at each facet's centroid and the edge samples, each moved to
 *    the nearest point of the solid's surface, with the surface's normal
 *    there; each stands for the part of the surface nearest to it, so a
 *    curved contact patch's weighted centre (ALGORITHM.md 4.3) lies where the
 *    solid touches; a cylinder's rim stays a crease;
 *  - its volume and inertia are the solid's (unless `"massFrom": "sdf"`).
 *
 * On its facets alone a ball rolled like a polygon, bumping from vertex to
 * vertex: down a 20-degree box ramp a 16 x 12 sphere reached 0.911 of
 * (5/7) g sin, a capsule of the default segments 0.835 of its own, a lying
 * cylinder of 16 segments 0.85 of (2/3) g sin (docs/ALGORITHM.md 2).
 */
import type { TriMesh, Vec3 } from '../geometry/mesh.ts';
import { edgeSampleStart, type CollisionSamples } from '../geometry/samples.ts';
import { meshEdges } from '../geometry/edges.ts';
import { gridLayout, type SdfGrid } from '../sdf/grid.ts';
import type { ShapeDesc } from './types.ts';

/** A smooth solid in its own frame, centred on the origin, its axis (if any) along y. */
export interface TrueSolid {
  /** Signed distance from (x, y, z) to the solid's surface (negative inside). */
  distance(x: number, y: number, z: number): number;
  /**
   * The point of the surface for a point (x, y, z) of the tessellation and
   * its outward normal there: out[0..2] point, out[3..5] normal. `sharp`:
   * the tessellation has a crease there. Returns whether the solid is smooth
   * there (a cylinder's rim is not).
   */
  project(x: number, y: number, z: number, out: Float64Array, sharp: boolean): boolean;
  /** Half its extent along x, y, z (its box is centred on the origin). */
  half: Vec3;
  /** Volume (the mass at density 1). */
  volume: number;
  /** Principal moments at density 1 about x, y, z. */
  moments: Vec3;
}

/** The solid a procedural shape names, or null for shapes that are their meshes. */
export function trueSolid(d: ShapeDesc): TrueSolid | null {
  if (d.type === 'sphere') return sphere(d.radius);
  if (d.type === 'capsule') return capsule(d.radius, d.height / 2 - d.radius);
  if (d.type === 'cylinder') return cylinder(d.radius, d.height / 2);
  return null;
}

function sphere(r: number): TrueSolid {
  const v = (4 / 3) * Math.PI * r * r * r;
  const i = 0.4 * v * r * r;
  return {
    distance: (x, y, z) => Math.sqrt(x * x + y * y + z * z) - r,
    project: (x, y, z, out) => radial(0, x, y, z, r, out),
    half: [r, r, r],
    volume: v,
    moments: [i, i, i],
  };
}

/** A capsule: the points within r of the segment from (0, -a, 0) to (0, a, 0). */
function capsule(r: number, a: number): TrueSolid {
  const vc = Math.PI * r * r * 2 * a, vs = (4 / 3) * Math.PI * r * r * r;
  // The straight part about its own centre; the two hemispheres (a sphere's
  // mass) with their centres a above and below: m (2/5 r^2 + a^2 + 3/4 a r).
  const across = (vc * (3 * r * r + 4 * a * a)) / 12 + vs * (0.4 * r * r + a * a + 0.75 * a * r);
  const along = (vc * r * r) / 2 + 0.4 * vs * r * r;
  const clampY = (y: number) => Math.max(-a, Math.min(a, y));
  return {
    distance: (x, y, z) => {
      const dy = y - clampY(y);
      return Math.sqrt(x * x + dy * dy + z * z) - r;
    },
    project: (x, y, z, out) => radial(clampY(y), x, y, z, r, out),
    half: [r, a + r, r],
    volume: vc + vs,
    moments: [across, along, across],
  };
}

/** Onto the sphere of radius r about (0, cy, 0) along its radius through (x, y, z). */
function radial(cy: number, x: number, y: number, z: number, r: number, out: Float64Array): boolean {
  const dy = y - cy;
  const l = Math.sqrt(x * x + dy * dy + z * z);
  const nx = l > 0 ? x / l : 0, ny = l > 0 ? dy / l : 1, nz = l > 0 ? z / l : 0;
  out[0] = r * nx; out[1] = cy + r * ny; out[2] = r * nz;
  out[3] = nx; out[4] = ny; out[5] = nz;
  return true;
}

/**
 * A cylinder: radius r about the y axis, from y = -a to a. Its tessellation's
 * side points go out along their radius onto the side; its cap points stay
 * where they are (the cap polygon lies inside the disc); the points of its
 * rim (at a cap and on a crease of the prism) go out onto the circle, with
 * the normal halfway between the side's and the cap's, and stay creases.
 */
function cylinder(r: number, a: number): TrueSolid {
  const v = Math.PI * r * r * 2 * a;
  const across = (v * (3 * r * r + 4 * a * a)) / 12;
  // On a cap's plane, within what 32-bit sample coordinates resolve (a cap at
  // y = 0.01 reads 0.009999999776).
  const edge = a - 1e-5 * Math.max(a, r);
  return {
    distance: (x, y, z) => {
      const dr = Math.sqrt(x * x + z * z) - r, dy = Math.abs(y) - a;
      const ox = Math.max(dr, 0), oy = Math.max(dy, 0);
      return Math.sqrt(ox * ox + oy * oy) + Math.min(Math.max(dr, dy), 0);
    },
    project: (x, y, z, out, sharp) => {
      const l = Math.sqrt(x * x + z * z);
      const ux = l > 0 ? x / l : 1, uz = l > 0 ? z / l : 0;
      const cap = y >= edge ? 1 : y <= -edge ? -1 : 0;
      if (cap === 0 || sharp) {
        out[0] = r * ux; out[1] = cap === 0 ? y : cap * a; out[2] = r * uz;
        const k = cap === 0 ? 1 : Math.SQRT1_2;
        out[3] = k * ux; out[4] = k * cap; out[5] = k * uz;
        return cap === 0;
      }
      out[0] = x; out[1] = cap * a; out[2] = z;
      out[3] = 0; out[4] = cap; out[5] = 0;
      return true;
    },
    half: [r, a, r],
    volume: v,
    moments: [across, (v * r * r) / 2, across],
  };
}

/**
 * The solid's field: `cells` cells along the longest side of its own box
 * (centred on c), `padding` more on every side, each node's value the
 * solid's signed distance. Laid over the solid rather than its
 * tessellation, which a coarse one bulges past (a cylinder of 3 segments by
 * half its radius): outside the grid nothing is detected.
 */
export function exactField(solid: TrueSolid, c: Vec3, cells: number, padding: number): SdfGrid {
  const hw = solid.half;
  const { origin: o, cellSize: h, dims } = gridLayout({ min: [c[0] - hw[0], c[1] - hw[1], c[2] - hw[2]], max: [c[0] + hw[0], c[1] + hw[1], c[2] + hw[2]] }, cells, padding);
  const [nx, ny, nz] = dims;
  const values = new Float32Array(nx * ny * nz);
  for (let k = 0; k < nz; k++) {
    const z = o[2] + k * h - c[2];
    for (let j = 0; j < ny; j++) {
      const y = o[1] + j * h - c[1];
      for (let i = 0; i < nx; i++) values[i + nx * (j + ny * k)] = solid.distance(o[0] + i * h - c[0], y, z);
    }
  }
  return { origin: o, cellSize: h, dims, values };
}

/**
 * The collision samples of the solid about c, from its tessellation `mesh`
 * (centred as the body is) and that mesh's samples `s`: the vertices, then
 * one sample at each triangle's centroid, then the edge samples, every one
 * on the solid's surface (TrueSolid.project) with the surface's normal; a
 * crease of the solid keeps the mesh's crease tensor, elsewhere there is
 * none. The face samples of large facets in `s` give way to the centroids.
 */
export function samplesOnSolid(mesh: TriMesh, s: CollisionSamples, solid: TrueSolid, c: Vec3): CollisionSamples {
  const nv = s.meshVertexCount ?? s.vertexCount;
  const idx = mesh.indices, p = mesh.positions;
  const nt = idx.length / 3;
  const old = s.points, total = old.length / 4;
  const n = nv + nt + (total - s.vertexCount);
  const points = new Float32Array(4 * n), normals = new Float32Array(4 * n), creases = new Float32Array(6 * n);
  const at = new Float64Array(6);
  const sharp = (from: number): boolean => {
    const m = s.creases;
    return from >= 0 && m !== undefined && m[6 * from]! + m[6 * from + 3]! + m[6 * from + 5]! > 0.5;
  };
  const put = (i: number, x: number, y: number, z: number, from: number) => {
    const smooth = solid.project(x - c[0], y - c[1], z - c[2], at, sharp(from));
    for (let k = 0; k < 3; k++) {
      points[4 * i + k] = c[k]! + at[k]!;
      normals[4 * i + k] = at[3 + k]!;
    }
    if (!smooth && s.creases) creases.set(s.creases.subarray(6 * from, 6 * from + 6), 6 * i);
  };
  for (let v = 0; v < nv; v++) put(v, old[4 * v]!, old[4 * v + 1]!, old[4 * v + 2]!, v);
  for (let t = 0; t < nt; t++) {
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, cc = 3 * idx[3 * t + 2]!;
    put(nv + t, (p[a]! + p[b]! + p[cc]!) / 3, (p[a + 1]! + p[b + 1]! + p[cc + 1]!) / 3, (p[a + 2]! + p[b + 2]! + p[cc + 2]!) / 3, -1);
  }
  for (let i = s.vertexCount; i < total; i++) put(nv + nt + (i - s.vertexCount), old[4 * i]!, old[4 * i + 1]!, old[4 * i + 2]!, i);
  const out: CollisionSamples = { ...s, points, normals, vertexCount: nv + nt, meshVertexCount: nv, creases };
  out.areas = solidSampleAreas(mesh, out, solid, c);
  return out;
}

/** Probes per triangle side in solidSampleAreas. */
const AREA_PROBES = 6;

/**
 * The area of the surface each sample stands for, by nearest-sample shares:
 * each triangle's piece of the surface is probed on a barycentric grid
 * (each probe moved onto the surface), and each probe's share of the
 * triangle's area goes to the nearest of the samples on that triangle (its
 * corners, its edges' samples, its centroid), whatever the spacing of the
 * samples on each edge. (They add up to the facets' area: only their ratios count.)
 */
function solidSampleAreas(mesh: TriMesh, s: CollisionSamples, solid: TrueSolid, c: Vec3): Float32Array {
  const idx = mesh.indices, p = mesh.positions, q = s.points;
  const nv = s.meshVertexCount ?? s.vertexCount;
  const me = meshEdges(idx, nv);
  const share = new Float64Array(q.length / 4);
  const N = AREA_PROBES;
  const cand: number[] = [];
  const at = new Float64Array(6);
  for (let t = 0; t < idx.length / 3; t++) {
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, cc = 3 * idx[3 * t + 2]!;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[cc]! - p[a]!, vy = p[cc + 1]! - p[a + 1]!, vz = p[cc + 2]! - p[a + 2]!;
    const area = 0.5 * Math.sqrt(sq(uy * vz - uz * vy) + sq(uz * vx - ux * vz) + sq(ux * vy - uy * vx));
    const each = area / (((N + 1) * (N + 2)) / 2);
    cand.length = 0;
    cand.push(idx[3 * t]!, idx[3 * t + 1]!, idx[3 * t + 2]!, nv + t);
    for (let j = 0; j < 3; j++) {
      const e = me.edgeOf[3 * t + j]!;
      for (let i = edgeSampleStart(s, e), end = edgeSampleStart(s, e + 1); i < end; i++) cand.push(i);
    }
    for (let u = 0; u <= N; u++) {
      for (let v = 0; u + v <= N; v++) {
        // A grid of (N + 1)(N + 2) / 2 points inside the triangle.
        const wa = (u + 1 / 3) / (N + 1), wb = (v + 1 / 3) / (N + 1), wc = 1 - wa - wb;
        solid.project(
          wa * p[a]! + wb * p[b]! + wc * p[cc]! - c[0],
          wa * p[a + 1]! + wb * p[b + 1]! + wc * p[cc + 1]! - c[1],
          wa * p[a + 2]! + wb * p[b + 2]! + wc * p[cc + 2]! - c[2],
          at,
          false,
        );
        const x = c[0] + at[0]!, y = c[1] + at[1]!, z = c[2] + at[2]!;
        let best = cand[0]!, bd = Infinity;
        for (const k of cand) {
          const d = sq(q[4 * k]! - x) + sq(q[4 * k + 1]! - y) + sq(q[4 * k + 2]! - z);
          if (d < bd) {
            bd = d;
            best = k;
          }
        }
        share[best] = share[best]! + each;
      }
    }
  }
  return Float32Array.from(share);
}

const sq = (x: number): number => x * x;
