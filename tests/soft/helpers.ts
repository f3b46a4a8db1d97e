import { SpringKind, type SoftModel } from '../../src/soft/model.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { buildSoftSystem, type BuiltSoft } from '../../src/soft/build.ts';
import type { SceneDesc } from '../../src/scene/types.ts';
import type { SoftMaterial } from '../../src/soft/system.ts';

/**
 * A hand-made net (no drawn surface): particles at `rest` with mass shares
 * `shares`, structural springs between the pairs. With `spacing` equal to a
 * spring's rest length L, the material's stiffness E gives that spring
 * k = E * spacing^2 / L = E * L.
 */
export function netModel(rest: number[], springs: number[], shares: number[], spacing: number): SoftModel {
  const n = rest.length / 3;
  return {
    rest: Float64Array.from(rest),
    massShare: Float64Array.from(shares),
    springs: Uint32Array.from(springs),
    kind: new Uint8Array(springs.length / 2).fill(SpringKind.Structural),
    outer: new Uint8Array(springs.length / 2),
    surface: { positions: new Float64Array(0), indices: new Uint32Array(0) },
    skinIndex: new Uint32Array(0),
    skinWeight: new Float64Array(0),
    tets: new Uint32Array(0),
    spacing: spacing || n,
  };
}

export function material(over: Partial<SoftMaterial> = {}): SoftMaterial {
  return { stiffness: 1e4, damping: 0, outerScale: 1, friction: 0.5, restitution: 0, volumeStiffness: 0, stretchStiffness: 0, stretchDamping: 0, perimeterStiffness: 0, ...over };
}

export const PLACE_AT_ORIGIN = {
  origin: [0, 0, 0] as [number, number, number],
  orientation: [0, 0, 0, 1] as [number, number, number, number],
  velocity: [0, 0, 0] as [number, number, number],
  angularVelocity: [0, 0, 0] as [number, number, number],
};

/** A scene with a ground plane (unless `ground` is false) and the given soft part, validated. */
export function softScene(soft: Record<string, unknown>, extra: Record<string, unknown> = {}): SceneDesc {
  const shapes = { floor: { type: 'plane' }, ...((soft['shapes'] as object) ?? {}) };
  const json = {
    format: 'stackfield-scene/1',
    bodies: [{ name: 'ground', shape: 'floor', static: true }],
    ...extra,
    ...soft,
    shapes,
  };
  return parseSceneText(JSON.stringify(json), 'soft.json');
}

export function buildScene(scene: SceneDesc): Promise<BuiltSoft> {
  return buildSoftSystem(scene, { readText: async () => '' });
}

/** Lowest particle height of body b (or all). */
export function lowestY(pos: Float64Array): number {
  let y = Infinity;
  for (let i = 1; i < pos.length; i += 3) y = Math.min(y, pos[i]!);
  return y;
}

/** Signed volumes of a model's tetrahedra (positive when oriented as documented). */
export function tetVolumes(m: SoftModel): number[] {
  const out: number[] = [];
  const p = m.rest;
  for (let t = 0; t < m.tets.length; t += 4) {
    const [a, b, c, d] = [0, 1, 2, 3].map((k) => 3 * m.tets[t + k]!) as [number, number, number, number];
    const u = [p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!];
    const v = [p[c]! - p[a]!, p[c + 1]! - p[a + 1]!, p[c + 2]! - p[a + 2]!];
    const w = [p[d]! - p[a]!, p[d + 1]! - p[a + 1]!, p[d + 2]! - p[a + 2]!];
    out.push((u[0]! * (v[1]! * w[2]! - v[2]! * w[1]!) - u[1]! * (v[0]! * w[2]! - v[2]! * w[0]!) + u[2]! * (v[0]! * w[1]! - v[1]! * w[0]!)) / 6);
  }
  return out;
}
