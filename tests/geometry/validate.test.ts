import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { signedVolume, type TriMesh } from '../../src/geometry/mesh.ts';
import { boxMesh, sphereMesh } from '../../src/geometry/shapes.ts';
import { validateMesh } from '../../src/geometry/validate.ts';

function refused(mesh: TriMesh, file = 'm.obj'): InputError {
  try {
    validateMesh(mesh, file);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).file).toBe(file);
    expect((e as InputError).message.startsWith(`${file}: `)).toBe(true);
    return e as InputError;
  }
  throw new Error('expected validateMesh to refuse the mesh');
}

function withIndices(m: TriMesh, indices: number[]): TriMesh {
  return { positions: m.positions, indices: Uint32Array.from(indices) };
}

function flipTriangle(idx: number[], t: number): number[] {
  const out = idx.slice();
  [out[t * 3 + 1], out[t * 3 + 2]] = [out[t * 3 + 2]!, out[t * 3 + 1]!];
  return out;
}

const box = boxMesh([1, 2, 3]);
const boxIdx = Array.from(box.indices);

describe('validateMesh refuses meshes that cannot have a signed distance field', () => {
  it('a box with a whole face missing (a hole of 4 edges, 38% of the surface) is refused as too large to fill', () => {
    // Quad 0 of boxMesh is the -x face (2 x 3 = 6 of the remaining 16 square units).
    const e = refused(withIndices(box, boxIdx.slice(6)));
    expect(e.message).toContain('not closed');
    expect(e.message).toContain('4 boundary edges');
    expect(e.message).toContain('too large to fill automatically');
    expect(e.message).toContain('38% of the triangles present');
    expect(e.where).toMatch(/^edge \d-\d$/);
    expect(e.message).toContain('(-0.5, -1, -1.5)');
  });

  it('a box with one flipped triangle is refused as inconsistently oriented', () => {
    const e = refused(withIndices(box, flipTriangle(boxIdx, 7)));
    expect(e.message).toContain('inconsistently oriented');
    expect(e.message).toContain('3 edges traversed twice in the same direction');
    // Numbered from 1, as an OBJ file counts: the flipped triangle (index 7) is triangle 8.
    expect(e.message).toMatch(/in triangle (8 and triangle \d+|\d+ and triangle 8);/);
  });

  it('a flipped triangle in a large sphere is found (vertices with many edges take the sorting path)', () => {
    const s = sphereMesh(1, 100, 50);
    const idx = Array.from(s.indices);
    const e = refused(withIndices(s, flipTriangle(idx, 3456)));
    expect(e.message).toContain('3 edges traversed twice');
    const pole = refused(withIndices(s, flipTriangle(idx, 0))); // a triangle at the pole of 100 edges
    expect(pole.message).toContain('inconsistently oriented');
  });

  it('two tetrahedra sharing one edge are refused as non-manifold at that edge', () => {
    const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1]);
    // Tetrahedron (0,1,2,3) and its half-turn about x (0,1,4,5), both outward; edge 0-1 is in four triangles.
    const indices = [0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2, 0, 4, 1, 0, 1, 5, 1, 4, 5, 0, 5, 4];
    const e = refused({ positions, indices: Uint32Array.from(indices) });
    expect(e.message).toContain('not manifold');
    expect(e.message).toContain('1 edge shared by more than two triangles');
    expect(e.message).toContain('used by 4 triangles');
    expect(e.where).toBe('edge 1-2'); // vertices 0 and 1, numbered from 1
  });

  it('a zero-area triangle with three distinct collinear vertices is refused', () => {
    // Tetrahedron whose apex 3 sits on the middle of edge 0-1: face (0,1,3) is flat.
    const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0, 0]);
    const e = refused({ positions, indices: Uint32Array.from([0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2]) });
    expect(e.message).toContain('degenerate');
    expect(e.where).toBe('triangle 2'); // index 1, numbered from 1
  });

  it('a non-finite coordinate is refused naming the vertex', () => {
    const p = new Float64Array(box.positions);
    p[3 * 6 + 1] = NaN;
    const e = refused({ positions: p, indices: box.indices });
    expect(e.where).toBe('vertex 7'); // index 6, numbered from 1
    expect(e.message).toContain('non-finite');
  });

  it('an empty mesh is refused', () => {
    expect(refused({ positions: new Float64Array(0), indices: new Uint32Array(0) }).message).toContain('no triangles');
  });

  it('an index past the last vertex is refused', () => {
    const idx = boxIdx.slice();
    idx[4] = 8;
    expect(refused(withIndices(box, idx)).message).toContain('triangle 2 refers to vertex 9 but the mesh has 8 vertices (numbered from 1)');
  });

  it('a surface listed once per side (closed and consistent, but no volume) is refused', () => {
    const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    expect(refused({ positions, indices: Uint32Array.from([0, 1, 2, 0, 2, 1]) }).message).toContain('no volume');
  });
});

describe('validateMesh accepts closed meshes', () => {
  it('a correct box comes back unchanged with no warnings', () => {
    const r = validateMesh(box, 'box');
    expect(r.mesh).toBe(box);
    expect(r.warnings).toEqual([]);
  });

  it('an inside-out box is accepted with a warning and comes back outward', () => {
    const inward: number[] = [];
    for (let t = 0; t < 12; t++) inward.push(boxIdx[t * 3]!, boxIdx[t * 3 + 2]!, boxIdx[t * 3 + 1]!);
    const m = withIndices(box, inward);
    expect(signedVolume(m)).toBeCloseTo(-6, 12);
    const r = validateMesh(m, 'inside-out.obj');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('inside-out.obj');
    expect(r.warnings[0]).toContain('flipped');
    expect(signedVolume(r.mesh)).toBeCloseTo(6, 12);
    expect(Array.from(r.mesh.indices)).toEqual(boxIdx);
  });

  it('two disjoint closed boxes are accepted silently', () => {
    const p = new Float64Array(48);
    p.set(box.positions);
    for (let i = 0; i < 24; i++) p[24 + i] = box.positions[i]! + (i % 3 === 0 ? 5 : 0);
    const idx = [...boxIdx, ...boxIdx.map((v) => v + 8)];
    const r = validateMesh({ positions: p, indices: Uint32Array.from(idx) }, 'two');
    expect(r.warnings).toEqual([]);
    expect(signedVolume(r.mesh)).toBeCloseTo(12, 12);
  });

  it('vertices no triangle uses are dropped with a warning', () => {
    const p = new Float64Array(27);
    p.set(box.positions);
    p.set([9, 9, 9], 24);
    const r = validateMesh({ positions: p, indices: box.indices }, 'stray');
    expect(r.mesh.positions.length).toBe(24);
    expect(r.warnings).toEqual(['stray: 1 vertex used by no triangle was dropped']);
  });
});
