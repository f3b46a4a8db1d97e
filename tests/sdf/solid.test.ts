/**
 * Self-intersecting, nested and touching meshes (issue 14, item 6): the
 * crossings are found, and the mass properties and the SDF are those of what
 * the surface encloses (nonzero winding), checked against closed forms.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { joinMeshes } from './meshes.ts';
import { translatedMesh, type TriMesh, type Vec3 } from '../../src/geometry/mesh.ts';
import { parseObj } from '../../src/geometry/obj.ts';
import { boxMesh, sphereMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { validateMesh } from '../../src/geometry/validate.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import { findSelfIntersections } from '../../src/sdf/intersect.ts';
import { massFromMesh, massFromSdf, type MassProperties } from '../../src/sdf/mass.ts';
import { analyseSolid, bakeSolid, describeSolid, MAX_SELF_INTERSECTIONS, TangledMeshError } from '../../src/sdf/solid.ts';
import { WindingQuery } from '../../src/sdf/winding.ts';
import type { SdfGrid } from '../../src/sdf/grid.ts';


function inverted(m: TriMesh): TriMesh {
  const idx = new Uint32Array(m.indices.length);
  for (let t = 0; t < idx.length; t += 3) {
    idx[t] = m.indices[t]!;
    idx[t + 1] = m.indices[t + 2]!;
    idx[t + 2] = m.indices[t + 1]!;
  }
  return { positions: m.positions, indices: idx };
}

/** A unit cube with its lower corner at `lo`. */
const cubeAt = (lo: Vec3, s = 1): TriMesh => translatedMesh(boxMesh([s, s, s]), [-lo[0] - s / 2, -lo[1] - s / 2, -lo[2] - s / 2]);

/** Mass properties of an axis-aligned box [lo, lo + s] at density 1. */
function boxProps(lo: Vec3, s: Vec3): MassProperties {
  const v = s[0] * s[1] * s[2];
  return {
    volume: v,
    centerOfMass: [lo[0] + s[0] / 2, lo[1] + s[1] / 2, lo[2] + s[2] / 2],
    inertia: Float64Array.of((v * (s[1] ** 2 + s[2] ** 2)) / 12, 0, 0, 0, (v * (s[0] ** 2 + s[2] ** 2)) / 12, 0, 0, 0, (v * (s[0] ** 2 + s[1] ** 2)) / 12),
  };
}

/** Signed sum of parts (inclusion-exclusion): sign -1 removes a part. */
function combine(parts: [number, MassProperties][]): MassProperties {
  const volume = parts.reduce((s, [k, p]) => s + k * p.volume, 0);
  const com = [0, 1, 2].map((i) => parts.reduce((s, [k, p]) => s + k * p.volume * p.centerOfMass[i]!, 0) / volume) as Vec3;
  const inertia = new Float64Array(9);
  for (const [k, p] of parts) {
    const d = [0, 1, 2].map((i) => p.centerOfMass[i]! - com[i]!);
    const d2 = d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) inertia[3 * i + j] += k * (p.inertia[3 * i + j]! + p.volume * ((i === j ? d2 : 0) - d[i]! * d[j]!));
    }
  }
  return { volume, centerOfMass: com, inertia };
}

function expectMass(got: MassProperties, want: MassProperties, rel: number): void {
  expect(Math.abs(got.volume - want.volume), `volume ${got.volume} vs ${want.volume}`).toBeLessThanOrEqual(rel * want.volume);
  const size = Math.cbrt(want.volume);
  for (let k = 0; k < 3; k++) expect(Math.abs(got.centerOfMass[k]! - want.centerOfMass[k]!)).toBeLessThanOrEqual(rel * size);
  const scale = Math.max(...Array.from(want.inertia, Math.abs));
  for (let k = 0; k < 9; k++) expect(Math.abs(got.inertia[k]! - want.inertia[k]!), `inertia[${k}]`).toBeLessThanOrEqual(rel * scale);
}

/** Every grid node with its position. */
function eachNode(g: SdfGrid, f: (x: number, y: number, z: number, v: number) => void): void {
  const [nx, ny, nz] = g.dims;
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    f(g.origin[0] + g.cellSize * i, g.origin[1] + g.cellSize * j, g.origin[2] + g.cellSize * k, g.values[i + nx * (j + ny * k)]!);
  }
}

const cpuBake = async (m: TriMesh) => bakeSdfCpu(m, { cells: 40 });

