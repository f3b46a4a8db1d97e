/**
 * Shapes and random batches for the query tests that compare one query
 * backend with another (tests/gpu/penetration.test.ts: GPU against CPU;
 * tests/collision/parallelQuery.test.ts: the worker pool against one
 * thread): convex and nonconvex pairs near contact, some far apart, and a
 * small box strictly inside a big one, with margins from 0 to a cell (or,
 * asked for, past the grid's padding).
 */
import { QueryBatchBuilder, type QueryShape } from '../../src/collision/query.ts';
import type { TriMesh } from '../../src/geometry/mesh.ts';
import { buildSamples } from '../../src/geometry/samples.ts';
import { boneProfile, boxMesh, cupProfile, revolveMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform random unit quaternion (Shoemake). */
export function randomQuat(r: () => number): [number, number, number, number] {
  const u1 = r(), u2 = 2 * Math.PI * r(), u3 = 2 * Math.PI * r();
  const s1 = Math.sqrt(1 - u1), s2 = Math.sqrt(u1);
  return [s1 * Math.sin(u2), s1 * Math.cos(u2), s2 * Math.sin(u3), s2 * Math.cos(u3)];
}

export function queryShape(mesh: TriMesh, cells: number): QueryShape {
  return { samples: buildSamples(mesh, 3), sdf: bakeSdfCpu(mesh, { cells }) };
}

export const SHAPE_NAMES = ['box', 'torus', 'bone', 'cup', 'small box'];
export const BOX = 0, TORUS = 1, BONE = 2, CUP = 3, SMALL = 4;

/** The shapes SHAPE_NAMES names, in that order. */
export function testShapes(): QueryShape[] {
  return testMeshes().map((m, i) => queryShape(m, SHAPE_CELLS[i]!));
}

/** The meshes of testShapes(), in order. */
export function testMeshes(): TriMesh[] {
  return [
    boxMesh([1, 0.6, 0.8]),
    torusMesh(0.8, 0.3, 16, 8),
    revolveMesh(boneProfile(1.6, 0.3), 12),
    revolveMesh(cupProfile(0.5, 0.8, 0.1), 16),
    boxMesh([0.2, 0.15, 0.1]),
  ];
}
const SHAPE_CELLS = [20, 24, 24, 24, 8];

/** Radius of a shape's samples (for placing pairs near contact). */
export function samplesRadius(s: QueryShape): number {
  let r = 0;
  const p = s.samples.points;
  for (let i = 0; i < p.length; i += 4) r = Math.max(r, Math.hypot(p[i]!, p[i + 1]!, p[i + 2]!));
  return r;
}

/** Random tasks over testShapes(): pairs near contact, some far apart, and the small box strictly inside the box. */
export function randomBatch(shapes: readonly QueryShape[], seed: number, perPair: number, marginCells = 0.5): QueryBatchBuilder {
  const r = rng(seed);
  const b = new QueryBatchBuilder();
  const pairs: [number, number][] = [
    [BOX, BOX], [TORUS, BOX], [BOX, TORUS], [TORUS, TORUS], [BONE, CUP], [CUP, BONE], [BONE, TORUS],
  ];
  for (const [a, bb] of pairs) {
    const reach = samplesRadius(shapes[a]!) + samplesRadius(shapes[bb]!);
    for (let i = 0; i < perPair; i++) {
      const q = randomQuat(r);
      // Mostly overlapping; one in eight well separated.
      const far = i % 8 === 7;
      const dist = far ? reach * (1.2 + r()) : reach * r() * 0.9;
      const d = randomQuat(r); // a random direction from a random quaternion's vector part
      const n = Math.hypot(d[0], d[1], d[2]) || 1;
      // Margins from 0 (penetrating samples only) to 2 marginCells cells of B.
      const margin = (i % 3) * marginCells * shapes[bb]!.sdf.cellSize;
      b.push(a, bb, q[0], q[1], q[2], q[3], (dist * d[0]) / n, (dist * d[1]) / n, (dist * d[2]) / n, margin);
    }
  }
  // Fully inside: the small box anywhere well inside the big box (0.5 x 0.3 x 0.4 half extents).
  for (let i = 0; i < perPair; i++) {
    const q = randomQuat(r);
    b.push(SMALL, BOX, q[0], q[1], q[2], q[3], (r() - 0.5) * 0.6, (r() - 0.5) * 0.2, (r() - 0.5) * 0.4);
  }
  return b;
}
