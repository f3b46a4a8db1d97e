/**
 * Meshes with a hub, a vertex of thousands of triangles (a cylinder cap
 * fanned from one rim vertex, a polygon face the OBJ reader fans from its
 * first corner): they load as the solid they are, and the self-intersection
 * search around hubs (src/sdf/hubPairs.ts) finds exactly the pairs the plain
 * box traversal finds. Loading a 20 000-segment fan-capped cylinder took over
 * a minute before the hub search (defect D5); how fast it is now is a
 * benchmark's business, not a test's.
 */
import { describe, expect, it } from 'vitest';
import { joinMeshes } from './meshes.ts';
import type { TriMesh } from '../../src/geometry/mesh.ts';
import { parseObjWithWarnings } from '../../src/geometry/obj.ts';
import { buildSamples, sampleCount } from '../../src/geometry/samples.ts';
import { boxMesh } from '../../src/geometry/shapes.ts';
import { validateMesh } from '../../src/geometry/validate.ts';
import { buildBoxTree, overlappingPairs } from '../../src/sdf/boxPairs.ts';
import { buildTriangleBvh } from '../../src/sdf/bvh.ts';
import { findSelfIntersections, type SelfIntersections } from '../../src/sdf/intersect.ts';
import { massFromMesh } from '../../src/sdf/mass.ts';
import { analyseSolid } from '../../src/sdf/solid.ts';

/** OBJ text of a closed cylinder along z (radius r, height h, n segments), caps fanned from a rim vertex or written as n-gons. */
function cylinderObj(n: number, r: number, h: number, caps: 'fan' | 'polygon'): string {
  const lines: string[] = [];
  for (const z of [0, h]) {
    for (let i = 0; i < n; i++) lines.push(`v ${r * Math.cos((2 * Math.PI * i) / n)} ${r * Math.sin((2 * Math.PI * i) / n)} ${z}`);
  }
  const bottom = Array.from({ length: n }, (_, i) => n - i); // clockwise seen from above: faces down
  const top = Array.from({ length: n }, (_, i) => n + 1 + i);
  for (const cap of [bottom, top]) {
    if (caps === 'polygon') lines.push(`f ${cap.join(' ')}`);
    else for (let k = 1; k < n - 1; k++) lines.push(`f ${cap[0]} ${cap[k]} ${cap[k + 1]}`);
  }
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    lines.push(`f ${i + 1} ${j + 1} ${n + j + 1} ${n + i + 1}`);
  }
  return `${lines.join('\n')}\n`;
}

function loadObj(text: string, file: string): TriMesh {
  const parsed = parseObjWithWarnings(text, file);
  const valid = validateMesh(parsed.mesh, file, parsed.numbering);
  expect([...parsed.warnings, ...valid.warnings]).toEqual([]);
  return valid.mesh;
}

describe('a cylinder whose caps are fans of 4 000 triangles from one rim vertex', () => {
  const n = 4000, r = 0.5, h = 2;
  for (const caps of ['fan', 'polygon'] as const) {
    it(`(${caps === 'fan' ? 'fan-triangulated in the file' : 'written as 4 000-cornered polygon faces'}) loads as one closed ordinary solid of volume pi r^2 h, with samples on every vertex and edge`, () => {
      const mesh = loadObj(cylinderObj(n, r, h, caps), `cylinder-${caps}.obj`);
      const nt = mesh.indices.length / 3;
      expect(nt).toBe(4 * n - 4);
      // Closed and manifold: every edge in exactly two triangles, once each way.
      const directed = new Set<number>();
      const nv = mesh.positions.length / 3;
      for (let t = 0; t < nt; t++) {
        for (let k = 0; k < 3; k++) directed.add(mesh.indices[3 * t + k]! * nv + mesh.indices[3 * t + ((k + 1) % 3)]!);
      }
      expect(directed.size).toBe(3 * nt);
      expect([...directed].filter((e) => !directed.has((e % nv) * nv + Math.floor(e / nv)))).toEqual([]);
      // The two cap hubs really are hubs (the case this guards).
      const degree = new Int32Array(nv);
      for (const v of mesh.indices) degree[v]++;
      expect(Math.max(...degree)).toBe(n - 2 + 3);

      const solid = analyseSolid(mesh);
      expect(solid.simple).toBe(true);
      expect(solid.crossings).toBe(0);
      expect(solid.coplanarOverlaps).toBe(0);
      const exact = Math.PI * r * r * h;
      expect(Math.abs(solid.mass.volume - exact)).toBeLessThanOrEqual(0.005 * exact);
      expect(solid.mass.volume).toBe(massFromMesh(mesh).volume);
      for (const [k, c] of [0, 0, h / 2].entries()) expect(Math.abs(solid.mass.centerOfMass[k]! - c)).toBeLessThan(1e-9);

      const s = buildSamples(mesh, 3, 2 * (h / 48));
      expect(s.meshVertexCount).toBe(2 * n);
      expect(s.edgeCount).toBe((3 * nt) / 2);
      expect(sampleCount(s)).toBe(s.vertexCount + 3 * s.edgeCount);
      expect(s.points.every((x) => Number.isFinite(x))).toBe(true);
    });
  }
});