describe('self-intersection detection (BVH triangle-triangle pass)', () => {
  it('finds no crossing in closed meshes without one: sphere, torus, the bunny', () => {
    const bunny = validateMesh(parseObj(readFileSync('examples/meshes/bunny.obj', 'utf8'), 'bunny.obj'), 'bunny.obj').mesh;
    for (const m of [sphereMesh(1, 48, 24), torusMesh(1, 0.3, 64, 24), bunny]) {
      const hits = findSelfIntersections(m);
      expect(hits.pairs).toEqual([]);
      expect(hits.coplanar).toEqual([]);
      expect(analyseSolid(m).simple).toBe(true);
    }
  });

  it('finds the crossing pairs of two overlapping cubes, with segments on both surfaces', () => {
    const m = joinMeshes(cubeAt([0, 0, 0]), cubeAt([0.5, 0.5, 0.5]));
    const hits = findSelfIntersections(m);
    expect(hits.pairs.length).toBeGreaterThan(0);
    for (let i = 0; i < hits.pairs.length; i += 2) {
      // One triangle from each cube (triangles 0-11 and 12-23), never two of one cube.
      expect(hits.pairs[i]!).toBeLessThan(12);
      expect(hits.pairs[i + 1]!).toBeGreaterThanOrEqual(12);
      // Both endpoints on the surface of both cubes: a coordinate of 0 or 1 and one of 0.5 or 1.5.
      for (let e = 0; e < 2; e++) {
        const p = hits.segments.slice(3 * i + 3 * e, 3 * i + 3 * e + 3);
        expect(p.some((x) => Math.abs(x) < 1e-12 || Math.abs(x - 1) < 1e-12)).toBe(true);
        expect(p.some((x) => Math.abs(x - 0.5) < 1e-12 || Math.abs(x - 1.5) < 1e-12)).toBe(true);
      }
    }
  });

  it('does not count parts that only touch along an edge or at a corner as crossing', () => {
    const edge = joinMeshes(cubeAt([0, 0, 0]), cubeAt([1, 1, 0]));
    const corner = joinMeshes(cubeAt([0, 0, 0]), cubeAt([1, 1, 1]));
    expect(findSelfIntersections(edge).pairs).toEqual([]);
    expect(findSelfIntersections(corner).pairs).toEqual([]);
  });
});

