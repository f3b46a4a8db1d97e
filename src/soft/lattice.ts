/**
 * A 3D spring network for any closed shape: a regular lattice clipped by the
 * shape's own signed distance field, with the outside lattice nodes snapped
 * onto the surface (docs/EXTRAS.md: "in 3D, a tetrahedral or lattice spring
 * network built from a mesh plays this role").
 *
 * 1. The lattice spans the mesh bounds exactly, `resolution` cells along the
 *    longest axis and cells as close to cubes as the other extents allow
 *    (exact fit: a box's faces are lattice planes, so its nodes need no
 *    snapping and its corners are particles).
 * 2. A cell is kept when the shape fills a meaningful part of it: one of its
 *    27 half-spacing sample points (corners, edge and face midpoints, centre)
 *    lies deeper than KEEP_DEPTH spacings inside. A cell that the surface
 *    barely grazes would only add nodes that snap onto each other.
 * 3. The kept cells' corners are the particles. Corners outside the shape are
 *    moved onto the surface along the SDF gradient (a few Newton steps,
 *    x -= phi grad phi), so the net has the shape's outline, not a staircase;
 *    but only as far as keeps every tetrahedron at the node at
 *    MIN_TET_QUALITY of its nominal volume (Kuhn's split about each of the
 *    cell's four diagonals, a set every mirror of the cell keeps; KUHN_ALL):
 *    where the surface cuts a cell
 *    obliquely, a full snap would squash the cell flat, leaving a particle
 *    whose springs nearly lie in a plane, with almost no stiffness across it;
 *    such a particle gets pushed through, the net inverts there and does not
 *    recover (measured: a soft ball blew up a few seconds after landing).
 *    Three passes let a node go further once its neighbours have moved (in
 *    a pass all nodes move together, judged against where the pass found
 *    the others, so a mirror-symmetric shape gets a mirror-symmetric net); a
 *    sphere at resolution 7 then has every particle within 0.2 spacings of
 *    its surface, a torus within 0.35. The drawn surface is exact regardless
 *    (step 8).
 * 4. A snapped node closer than MERGE_FRACTION spacings to another node is
 *    merged with it (two outside nodes can land on nearly the same surface
 *    point, near a sharp edge or where the surface cuts a cell obliquely, or
 *    next to an inside node); a spring of near-zero rest length would be
 *    nearly infinitely stiff.
 * 5. Springs per kept cell: its 12 edges (structural), its 12 face diagonals
 *    and 4 body diagonals (shear; all of them, so the net has no preferred
 *    diagonal direction; a cube with braced faces is rigid to first order,
 *    but without the body diagonals, tried to save a quarter of the springs,
 *    a soft cube sagging to half its height under its own weight sheared
 *    over within 3 s), and, between cells, springs that skip one node along
 *    an axis (bending) where both halves are edges. A spring whose midpoint is
 *    farther outside the shape than its ends is "outer" (it bridges a
 *    concavity, like the seed's outer springs in 2D). They are stored
 *    interleaved (interleave), in the order the solver sweeps them.
 * 6. Each kept cell is split into six tetrahedra around its main diagonal
 *    (Kuhn's split, conforming across faces); tetrahedra that snapping
 *    flattened or turned inside out are dropped.
 * 7. Mass: a quarter of each tetrahedron's volume to each of its corners, at
 *    least an eighth of a cell per particle, normalised (the caller scales to
 *    the body's mass).
 * 8. Drawing: the shape's own mesh, its triangles split 1-to-4 until no
 *    edge is longer than REFINE_EDGE spacings (a box's 8 corners alone would
 *    draw a soft cube as a rigid one and put all of volume preservation's
 *    pressure on 8 particles). Each vertex is embedded in the tetrahedron that contains it (or,
 *    for a vertex just outside every one, the nearest), with barycentric
 *    weights. The drawn surface is then an affine function of the particles.
 * The net must be one piece; a resolution too coarse for a thin part (a
 * torus tube thinner than a cell) leaves pieces, and that is an error that
 * asks for a finer resolution.
 */
