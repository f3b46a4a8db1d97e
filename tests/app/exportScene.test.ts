import { describe, expect, it } from 'vitest';
import { exportFileName, exportSceneState } from '../../src/app/exportScene.ts';
import type { World } from '../../src/dynamics/world.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { builtinWorld, run, worldFrom } from '../dynamics/helpers.ts';
import { createBackend } from '../../src/backends.ts';
import { createWorld } from '../../src/scene/build.ts';
import { readFile } from 'node:fs/promises';
import { jointsOf } from '../../src/dynamics/joints/system.ts';

function expectSameState(a: World, b: World, tol: number): void {
  const A = a.bodies, B = b.bodies;
  expect(B.count).toBe(A.count);
  for (const [k, n] of [['pos', 3], ['quat', 4], ['vel', 3], ['angVel', 3]] as const) {
    for (let i = 0; i < n * A.count; i++) expect(Math.abs(A[k][i]! - B[k][i]!), `${k}[${i}]`).toBeLessThanOrEqual(tol);
  }
}

describe('exporting the current state as a scene file', () => {
  it('a pile of cups, bones and L-blocks (centres of mass off their origins) loads back in the same state', async () => {
    const json = builtinScene('pile', { count: 6 });
    const w = await worldFrom(json);
    await run(w, 40);
    const out = exportSceneState(json, w);
    // Through the text a file holds, and the loader the CLI uses.
    const text = JSON.stringify(out, null, 2);
    const back = await createFromText(text);
    expectSameState(w, back, 1e-12);
    // The source is untouched.
    expect(JSON.stringify(json)).toBe(JSON.stringify(builtinScene('pile', { count: 6 })));
  });

  it('moves motor windows so the file starts now, drops finished motors, and keeps the panel\'s solver settings', async () => {
    const json = builtinScene('caterpillar', {}) as { motors: Record<string, unknown>[] };
    json.motors = [
      { ...json.motors[0]!, from: 0.2, until: 5 },
      { ...json.motors[0]!, from: 0, until: 0.1 },
    ];
    const w = await worldFrom(json);
    await run(w, 50);
    const t = w.time;
    const out = exportSceneState(json, w, { contactIterations: 7, dt: 0.004 }) as { motors: { from: number; until: number }[]; solver: Record<string, unknown>; dt: number };
    expect(out.motors).toHaveLength(1);
    expect(out.motors[0]!.from).toBe(0);
    expect(out.motors[0]!.until).toBeCloseTo(5 - t, 12);
    expect(out.solver['contactIterations']).toBe(7);
    expect(out.dt).toBe(0.004);
    const back = await createFromText(JSON.stringify(out));
    expectSameState(w, back, 1e-12);
    expect(back.solver.contactIterations).toBe(7);
    expect(back.dt).toBe(0.004);
  });

  it('refuses a world that was not built from the scene', async () => {
    const w = await builtinWorld('tower', { height: 2 });
    expect(() => exportSceneState(builtinScene('tower', { height: 3 }), w)).toThrow(/4 bodies and the world 3/);
  });

  it('names the file by scene and time', () => {
    expect(exportFileName('rings', 2.3456)).toBe('rings-t2.35s.json');
    expect(exportFileName('my pile.json', 0)).toBe('my_pile-t0.00s.json');
  });
});

async function createFromText(text: string): Promise<World> {
  const scene = parseSceneText(text, 'exported.json');
  const b = await createBackend('cpu');
  return createWorld(scene, b.query, { readText: (p) => readFile(p, 'utf8'), bake: b.bake });
}

describe('motor windows in steps and programs, from now on', () => {
  it('a window in steps moves by whole steps, and a program that had started goes on in the same phase', async () => {
    const json = {
      format: 'stackfield-scene/1',
      gravity: [0, 0, 0],
      shapes: { cube: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } } },
      bodies: [{ name: 'cube', shape: 'cube', mass: 8 }],
      motors: [
        { body: 'cube', axis: [0, 0, 1], program: [{ speed: 1, duration: 0.3 }, { speed: 3, duration: 0.2 }], repeat: true, from: 0.1, maxTorque: 100 },
        { body: 'cube', axis: [1, 0, 0], program: [{ speed: 2, duration: 0.2 }, { speed: 4, duration: 0.2 }], fromStep: 5, untilStep: 60, maxTorque: 100 },
        { body: 'cube', axis: [0, 1, 0], program: [{ speed: 2, duration: 0.1 }], maxTorque: 100 },
      ],
    };
    const w = await worldFrom(json);
    await run(w, 25);
    const out = exportSceneState(json, w) as { motors: Record<string, unknown>[] };
    // The one-off 0.1 s program is over; the others go on.
    expect(out.motors).toHaveLength(2);
    expect(out.motors[0]!['program']).toEqual([
      { speed: 1, duration: expect.closeTo(0.15, 12) }, { speed: 3, duration: 0.2 }, { speed: 1, duration: expect.closeTo(0.15, 12) },
    ]);
    expect(out.motors[1]).toMatchObject({ fromStep: 0, untilStep: 35 });
    // The targets of the next steps are those the original would have had.
    const back = await createFromText(JSON.stringify(out));
    const a = jointsOf(w)!.motors, b = jointsOf(back)!.motors;
    for (let s = 0; s < 60; s++) {
      const ta = [a.target(0, w.time + (s + 0.5) * w.dt), a.target(1, w.time + (s + 0.5) * w.dt)];
      const tb = [b.target(0, (s + 0.5) * w.dt), b.target(1, (s + 0.5) * w.dt)];
      expect(tb).toEqual(ta);
    }
  });
});
