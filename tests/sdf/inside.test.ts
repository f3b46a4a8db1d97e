/**
 * The ray-parity oracle (src/sdf/inside.ts) on cases with known answers,
 * including points in the planes of faces and on the lines of edges, where a
 * careless ray count double-counts or misses a crossing.
 */
import { describe, expect, it } from 'vitest';
import { boxMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { insideByRayParity } from '../../src/sdf/inside.ts';

describe('insideByRayParity', () => {
  const box = boxMesh([1, 1, 1]);

  it('tells inside from outside for a box, including points in the planes of its faces and edges', () => {
    expect(insideByRayParity(box, 0, 0, 0)).toBe(true);
    expect(insideByRayParity(box, 0.49, -0.49, 0.49)).toBe(true);
    expect(insideByRayParity(box, 0.51, 0, 0)).toBe(false);
    expect(insideByRayParity(box, 2, 0, 0)).toBe(false);
    // In the plane x = 0.5 of a face, and on the line of an edge, but outside.
    expect(insideByRayParity(box, 0.5, 3, 0)).toBe(false);
    expect(insideByRayParity(box, 0.5, 0.5, 3)).toBe(false);
    expect(insideByRayParity(box, 0.5, 0.5, -2)).toBe(false);
    // On the body diagonal, where rays along (1,1,1) would hit corners.
    expect(insideByRayParity(box, 0.2, 0.2, 0.2)).toBe(true);
    expect(insideByRayParity(box, 0.7, 0.7, 0.7)).toBe(false);
  });

  it('knows the hole of a torus is outside and its tube inside', () => {
    const torus = torusMesh(1, 0.3, 24, 9);
    expect(insideByRayParity(torus, 0, 0, 0)).toBe(false);
    expect(insideByRayParity(torus, 1, 0, 0)).toBe(true);
    expect(insideByRayParity(torus, 0, 0, -1)).toBe(true);
    expect(insideByRayParity(torus, 0.6, 0, 0)).toBe(false);
    expect(insideByRayParity(torus, 1, 0.35, 0)).toBe(false);
  });
});
