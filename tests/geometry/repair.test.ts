/**
 * Meshes from the wild (issue 14): unwelded exports are welded, small holes
 * filled, needles dropped, each with a warning that says what was done, and
 * the repaired mesh has the mass properties of the solid it describes.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import type { TriMesh } from '../../src/geometry/mesh.ts';
import { boxMesh, sphereMesh } from '../../src/geometry/shapes.ts';
import { validateMesh } from '../../src/geometry/validate.ts';
import { massFromMesh, type MassProperties } from '../../src/sdf/mass.ts';

function expectSameMass(got: MassProperties, want: MassProperties, rel: number): void {
  expect(Math.abs(got.volume - want.volume)).toBeLessThanOrEqual(rel * want.volume);
  const size = Math.cbrt(want.volume);
  for (let k = 0; k < 3; k++) expect(Math.abs(got.centerOfMass[k]! - want.centerOfMass[k]!)).toBeLessThanOrEqual(rel * size);
  const scale = Math.max(...Array.from(want.inertia, Math.abs));
  for (let k = 0; k < 9; k++) expect(Math.abs(got.inertia[k]! - want.inertia[k]!)).toBeLessThanOrEqual(rel * scale);
}

/** Every triangle with its own three vertices, as an exporter that writes faces independently does. */
function unweld(m: TriMesh, jitter = 0): TriMesh {
  const p: number[] = [];
  const idx: number[] = [];
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 2 * jitter;
  for (let i = 0; i < m.indices.length; i++) {
    const v = m.indices[i]!;
    p.push(m.positions[3 * v]! + rnd(), m.positions[3 * v + 1]! + rnd(), m.positions[3 * v + 2]! + rnd());
    idx.push(i);
  }
  return { positions: Float64Array.from(p), indices: Uint32Array.from(idx) };
}

function refused(m: TriMesh): InputError {
  try {
    validateMesh(m, 'm.obj');
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected the mesh to be refused');
}

const box = boxMesh([1, 2, 3]);
const boxMass = massFromMesh(box);

describe('welding duplicate vertices', () => {
  it('an unwelded box (36 vertices, every edge open) is welded to 8 vertices with a warning, and has the box mass properties', () => {
    const r = validateMesh(unweld(box), 'unwelded.obj');
    expect(r.mesh.positions.length / 3).toBe(8);
    expect(r.mesh.indices.length / 3).toBe(12);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^unwelded\.obj: 28 duplicate vertices on open seams were welded \(closer than 3\.74e-6, a millionth of the mesh size\)$/);
    expectSameMass(massFromMesh(r.mesh), boxMass, 1e-14);
  });

  it('an unwelded sphere whose copies differ by float32-like noise (1e-9) is welded and keeps its volume to 1e-8', () => {
    const s = sphereMesh(1, 24, 12);
    const r = validateMesh(unweld(s, 1e-9), 'noisy.obj');
    expect(r.mesh.positions.length).toBe(s.positions.length);
    expect(r.warnings[0]).toContain('duplicate vertices on open seams were welded');
    expectSameMass(massFromMesh(r.mesh), massFromMesh(s), 1e-8);
  });

  it('does not weld coincident vertices of a closed mesh (two boxes touching at a corner stay two solids)', () => {
    const b = boxMesh([1, 1, 1]);
    const p = new Float64Array(48);
    p.set(b.positions);
    for (let i = 0; i < 24; i++) p[24 + i] = b.positions[i]! + 1; // corner (0.5, 0.5, 0.5) of one is (-0.5, ...) + 1 of the other
    const idx = Uint32Array.from([...b.indices, ...Array.from(b.indices, (v) => v + 8)]);
    const r = validateMesh({ positions: p, indices: idx }, 'two.obj');
    expect(r.warnings).toEqual([]);
    expect(r.mesh.positions.length / 3).toBe(16);
  });

  it('drops a triangle that names one vertex twice (a zero-area needle) with a warning and keeps the closed rest', () => {
    const idx = Uint32Array.from([...box.indices, 3, 3, 5]);
    const r = validateMesh({ positions: box.positions, indices: idx }, 'needle.obj');
    expect(r.warnings).toEqual(['needle.obj: 1 triangle naming one vertex twice (zero area) dropped, first: triangle 13']);
    expect(Array.from(r.mesh.indices)).toEqual(Array.from(box.indices));
  });
});

