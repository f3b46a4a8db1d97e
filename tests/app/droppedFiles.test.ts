/**
 * Scene files opened in the app (src/app/platform.ts, droppedFilesReader):
 * a file the scene needs but the user did not open is named with what to do
 * in the browser, not the command line's rule for paths.
 */
import { describe, expect, it } from 'vitest';
import { droppedFilesReader } from '../../src/app/platform.ts';
import { loadSceneText } from '../../src/scene/load.ts';
import { InputError } from '../../src/errors.ts';

describe('files opened in the app', () => {
  it('asks for an included library that was not opened with the scene', async () => {
    const scene = { format: 'stackfield-scene/1', include: ['libs/robots.library.json'], bodies: [{ shape: 'floor', static: true }], shapes: { floor: { type: 'plane' } } };
    const reader = droppedFilesReader([], 'cart.scene.json');
    const err = await loadSceneText(JSON.stringify(scene), 'cart.scene.json', { readText: (p) => reader.readText(p) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    const text = (err as Error).message;
    expect(text).toContain('include[0]: included file not found: "libs/robots.library.json" (open or drop it together with cart.scene.json, or open it first)');
    expect(text).not.toContain('relative to the including file');
  });

  it('reads a file that was opened, by its name', async () => {
    const lib = new File([JSON.stringify({ format: 'stackfield-library/1', shapes: { floor: { type: 'plane' } } })], 'robots.library.json');
    const scene = { format: 'stackfield-scene/1', include: ['libs/robots.library.json'], bodies: [{ shape: 'floor', static: true }] };
    const reader = droppedFilesReader([lib], 'cart.scene.json');
    const loaded = await loadSceneText(JSON.stringify(scene), 'cart.scene.json', { readText: (p) => reader.readText(p) });
    expect(Object.keys(loaded.scene.shapes)).toEqual(['floor']);
  });
});
