/**
 * The robot editor's pure part (src/app/editorModel.ts): the editor's state
 * -> a `stackfield-library/1` file that `stackfield check` accepts, its masses
 * and joints as entered, and bad states refused with check's own messages.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEditorLibrary, editorLibrary, editorLibraryText, tryScene, type EditorState } from '../../src/app/editorModel.ts';
import { checkFile } from '../../src/cli/check.ts';
import { listLibrary } from '../../src/cli/lib.ts';
import { loadSceneFileWithSources } from '../../src/scene/load.ts';
import { writeFiles } from '../robots/helpers.ts';

/** A closed, outward cube of side 0.2 m centred on the origin. */
const CUBE_OBJ = [
  ...[[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1], [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]].map((v) => `v ${v.map((x) => x * 0.1).join(' ')}`),
  'f 1 4 3', 'f 1 3 2', 'f 5 6 7', 'f 5 7 8', 'f 1 2 6', 'f 1 6 5', 'f 4 8 7', 'f 4 7 3', 'f 1 5 8', 'f 1 8 4', 'f 2 3 7', 'f 2 7 6',
].join('\n') + '\n';

function arm(): EditorState {
  return {
    robot: 'arm',
    description: 'a plate and a cube on a motor hinge, a ball on a ball joint',
    bodies: [
      { name: 'base', shape: { type: 'box', size: [0.5, 0.06, 0.4] }, massMode: 'density', massValue: 500, material: 'plastic', position: [0, 0.03, 0] },
      { name: 'cube', shape: { type: 'mesh', file: 'cube.obj', text: CUBE_OBJ }, massMode: 'density', massValue: 1000, material: 'rubber', position: [0.36, 0.1, 0] },
      { name: 'ball', shape: { type: 'sphere', radius: 0.1 }, massMode: 'mass', massValue: 2, material: 'steel', position: [-0.36, 0.1, 0] },
    ],
    joints: [
      { name: 'knee', type: 'hinge', bodyA: 'base', bodyB: 'cube', pivot: [0.25, 0.06, 0], axis: [0, 0, 1], motor: { speed: 2, maxTorque: 20 } },
      { name: 'hip', type: 'ball', bodyA: 'base', bodyB: 'ball', pivot: [-0.25, 0.06, 0], axis: [0, 1, 0] },
    ],
  };
}

describe('the robot editor\'s library', () => {
  it('writes a library that check accepts, with the masses, joints and motor entered', async () => {
    const state = arm();
    expect(await checkEditorLibrary(state, 'arm.library.json')).toBe('library, 3 shapes, 3 materials, 3 body templates, 1 robot');
    // Saved beside its OBJ, the file passes the command line's own check and listing.
    const dir = writeFiles({ 'cube.obj': CUBE_OBJ });
    const file = join(dir, 'arm.library.json');
    writeFileSync(file, editorLibraryText(state));
    expect(await checkFile(file, () => {})).toBe('library, 3 shapes, 3 materials, 3 body templates, 1 robot');
    const [listed] = await listLibrary(file, () => {});
    const mass = Object.fromEntries(listed!.bodies.map((b) => [b.name, b.mass]));
    expect(mass['arm_base']).toBeCloseTo(0.5 * 0.06 * 0.4 * 500, 10);
    expect(mass['arm_cube']).toBeCloseTo(0.2 ** 3 * 1000, 10);
    expect(mass['arm_ball']).toBe(2);
    const robot = listed!.robots[0]!;
    // 3 dynamic parts: 18 DOF, less a hinge's 5 and a ball's 3.
    expect(robot.dof).toBe(10);
    expect(robot.mass).toBeCloseTo(6 + 8 + 2, 9);
    expect(robot.jointList.map((j) => `${j.name} ${j.type} ${j.bodyA}->${j.bodyB}`)).toEqual(['knee hinge base->cube', 'hip ball base->ball']);
    expect(robot.motorList.map((m) => `${m.name} ${m.kind} ${m.joint} ${m.speed} ${m.maxTorque}`)).toEqual(['knee-motor hinge knee 2 20']);
  });

  it('puts each joint\'s anchors on the pivot in both parts\' frames, as a scene that includes it builds them', async () => {
    const state = arm();
    const lib = editorLibrary(state) as { robots: { arm: { joints: { anchorA: number[]; anchorB: number[] }[] } } };
    expect(lib.robots.arm.joints[0]).toMatchObject({ anchorA: [0.25, 0.03, 0], anchorB: [0.25 - 0.36, 0.06 - 0.1, 0], axisA: [0, 0, 1], axisB: [0, 0, 1] });
    const dir = writeFiles({ 'cube.obj': CUBE_OBJ, 'arm.library.json': editorLibraryText(state), 'try.scene.json': tryScene(state, 'arm.library.json', 0.5) });
    const { scene } = await loadSceneFileWithSources(join(dir, 'try.scene.json'));
    const pos = new Map(scene.bodies.map((b) => [b.name, b.position]));
    for (const j of scene.joints) {
      const a = pos.get(j.bodyA)!;
      const b = pos.get(j.bodyB)!;
      for (let k = 0; k < 3; k++) expect(a[k]! + j.anchorA[k]!).toBeCloseTo(b[k]! + j.anchorB[k]!, 12);
    }
    expect(scene.bodies.map((b) => b.name)).toEqual(['floor', 'arm/base', 'arm/cube', 'arm/ball']);
    expect(scene.bodies[1]!.position).toEqual([0, 0.53, 0]);
    expect(scene.motors.map((m) => m.name)).toEqual(['arm/knee-motor']);
  });

  it('refuses what check refuses, naming the JSON path', async () => {
    const unjoined = arm();
    unjoined.joints.pop();
    await expect(checkEditorLibrary(unjoined, 'arm.library.json')).rejects.toThrow('arm.library.json: robots.arm.parts[2]: part "ball" is not joined to "base"');
    const gone = arm();
    gone.joints[0]!.bodyB = 'cub';
    await expect(checkEditorLibrary(gone, 'arm.library.json')).rejects.toThrow('arm.library.json: robots.arm.joints[0].bodyB: "cub" is not a part of robot "arm" (did you mean "cube"?)');
    const light = arm();
    light.bodies[0]!.massValue = -1;
    await expect(checkEditorLibrary(light, 'arm.library.json')).rejects.toThrow('arm.library.json: bodies.arm_base.density: expected a positive number (> 0), got -1');
    const open = arm();
    open.bodies[1]!.shape = { type: 'mesh', file: 'cube.obj', text: 'v 0 0 0\nv 1 0 0\nf 1 2 1\n' };
    await expect(checkEditorLibrary(open, 'arm.library.json')).rejects.toThrow(/arm\.library\.json: shapes\.arm_cube/);
    await expect(checkEditorLibrary({ robot: 'r', description: '', bodies: [], joints: [] }, 'r.json')).rejects.toThrow('r.json: robots: the robot has no bodies yet: add one');
  });
});
