/**
 * "massFrom": "sdf" (seed 000, 4.5-4.6): a shape's mass, centre of mass and
 * inertia summed over its SDF's inside cells instead of integrated over its
 * triangles, checked against the exact integral of the same solid
 * (massFromMesh) with tolerances that follow from the cell size d:
 *
 * - A box: cells wholly inside and those cut by a face are exact (a cut
 *   cell counts its inside part, 1/2 - phi/d, exact for a face along the
 *   grid), but a cell along an edge sees the trilinear mean of its corners,
 *   -d/4 instead of -d/2, and counts 3/4 of itself: the box loses up to
 *   d^2/4 per metre of edge, |dV| <= (d^2 / 4) * (sum of its 12 edges).
 *   Its inertia loses that mass at most a half diagonal from the centre.
 * - A sphere of radius R: the trilinear mean at a cut cell's centre is off
 *   the true distance by O(d^2 / R) and the cut by a curved surface by as
 *   much, so |dV| / V = O((d / R)^2): measured 0.44 to 0.6 (d / R)^2 for
 *   d / R from 1/8 to 1/32; the test allows (d / R)^2.
 */
import { describe, expect, it } from 'vitest';
import { massFromMesh } from '../../src/sdf/mass.ts';
import { FORMAT, worldFrom } from '../dynamics/helpers.ts';
import { validateScene } from '../../src/scene/validate.ts';

async function shapeOf(shape: Record<string, unknown>, body: Record<string, unknown> = {}) {
  const w = await worldFrom({ format: FORMAT, shapes: { s: shape }, bodies: [{ name: 'b', shape: 's', ...body }] });
  return { s: w.shapes[0]!, mass: w.bodies.mass[0]! };
}

describe('"massFrom": "sdf"', () => {
  it.each([10, 20, 40])('a 1 x 0.6 x 0.4 m box at %i cells: volume and inertia within what its edges lose', async (cells) => {
    const { s, mass } = await shapeOf({ type: 'box', size: [1, 0.6, 0.4], sdf: { cells }, massFrom: 'sdf' }, { density: 1000 });
    const exact = massFromMesh(s.mesh);
    expect(exact.volume).toBeCloseTo(0.24, 12);
    const d = s.sdf!.cellSize;
    const lost = (d * d / 4) * 4 * (1 + 0.6 + 0.4);
    expect(s.volume).toBeLessThan(exact.volume);
    expect(exact.volume - s.volume).toBeLessThanOrEqual(lost);
    // Not the mesh's: the body's mass is the density times the field's volume.
    expect(mass).toBeCloseTo(1000 * s.volume, 9);
    const r2 = 0.5 * 0.5 + 0.3 * 0.3 + 0.2 * 0.2;
    for (let k = 0; k < 9; k++) expect(Math.abs(s.inertiaUnit[k]! - exact.inertia[k]!)).toBeLessThanOrEqual(lost * r2 + 1e-15);
    // Symmetric: the centre of mass stays the box's centre.
    expect(s.comOffset).toEqual([0, 0, 0]);
  });

  it.each([16, 32, 64])('a sphere of radius 0.5 m at %i cells: volume and moments within (d / R)^2 of the exact integral', async (cells) => {
    const { s } = await shapeOf({ type: 'sphere', radius: 0.5, segments: [64, 32], sdf: { cells }, massFrom: 'sdf' });
    // A sphere's field is its exact distance (shapeBuild.ts), so the field's sum converges to the
    // sphere's own integral, not to its 64 x 32 polyhedron's (0.4 % smaller).
    const v = (4 / 3) * Math.PI * 0.5 ** 3, i = 0.4 * 0.5 ** 2 * v;
    const exact = { volume: v, inertia: [i, 0, 0, 0, i, 0, 0, 0, i] };
    const tol = (s.sdf!.cellSize / 0.5) ** 2;
    expect(Math.abs(s.volume / exact.volume - 1)).toBeLessThanOrEqual(tol);
    for (const k of [0, 4, 8]) expect(Math.abs(s.inertiaUnit[k]! / exact.inertia[k]! - 1)).toBeLessThanOrEqual(tol);
    for (const k of [1, 2, 3, 5, 6, 7]) expect(Math.abs(s.inertiaUnit[k]!)).toBeLessThan(1e-6 * exact.inertia[0]!);
  });

  it('an L-shaped prism: the centre of mass moves to the field\'s, and the body\'s frame with it', async () => {
    // L of a 1 x 0.3 foot and a 0.3 x 1 leg, 0.4 deep: centroid (0.3278, 0.3278) from the corner.
    const polygon = [[0, 0], [1, 0], [1, 0.3], [0.3, 0.3], [0.3, 1], [0, 1]];
    const mesh = await shapeOf({ type: 'extrude', polygon, depth: 0.4, sdf: { cells: 40 } });
    const field = await shapeOf({ type: 'extrude', polygon, depth: 0.4, sdf: { cells: 40 }, massFrom: 'sdf' });
    const exactX = (0.3 * 0.5 + 0.21 * 0.15) / 0.51;
    expect(mesh.s.comOffset[0]).toBeCloseTo(exactX, 9);
    const d = field.s.sdf!.cellSize;
    // The field's centre is off by a fraction of a cell (0.011 d here), and its own frame is centred on it.
    const shift = Math.abs(field.s.comOffset[0] - exactX);
    expect(shift).toBeGreaterThan(1e-6);
    expect(shift).toBeLessThan(0.05 * d);
    expect(Math.abs(massFromMesh(field.s.mesh).centerOfMass[0])).toBeCloseTo(shift, 9);
    expect(field.s.volume).toBeLessThan(mesh.s.volume);
  });

  it('"mesh" is the default and the same as leaving it out; other values and planes are refused', async () => {
    const a = await shapeOf({ type: 'box', size: [1, 0.6, 0.4], sdf: { cells: 10 } });
    const b = await shapeOf({ type: 'box', size: [1, 0.6, 0.4], sdf: { cells: 10 }, massFrom: 'mesh' });
    expect(a.s.volume).toBeCloseTo(0.24, 12);
    expect(b.s.volume).toBe(a.s.volume);
    const bad = (shape: Record<string, unknown>) => () => validateScene({ format: FORMAT, shapes: { s: shape }, bodies: [] }, 'm.json');
    expect(bad({ type: 'box', massFrom: 'voxels' })).toThrow(/m\.json: shapes\.s\.massFrom: expected "mesh" or "sdf", got "voxels"/);
    expect(bad({ type: 'plane', massFrom: 'sdf' })).toThrow(/shapes\.s\.massFrom: a plane shape does not use "massFrom"/);
  });
});