describe('mass properties of what a mesh encloses (nonzero winding)', () => {
  it('two unit cubes overlapping by half a side: volume 1.875 (not 2.0), centre and inertia of the union', async () => {
    const m = joinMeshes(cubeAt([0, 0, 0]), cubeAt([0.5, 0.5, 0.5]));
    expect(massFromMesh(m).volume).toBeCloseTo(2, 12); // the raw surface integral counts the overlap twice
    const s = analyseSolid(m);
    expect(s.simple).toBe(false);
    expect(s.crossings).toBeGreaterThan(0);
    const want = combine([[1, boxProps([0, 0, 0], [1, 1, 1])], [1, boxProps([0.5, 0.5, 0.5], [1, 1, 1])], [-1, boxProps([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])]]);
    expect(want.volume).toBe(1.875);
    expectMass(s.mass, want, 1e-12);
    // "Right for what the SDF calls inside": the voxel sum over the baked field agrees to 2%.
    const grid = await bakeSolid(m, s.boundary, cpuBake);
    expectMass(massFromSdf(grid), want, 0.02);
  });

  it('a unit cube nested inside a 3 m cube, both outward: volume 27 (not 28), the outer cube alone', () => {
    const m = joinMeshes(cubeAt([-1.5, -1.5, -1.5], 3), cubeAt([-0.5, -0.5, -0.5]));
    const s = analyseSolid(m);
    expect(s.simple).toBe(false);
    expect(s.innerPatches).toBe(1);
    expect(s.crossings).toBe(0);
    expectMass(s.mass, boxProps([-1.5, -1.5, -1.5], [3, 3, 3]), 1e-13);
    expect(s.boundary.indices.length / 3).toBe(12); // the inner cube bounds nothing
  });

  it('a nested cube facing inward is a cavity: an ordinary (simple) solid of volume 26', () => {
    const m = joinMeshes(cubeAt([-1.5, -1.5, -1.5], 3), inverted(cubeAt([-0.5, -0.5, -0.5])));
    const s = analyseSolid(m);
    expect(s.simple).toBe(true);
    expectMass(s.mass, combine([[1, boxProps([-1.5, -1.5, -1.5], [3, 3, 3])], [-1, boxProps([-0.5, -0.5, -0.5], [1, 1, 1])]]), 1e-13);
  });

  it('a separate part that is inside out still counts as solid (volume 8 + 1, not 8 - 1)', () => {
    const m = joinMeshes(cubeAt([0, 0, 0], 2), inverted(cubeAt([5, 0, 0])));
    const s = analyseSolid(m);
    expect(s.invertedPatches).toBe(1);
    expectMass(s.mass, combine([[1, boxProps([0, 0, 0], [2, 2, 2])], [1, boxProps([5, 0, 0], [1, 1, 1])]]), 1e-13);
  });

  it('two cubes touching face to face: one 2 x 1 x 1 block, the shared wall bounding nothing', async () => {
    const m = joinMeshes(cubeAt([0, 0, 0]), cubeAt([1, 0, 0]));
    const s = analyseSolid(m);
    expect(s.coplanarOverlaps).toBeGreaterThan(0);
    expectMass(s.mass, boxProps([0, 0, 0], [2, 1, 1]), 1e-13);
    // No wall in the field: every node inside the block is inside, also next to x = 1.
    const grid = await bakeSolid(m, s.boundary, cpuBake);
    let checked = 0;
    eachNode(grid, (x, y, z, v) => {
      const inside = x > 1e-9 && x < 2 - 1e-9 && y > 1e-9 && y < 1 - 1e-9 && z > 1e-9 && z < 1 - 1e-9;
      if (inside) {
        checked++;
        expect(v).toBeLessThan(0);
        expect(-v).toBeCloseTo(Math.min(x, 2 - x, y, 1 - y, z, 1 - z), 6);
      }
    });
    expect(checked).toBeGreaterThan(1000);
  });

  it('a cube whose top-centre vertex is pushed through the bottom face: volume 1/2 (raw integral 1/3), with the closed-form centre and inertia', () => {
    // Unit cube, top face fanned around a centre vertex that now sits at z = -1.
    const positions = Float64Array.of(0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0.5, 0.5, -1);
    const indices = Uint32Array.of(0, 2, 1, 0, 3, 2, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7, 4, 5, 8, 5, 6, 8, 6, 7, 8, 7, 4, 8);
    const m = { positions, indices };
    expect(massFromMesh(m).volume).toBeCloseTo(1 / 3, 12);
    const s = analyseSolid(m);
    expect(s.crossings).toBeGreaterThan(0);
    // The fan is an upside-down square pyramid of height 2 (side (z + 1) / 2 at height z):
    // above z = 0 the solid is the cube minus the pyramid, below it the pyramid's tip
    // (winding -1, inside by the nonzero rule). Slab integrals, exact by Gauss-Legendre.
    const side = (z: number) => (z + 1) / 2;
    const area = (z: number) => (z >= 0 ? 1 - side(z) ** 2 : side(z) ** 2);
    const sxx = (z: number) => (z >= 0 ? (1 - side(z) ** 4) / 12 : side(z) ** 4 / 12); // integral of (x - 1/2)^2 over the slab
    const integrate = (f: (z: number) => number) => gauss(f, -1, 0) + gauss(f, 0, 1);
    const volume = integrate(area);
    const zc = integrate((z) => z * area(z)) / volume;
    const ixx = integrate((z) => sxx(z) + (z - zc) ** 2 * area(z));
    const izz = integrate((z) => 2 * sxx(z));
    expect(volume).toBeCloseTo(0.5, 14);
    expectMass(s.mass, { volume, centerOfMass: [0.5, 0.5, zc], inertia: Float64Array.of(ixx, 0, 0, 0, ixx, 0, 0, 0, izz) }, 1e-12);
  });

  it('the field of a self-intersecting mesh is signed by the union at every node, with exact distances outside', async () => {
    const a = cubeAt([0, 0, 0]), b = cubeAt([0.5, 0.5, 0.5]);
    const m = joinMeshes(a, b);
    const grid = await bakeSolid(m, analyseSolid(m).boundary, cpuBake);
    const boxDist = (x: number, y: number, z: number, lo: number) => {
      const dx = Math.max(lo - x, 0, x - lo - 1), dy = Math.max(lo - y, 0, y - lo - 1), dz = Math.max(lo - z, 0, z - lo - 1);
      return Math.hypot(dx, dy, dz);
    };
    // Inside with a margin: nodes within rounding of a face are on the surface, where the sign is moot.
    const inBox = (x: number, y: number, z: number, lo: number) => [x, y, z].every((c) => c > lo + 1e-9 && c < lo + 1 - 1e-9);
    let nodes = 0;
    eachNode(grid, (x, y, z, v) => {
      const dOut = Math.min(boxDist(x, y, z, 0), boxDist(x, y, z, 0.5));
      if (dOut < 1e-9 && !inBox(x, y, z, 0) && !inBox(x, y, z, 0.5)) return;
      nodes++;
      if (inBox(x, y, z, 0) || inBox(x, y, z, 0.5)) expect(v).toBeLessThan(0);
      else expect(v).toBeCloseTo(dOut, 6);
    });
    expect(nodes).toBeGreaterThan(40000);
  });
});