/** xorshift32 from a fixed seed, uniform in [0, 1). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** A closed cylinder with fan caps of n segments, from a rim vertex or from a centre vertex, corners moved by up to `noise`. */
function fanCylinder(n: number, centre: boolean, noise = 0, rnd = random(7)): TriMesh {
  const pos: number[] = [], idx: number[] = [];
  for (const z of [0, 1]) {
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      pos.push(Math.cos(a) + noise * (rnd() - 0.5), Math.sin(a) + noise * (rnd() - 0.5), z + noise * (rnd() - 0.5));
    }
  }
  pos.push(0, 0, 0, 0, 0, 1);
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    idx.push(i, j, n + j, i, n + j, n + i);
    if (centre) idx.push(2 * n, j, i, 2 * n + 1, n + i, n + j);
  }
  if (!centre) for (let k = 1; k < n - 1; k++) idx.push(0, k + 1, k, n, n + k, n + k + 1);
  return { positions: Float64Array.from(pos), indices: Uint32Array.from(idx) };
}

function moved(m: TriMesh, f: (x: number, y: number, z: number) => [number, number, number]): TriMesh {
  const p = new Float64Array(m.positions.length);
  for (let i = 0; i < p.length; i += 3) p.set(f(m.positions[i]!, m.positions[i + 1]!, m.positions[i + 2]!), i);
  return { positions: p, indices: m.indices };
}


/** A hub with d triangles whose far corners wander and skip ahead (so they fold through each other), and loose triangles through them. */
function crumpledHub(d: number, loose: number, rnd = random(11)): TriMesh {
  const pos: number[] = [0, 0, 0], idx: number[] = [];
  for (let i = 0; i < d; i++) {
    const a = (2 * Math.PI * i) / d + 0.3 * (rnd() - 0.5);
    pos.push(Math.cos(a), Math.sin(a), 0.3 * (rnd() - 0.5));
  }
  for (let i = 0; i < d; i++) idx.push(0, 1 + i, 1 + ((i + 1 + (rnd() < 0.2 ? 2 : 0)) % d));
  for (let t = 0; t < loose; t++) {
    const b = pos.length / 3;
    for (let k = 0; k < 3; k++) pos.push(1.6 * (rnd() - 0.5), 1.6 * (rnd() - 0.5), 0.6 * (rnd() - 0.5));
    idx.push(b, b + 1, b + 2);
  }
  return { positions: Float64Array.from(pos), indices: Uint32Array.from(idx) };
}

/** Crossing pairs (sorted) with their segments, and coplanar pairs (sorted). */
function canonical(s: SelfIntersections): { pairs: string[]; segments: Map<string, number[]>; coplanar: string[] } {
  const segments = new Map<string, number[]>();
  for (let i = 0; i < s.pairs.length; i += 2) segments.set(`${s.pairs[i]},${s.pairs[i + 1]}`, s.segments.slice(3 * i, 3 * i + 6));
  const coplanar: string[] = [];
  for (let i = 0; i < s.coplanar.length; i += 2) coplanar.push(`${s.coplanar[i]},${s.coplanar[i + 1]}`);
  return { pairs: [...segments.keys()].sort(), segments, coplanar: coplanar.sort() };
}

/**
 * The same segment, ends in either order, within rounding: the pair test
 * takes each end from whichever triangle's cut ends first, and on a tie
 * that depends on the order the two triangles come in, which differs
 * between the searches.
 */
function sameSegment(a: number[], b: number[]): boolean {
  const close = (i: number, j: number): boolean => [0, 1, 2].every((k) => Math.abs(a[i + k]! - b[j + k]!) <= 1e-12);
  return (close(0, 0) && close(3, 3)) || (close(0, 3) && close(3, 0));
}