describe('filling small holes', () => {
  it('a box with one triangle missing gets exactly that triangle back, with a warning, and the box mass properties', () => {
    const r = validateMesh({ positions: box.positions, indices: box.indices.slice(3) }, 'open.obj');
    expect(r.mesh.indices.length / 3).toBe(12);
    expect(r.mesh.positions.length / 3).toBe(8); // no centroid vertex for a 3-edge hole
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^open\.obj: the mesh was open; 1 hole was filled \(3 edges at \(-0\.5, -0\.3333, 0\.5\); area 3, 16% of the area of the triangles present\)$/);
    expectSameMass(massFromMesh(r.mesh), boxMass, 1e-14);
  });

  it('a sphere without its top cap (a 16-edge hole, 1.7% of the surface) is closed by a fan from the rim centroid, with the mass of that solid', () => {
    const s = sphereMesh(1, 16, 12);
    const nv = s.positions.length / 3;
    const top = nv - 1;
    const kept: number[] = [];
    for (let t = 0; t < s.indices.length; t += 3) {
      const tri = [s.indices[t]!, s.indices[t + 1]!, s.indices[t + 2]!];
      if (!tri.includes(top)) kept.push(...tri);
    }
    const r = validateMesh({ positions: s.positions, indices: Uint32Array.from(kept) }, 'capless.obj');
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toBe('capless.obj: 1 vertex used by no triangle was dropped'); // the old pole
    expect(r.warnings[1]).toMatch(/^capless\.obj: the mesh was open; 1 hole was filled \(16 edges at \(0, 0\.9659, 0\); area 0\.205, 1\.7% of the area of the triangles present\)$/);
    // The same solid built by hand: the pole moved down onto the rim's centre.
    const rimY = Math.sin((75 * Math.PI) / 180);
    const flat = new Float64Array(s.positions);
    flat[3 * top + 1] = rimY;
    expectSameMass(massFromMesh(r.mesh), massFromMesh({ positions: flat, indices: s.indices }), 1e-13);
  });

  it('two holes meeting at one vertex are not filled (which rims pair up is ambiguous) and the message names the vertex', () => {
    // Remove two triangles of the box that share only vertex 0: the two holes touch there.
    const idx = Array.from(box.indices);
    const sharesOnly0: number[] = [];
    for (let t = 0; t < 12 && sharesOnly0.length < 2; t++) {
      const tri = idx.slice(3 * t, 3 * t + 3);
      if (!tri.includes(0)) continue;
      const other = sharesOnly0[0];
      if (other === undefined) sharesOnly0.push(t);
      else {
        const o = idx.slice(3 * other, 3 * other + 3);
        if (tri.filter((v) => o.includes(v)).length === 1) sharesOnly0.push(t);
      }
    }
    const kept = idx.filter((_, i) => !sharesOnly0.includes(Math.floor(i / 3)));
    const e = refused({ positions: box.positions, indices: Uint32Array.from(kept) });
    expect(e.message).toContain('not closed');
    expect(e.message).toContain('several of them meet at vertex 1 (-0.5, -1, -1.5)'); // index 0, numbered from 1
  });
});

describe('tolerances relative to size and shape (issue 14, item 8)', () => {
  it.each([
    ['a long box', [1e6, 1, 1]],
    ['a flat slab', [1, 1e-5, 1]],
    ['a 1e-15 m box', [1e-15, 2e-15, 3e-15]],
    ['a 1e15 m box', [1e15, 2e15, 3e15]],
  ])('%s is a valid closed mesh with no warning', (_, size) => {
    const m = boxMesh(size as [number, number, number]);
    const r = validateMesh(m, 'box');
    expect(r.warnings).toEqual([]);
    const v = size[0]! * size[1]! * size[2]!;
    expect(Math.abs(massFromMesh(r.mesh).volume - v)).toBeLessThanOrEqual(1e-12 * v);
  });

  it('a box thinner than 1e-7 of its size is refused as degenerate, naming its extents, not as "degenerate triangles"', () => {
    const e = refused(boxMesh([1, 1, 1e-9]));
    expect(e.message).toContain('the shape is degenerate: too thin for its size');
    expect(e.message).toContain('extents 1 x 1 x 1e-9');
    expect(e.message).not.toContain('triangle');
  });

  it.each([
    [1e-30, '1.73e-30 across'],
    [1e30, '1.73e30 across'],
  ])('a %s m cube is refused naming its size and the accepted range', (s, text) => {
    const e = refused(boxMesh([s, s, s]));
    expect(e.message).toContain(`the shape is ${text}`);
    expect(e.message).toContain('expected a size between 1e-20 and 1e20');
  });
});