describe('crossings in general position', () => {
  it('two randomly turned overlapping boxes: the union volume and centre agree with a quasi-Monte Carlo estimate', () => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    /** Rotation matrix of a random unit quaternion. */
    const rotation = (): number[] => {
      const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
      const l = Math.hypot(...q);
      const [x, y, z, w] = q.map((c) => c / l) as [number, number, number, number];
      return [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)];
    };
    for (let trial = 0; trial < 4; trial++) {
      const boxes = [0, 1].map(() => ({ size: [0.6 + rnd(), 0.6 + rnd(), 0.6 + rnd()] as Vec3, R: rotation(), c: [rnd() * 0.6, rnd() * 0.6, rnd() * 0.6] }));
      const parts = boxes.map(({ size, R, c }) => {
        const m = boxMesh(size);
        const p = new Float64Array(m.positions.length);
        for (let i = 0; i < p.length; i += 3) {
          for (let k = 0; k < 3; k++) p[i + k] = c[k]! + R[3 * k]! * m.positions[i]! + R[3 * k + 1]! * m.positions[i + 1]! + R[3 * k + 2]! * m.positions[i + 2]!;
        }
        return { positions: p, indices: m.indices };
      });
      const s = analyseSolid(joinMeshes(parts[0]!, parts[1]!));
      expect(s.crossings).toBeGreaterThan(0);
      // Halton points in the union's bounding box, inside either box by its own frame.
      const inside = (x: number, y: number, z: number) => boxes.some(({ size, R, c }) => {
        const d = [x - c[0]!, y - c[1]!, z - c[2]!];
        return [0, 1, 2].every((k) => Math.abs(R[k]! * d[0]! + R[3 + k]! * d[1]! + R[6 + k]! * d[2]!) <= size[k]! / 2);
      });
      const halton = (i: number, b: number) => { let f = 1, r = 0; while (i > 0) { f /= b; r += f * (i % b); i = Math.floor(i / b); } return r; };
      const lo = [-1.5, -1.5, -1.5], span = 3.6, n = 200000;
      let hits = 0;
      const com = [0, 0, 0];
      for (let i = 1; i <= n; i++) {
        const x = lo[0]! + span * halton(i, 2), y = lo[1]! + span * halton(i, 3), z = lo[2]! + span * halton(i, 5);
        if (inside(x, y, z)) { hits++; com[0] += x; com[1] += y; com[2] += z; }
      }
      const volume = (hits / n) * span ** 3;
      expect(Math.abs(s.mass.volume - volume)).toBeLessThan(0.005 * volume);
      for (let k = 0; k < 3; k++) expect(Math.abs(s.mass.centerOfMass[k]! - com[k]! / hits)).toBeLessThan(0.005);
      // And the pieces' weights tile the boundary: the raw integral of the soup with weights is the mass.
      expect(s.weights!.every((w) => w === 1)).toBe(true);
    }
  });
});

/**
 * n unit cubes about the origin, each turned by a random angle about z and
 * then about x (the LCG's draws): every cube crosses every other.
 */
