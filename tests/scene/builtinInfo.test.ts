/**
 * What the built-ins declare about themselves (src/scene/builtins.ts): a
 * description, a description of every parameter, defaults inside their
 * range, and, where the scene has one, the parameter that counts its bodies,
 * which must change the number of bodies. Scenes whose parameters are not a
 * count (a mass ratio, a speed, the scheme) declare none.
 */
import { describe, expect, it } from 'vitest';
import { builtinScene, listBuiltins } from '../../src/scene/builtins.ts';
import { checkScene } from '../../src/scene/shapeBuild.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { nodeSceneIo } from '../../src/cli/nodeIo.ts';

describe('built-in scene declarations', () => {
  const all = listBuiltins();

  it('every scene and every parameter is described, defaults in range', () => {
    expect(all.length).toBeGreaterThanOrEqual(16);
    for (const b of all) {
      expect(b.description.length, b.name).toBeGreaterThan(40);
      expect(b.description.endsWith('.'), b.name).toBe(true);
      for (const p of b.params) {
        expect(p.description.length, `${b.name}.${p.name}`).toBeGreaterThan(5);
        expect(p.default).toBeGreaterThanOrEqual(p.min);
        expect(p.default).toBeLessThanOrEqual(p.max);
      }
    }
  });

  it('the declared count parameter sets the number of bodies', () => {
    const counted = all.filter((b) => b.count !== undefined).map((b) => b.name).sort();
    expect(counted).toEqual(['balls', 'billiards', 'boxes', 'chain', 'chain-locked', 'cups', 'dominoes', 'jointed-rings', 'jointed-skulls', 'pile', 'rings', 'skulls', 'soft-pegs', 'tops', 'tower']);
    for (const b of all) {
      if (b.count === undefined) continue;
      const p = b.params.find((q) => q.name === b.count)!;
      expect(p, b.name).toBeDefined();
      expect(p.step, b.name).toBeGreaterThanOrEqual(1);
      // Rigid and soft bodies alike (soft-pegs counts blobs).
      const bodies = (n: number) => {
        const sc = builtinScene(b.name, { [b.count!]: n }) as { bodies: unknown[]; softBodies?: unknown[] };
        return sc.bodies.length + (sc.softBodies?.length ?? 0);
      };
      const small = p.min + (p.step ?? 1) * 1, large = p.min + (p.step ?? 1) * 3;
      expect(bodies(large) - bodies(small), b.name).toBe(large - small);
    }
  });

  it('every parameter value "run --list" documents builds a valid scene: each corner of the ranges is checked', async () => {
    const failures: string[] = [];
    for (const b of all) {
      // Every combination of minima and maxima (2^n, n <= 4 here), so a count at its maximum meets the others' extremes too.
      expect(b.params.length, b.name).toBeLessThanOrEqual(4);
      for (let mask = 0; mask < 1 << b.params.length; mask++) {
        const params = Object.fromEntries(b.params.map((p, k) => [p.name, mask & (1 << k) ? p.max : p.min]));
        try {
          const scene = validateScene(builtinScene(b.name, params), `<builtin:${b.name}>`);
          // Meshes, masses and SDF sizes, without baking.
          await checkScene(scene, nodeSceneIo(() => undefined));
        } catch (e) {
          failures.push(`${b.name} ${JSON.stringify(params)}: ${(e as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('rings: a peg taller than one SDF of 512 cells is a column of segments at the seed\'s cell size', () => {
    type Scene = { shapes: { peg: { height: number; sdf: { cells: number } } }; bodies: { name: string; shape: string; position: number[] }[] };
    // 265 rings on 3 pegs: 89 per peg, 12.86 m, over 512 cells of 2.5 cm.
    const sc = builtinScene('rings', { rings: 265 }) as Scene;
    const pegs = sc.bodies.filter((x) => x.shape === 'peg');
    expect(pegs.map((x) => x.name)).toEqual(['peg0', 'peg0-1', 'peg1', 'peg1-1', 'peg2', 'peg2-1']);
    expect(sc.shapes.peg.height).toBeCloseTo(12.86 / 2, 6);
    expect(sc.shapes.peg.height / sc.shapes.peg.sdf.cells).toBeLessThanOrEqual(3.2 / 128);
    // End to end from the ground up.
    expect(pegs[0]!.position[1]).toBeCloseTo(sc.shapes.peg.height / 2, 5);
    expect(pegs[1]!.position[1]).toBeCloseTo(sc.shapes.peg.height * 1.5, 5);
    const one = builtinScene('rings', { rings: 2000, pegs: 1 }) as Scene;
    expect(one.shapes.peg.sdf.cells).toBeLessThanOrEqual(512);
    expect(one.shapes.peg.height / one.shapes.peg.sdf.cells).toBeLessThanOrEqual(3.2 / 128);
    expect(one.bodies.filter((x) => x.shape === 'peg')).toHaveLength(22);
  });
});