import type { TriMesh, Vec3 } from '../geometry/mesh.ts';
import { meshBounds } from '../geometry/mesh.ts';
import { OUTSIDE_DISTANCE, sampleSdf, type SdfGrid } from '../sdf/grid.ts';
import { componentCount, SpringKind, type SoftModel } from './model.ts';
import { DisjointSets } from '../geometry/disjointSets.ts';

/** The finest lattice a scene may ask for (softValidate.ts SOFT_LIMITS.resolution). */
export const MAX_LATTICE_RESOLUTION = 40;

/** A cell is kept when some sample lies this many spacings inside the shape. */
const KEEP_DEPTH = 0.05;
/** Snapped nodes closer than this many spacings become one particle. */
const MERGE_FRACTION = 0.3;
/** A spring whose midpoint is this many spacings outside the shape is an outer spring. */
const OUTER_DEPTH = 0.1;
/** Newton steps when snapping a node onto the surface. */
const SNAP_STEPS = 4;
/** Fractions of the way to the surface a snapped node tries, first to last. */
const SNAP_FRACTIONS = [1, 0.75, 0.5, 0.25, 0];
/** The drawn surface is refined until its edges are at most this many spacings (step 8). */
const REFINE_EDGE = 1.5;
/** ... but not past this many triangles (a fine OBJ mesh stays as it is). */
const MAX_SURFACE_TRIANGLES = 50_000;
/** Snapping passes (the loop comment says why more than one). */
const SNAP_PASSES = 3;
/** Smallest volume a snap may leave any of the node's tetrahedra, in nominal ones (cellVolume / 6); step 3. */
const MIN_TET_QUALITY = 0.1;

/** Corner c (0..7) of a cell: bit 0 -> +x, bit 1 -> +y, bit 2 -> +z. */
const CORNER = [
  [0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0],
  [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1],
] as const;

/** Kuhn's six tetrahedra of a cube, all sharing the diagonal 0-7 (corner numbering as CORNER). */
const KUHN = [
  [0, 1, 3, 7], [0, 3, 2, 7], [0, 2, 6, 7],
  [0, 6, 4, 7], [0, 4, 5, 7], [0, 5, 1, 7],
] as const;

/**
 * Kuhn's split about each of the cube's four body diagonals: 24 tetrahedra,
 * a set every reflection of the cube maps onto itself. Snapping judges a
 * node by these (step 3): judged by the one split about 0-7, which no
 * mirror keeps, a sphere's lattice came out up to 13 mm off its mirror
 * image (at resolution 5, radius 0.2), and a soft ball dropped straight
 * down rolled 0.19 m off along that diagonal and never came to rest.
 */
/** The unit cube's corners as positions (CORNER, flat), for tetVolume. */
const UNIT_CUBE = Float64Array.from(CORNER.flat());

const KUHN_ALL: readonly (readonly number[])[] = (() => {
  const out: number[][] = [];
  const bits = [1, 2, 4];
  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
  for (let a = 0; a < 4; a++) {
    for (const o of orders) {
      const b = a ^ bits[o[0]!]!, c = b ^ bits[o[1]!]!;
      // Ordered so that the unit cube's tetrahedron has a positive volume, as KUHN's do.
      out.push(tetVolume(UNIT_CUBE, a, b, c, a ^ 7) > 0 ? [a, b, c, a ^ 7] : [a, c, b, a ^ 7]);
    }
  }
  return out;
})();

/** Corner pairs of a cell's springs: 12 edges, 12 face diagonals, 4 body diagonals. */
const CELL_SPRINGS: readonly (readonly [number, number, SpringKind])[] = (() => {
  const out: [number, number, SpringKind][] = [];
  for (let a = 0; a < 8; a++) {
    for (let b = a + 1; b < 8; b++) {
      const differing = (a ^ b).toString(2).split('1').length - 1;
      out.push([a, b, differing === 1 ? SpringKind.Structural : SpringKind.Shear]);
    }
  }
  return out;
})();

