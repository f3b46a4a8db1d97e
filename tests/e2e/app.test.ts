/**
 * End-to-end: the viewer and the benchmark page in headless Chromium (the
 * Debian package at /usr/bin/chromium, driven by playwright-core; no browser
 * is downloaded), served by Vite's dev server on 127.0.0.1 from inside the
 * test. WebGPU runs on SwiftShader, so timeouts are generous and scenes small.
 * One browser serves every test; screenshots go to test-output/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { listBuiltins } from '../../src/scene/builtins.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { decodePng, lumaVariance, meanAbsDiff, type Image } from './png.ts';
import { OUT, frames, openPage as openHarnessPage, startHarness, waitForApp, type Harness } from './harness.ts';

let h: Harness;
let base = '';

beforeAll(async () => {
  h = await startHarness();
  base = h.base;
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** A page that records console errors and uncaught exceptions. */
function openPage(viewport = { width: 1200, height: 720 }): Promise<{ page: Page; errors: string[] }> {
  return openHarnessPage(h.browser, viewport);
}

/** The scene area of the screen (between the stage chart and the panel, below the help line), as pixels. */
async function sceneShot(page: Page, name: string): Promise<Image> {
  const png = await page.screenshot({ clip: { x: 320, y: 36, width: 560, height: 640 } });
  writeFileSync(join(OUT, `e2e-${name}.png`), png);
  return decodePng(png);
}

/** A tweakpane row by its label. */
function row(page: Page, label: string) {
  return page.locator('.tp-lblv').filter({ has: page.locator('.tp-lblv_l', { hasText: new RegExp(`^${label}$`) }) });
}

/** Clicks a tweakpane checkbox (its visible box; the input itself is hidden) and waits until it is `on`. */
async function setCheckbox(page: Page, label: string, on: boolean): Promise<void> {
  const r = row(page, label);
  const input = r.locator('input[type=checkbox]');
  if ((await input.isChecked()) !== on) await r.locator('.tp-ckbv_w').click();
  expect(await input.isChecked()).toBe(on);
}

