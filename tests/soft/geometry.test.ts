/**
 * What the app draws of soft bodies (src/app/softGeometry.ts), without a GPU:
 * the surface follows the particles with outward normals, every body's
 * triangles index its own vertices, springs are coloured by strain.
 */
import { describe, expect, it } from 'vitest';
import { SoftGeometry, STRAIN_SATURATION, strainColor } from '../../src/app/softGeometry.ts';
import { SOFT_VERTEX_FLOATS } from '../../src/app/render/layout.ts';
import { unpackColor } from '../../src/app/overlays.ts';
import { buildScene, softScene } from './helpers.ts';

describe('soft geometry for drawing', () => {
  it('colours springs grey at rest, red stretched, blue compressed, saturating at STRAIN_SATURATION', () => {
    const c = [0, 0, 0, 0];
    strainColor(0, c);
    expect(c[0]).toBeCloseTo(c[1]!, 12);
    expect(c[1]).toBeCloseTo(c[2]!, 12);
    expect(c[3]).toBeCloseTo(0.25, 12);
    strainColor(STRAIN_SATURATION, c);
    expect(c[0]).toBe(1);
    expect(c[2]!).toBeLessThan(0.2);
    expect(c[3]).toBe(1);
    const s = [...c];
    strainColor(5 * STRAIN_SATURATION, c);
    expect(c).toEqual(s);
    strainColor(-STRAIN_SATURATION, c);
    expect(c[2]).toBe(1);
    expect(c[0]!).toBeLessThan(0.2);
  });

  it('draws two bodies\' surfaces with outward normals, each body\'s triangles on its own vertices', async () => {
    const scene = softScene({
      shapes: { ball: { type: 'sphere', radius: 0.3, segments: [12, 8] }, cube: { type: 'box', size: [0.4, 0.4, 0.4] } },
      softBodies: [
        { name: 'a', shape: 'ball', position: [0, 1, 0], construction: { resolution: 4 } },
        { name: 'b', shape: 'cube', position: [2, 1, 0], construction: { resolution: 3 } },
      ],
    });
    const { system } = await buildScene(scene);
    const g = new SoftGeometry(system, 3);
    g.updateSurface();
    expect(g.firstVertex).toEqual([0, system.bodies[0]!.surface.skinWeight.length / 4]);
    expect(g.vertexCount).toBe(g.firstVertex[1]! + system.bodies[1]!.surface.skinWeight.length / 4);
    const nA = system.bodies[0]!.surface.indices.length;
    for (let i = 0; i < g.indices.length; i++) {
      const inA = i < nA;
      expect(g.indices[i]! < g.firstVertex[1]!).toBe(inA);
    }
    const V = g.vertices, F = SOFT_VERTEX_FLOATS;
    for (let v = 0; v < g.vertexCount; v++) {
      const centre = v < g.firstVertex[1]! ? system.centroid(0) : system.centroid(1);
      const o = v * F;
      const out = [V[o]! - centre[0], V[o + 1]! - centre[1], V[o + 2]! - centre[2]];
      const n = [V[o + 3]!, V[o + 4]!, V[o + 5]!];
      expect(Math.hypot(...n)).toBeCloseTo(1, 5);
      // Outward: the normal points away from the centre (the cube's corner normals at 55 degrees at most).
      expect(n[0]! * out[0]! + n[1]! * out[1]! + n[2]! * out[2]!).toBeGreaterThan(0.5 * Math.hypot(...out));
    }
    // The surface moves with the particles.
    for (let i = 1; i < system.pos.length; i += 3) system.pos[i] += 0.5;
    const y0 = V[1]!;
    g.updateSurface();
    expect(V[1]! - y0).toBeCloseTo(0.5, 6);
  });

  it('lists every spring as a coloured line and every particle as a point', async () => {
    const scene = softScene({ shapes: { cube: { type: 'box', size: [0.4, 0.4, 0.4] } }, softBodies: [{ shape: 'cube', position: [0, 1, 0], construction: { resolution: 2 } }] });
    const { system } = await buildScene(scene);
    const g = new SoftGeometry(system);
    // Stretch spring 0 by 10 %: red and opaque.
    const a = system.springA[0]!, b = system.springB[0]!;
    for (let k = 0; k < 3; k++) system.pos[3 * a + k] += 0.1 * (system.pos[3 * a + k]! - system.pos[3 * b + k]!);
    g.updateSprings();
    g.updateParticles();
    expect(g.springLines.count).toBe(2 * system.springCount);
    expect(g.particlePoints.count).toBe(system.particleCount);
    const c = unpackColor(g.springLines.u32[3]!);
    expect(c[0]).toBe(1);
    expect(c[3]).toBe(1);
    expect(g.springLines.f32[0]).toBeCloseTo(system.pos[3 * a]!, 6);
  });
});