/** The lattice construction (file comment). `mesh` and `sdf` are in the same frame. */
export function buildLatticeModel(mesh: TriMesh, sdf: SdfGrid, resolution: number): SoftModel {
  if (!(Number.isInteger(resolution) && resolution >= 1)) throw new RangeError(`resolution must be an integer >= 1, got ${resolution}`);
  const bounds = meshBounds(mesh);
  const ext = [0, 1, 2].map((k) => bounds.max[k]! - bounds.min[k]!) as Vec3;
  const longest = Math.max(...ext);
  const target = longest / resolution;
  const m = ext.map((e) => Math.max(1, Math.round(e / target))) as Vec3;
  const step = ext.map((e, k) => e / m[k]!) as Vec3;
  const h = Math.min(...step);
  const [mx, my, mz] = m;
  const nx = mx + 1, ny = my + 1;
  const nodeId = (i: number, j: number, k: number): number => i + nx * (j + ny * k);
  const nodeTotal = nx * ny * (mz + 1);

  // 2. Keep cells by the depth of their half-spacing samples.
  const sx = 2 * mx + 1, sy = 2 * my + 1, sz = 2 * mz + 1;
  const samplePhi = new Float64Array(sx * sy * sz);
  for (let k = 0; k < sz; k++) {
    for (let j = 0; j < sy; j++) {
      for (let i = 0; i < sx; i++) {
        const phi = sampleSdf(sdf, bounds.min[0] + 0.5 * i * step[0], bounds.min[1] + 0.5 * j * step[1], bounds.min[2] + 0.5 * k * step[2]);
        samplePhi[i + sx * (j + sy * k)] = phi;
      }
    }
  }
  const cellTotal = mx * my * mz;
  const kept = new Uint8Array(cellTotal);
  for (let k = 0; k < mz; k++) {
    for (let j = 0; j < my; j++) {
      for (let i = 0; i < mx; i++) {
        let deep = false;
        for (let c = 0; c < 27 && !deep; c++) {
          const phi = samplePhi[2 * i + (c % 3) + sx * (2 * j + (Math.floor(c / 3) % 3) + sy * (2 * k + Math.floor(c / 9)))]!;
          if (phi < -KEEP_DEPTH * h) deep = true;
        }
        kept[i + mx * (j + my * k)] = deep ? 1 : 0;
      }
    }
  }

  // 3. Particles at the kept cells' corners; outside ones snapped onto the surface.
  const used = new Uint8Array(nodeTotal);
  forKeptCells((i, j, k) => {
    for (const [di, dj, dk] of CORNER) used[nodeId(i + di, j + dj, k + dk)] = 1;
  });
  const pos = new Float64Array(3 * nodeTotal);
  for (let k = 0; k <= mz; k++) {
    for (let j = 0; j <= my; j++) {
      for (let i = 0; i <= mx; i++) {
        const id = nodeId(i, j, k);
        pos[3 * id] = bounds.min[0] + i * step[0];
        pos[3 * id + 1] = bounds.min[1] + j * step[1];
        pos[3 * id + 2] = bounds.min[2] + k * step[2];
      }
    }
  }
  const cellVolume = step[0] * step[1] * step[2];
  /** Smallest volume (in nominal Kuhn tetrahedra, cellVolume / 6) of the kept cells' tetrahedra at node (i, j, k). */
  const incidentQuality = (i: number, j: number, k: number, pos: Float64Array): number => {
    let q = Infinity;
    for (let c = 0; c < 8; c++) {
      const ci = i - CORNER[c][0], cj = j - CORNER[c][1], ck = k - CORNER[c][2];
      if (ci < 0 || cj < 0 || ck < 0 || ci >= mx || cj >= my || ck >= mz || !kept[ci + mx * (cj + my * ck)]) continue;
      for (const t of KUHN_ALL) {
        if (!t.includes(c)) continue;
        const ids = t.map((corner) => nodeId(ci + CORNER[corner]![0], cj + CORNER[corner]![1], ck + CORNER[corner]![2]));
        q = Math.min(q, tetVolume(pos, ids[0]!, ids[1]!, ids[2]!, ids[3]!) / cellVolume);
      }
    }
    return q;
  };
  const normal = new Float64Array(3);
  const snapped = new Uint8Array(nodeTotal);
  // Several passes: a node held back by a neighbour that had not moved yet may
  // go further once it has. Within a pass every node is judged against the
  // others where the pass found them and all move together, so the result
  // does not depend on the order the nodes are visited in (in turn, the
  // later ones saw the earlier ones moved, and a sphere's lattice lost its
  // mirror symmetry).
  const start = new Float64Array(pos.length);
  for (let pass = 0; pass < SNAP_PASSES; pass++) {
    start.set(pos);
    for (let k = 0; k <= mz; k++) {
      for (let j = 0; j <= my; j++) {
        for (let i = 0; i <= mx; i++) {
          const id = nodeId(i, j, k);
          if (!used[id] || !(samplePhi[2 * i + sx * (2 * j + sy * 2 * k)]! > 0)) continue;
          snapped[id] = 1;
          const ox = start[3 * id]!, oy = start[3 * id + 1]!, oz = start[3 * id + 2]!;
          let x = ox, y = oy, z = oz;
          for (let s = 0; s < SNAP_STEPS; s++) {
            const phi = sampleSdf(sdf, x, y, z, normal);
            if (phi === OUTSIDE_DISTANCE || Math.abs(phi) < 1e-6 * h) break;
            x -= phi * normal[0]!;
            y -= phi * normal[1]!;
            z -= phi * normal[2]!;
          }
          // As far towards the surface as the node's tetrahedra allow (file comment, step 3).
          for (const t of SNAP_FRACTIONS) {
            start[3 * id] = ox + t * (x - ox);
            start[3 * id + 1] = oy + t * (y - oy);
            start[3 * id + 2] = oz + t * (z - oz);
            if (t === 0 || incidentQuality(i, j, k, start) >= MIN_TET_QUALITY) {
              pos[3 * id] = start[3 * id]!;
              pos[3 * id + 1] = start[3 * id + 1]!;
              pos[3 * id + 2] = start[3 * id + 2]!;
              start[3 * id] = ox;
              start[3 * id + 1] = oy;
              start[3 * id + 2] = oz;
              break;
            }
          }
        }
      }
    }
  }

  // 4. Merge snapped nodes that landed close together (union-find over a hash of cells of the merge radius).
  const sets = new DisjointSets(nodeTotal);
  const radius = MERGE_FRACTION * h;
  const buckets = new Map<string, number[]>();
  const keyOf = (a: number, b: number, c: number): string => `${a},${b},${c}`;
  for (let id = 0; id < nodeTotal; id++) {
    if (!used[id]) continue;
    const bx = Math.floor(pos[3 * id]! / radius), by = Math.floor(pos[3 * id + 1]! / radius), bz = Math.floor(pos[3 * id + 2]! / radius);
    for (let dz = -1; dz <= 1; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          for (const other of buckets.get(keyOf(bx + dx, by + dy, bz + dz)) ?? []) {
            if (!snapped[id] && !snapped[other]) continue; // two lattice nodes are a spacing apart
            const d = Math.hypot(pos[3 * id]! - pos[3 * other]!, pos[3 * id + 1]! - pos[3 * other + 1]!, pos[3 * id + 2]! - pos[3 * other + 2]!);
            if (d < radius) sets.union(id, other);
          }
        }
      }
    }
    const key = keyOf(bx, by, bz);
    const list = buckets.get(key);
    if (list) list.push(id);
    else buckets.set(key, [id]);
  }
  // Particle numbering: one per merged group, in lattice order (deterministic).
  const particleOf = new Int32Array(nodeTotal).fill(-1);
  let count = 0;
  for (let id = 0; id < nodeTotal; id++) {
    if (!used[id]) continue;
    const root = sets.find(id);
    if (particleOf[root] < 0) particleOf[root] = count++;
    particleOf[id] = particleOf[root]!;
  }
  if (count === 0) {
    throw new RangeError(resolution >= MAX_LATTICE_RESOLUTION
      ? `no lattice cell lies inside the shape even at the finest resolution (${resolution}): the shape is too thin for a lattice; make it thicker${''
      } (or, for an extrude shape, use the "seed" construction)`
      : `no lattice cell lies inside the shape at resolution ${resolution}; use a finer resolution (up to ${MAX_LATTICE_RESOLUTION})`);
  }
  const rest = new Float64Array(3 * count);
  const members = new Float64Array(count);
  for (let id = 0; id < nodeTotal; id++) {
    if (!used[id]) continue;
    const p = particleOf[id]!;
    for (let c = 0; c < 3; c++) rest[3 * p + c] += pos[3 * id + c]!;
    members[p]++;
  }
  for (let p = 0; p < count; p++) for (let c = 0; c < 3; c++) rest[3 * p + c] /= members[p]!;

  // 5. Springs, deduplicated by particle pair.
  const springKey = new Map<number, number>();
  const springs: number[] = [];
  const kind: number[] = [];
  const addSpring = (na: number, nb: number, k: SpringKind): void => {
    let a = particleOf[na]!, b = particleOf[nb]!;
    if (a === b) return;
    if (a > b) [a, b] = [b, a];
    const key = a * count + b;
    const prev = springKey.get(key);
    if (prev !== undefined) {
      // The same pair reached as an edge and as a diagonal (after a merge): keep the stronger role.
      if (k < kind[prev]!) kind[prev] = k;
      return;
    }
    springKey.set(key, springs.length / 2);
    springs.push(a, b);
    kind.push(k);
  };
  const edgeUsed = new Set<number>();
  forKeptCells((i, j, k) => {
    for (const [ca, cb, sk] of CELL_SPRINGS) {
      const a = nodeId(i + CORNER[ca][0], j + CORNER[ca][1], k + CORNER[ca][2]);
      const b = nodeId(i + CORNER[cb][0], j + CORNER[cb][1], k + CORNER[cb][2]);
      addSpring(a, b, sk);
      if (sk === SpringKind.Structural) edgeUsed.add(Math.min(a, b) * nodeTotal + Math.max(a, b));
    }
  });
  const strides = [1, nx, nx * ny];
  const limits = [mx, my, mz];
  for (let k = 0; k <= mz; k++) {
    for (let j = 0; j <= my; j++) {
      for (let i = 0; i <= mx; i++) {
        const id = nodeId(i, j, k);
        const coord = [i, j, k];
        for (let axis = 0; axis < 3; axis++) {
          if (coord[axis]! + 2 > limits[axis]!) continue;
          const s = strides[axis]!;
          if (edgeUsed.has(id * nodeTotal + id + s) && edgeUsed.has((id + s) * nodeTotal + id + 2 * s)) {
            // Skip when a merge folded the middle node onto an end: that is no longer a bend.
            const mid = particleOf[id + s]!;
            if (mid !== particleOf[id] && mid !== particleOf[id + 2 * s]) addSpring(id, id + 2 * s, SpringKind.Bending);
          }
        }
      }
    }
  }
  interleave(springs, kind, count);
  const springArray = Uint32Array.from(springs);
  const pieces = componentCount(count, springArray);
  if (pieces > 1) {
    throw new RangeError(`at resolution ${resolution} the lattice falls apart into ${pieces} pieces (a part of the shape is thinner than a cell); use a finer resolution`);
  }
  // Outer: the midpoint lies outside by more than the ends do (a node left short of the surface is not a concavity).
  const particlePhi = new Float64Array(count);
  for (let p = 0; p < count; p++) particlePhi[p] = Math.max(0, sampleSdf(sdf, rest[3 * p]!, rest[3 * p + 1]!, rest[3 * p + 2]!));
  const outer = new Uint8Array(springs.length / 2);
  for (let s = 0; s < outer.length; s++) {
    const a = springArray[2 * s]!, b = springArray[2 * s + 1]!;
    const phi = sampleSdf(sdf, 0.5 * (rest[3 * a]! + rest[3 * b]!), 0.5 * (rest[3 * a + 1]! + rest[3 * b + 1]!), 0.5 * (rest[3 * a + 2]! + rest[3 * b + 2]!));
    outer[s] = phi - Math.max(particlePhi[a]!, particlePhi[b]!) > OUTER_DEPTH * h ? 1 : 0;
  }

  // 6. Tetrahedra, indexed by cell (for the embedding). 7. Mass: each cell's volume (its tetrahedra's, so a
  // snapped cell counts what it covers and the total is close to the shape's own volume) in eighths to its
  // corners. (A quarter of each tetrahedron to its corners, tried first, is not mirror-symmetric: Kuhn's split
  // puts half a cell on the two ends of its main diagonal, so a sphere's net was heavier at two opposite
  // boundary corners, and a resting ball rolled off along that diagonal.)
  const tets: number[] = [];
  const tetsOfCell = new Map<number, number[]>();
  const massShare = new Float64Array(count);
  forKeptCells((i, j, k) => {
    const list: number[] = [];
    let volume = 0;
    for (const t of KUHN) {
      const ids = t.map((c) => particleOf[nodeId(i + CORNER[c][0], j + CORNER[c][1], k + CORNER[c][2])]!);
      const v = tetVolume(rest, ids[0]!, ids[1]!, ids[2]!, ids[3]!) / 6;
      if (v <= (1e-3 * cellVolume) / 6) continue; // collapsed or inverted by snapping
      volume += v;
      list.push(tets.length / 4);
      tets.push(ids[0]!, ids[1]!, ids[2]!, ids[3]!);
    }
    if (list.length) tetsOfCell.set(i + mx * (j + my * k), list);
    for (let c = 0; c < 8; c++) massShare[particleOf[nodeId(i + CORNER[c]![0], j + CORNER[c]![1], k + CORNER[c]![2])]!] += volume / 8;
  });
  // At least a box corner's share (an eighth of a cell), so a particle that snapping left with little volume is
  // not so light that its springs need a tiny substep.
  let total = 0;
  for (let p = 0; p < count; p++) {
    massShare[p] = Math.max(massShare[p]!, cellVolume / 8);
    total += massShare[p]!;
  }
  for (let p = 0; p < count; p++) massShare[p] /= total;
  // 8. The drawn surface, refined to the spacing and embedded in the tetrahedra.
  const surface = refineMesh(mesh, REFINE_EDGE * h, MAX_SURFACE_TRIANGLES);
  const { skinIndex, skinWeight } = embed(surface, rest, tets, (x, y, z, ring, out) => {
    const ci = Math.min(mx - 1, Math.max(0, Math.floor((x - bounds.min[0]) / step[0])));
    const cj = Math.min(my - 1, Math.max(0, Math.floor((y - bounds.min[1]) / step[1])));
    const ck = Math.min(mz - 1, Math.max(0, Math.floor((z - bounds.min[2]) / step[2])));
    out.length = 0;
    for (let dk = -ring; dk <= ring; dk++) {
      for (let dj = -ring; dj <= ring; dj++) {
        for (let di = -ring; di <= ring; di++) {
          const i = ci + di, j = cj + dj, k = ck + dk;
          if (i < 0 || j < 0 || k < 0 || i >= mx || j >= my || k >= mz) continue;
          for (const t of tetsOfCell.get(i + mx * (j + my * k)) ?? []) out.push(t);
        }
      }
    }
  }, Math.max(mx, my, mz));

  return {
    rest,
    massShare,
    springs: springArray,
    kind: Uint8Array.from(kind),
    outer,
    surface,
    skinIndex,
    skinWeight,
    tets: Uint32Array.from(tets),
    spacing: h,
  };

  function forKeptCells(f: (i: number, j: number, k: number) => void): void {
    for (let k = 0; k < mz; k++) for (let j = 0; j < my; j++) for (let i = 0; i < mx; i++) if (kept[i + mx * (j + my * k)]) f(i, j, k);
  }
}

