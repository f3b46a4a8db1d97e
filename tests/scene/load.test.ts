import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { createWorld, loadScene } from '../../src/index.ts';
import { loadSceneFile } from '../../src/scene/load.ts';
import { validateScene } from '../../src/scene/validate.ts';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stackfield-scene-'));
  await mkdir(join(dir, 'scenes', 'models'), { recursive: true });
  await writeFile(join(dir, 'scenes', 'models', 'bunny.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n');
  await writeFile(join(dir, 'shared.obj'), 'v 0 0 0\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function meshScene(path: string): string {
  return JSON.stringify({
    format: 'stackfield-scene/1',
    shapes: { bunny: { type: 'mesh', path, scale: 2 } },
    bodies: [{ shape: 'bunny' }],
  });
}

async function loadError(path: string): Promise<InputError> {
  try {
    await loadSceneFile(path);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

describe('loadSceneFile', () => {
  test('a file holding only null, or any other non-object, is an InputError at the top level, not a TypeError', async () => {
    for (const [name, text, got] of [['null.json', 'null', 'null'], ['num.json', '42', '42'], ['arr.json', '[]', 'an empty array'], ['str.json', '"hi"', '"hi"']] as const) {
      await writeFile(join(dir, name), `${text}\n`);
      const e = await loadError(join(dir, name));
      expect(e.message).toBe(`${join(dir, name)}: expected a JSON object at the top level ({"format": "stackfield-scene/1", ...}), got ${got}`);
    }
  });

  test('an included library holding only null is an InputError naming that file and the entry that included it', async () => {
    await writeFile(join(dir, 'null-lib.json'), 'null\n');
    await writeFile(join(dir, 'inc-null.json'), JSON.stringify({ format: 'stackfield-scene/1', include: ['null-lib.json'], bodies: [] }));
    const e = await loadError(join(dir, 'inc-null.json'));
    expect(e.message).toBe(`${join(dir, 'null-lib.json')}: expected a JSON object at the top level ({"format": "stackfield-library/1", ...}), got null (the file is include[0] of ${join(dir, 'inc-null.json')})`);
  });

  test('resolves mesh paths relative to the scene file, not the working directory', async () => {
    const file = join(dir, 'scenes', 'a.json');
    await writeFile(file, meshScene('models/bunny.obj'));
    const scene = await loadSceneFile(file);
    const bunny = scene.shapes['bunny'];
    expect(bunny).toMatchObject({ type: 'mesh', path: 'models/bunny.obj', scale: 2, resolvedPath: join(dir, 'scenes', 'models', 'bunny.obj') });
    expect(scene.file).toBe(file);
  });

  test('resolves ".." and absolute mesh paths', async () => {
    const up = join(dir, 'scenes', 'up.json');
    await writeFile(up, meshScene('../shared.obj'));
    expect((await loadSceneFile(up)).shapes['bunny']).toMatchObject({ resolvedPath: join(dir, 'shared.obj') });
    const abs = join(dir, 'scenes', 'abs.json');
    await writeFile(abs, meshScene(join(dir, 'shared.obj')));
    expect((await loadSceneFile(abs)).shapes['bunny']).toMatchObject({ resolvedPath: join(dir, 'shared.obj') });
  });

  test('a missing mesh file is reported at shapes.<name>.path with the path it looked for', async () => {
    const file = join(dir, 'scenes', 'missing-mesh.json');
    await writeFile(file, meshScene('models/dragon.obj'));
    const e = await loadError(file);
    expect(e.file).toBe(file);
    expect(e.where).toBe('shapes.bunny.path');
    expect(e.message).toContain('mesh file not found: "models/dragon.obj"');
    expect(e.message).toContain(join(dir, 'scenes', 'models', 'dragon.obj'));
  });

  test('a mesh path naming a directory is reported like a missing file', async () => {
    const file = join(dir, 'scenes', 'dir-mesh.json');
    await writeFile(file, meshScene('models'));
    expect((await loadError(file)).where).toBe('shapes.bunny.path');
  });

  test('a missing scene file is an InputError naming it', async () => {
    const file = join(dir, 'nope.json');
    const e = await loadError(file);
    expect(e.file).toBe(file);
    expect(e.message).toBe(`${file}: scene file not found`);
  });

  test('a directory given as the scene file is an InputError', async () => {
    const e = await loadError(join(dir, 'scenes'));
    expect(e.message).toContain('is a directory, not a scene file');
  });

  test('invalid JSON in a file reports the file name, line and column', async () => {
    const file = join(dir, 'scenes', 'broken.json');
    await writeFile(file, '{\n  "format": "stackfield-scene/1"\n  "bodies": []\n}\n');
    const e = await loadError(file);
    expect(e.message).toBe(`${file}: line 3, column 3: invalid JSON: expected "," or "}" after a property value, found a string (missing ","?)`);
  });

  test('schema errors from a file name the file and the JSON path', async () => {
    const file = join(dir, 'scenes', 'typo.json');
    await writeFile(file, JSON.stringify({ format: 'stackfield-scene/1', shapes: { b: { type: 'box' } }, bodies: [{ shape: 'b', frction: 1 }] }));
    const e = await loadError(file);
    expect(e.message).toBe(`${file}: bodies[0].frction: unknown key (did you mean "friction"?)`);
  });
});

describe('loadScene', () => {
  const inCode = (path: string): object => JSON.parse(meshScene(path)) as object;

  async function refusal(p: Promise<unknown>): Promise<InputError> {
    try {
      await p;
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return e as InputError;
    }
    throw new Error('expected an InputError, nothing was thrown');
  }

  test('a scene object whose mesh file is missing is refused by loadScene, naming the shape and the path looked for', async () => {
    const gone = join(dir, 'scenes', 'models', 'gone.obj');
    const e = await refusal(loadScene(inCode(gone)));
    expect(e.message).toBe(`<scene>: shapes.bunny.path: mesh file not found: "${gone}"`);
    // A relative path resolves against the working directory, and the message says so.
    const rel = await refusal(loadScene(inCode('no/such/mesh.obj')));
    expect(rel.where).toBe('shapes.bunny.path');
    expect(rel.message).toBe(
      `<scene>: shapes.bunny.path: mesh file not found: "no/such/mesh.obj" (looked for "${join(process.cwd(), 'no/such/mesh.obj')}"; paths are relative to the working directory)`,
    );
    // A directory is no mesh file either.
    expect((await refusal(loadScene(inCode(join(dir, 'scenes'))))).message).toContain('is a directory, not a mesh file');
  });

  test('a scene object whose mesh files exist loads, with the resolved paths', async () => {
    const scene = await loadScene(inCode(join(dir, 'scenes', 'models', 'bunny.obj')));
    expect(scene.shapes['bunny']).toMatchObject({ resolvedPath: join(dir, 'scenes', 'models', 'bunny.obj') });
  });

  test('scene JSON given as text loads as the object would, and its mistakes name the line and column', async () => {
    const mesh = join(dir, 'scenes', 'models', 'bunny.obj');
    const text = `  ${meshScene(mesh)}`;
    expect(await loadScene(text)).toEqual(await loadScene(inCode(mesh)));
    const e = await refusal(loadScene('{"format": "stackfield-scene/1",\n  "bodies": [}'));
    expect(e.message).toMatch(/^<scene>: line 2, column 14: invalid JSON: expected a value/);
    // Not taken for a path: the text's own mistakes, not "scene file not found".
    const gone = await refusal(loadScene(meshScene(join(dir, 'scenes', 'models', 'gone.obj'))));
    expect(gone.message).toContain('shapes.bunny.path: mesh file not found');
  });

  test('a scene file whose mesh file is missing is refused by loadScene, naming the scene file', async () => {
    const file = join(dir, 'scenes', 'missing-mesh-api.json');
    await writeFile(file, meshScene('models/dragon.obj'));
    const e = await refusal(loadScene(file));
    expect(e.message).toBe(
      `${file}: shapes.bunny.path: mesh file not found: "models/dragon.obj" (looked for "${join(dir, 'scenes', 'models', 'dragon.obj')}"; paths are relative to the scene file)`,
    );
  });

  test('createWorld given a scene whose mesh file went missing names the path once', async () => {
    const gone = join(dir, 'scenes', 'models', 'gone.obj');
    const scene = validateScene(inCode(gone), '<scene>', dir); // not through loadScene, which would refuse it
    const e = await refusal(createWorld(scene, { warn: () => {} }));
    expect(e.message).toBe(`<scene>: shapes.bunny.path: "${gone}": mesh file not found`);
  });
});