describe('the self-intersection search around hubs', () => {
  const tilt = (x: number, y: number, z: number): [number, number, number] => [x + 0.3, y * Math.cos(0.4) - z * Math.sin(0.4), y * Math.sin(0.4) + z * Math.cos(0.4) + 0.2];
  const cases: [string, TriMesh, number, number][] = [
    // name, mesh, least crossing pairs, least coplanar pairs (so that nothing found cannot pass)
    ['a hub of 200 folding triangles with 150 loose triangles through it', crumpledHub(200, 150), 1000, 0],
    ['two rim-fanned cylinders of 300 segments, one tilted through the other', joinMeshes(fanCylinder(300, false), moved(fanCylinder(300, false), tilt)), 1000, 0],
    ['two centre-fanned cylinders, one tilted through the other', joinMeshes(fanCylinder(300, true), moved(fanCylinder(300, true), tilt)), 1000, 0],
    ['two coincident copies of a rim-fanned cylinder (caps touching face to face)', joinMeshes(fanCylinder(300, false), fanCylinder(300, false)), 1000, 1000],
    ['a rim-fanned cylinder turned by a radian about its axis into a copy of itself', joinMeshes(fanCylinder(150, false), moved(fanCylinder(150, false), (x, y, z) => [x * Math.cos(1) - y * Math.sin(1), x * Math.sin(1) + y * Math.cos(1), z])), 1000, 1000],
    ['a cube through the rim hub of a fanned cylinder', joinMeshes(fanCylinder(300, false), moved(boxMesh([0.3, 0.3, 0.3]), (x, y, z) => [x + 1, y, z])), 100, 0],
    ['a cube with a face on the centre hub of a fanned cylinder', joinMeshes(fanCylinder(300, true), moved(boxMesh([0.3, 0.3, 0.3]), (x, y, z) => [x + 0.15, y, z - 0.15])), 0, 100],
    ['a rim-fanned cylinder with its corners moved by up to 0.1 (folded caps)', fanCylinder(150, false, 0.1), 100, 0],
  ];
  for (const [name, mesh, minPairs, minCoplanar] of cases) {
    it(`finds the pairs the plain box traversal finds: ${name}`, () => {
      const bvh = buildTriangleBvh(mesh);
      const hubs = canonical(findSelfIntersections(mesh, bvh));
      const plain = canonical(findSelfIntersections(mesh, bvh, Infinity));
      expect(plain.pairs.length).toBeGreaterThanOrEqual(minPairs);
      expect(plain.coplanar.length).toBeGreaterThanOrEqual(minCoplanar);
      expect(hubs.pairs).toEqual(plain.pairs);
      for (const k of plain.pairs) expect(sameSegment(hubs.segments.get(k)!, plain.segments.get(k)!), k).toBe(true);
      expect(hubs.coplanar).toEqual(plain.coplanar);
    });
  }
});

describe('box trees and their overlapping pairs', () => {
  /** n random boxes (or n copies of one box), min xyz then max xyz each. */
  const randomBoxes = (n: number, rnd: () => number, same = false): Float64Array => {
    const b = new Float64Array(6 * n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 3; k++) {
        const lo = same ? 0.5 : rnd(), size = same ? 0.1 : 0.2 * rnd() ** 3;
        b[6 * i + k] = lo;
        b[6 * i + 3 + k] = lo + size;
      }
    }
    return b;
  };
  const overlaps = (a: Float64Array, i: number, b: Float64Array, j: number): boolean =>
    [0, 1, 2].every((k) => a[6 * i + k]! <= b[6 * j + 3 + k]! && b[6 * j + k]! <= a[6 * i + 3 + k]!);

  for (const [n, m, same] of [[0, 5, false], [1, 1, false], [2, 3, false], [5, 17, false], [20, 0, false], [1000, 300, false], [40, 40, true]] as const) {
    it(`visits every overlapping pair of ${n} ${same ? 'identical' : 'random'} boxes once, and of them against ${m} others`, () => {
      const rnd = random(n + 3 * m + 1);
      const A = randomBoxes(n, rnd, same), B = randomBoxes(m, rnd, same);
      const ta = buildBoxTree(A, Array.from({ length: n }, (_, i) => i)), tb = buildBoxTree(B, Array.from({ length: m }, (_, i) => i));
      expect(ta.count.length).toBeLessThanOrEqual(Math.max(n, 0));
      expect([...ta.order].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
      const self: string[] = [], cross: string[] = [];
      overlappingPairs(ta, ta, 0, { visit: (i, j) => self.push(`${Math.min(i, j)},${Math.max(i, j)}`) });
      overlappingPairs(ta, tb, 0, { visit: (i, j) => cross.push(`${i},${j}`) });
      expect(new Set(self).size).toBe(self.length);
      expect(new Set(cross).size).toBe(cross.length);
      const want: string[] = [], wantCross: string[] = [];
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (overlaps(A, i, A, j)) want.push(`${i},${j}`);
      for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) if (overlaps(A, i, B, j)) wantCross.push(`${i},${j}`);
      // Pairs within one leaf come without a box test: keep those that overlap.
      expect(self.filter((k) => overlaps(A, Number(k.split(',')[0]), A, Number(k.split(',')[1]))).sort()).toEqual(want.sort());
      expect(cross.filter((k) => overlaps(A, Number(k.split(',')[0]), B, Number(k.split(',')[1]))).sort()).toEqual(wantCross.sort());
      if (n === 1000) expect(want.length).toBeGreaterThan(100);
    });
  }
});