/** Six times the signed volume of tetrahedron abcd. */
function tetVolume(p: Float64Array, a: number, b: number, c: number, d: number): number {
  const ax = p[3 * a]!, ay = p[3 * a + 1]!, az = p[3 * a + 2]!;
  const ux = p[3 * b]! - ax, uy = p[3 * b + 1]! - ay, uz = p[3 * b + 2]! - az;
  const vx = p[3 * c]! - ax, vy = p[3 * c + 1]! - ay, vz = p[3 * c + 2]! - az;
  const wx = p[3 * d]! - ax, wy = p[3 * d + 1]! - ay, wz = p[3 * d + 2]! - az;
  return ux * (vy * wz - vz * wy) - uy * (vx * wz - vz * wx) + uz * (vx * wy - vy * wx);
}

/**
 * Barycentric coordinates of (x, y, z) in tetrahedron `t` (indices into p),
 * written to out[0..3]; they sum to 1 and are all >= 0 inside.
 */
export function barycentric(p: Float64Array, tets: ArrayLike<number>, t: number, x: number, y: number, z: number, out: Float64Array): void {
  const a = tets[4 * t]!, b = tets[4 * t + 1]!, c = tets[4 * t + 2]!, d = tets[4 * t + 3]!;
  const ax = p[3 * a]!, ay = p[3 * a + 1]!, az = p[3 * a + 2]!;
  const ux = p[3 * b]! - ax, uy = p[3 * b + 1]! - ay, uz = p[3 * b + 2]! - az;
  const vx = p[3 * c]! - ax, vy = p[3 * c + 1]! - ay, vz = p[3 * c + 2]! - az;
  const wx = p[3 * d]! - ax, wy = p[3 * d + 1]! - ay, wz = p[3 * d + 2]! - az;
  const qx = x - ax, qy = y - ay, qz = z - az;
  // Cramer's rule on [u v w] (l1 l2 l3)^T = q.
  const det = ux * (vy * wz - vz * wy) - uy * (vx * wz - vz * wx) + uz * (vx * wy - vy * wx);
  const l1 = (qx * (vy * wz - vz * wy) - qy * (vx * wz - vz * wx) + qz * (vx * wy - vy * wx)) / det;
  const l2 = (ux * (qy * wz - qz * wy) - uy * (qx * wz - qz * wx) + uz * (qx * wy - qy * wx)) / det;
  const l3 = (ux * (vy * qz - vz * qy) - uy * (vx * qz - vz * qx) + uz * (vx * qy - vy * qx)) / det;
  out[0] = 1 - l1 - l2 - l3;
  out[1] = l1;
  out[2] = l2;
  out[3] = l3;
}

