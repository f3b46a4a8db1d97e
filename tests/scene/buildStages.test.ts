/**
 * SceneIo.stage: a world's build names each step that reports no progress of
 * its own (a mesh file parsed, the mesh checked, what it encloses analysed,
 * its collision samples placed; every shape's samples prepared for the
 * queries), in order around the bake's own progress, with what a display
 * needs to say and to decide whether it is worth saying (the shape, its
 * triangles, shapeCost's estimate). The command line draws them on a
 * terminal (tests/cli/progress.test.ts, tests/cli/buildProgressTty.test.ts):
 * an 80 000-triangle mesh spent a second and more in them with no line.
 */
import { describe, expect, it } from 'vitest';
import { createBackend } from '../../src/backends.ts';
import { createWorld } from '../../src/scene/build.ts';
import { buildStageText, checkScene, type BuildStage } from '../../src/scene/shapeBuild.ts';
import { validateScene } from '../../src/scene/validate.ts';

/** A closed unit cube as OBJ text (12 triangles once its quads are split). */
const CUBE = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 1 1 0', 'v 0 0 1', 'v 1 0 1', 'v 0 1 1', 'v 1 1 1', 'f 1 5 7 3', 'f 2 4 8 6', 'f 1 2 6 5', 'f 3 7 8 4', 'f 1 3 4 2', 'f 5 6 8 7'].join('\n');

const sceneJson = () => ({
  format: 'stackfield-scene/1',
  shapes: {
    floor: { type: 'plane' },
    cube: { type: 'mesh', path: 'cube.obj', sdf: { cells: 12 } },
    ball: { type: 'sphere', radius: 0.5, segments: [12, 8], sdf: { cells: 12 } },
  },
  bodies: [
    { name: 'ground', shape: 'floor', static: true },
    { name: 'c', shape: 'cube', position: [0, 1, 0] },
    { name: 'b', shape: 'ball', position: [2, 1, 0] },
  ],
});

const io = (events: string[], stages: BuildStage[]) => ({
  readText: async () => CUBE,
  stage: (p: BuildStage) => {
    stages.push(p);
    events.push(`${p.shape ?? '(all)'} ${p.step}`);
  },
  progress: (p: { shape: string; fraction: number }) => {
    if (p.fraction === 0) events.push(`${p.shape} bake`);
  },
});

describe('the build names its steps that report no progress (SceneIo.stage)', () => {
  it('each shape is parsed (a mesh file), checked and analysed before the bake, sampled after it (a sphere, which bakes nothing, at once); the samples are prepared last', async () => {
    const scene = validateScene(sceneJson(), 'scene.json', '/scenes');
    const b = await createBackend('cpu');
    const events: string[] = [];
    const stages: BuildStage[] = [];
    try {
      await createWorld(scene, b.query, io(events, stages));
    } finally {
      b.destroy();
    }
    expect(events).toEqual([
      'cube parsing', 'cube validating', 'cube analysing', 'cube bake',
      'ball validating', 'ball analysing', 'ball bake', 'ball sampling',
      'cube sampling',
      '(all) preparing',
    ]);
    // Which shape of how many (the floor's plane is the first), its triangles (the file's guessed
    // from its size), an estimate to decide on.
    const cube = stages.filter((s) => s.shape === 'cube');
    for (const s of cube) expect([s.index, s.count]).toEqual([1, 3]);
    expect(cube.find((s) => s.step === 'validating')!.triangles).toBe(12);
    expect(cube.find((s) => s.step === 'parsing')!.triangles).toBeGreaterThan(0);
    for (const s of stages) expect(s.estimate).toBeGreaterThan(0);
    const ball = stages.find((s) => s.shape === 'ball' && s.step === 'analysing')!;
    expect([ball.index, ball.count]).toEqual([2, 3]);
    expect(buildStageText(ball)).toBe(`shape 3 of 3 ("ball"), finding what ${ball.triangles} triangles enclose (BVH, self-intersections)`);
    const all = stages.at(-1)!;
    expect(all.triangles).toBe(12 + ball.triangles);
    expect(buildStageText(all)).toBe(`preparing the collision samples of ${all.triangles} triangles for the queries`);
  });

  it('`check` (checkScene) names the steps of every shape, counted among all of them', async () => {
    const scene = validateScene(sceneJson(), 'scene.json', '/scenes');
    const events: string[] = [];
    const stages: BuildStage[] = [];
    await checkScene(scene, io(events, stages));
    expect(events).toEqual(['cube parsing', 'cube validating', 'cube analysing', 'ball validating', 'ball analysing']);
    expect(stages.map((s) => `${s.index + 1} of ${s.count}`)).toEqual(['2 of 3', '2 of 3', '2 of 3', '3 of 3', '3 of 3']);
  });
});
