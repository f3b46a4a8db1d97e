/**
 * What the built-ins declare about themselves (src/scene/builtins.ts): a
 * description, a description of every parameter, defaults inside their
 * range, and, where the scene has one, the parameter that counts its bodies,
 * which must change the number of bodies. Scenes whose parameters are not a
 * count (a mass ratio, a speed, the scheme) declare none.
 */
import { describe, expect, it } from 'vitest';
import { builtinScene, listBuiltins } from '../../src/scene/builtins.ts';

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
    expect(counted).toEqual(['billiards', 'boxes', 'chain', 'chain-locked', 'cups', 'dominoes', 'jointed-rings', 'jointed-skulls', 'pile', 'rings', 'skulls', 'soft-pegs', 'tops', 'tower']);
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
});