function turnedCubes(n: number): { mesh: TriMesh; angles: [number, number][] } {
  let seed = 11;
  const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const angles: [number, number][] = [];
  const parts: TriMesh[] = [];
  for (let k = 0; k < n; k++) {
    const a = 6 * rnd(), b = 6 * rnd();
    angles.push([a, b]);
    const m = boxMesh([1, 1, 1]);
    const p = new Float64Array(m.positions.length);
    for (let i = 0; i < p.length; i += 3) {
      const x0 = m.positions[i]!, y0 = m.positions[i + 1]!, z0 = m.positions[i + 2]!;
      const x = x0 * Math.cos(a) - y0 * Math.sin(a), y1 = x0 * Math.sin(a) + y0 * Math.cos(a);
      p[i] = x;
      p[i + 1] = y1 * Math.cos(b) - z0 * Math.sin(b);
      p[i + 2] = y1 * Math.sin(b) + z0 * Math.cos(b);
    }
    parts.push({ positions: p, indices: m.indices });
  }
  return { mesh: parts.slice(1).reduce((acc, m) => joinMeshes(acc, m), parts[0]!), angles };
}

describe('meshes crossed everywhere (hostile input)', () => {
  it('20 cubes turned every way about one point (thousands of crossings a triangle): analysed with bounded work, its volume within 2 % of the union\'s, and said to be approximate', () => {
    const { mesh, angles } = turnedCubes(20);
    const s = analyseSolid(mesh);
    expect(s.crossings).toBeGreaterThan(5000);
    // Cut as far as the piece budget allows: coarsely, and the warning says so.
    expect(s.coarse).toBeGreaterThan(0);
    expect(describeSolid(s, mesh)).toMatch(/crossed too often to cut exactly/);
    // The union by Halton points: inside a cube when its own frame holds the point within 0.5.
    const inside = (x: number, y: number, z: number) => angles.some(([a, b]) => {
      const y1 = y * Math.cos(b) + z * Math.sin(b), z1 = -y * Math.sin(b) + z * Math.cos(b);
      const x2 = x * Math.cos(a) + y1 * Math.sin(a), y2 = -x * Math.sin(a) + y1 * Math.cos(a);
      return Math.abs(x2) <= 0.5 && Math.abs(y2) <= 0.5 && Math.abs(z1) <= 0.5;
    });
    const halton = (i: number, base: number) => { let f = 1, r = 0; while (i > 0) { f /= base; r += f * (i % base); i = Math.floor(i / base); } return r; };
    const span = 1.74, n = 100000;
    let hits = 0;
    for (let i = 1; i <= n; i++) if (inside(span * (halton(i, 2) - 0.5), span * (halton(i, 3) - 0.5), span * (halton(i, 5) - 0.5))) hits++;
    const volume = (hits / n) * span ** 3;
    expect(Math.abs(s.mass.volume - volume)).toBeLessThan(0.02 * volume);
  });

  it('a mesh crossing itself in more pairs than the limit is refused with a message saying what to do, not analysed for minutes', () => {
    // 100 such cubes: about 218 000 crossing pairs.
    const { mesh } = turnedCubes(100);
    expect(() => analyseSolid(mesh)).toThrow(TangledMeshError);
    expect(() => analyseSolid(mesh)).toThrow(`more than ${MAX_SELF_INTERSECTIONS} pairs of triangles`);
    const hits = findSelfIntersections(mesh, undefined, undefined, 1000);
    expect(hits.truncated).toBe(true);
    expect(hits.pairs.length / 2).toBeLessThanOrEqual(1001);
  });
});

describe('winding numbers by ray casting', () => {
  it('count the shells around a point: 0 outside, 1 in one cube, 2 in the overlap, -1 in an inverted cube', () => {
    const m = joinMeshes(cubeAt([0, 0, 0]), cubeAt([0.5, 0.5, 0.5]), inverted(cubeAt([3, 0, 0])));
    const w = new WindingQuery(m);
    expect(w.at(-1, 0.2, 0.3)).toBe(0);
    expect(w.at(0.2, 0.3, 0.25)).toBe(1);
    expect(w.at(0.75, 0.8, 0.7)).toBe(2);
    expect(w.at(1.3, 1.2, 1.1)).toBe(1);
    expect(w.at(3.5, 0.5, 0.5)).toBe(-1);
  });
});

/** 5-point Gauss-Legendre on [a, b]: exact for polynomials up to degree 9. */
function gauss(f: (x: number) => number, a: number, b: number): number {
  const x = [0, 0.5384693101056831, -0.5384693101056831, 0.906179845938664, -0.906179845938664];
  const w = [0.5688888888888889, 0.47862867049936647, 0.47862867049936647, 0.23692688505618908, 0.23692688505618908];
  let s = 0;
  for (let i = 0; i < 5; i++) s += w[i]! * f(((b - a) / 2) * x[i]! + (a + b) / 2);
  return (s * (b - a)) / 2;
}