/**
 * Embeds each mesh vertex in the tetrahedron where its smallest barycentric
 * coordinate is largest: the one containing it, or for a vertex outside every
 * tetrahedron (the snapped net is a chordal approximation of a curved
 * surface), the one it is least outside of, whose weights then extrapolate a
 * little. `near` lists candidate tetrahedra around a point within `ring`
 * cells; the ring grows until some are found.
 */
function embed(
  mesh: TriMesh,
  rest: Float64Array,
  tets: number[],
  near: (x: number, y: number, z: number, ring: number, out: number[]) => void,
  maxRing: number,
): { skinIndex: Uint32Array; skinWeight: Float64Array } {
  const nv = mesh.positions.length / 3;
  const skinIndex = new Uint32Array(4 * nv);
  const skinWeight = new Float64Array(4 * nv);
  const bc = new Float64Array(4);
  const candidates: number[] = [];
  for (let v = 0; v < nv; v++) {
    const x = mesh.positions[3 * v]!, y = mesh.positions[3 * v + 1]!, z = mesh.positions[3 * v + 2]!;
    let best = -1;
    let bestScore = -Infinity;
    for (let ring = 1; ring <= maxRing + 1 && best < 0; ring++) {
      near(x, y, z, ring, candidates);
      for (const t of candidates) {
        barycentric(rest, tets, t, x, y, z, bc);
        const score = Math.min(bc[0]!, bc[1]!, bc[2]!, bc[3]!);
        if (score > bestScore) {
          bestScore = score;
          best = t;
        }
      }
    }
    if (best < 0) throw new RangeError('the lattice has no tetrahedron to carry the surface');
    barycentric(rest, tets, best, x, y, z, bc);
    for (let c = 0; c < 4; c++) {
      skinIndex[4 * v + c] = tets[4 * best + c]!;
      skinWeight[4 * v + c] = bc[c]!;
    }
  }
  return { skinIndex, skinWeight };
}

