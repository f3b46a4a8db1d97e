/**
 * `run SCENE.json --dump` writes the scene after defaults as scene JSON the
 * loader accepts (src/scene/dump.ts): every built-in and every example scene
 * (meshes, joints, motors with programs, soft bodies, library instances)
 * goes through sceneToJson and loads back to the same scene.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinScene, listBuiltins } from '../../src/scene/builtins.ts';
import { sceneToJson } from '../../src/scene/dump.ts';
import { loadSceneFile } from '../../src/scene/load.ts';
import { validateScene } from '../../src/scene/validate.ts';
import type { SceneDesc } from '../../src/scene/types.ts';
import { PACKAGE_ROOT } from '../../src/cli/nodePlatform.ts';

/** Equal up to the last bits of a float (a direction is normalised again on load). */
function expectSame(a: unknown, b: unknown, path: string): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a !== b) expect(Math.abs(a - b), path).toBeLessThanOrEqual(1e-14 * Math.max(1, Math.abs(a)));
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    expect(Object.keys(b as object).sort(), path).toEqual(Object.keys(a as object).sort());
    for (const k of Object.keys(a as object)) expectSame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  expect(b, path).toEqual(a);
}

function roundTrip(scene: SceneDesc, baseDir?: string): void {
  const json = sceneToJson(scene, (d) => (baseDir ? relative(baseDir, d.resolvedPath) : d.path));
  expect(json['format']).toBe('stackfield-scene/1');
  expect(json).not.toHaveProperty('file');
  const back = validateScene(JSON.parse(JSON.stringify(json)), scene.file, baseDir);
  expectSame(scene, back, scene.file);
}

describe('sceneToJson', () => {
  it('every built-in loads back to the same scene', () => {
    for (const b of listBuiltins()) roundTrip(validateScene(builtinScene(b.name), `<builtin:${b.name}>`));
  });

  it('every example scene (robots from a library, meshes) loads back to the same scene, from another directory', async () => {
    const dir = join(PACKAGE_ROOT, 'examples', 'robots');
    const files = readdirSync(dir).filter((f) => f.endsWith('.scene.json'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) roundTrip(await loadSceneFile(join(dir, f)), resolve(dir, '..'));
    // A mesh path is written relative to the directory the dump is read from.
    const mesh = validateScene(
      { format: 'stackfield-scene/1', shapes: { bunny: { type: 'mesh', path: 'meshes/bunny.obj', scale: 0.1 } }, bodies: [{ shape: 'bunny' }] },
      'x.json',
      join(PACKAGE_ROOT, 'examples'),
    );
    const json = sceneToJson(mesh, (d) => relative(join(PACKAGE_ROOT, 'docs'), d.resolvedPath)) as { shapes: { bunny: { path: string } } };
    expect(json.shapes.bunny.path).toBe(join('..', 'examples', 'meshes', 'bunny.obj'));
    expect(dirname(mesh.shapes['bunny']!.type === 'mesh' ? mesh.shapes['bunny']!.resolvedPath : '')).toBe(join(PACKAGE_ROOT, 'examples', 'meshes'));
  });

  it('motors: a constant target, a zero target, a repeated program, a window with an end; joints list only their own vectors', () => {
    const scene = validateScene(
      {
        format: 'stackfield-scene/1',
        sleep: false,
        shapes: { box: { type: 'box', sdf: { cells: 8 } } },
        bodies: [{ name: 'a', shape: 'box', static: true }, { name: 'b', shape: 'box', position: [0, 2, 0] }, { name: 'c', shape: 'box', position: [3, 2, 0] }],
        joints: [{ name: 'h', type: 'hinge', bodyA: 'a', bodyB: 'b', anchorA: [0, 1, 0], anchorB: [0, -1, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] }],
        motors: [
          { body: 'c', targetAngularVelocity: [0, 3, 4], maxTorque: 10 },
          { body: 'c', targetAngularVelocity: [0, 0, 0], maxTorque: 1, from: 1, until: 2 },
          { joint: 'h', program: [{ speed: 1, duration: 0.5 }, { speed: -1, duration: 0.5 }], repeat: true, startTorque: 1, torqueIncrementFraction: 0.1, maxTorque: 5, fromStep: 3 },
        ],
      },
      'm.json',
    );
    roundTrip(scene);
    const json = sceneToJson(scene) as { sleep: boolean; solver: object; joints: object[]; motors: Record<string, unknown>[] };
    expect(json.sleep).toBe(false);
    expect(json.solver).not.toHaveProperty('sleep');
    expect(Object.keys(json.joints[0]!)).toEqual(['name', 'type', 'bodyA', 'bodyB', 'anchorA', 'anchorB', 'axisA', 'axisB', 'collide']);
    expect(json.motors[0]).toMatchObject({ axis: [0, 0.6, 0.8], speed: 5 });
    expect(json.motors[1]).toMatchObject({ targetAngularVelocity: [0, 0, 0], from: 1, until: 2 });
    expect(json.motors[2]).toMatchObject({ joint: 'h', repeat: true, startTorque: 1, torqueIncrement: 0.1 });
    expect(json.motors[0]).not.toHaveProperty('until');
  });
});
