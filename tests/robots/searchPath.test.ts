/**
 * Robots by name (docs/LIBRARY_FORMAT.md, "Robots by name"): a scene names a
 * robot or body template its includes do not define, and it is found on the
 * library search path: the `*.library.json` files beside the scene, then the
 * libraries the package ships in examples/.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { LIBRARY, writeFiles } from './helpers.ts';
import { librarySearchPath, loadSceneFileWithSources } from '../../src/scene/load.ts';
import { checkFile } from '../../src/cli/check.ts';

const SCENE = 'stackfield-scene/1';
const LIB = 'stackfield-library/1';
const ground = { shapes: { ground: { type: 'plane' } }, bodies: [{ name: 'ground', shape: 'ground', static: true }] };
const pose = { position: [0, 0.05, 0] };

describe('robots by name', () => {
  it('finds a robot the package ships in examples/ and builds the same scene as an explicit include', async () => {
    const dir = writeFiles({
      'bare.scene.json': { format: SCENE, ...ground, robots: [{ name: 'c', robot: 'caterpillar', ...pose }] },
      'explicit.scene.json': { format: SCENE, include: [LIBRARY], ...ground, robots: [{ name: 'c', robot: 'caterpillar', ...pose }] },
    });
    const bare = await loadSceneFileWithSources(join(dir, 'bare.scene.json'));
    const explicit = await loadSceneFileWithSources(join(dir, 'explicit.scene.json'));
    expect(bare.files.map((f) => f.file)).toEqual([join(dir, 'bare.scene.json'), LIBRARY]);
    expect(bare.files[1]!.foundFor).toBe('robot "caterpillar"');
    expect(bare.flat).toEqual(explicit.flat);
    expect(bare.scene.bodies.map((b) => b.name)).toEqual(['ground', 'c/h0', 'c/h1', 'c/h2']);
    expect(bare.scene.motors.map((m) => m.name)).toEqual(['c/drive']);
    expect(await checkFile(join(dir, 'bare.scene.json'), () => {})).toBe('scene, 4 bodies (1 robot), 2 joints, 1 motor, 2 shapes, 1 included file');
  });

  it('looks in the scene\'s includes, then beside the scene, then in examples/, and passes over a broken file it does not need', async () => {
    const plate = { type: 'box', size: [0.2, 0.05, 0.2] };
    const one = (shape: string) => ({ parts: [{ alias: 'only', shape }] });
    const dir = writeFiles({
      'a-broken.library.json': '{ not json',
      'local.library.json': { format: LIB, shapes: { localPlate: plate }, robots: { caterpillar: one('localPlate') } },
      'inc.json': { format: LIB, shapes: { incPlate: plate }, robots: { caterpillar: one('incPlate') } },
      'beside.scene.json': { format: SCENE, ...ground, robots: [{ name: 'c', robot: 'caterpillar' }] },
      'included.scene.json': { format: SCENE, include: ['inc.json'], ...ground, robots: [{ name: 'c', robot: 'caterpillar' }] },
      'both.scene.json': { format: SCENE, ...ground, robots: [{ name: 'c', robot: 'caterpillar' }, { name: 'w', robot: 'inchworm', position: [0, 0.05, 2] }] },
    });
    expect(await librarySearchPath(join(dir, 'beside.scene.json'))).toEqual([
      join(dir, 'a-broken.library.json'), join(dir, 'local.library.json'), LIBRARY,
    ]);
    const beside = await loadSceneFileWithSources(join(dir, 'beside.scene.json'));
    expect(beside.scene.bodies.map((b) => `${b.name} ${b.shape}`)).toEqual(['ground ground', 'c/only localPlate']);
    const included = await loadSceneFileWithSources(join(dir, 'included.scene.json'));
    expect(included.files.map((f) => f.file)).toEqual([join(dir, 'included.scene.json'), join(dir, 'inc.json')]);
    expect(included.scene.bodies.map((b) => b.shape)).toEqual(['ground', 'incPlate']);
    // The caterpillar beside the scene, the inchworm from examples/: whose library defines a caterpillar too, and names are one namespace.
    await expect(loadSceneFileWithSources(join(dir, 'both.scene.json'))).rejects.toThrow(
      `${LIBRARY}: robots.caterpillar: robot "caterpillar" is already defined in ${join(dir, 'local.library.json')} (robots.caterpillar); names must be unique across a scene and the files it includes (${LIBRARY} was found on the library search path for robot "inchworm"; ${join(dir, 'local.library.json')} was found on the library search path for robot "caterpillar")`,
    );
  });

  it('finds body templates too, and a name found nowhere is still an error at the scene\'s path', async () => {
    const dir = writeFiles({
      'ok.scene.json': { format: SCENE, ...ground, bodies: [...ground.bodies, { name: 'p', template: 'plate', position: [0, 1, 0] }] },
      'bad.scene.json': { format: SCENE, ...ground, robots: [{ robot: 'catterpillar' }] },
    });
    const ok = await loadSceneFileWithSources(join(dir, 'ok.scene.json'));
    expect(ok.files[1]!.foundFor).toBe('body template "plate"');
    // The template's plastic: 500 kg/m^3.
    expect(ok.scene.bodies[1]!.density).toBe(500);
    await expect(loadSceneFileWithSources(join(dir, 'bad.scene.json'))).rejects.toThrow(`${join(dir, 'bad.scene.json')}: robots[0].robot: unknown robot "catterpillar"`);
  });
});