/**
 * Splits every triangle into four at its edge midpoints (shared between
 * neighbours, so the mesh stays closed and manifold) until no edge is longer
 * than `maxEdge` or another split would pass `maxTriangles`. Flat faces stay
 * flat and the vertices of the input stay where they are, so the refined mesh
 * encloses the same solid.
 */
export function refineMesh(mesh: TriMesh, maxEdge: number, maxTriangles: number): TriMesh {
  let positions = Array.from(mesh.positions);
  let indices = Array.from(mesh.indices);
  const longest = (): number => {
    let m = 0;
    for (let t = 0; t < indices.length; t += 3) {
      for (let e = 0; e < 3; e++) {
        const a = 3 * indices[t + e]!, b = 3 * indices[t + ((e + 1) % 3)]!;
        m = Math.max(m, Math.hypot(positions[a]! - positions[b]!, positions[a + 1]! - positions[b + 1]!, positions[a + 2]! - positions[b + 2]!));
      }
    }
    return m;
  };
  while (longest() > maxEdge && (indices.length / 3) * 4 <= maxTriangles) {
    const mid = new Map<number, number>();
    const nv = positions.length / 3;
    const midpoint = (a: number, b: number): number => {
      const key = Math.min(a, b) * nv + Math.max(a, b);
      let m = mid.get(key);
      if (m === undefined) {
        m = positions.length / 3;
        positions.push((positions[3 * a]! + positions[3 * b]!) / 2, (positions[3 * a + 1]! + positions[3 * b + 1]!) / 2, (positions[3 * a + 2]! + positions[3 * b + 2]!) / 2);
        mid.set(key, m);
      }
      return m;
    };
    const next: number[] = [];
    for (let t = 0; t < indices.length; t += 3) {
      const a = indices[t]!, b = indices[t + 1]!, c = indices[t + 2]!;
      const ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push(a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca);
    }
    indices = next;
  }
  return { positions: Float64Array.from(positions), indices: Uint32Array.from(indices) };
}