describe('viewer (index.html)', () => {
  let page: Page;
  let errors: string[];
  let first: Image;

  beforeAll(async () => {
    ({ page, errors } = await openPage());
  }, 30_000);

  afterAll(async () => {
    await page?.close();
  });

  it('loads a built-in scene with WebGPU and no console errors, and draws a non-blank picture', async () => {
    await page.goto(`${base}/?scene=tower&height=6&backend=gpu`);
    await waitForApp(page);
    await frames(page);
    const ds = await page.evaluate(() => ({ ...document.body.dataset }));
    expect(ds['renderer']).toBe('webgpu');
    expect(ds['scene']).toBe('tower');
    expect(await page.locator('#error').isHidden()).toBe(true);
    first = await sceneShot(page, 'viewer-tower');
    // A blank or single-colour canvas has a luminance variance near 0; the scene has ground, boxes and shadows.
    expect(lumaVariance(first)).toBeGreaterThan(40);
    expect(errors).toEqual([]);
  }, 120_000);

  it('plays on the GPU backend and keeps playing after a switch to the CPU backend', async () => {
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 3, null, { timeout: 60_000 });
    await row(page, 'backend').locator('select').selectOption({ label: 'CPU' });
    await page.waitForFunction(() => document.body.dataset['backend'] === 'cpu', null, { timeout: 30_000 });
    const at = Number(await page.evaluate(() => document.body.dataset['steps']));
    await page.waitForFunction((n) => Number(document.body.dataset['steps']) >= n + 3, at, { timeout: 60_000 });
    await page.getByRole('button', { name: 'Pause' }).click();
    expect(new URL(page.url()).searchParams.get('backend')).toBe('cpu');
    expect(errors).toEqual([]);
  }, 120_000);

  it('switching on the depth-field view changes the picture and the URL', async () => {
    const before = await sceneShot(page, 'viewer-before-depth');
    await setCheckbox(page, 'depth field', true);
    await frames(page);
    const after = await sceneShot(page, 'viewer-depth-field');
    expect(meanAbsDiff(before, after)).toBeGreaterThan(0.5);
    expect(new URL(page.url()).searchParams.get('views')).toBe('depthField');
    await setCheckbox(page, 'depth field', false);
    expect(errors).toEqual([]);
  }, 60_000);

  it('switching to another built-in scene changes the picture and the URL', async () => {
    const before = await sceneShot(page, 'viewer-before-switch');
    const title = listBuiltins().find((b) => b.name === 'rings')!.title;
    await row(page, 'scene').locator('select').selectOption({ label: title });
    await page.waitForFunction(() => document.body.dataset['scene'] === 'rings', null, { timeout: 90_000 });
    await frames(page);
    const after = await sceneShot(page, 'viewer-rings');
    expect(meanAbsDiff(before, after)).toBeGreaterThan(2);
    expect(lumaVariance(after)).toBeGreaterThan(40);
    const url = new URL(page.url());
    expect(url.searchParams.get('scene')).toBe('rings');
    expect(Number(url.searchParams.get('rings'))).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 120_000);

  it('a scene file with an error shows the same validation message as the command line', async () => {
    const text = JSON.stringify({
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [1, 1, 1] } },
      bodies: [
        { name: 'ground', shape: 'floor', static: true },
        { name: 'b', shape: 'box', position: [0, 1, 0], frction: 0.5 },
      ],
    });
    let cli = '';
    try {
      parseSceneText(text, 'broken.json');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      cli = (e as InputError).message;
    }
    expect(cli).toContain('frction');
    await page.setInputFiles('#file-input', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.locator('#error').waitFor({ state: 'visible', timeout: 30_000 });
    const shown = await page.locator('#error-text').textContent();
    expect(shown).toBe(cli);
    await page.screenshot({ path: join(OUT, 'e2e-viewer-file-error.png') });
    // The scene that was running stays.
    expect(await page.evaluate(() => document.body.dataset['scene'])).toBe('rings');
    await page.locator('#error-close').click();
  }, 60_000);

  it('records the canvas to a WebM file that can then be downloaded', async () => {
    await page.getByText('Record', { exact: true }).click();
    const download = page.getByRole('button', { name: 'Download .webm' });
    expect(await download.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Start recording' }).click();
    expect(await page.locator('#rec-dot').isVisible()).toBe(true);
    await frames(page, 6);
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await page.waitForFunction(() => document.getElementById('rec-dot')!.hidden, null, { timeout: 10_000 });
    expect(await download.isEnabled()).toBe(true);
    const file = page.waitForEvent('download');
    await download.click();
    const d = await file;
    expect(d.suggestedFilename()).toMatch(/^rings-.*\.webm$/);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('scene files dropped on the page', () => {
  it('a scene and the mesh it names, dropped together, load with the mesh matched by file name', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      // A closed, outward tetrahedron (CCW seen from outside).
      const obj = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 0 0 1', 'f 1 3 2', 'f 1 2 4', 'f 1 4 3', 'f 2 3 4', ''].join('\n');
      const scene = JSON.stringify({
        format: 'stackfield-scene/1',
        shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, tet: { type: 'mesh', path: 'meshes/tet.obj', sdf: { cells: 12 } } },
        bodies: [
          { name: 'ground', shape: 'floor', static: true },
          { name: 'a', shape: 'tet', position: [0, 0.5, 0] },
          { name: 'b', shape: 'tet', position: [1.5, 0.5, 0] },
        ],
      });
      const dt = await page.evaluateHandle(
        ([sceneText, objText]) => {
          const d = new DataTransfer();
          d.items.add(new File([sceneText], 'dropped.json', { type: 'application/json' }));
          d.items.add(new File([objText], 'tet.obj', { type: 'text/plain' }));
          return d;
        },
        [scene, obj] as const,
      );
      await page.dispatchEvent('#view', 'drop', { dataTransfer: dt });
      await page.waitForFunction(() => document.body.dataset['scene'] === 'file:dropped.json', null, { timeout: 60_000 });
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(new URL(page.url()).searchParams.get('file')).toBe('dropped.json');
      expect(await page.locator('#status').textContent()).toContain('3 bodies');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('without WebGPU', () => {
  it('says so plainly and still simulates on the CPU with the 2D wireframe', async () => {
    const { page, errors } = await openPage();
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
    });
    try {
      await page.goto(`${base}/?scene=tower&height=4&backend=gpu`);
      await waitForApp(page);
      const notice = await page.locator('.notice-gpu').textContent();
      expect(notice).toMatch(/WebGPU is not available/);
      expect(notice).toMatch(/Chrome/);
      expect(notice).toMatch(/CPU backend/);
      expect(notice).not.toMatch(/--backend/); // the CLI's advice does not apply in the page
      const ds = await page.evaluate(() => ({ ...document.body.dataset }));
      expect(ds['renderer']).toBe('canvas2d');
      expect(ds['backend']).toBe('cpu');
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 3, null, { timeout: 60_000 });
      await frames(page);
      const img = await sceneShot(page, 'fallback-2d');
      expect(lumaVariance(img)).toBeGreaterThan(20);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});

describe('when the WebGPU device is lost', () => {
  it('says so and goes on with the CPU backend and the 2D wireframe', async () => {
    const { page, errors } = await openPage();
    // Keep a handle on the page's device so the test can destroy it, as a driver reset would.
    await page.addInitScript(() => {
      const request = GPUAdapter.prototype.requestDevice;
      GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, d?: GPUDeviceDescriptor) {
        const dev = await request.call(this, d);
        (window as unknown as { __device: GPUDevice }).__device = dev;
        return dev;
      };
    });
    try {
      await page.goto(`${base}/?scene=tower&height=3&backend=gpu`);
      await waitForApp(page);
      expect(await page.evaluate(() => document.body.dataset['renderer'])).toBe('webgpu');
      await page.evaluate(() => (window as unknown as { __device: GPUDevice }).__device.destroy());
      await page.waitForFunction(() => document.body.dataset['renderer'] === 'canvas2d', null, { timeout: 30_000 });
      const notice = await page.locator('.notice-gpu').textContent();
      expect(notice).toMatch(/device lost/);
      expect(notice).toMatch(/CPU backend/);
      expect(await page.evaluate(() => document.body.dataset['backend'])).toBe('cpu');
      await page.getByRole('button', { name: 'Step' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 1, null, { timeout: 30_000 });
      await frames(page);
      expect(lumaVariance(await sceneShot(page, 'device-lost-2d'))).toBeGreaterThan(20);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('benchmark page (bench.html)', () => {
  it('runs with small parameters on both backends and publishes the results', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/bench.html?scene=rings&bodies=3&steps=4&warmup=1&backends=cpu,gpu`);
      await page.waitForFunction(() => document.body.dataset['benchDone'] === '1' || !!document.body.dataset['benchError'], null, {
        timeout: 120_000,
      });
      expect(await page.evaluate(() => document.body.dataset['benchError'] ?? null)).toBeNull();
      const r = await page.evaluate(() => window.__benchResults!);
      expect(r.scene).toBe('rings');
      expect(r.params).toEqual({ rings: 3 });
      expect(r.results.map((x) => x.backend)).toEqual(['cpu', 'gpu']);
      for (const x of r.results) {
        expect(x.stepMs.median).toBeGreaterThan(0);
        expect(x.stepMs.p95).toBeGreaterThanOrEqual(x.stepMs.median);
        expect(x.sdfBakeMs.median).toBeGreaterThan(0);
        // Queries per second is 0 when no sample was queried in the measured
        // steps (cached pairs, or rings still in the air); never negative or NaN.
        expect(x.queriesPerSecond).toBeGreaterThanOrEqual(0);
      }
      // The table shows the same medians the JSON holds.
      const table = await page.locator('#bench-table').textContent();
      expect(table).toContain('whole step');
      expect(table).toContain('queries per second');
      await page.screenshot({ path: join(OUT, 'e2e-bench.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 150_000);
});