/** Two springs that share a particle lie at least this many apart in the sweep order (where the lookahead finds one). */
const INTERLEAVE = 8;
/** How far ahead of the first spring not yet placed interleave looks for one that fits. */
const INTERLEAVE_LOOKAHEAD = 64;

/**
 * Reorders the springs (pairs a, b with their kinds, in place) so that no
 * particle is shared by two springs fewer than INTERLEAVE apart, where the
 * lookahead finds one, keeping the cell order otherwise. The solver sweeps the
 * springs one after another (forces.ts, springImpulses) and each spring reads
 * the velocities the one before it wrote: in cell order, neighbours share a
 * corner and the sweep waits on every store. Interleaved, the processor
 * overlaps several springs.
 */
function interleave(pairs: number[], kind: number[], particles: number): void {
  const n = kind.length;
  const lastUsed = new Int32Array(particles).fill(-INTERLEAVE);
  const placed = new Uint8Array(n);
  const outPairs: number[] = [];
  const outKind: number[] = [];
  let head = 0;
  for (let emitted = 0; emitted < n; emitted++) {
    while (placed[head]) head++;
    let pick = head;
    for (let s = head, seen = 0; s < n && seen < INTERLEAVE_LOOKAHEAD; s++) {
      if (placed[s]) continue;
      seen++;
      if (emitted - lastUsed[pairs[2 * s]!]! >= INTERLEAVE && emitted - lastUsed[pairs[2 * s + 1]!]! >= INTERLEAVE) {
        pick = s;
        break;
      }
    }
    placed[pick] = 1;
    lastUsed[pairs[2 * pick]!] = emitted;
    lastUsed[pairs[2 * pick + 1]!] = emitted;
    outPairs.push(pairs[2 * pick]!, pairs[2 * pick + 1]!);
    outKind.push(kind[pick]!);
  }
  for (let i = 0; i < 2 * n; i++) pairs[i] = outPairs[i]!;
  for (let i = 0; i < n; i++) kind[i] = outKind[i]!;
}
