/**
 * End-to-end: the viewer and the benchmark page in headless Chromium (the
 * Debian package at /usr/bin/chromium, driven by playwright-core; no browser
 * is downloaded), served by Vite's dev server on 127.0.0.1 from inside the
 * test. WebGPU runs on SwiftShader, so timeouts are generous and scenes small.
 * One browser serves every test; screenshots go to test-output/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { listBuiltins } from '../../src/scene/builtins.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { createWorld } from '../../src/scene/build.ts';
import { createBackend } from '../../src/backends.ts';
import type { Simulation } from '../../src/app/simulation.ts';
import { describeScene } from '../../src/app/panel.ts';
import type { Viewport } from '../../src/app/camera.ts';
import { readFile } from 'node:fs/promises';
import { decodePng, lumaVariance, meanAbsDiff, type Image } from './png.ts';
import { builtinWorld } from '../dynamics/helpers.ts';
import { STAGES, stageOrder } from '../../src/dynamics/profile.ts';
import { CHROMIUM, CHROMIUM_ARGS, OUT, cameraSettled, frames, openPage as openHarnessPage, row, setCheckbox, useHarness, waitForApp, type Harness } from './harness.ts';

let h: Harness;
let base = '';

useHarness((x) => {
  h = x;
  base = x.base;
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

/** Drops files (name and bytes) on the view, as a user dragging them from a file manager. */
async function dropFiles(page: Page, files: readonly (readonly [string, number[]])[]): Promise<void> {
  const dt = await page.evaluateHandle((list) => {
    const d = new DataTransfer();
    for (const [n, b] of list) d.items.add(new File([new Uint8Array(b)], n));
    return d;
  }, files);
  await page.dispatchEvent('#view', 'drop', { dataTransfer: dt });
}

/** What main.ts puts on window for the console and these tests. */
interface AppHandle {
  sim: Simulation;
  viewport(): Viewport;
  bodyOnScreen(i: number): { x: number; y: number; front: boolean };
}
declare global {
  interface Window {
    stackfield: AppHandle;
  }
}

/** Steps (as the N key does) until the world has made `n` steps. */
async function stepTo(page: Page, n: number): Promise<void> {
  await page.evaluate(async (m) => {
    const sim = window.stackfield.sim;
    while (sim.world!.stepCount < m) await sim.step();
  }, n);
  await page.waitForFunction((m) => Number(document.body.dataset['steps']) === m, n, { timeout: 10_000 });
}

/** The world's body state, as plain arrays (to compare bit for bit). */
function worldState(page: Page): Promise<{ time: number; stepCount: number; pos: number[]; quat: number[]; vel: number[]; angVel: number[]; asleep: number[] }> {
  return page.evaluate(() => {
    const s = window.stackfield.sim.world!.saveState();
    return { time: s.time, stepCount: s.stepCount, pos: [...s.pos], quat: [...s.quat], vel: [...s.vel], angVel: [...s.angVel], asleep: [...s.asleep] };
  });
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
    // The picker says what the scene is for, and each parameter what it does (tooltips).
    const tower = listBuiltins().find((b) => b.name === 'tower')!;
    expect((await page.locator('.scene-description').textContent()) ?? '').toBe(describeScene(tower));
    const height = tower.params.find((p) => p.name === 'height')!;
    expect(await row(page, 'height').getAttribute('title')).toBe(`${height.description} (${height.min} … ${height.max}, default ${height.default})`);
    first = await sceneShot(page, 'viewer-tower');
    // A blank or single-colour canvas has a luminance variance near 0; the scene has ground, boxes and shadows.
    expect(lumaVariance(first)).toBeGreaterThan(40);
    expect(errors).toEqual([]);
  }, 120_000);

  it('plays on the GPU backend and keeps playing after a switch to the CPU backend', async () => {
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 3, null, { timeout: 60_000 });
    await row(page, 'queries').locator('select').selectOption({ label: 'CPU' });
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
    // The chosen body is named (over it and in the panel), and framed: drawn in the middle of the free view.
    await page.locator('#body-label').waitFor({ state: 'visible', timeout: 5_000 });
    const name = (await page.locator('#body-label').textContent())!.split(' ')[0]!;
    expect(name).toMatch(/^box\d+$/);
    expect(await page.locator('.slice-note').textContent()).toContain(name);
    const framed = await page.evaluate((n) => {
      const i = window.stackfield.sim.world!.bodies.names.indexOf(n);
      return { at: window.stackfield.bodyOnScreen(i), v: window.stackfield.viewport(), distance: (window.stackfield as unknown as { camera: { distance: number } }).camera.distance };
    }, name);
    const midX = (framed.v.insets.left + framed.v.width - framed.v.insets.right) / 2;
    expect(Math.abs(framed.at.x - midX)).toBeLessThan(0.1 * framed.v.width);
    // A box one metre across seen from a few metres: the grid is not a speck. It is framed beside
    // the depth field's inset, not under it (the inset hid half of it): its centre a box's
    // half-width (some 40 px here) and more to the left of the inset.
    expect(framed.distance).toBeLessThan(6);
    const inset = (await page.locator('#slice-inset').boundingBox())!;
    const canvas = (await page.locator('#view').boundingBox())!;
    expect(canvas.x + framed.at.x).toBeLessThan(inset.x - 40);
    // At 720 pixels the slice controls are on screen without scrolling the panel.
    const sliceAt = await row(page, 'slice at').boundingBox();
    expect(sliceAt!.y + sliceAt!.height).toBeLessThanOrEqual(720);
    await setCheckbox(page, 'depth field', false);
    // The graph levels come with their legend.
    expect(await page.locator('#levels-legend').isHidden()).toBe(true);
    await setCheckbox(page, 'graph levels', true);
    expect(await page.locator('#levels-legend').isVisible()).toBe(true);
    expect(await page.locator('#levels-legend').textContent()).toMatch(/contact-graph level.*static, or touching nothing/);
    await setCheckbox(page, 'graph levels', false);
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
    expect(await page.locator('#error-title').textContent()).toBe('Could not load broken.json');
    await page.screenshot({ path: join(OUT, 'e2e-viewer-file-error.png') });
    // The scene that was running stays.
    expect(await page.evaluate(() => document.body.dataset['scene'])).toBe('rings');
    // Its dismiss button is on top (the numbers overlay and the panel, later in the page,
    // covered it at 1280 x 800 and on narrow windows) at every window size.
    for (const size of [{ width: 1280, height: 800 }, { width: 800, height: 600 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(size);
      const onTop = await page.evaluate(() => {
        const r = document.getElementById('error-close')!.getBoundingClientRect();
        return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)?.id;
      });
      expect(onTop, `${size.width} x ${size.height}`).toBe('error-close');
    }
    await page.setViewportSize({ width: 1200, height: 720 });
    await page.locator('#error-close').click();
    expect(await page.locator('#error').isHidden()).toBe(true);
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

describe('the first hour: defaults, numbers, time and state', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    ({ page, errors } = await openPage());
  }, 30_000);

  afterAll(async () => {
    await page?.close();
  });

  it('on a software adapter the queries default to the CPU backend, and the app says why', async () => {
    await page.goto(`${base}/?scene=tower&height=3`);
    await waitForApp(page);
    const ds = await page.evaluate(() => ({ ...document.body.dataset }));
    expect(ds['software']).toBe('1');
    expect(ds['renderer']).toBe('webgpu');
    expect(ds['backend']).toBe('cpu');
    expect(new URL(page.url()).searchParams.get('backend')).toBe('cpu');
    expect(await page.locator('.notice').first().textContent()).toMatch(/draws in software.*CPU backend.*Choose GPU/);
    expect(await page.locator('.backend-note').textContent()).toMatch(/software adapter.*CPU is faster here/);
    // The user can still choose the GPU: the choice is enabled, and once taken the notice's advice is done.
    expect(await row(page, 'queries').locator('select').isEnabled()).toBe(true);
    await row(page, 'queries').locator('select').selectOption({ label: 'GPU' });
    await page.waitForFunction(() => document.body.dataset['backend'] === 'gpu', null, { timeout: 30_000 });
    expect(await page.locator('#notices').textContent()).not.toMatch(/Choose GPU/);
    expect(errors).toEqual([]);
  }, 60_000);

  it('a framed scene lies clear of the stage chart and the numbers in the corners (the dominoes\' ring started half under the chart)', async () => {
    await page.goto(`${base}/?scene=dominoes&backend=cpu`);
    await waitForApp(page);
    await cameraSettled(page);
    const got = await page.evaluate(() => {
      const w = window.stackfield.sim.world!;
      const pts = [];
      for (let i = 0; i < w.bodies.count; i++) pts.push(window.stackfield.bodyOnScreen(i));
      const box = (id: string) => document.getElementById(id)!.getBoundingClientRect().toJSON() as DOMRect;
      return { pts, hud: box('hud'), side: box('side'), view: document.getElementById('view')!.getBoundingClientRect().toJSON() as DOMRect };
    });
    const inside = (p: { x: number; y: number }, r: DOMRect) => p.x + got.view.left > r.left && p.x + got.view.left < r.right && p.y + got.view.top > r.top && p.y + got.view.top < r.bottom;
    expect(got.pts.length).toBeGreaterThan(20);
    for (const p of got.pts) {
      expect(inside(p, got.hud), JSON.stringify(p)).toBe(false);
      expect(inside(p, got.side), JSON.stringify(p)).toBe(false);
    }
    expect(errors).toEqual([]);
  }, 60_000);

  it('the keyboard shortcuts still work after a click on a panel checkbox (the checkbox keeps the focus)', async () => {
    await page.goto(`${base}/?scene=tower&height=3&backend=cpu`);
    await waitForApp(page);
    await setCheckbox(page, 'wireframe', true);
    const playing = () => page.evaluate(() => window.stackfield.sim.playing);
    expect(await playing()).toBe(false);
    await page.keyboard.press(' ');
    expect(await playing()).toBe(true);
    // Space played the simulation, and did not toggle the focused checkbox.
    expect(await row(page, 'wireframe').locator('input[type=checkbox]').isChecked()).toBe(true);
    await page.keyboard.press(' ');
    expect(await playing()).toBe(false);
    await setCheckbox(page, 'wireframe', false);
    // And after a scrub left the focus on the timeline slider: space plays, the arrows stay the slider's.
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await page.focus('input[aria-label=timeline]');
    await page.keyboard.press(' ');
    expect(await playing()).toBe(true);
    await page.keyboard.press(' ');
    expect(await playing()).toBe(false);
    expect(errors).toEqual([]);
  }, 60_000);

  it('the numbers overlay shows the simulation\'s own numbers', async () => {
    await page.goto(`${base}/?scene=pile&count=5&backend=cpu`);
    await waitForApp(page);
    await stepTo(page, 60);
    await page.waitForFunction(() => document.getElementById('numbers')!.dataset['step'] === '60', null, { timeout: 10_000 });
    const got = await page.evaluate(() => {
      const cells = Object.fromEntries([...document.querySelectorAll<HTMLElement>('#numbers b')].map((b) => [b.dataset['key'], { value: Number(b.dataset['value']), text: b.textContent! }]));
      const w = window.stackfield.sim.world!;
      let awake = 0;
      let asleep = 0;
      for (let i = 0; i < w.bodies.count; i++) if (!w.bodies.isStatic[i]) (w.bodies.asleep[i] ? asleep++ : awake++);
      const own = { stepMs: w.profile.totalMs, awake, asleep, contacts: w.contacts.count, energy: w.kineticEnergy(), penetration: w.deepestPenetration() };
      return { cells, own };
    });
    for (const [k, v] of Object.entries(got.own)) expect(got.cells[k]!.value, k).toBe(v);
    // The pile is falling and touching: the numbers are not trivially zero.
    expect(got.own.energy).toBeGreaterThan(0);
    expect(got.own.contacts).toBeGreaterThan(0);
    expect(got.own.awake + got.own.asleep).toBe(5);
    // And the text says the same, to the three figures shown.
    expect(parseFloat(got.cells['energy']!.text)).toBeCloseTo(got.own.energy, Math.max(0, 2 - Math.floor(Math.log10(got.own.energy))));
    expect(got.cells['energy']!.text).toMatch(/ J$/);
    expect(parseFloat(got.cells['penetration']!.text) / 1000).toBeCloseTo(got.own.penetration, 5);
    expect(got.cells['contacts']!.text).toBe(String(got.own.contacts));
    await page.keyboard.press('o');
    expect(await page.locator('#numbers').isHidden()).toBe(true);
    await page.keyboard.press('o');
    expect(await page.locator('#numbers').isVisible()).toBe(true);
    // The stage chart's legend lists the stages this scene's scheme and
    // contact solver run (the pile names the accumulated stage), no others.
    const shown = await page.evaluate(() => {
      const w = window.stackfield.sim.world!;
      const stages = [...document.querySelectorAll<HTMLElement>('.stage-legend-item')].filter((e) => e.offsetParent !== null).map((e) => e.dataset['stage']);
      return { solver: [w.solver.scheme, w.solver.contactSolver], stages };
    });
    expect(shown.solver).toEqual(['separated', 'accumulated']);
    expect(shown.stages).toEqual(STAGES.filter((s) => stageOrder('separated', 'accumulated').includes(s)));
    expect(shown.stages).not.toContain('shockPropagation');
    expect(errors).toEqual([]);
  }, 90_000);

  it('the timeline steps back to a state identical to the one recorded, and stepping on replaces the future', async () => {
    // The pile where the previous test left it.
    const recorded = await worldState(page);
    const k = recorded.stepCount;
    expect(k).toBe(60);
    await stepTo(page, k + 10);
    const slider = page.getByRole('slider', { name: 'timeline' });
    await page.waitForFunction((m) => document.querySelector('[aria-label=timeline]')!.getAttribute('max') === String(m), k + 10, { timeout: 5_000 });
    await slider.evaluate((el: HTMLInputElement, m) => {
      el.value = String(m);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, k);
    await page.waitForFunction((m) => document.body.dataset['steps'] === String(m), k, { timeout: 10_000 });
    expect(await worldState(page)).toEqual(recorded);
    await page.waitForFunction((m) => /s back/.test(document.querySelector('.transport-counter')!.textContent!) && document.querySelector<HTMLElement>('.transport-counter')!.dataset['step'] === String(m), k, { timeout: 5_000 });
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await page.waitForFunction((m) => document.body.dataset['steps'] === String(m), k - 1, { timeout: 10_000 });
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.waitForFunction((m) => document.body.dataset['steps'] === String(m), k, { timeout: 10_000 });
    // The ten steps after it are gone: a new history starts here.
    await page.waitForFunction((m) => document.querySelector('[aria-label=timeline]')!.getAttribute('max') === String(m), k, { timeout: 5_000 });
    expect(errors).toEqual([]);
  }, 90_000);

  it('an exported state loads, in the command line\'s loader and back in the app, as the same state', async () => {
    const before = await worldState(page);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export state…' }).click();
    const d = await download;
    expect(d.suggestedFilename()).toBe(`pile-t${before.time.toFixed(2)}s.json`);
    const text = await readFile((await d.path())!, 'utf8');
    const back = await createWorld(parseSceneText(text, d.suggestedFilename()), (await createBackend('cpu')).query, {
      readText: (p) => readFile(p, 'utf8'),
      bake: (await createBackend('cpu')).bake,
    });
    const close = (a: number[], b: ArrayLike<number>) => a.every((x, i) => Math.abs(x - b[i]!) <= 1e-12);
    expect(close(before.pos, back.bodies.pos)).toBe(true);
    expect(close(before.quat, back.bodies.quat)).toBe(true);
    expect(close(before.vel, back.bodies.vel)).toBe(true);
    expect(close(before.angVel, back.bodies.angVel)).toBe(true);
    // Dropped on the page, the file gives the same state there too.
    const dt = await page.evaluateHandle((t) => {
      const x = new DataTransfer();
      x.items.add(new File([t], 'exported.json', { type: 'application/json' }));
      return x;
    }, text);
    await page.dispatchEvent('#view', 'drop', { dataTransfer: dt });
    await page.waitForFunction(() => document.body.dataset['scene'] === 'file:exported.json', null, { timeout: 60_000 });
    const loaded = await worldState(page);
    expect(loaded.stepCount).toBe(0);
    expect(close(before.pos, loaded.pos) && close(before.quat, loaded.quat) && close(before.vel, loaded.vel) && close(before.angVel, loaded.angVel)).toBe(true);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('following a body', () => {
  it('keeps the walking caterpillar on screen for 10 s of simulated time', async () => {
    // A smaller window: SwiftShader draws it faster, so the 10 s take less of the suite's time.
    const { page, errors } = await openPage({ width: 960, height: 600 });
    try {
      await page.goto(`${base}/?scene=caterpillar&backend=cpu`);
      await waitForApp(page);
      const i = await page.evaluate(() => window.stackfield.sim.world!.bodies.names.indexOf('plate1'));
      expect(i).toBeGreaterThan(0);
      // A scene with motors opens following its robot's first body, and says how to stop.
      expect(await page.evaluate(() => document.body.dataset['selected'])).toBe('plate0');
      expect(await page.locator('#follow-note').textContent()).toBe('following plate0 · G: stop following');
      // Choose another body by clicking where it is drawn: the camera follows it instead, at four times real time.
      await cameraSettled(page);
      const at = await page.evaluate((k) => window.stackfield.bodyOnScreen(k), i);
      await page.mouse.click(at.x, at.y);
      await page.waitForFunction(() => document.getElementById('body-label')!.textContent!.startsWith('plate1'), null, { timeout: 5_000 });
      expect(await page.locator('#body-label').textContent()).toContain('followed');
      await page.getByRole('combobox', { name: 'speed' }).selectOption('4');
      const start = await page.evaluate((k) => [...window.stackfield.sim.world!.bodies.pos.subarray(3 * k, 3 * k + 3)], i);
      // Where the body is drawn, every frame, until t = 10 s.
      const track = page.evaluate(
        (k) =>
          new Promise<{ x: number; y: number; front: boolean }[]>((resolve) => {
            const out: { x: number; y: number; front: boolean }[] = [];
            const tick = () => {
              out.push(window.stackfield.bodyOnScreen(k));
              if (window.stackfield.sim.world!.time >= 10) resolve(out);
              else requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
          }),
        i,
      );
      await page.getByRole('button', { name: 'Play' }).click();
      const drawn = await track;
      await page.getByRole('button', { name: 'Pause' }).click();
      const v = await page.evaluate(() => window.stackfield.viewport());
      const end = await page.evaluate((k) => [...window.stackfield.sim.world!.bodies.pos.subarray(3 * k, 3 * k + 3)], i);
      // It walked far enough to leave a fixed view of it (the issue: out of view in 5 s)...
      expect(Math.hypot(end[0]! - start[0]!, end[2]! - start[2]!)).toBeGreaterThan(1);
      expect(drawn.length).toBeGreaterThan(5);
      // ...and every frame drew it inside the part of the view the panel and bars leave free.
      for (const f of drawn) {
        expect(f.front).toBe(true);
        expect(f.x).toBeGreaterThan(v.insets.left);
        expect(f.x).toBeLessThan(v.width - v.insets.right);
        expect(f.y).toBeGreaterThan(v.insets.top);
        expect(f.y).toBeLessThan(v.height - v.insets.bottom);
      }
      await page.screenshot({ path: join(OUT, 'e2e-follow-caterpillar.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});

describe('the same scene in the browser and in Node', () => {
  // Chromium's Math.sin, cos, atan2, acos, expm1 differ from Node's in the last bit; the engine
  // uses util/detmath.ts instead, so a run on the CPU backend is the same everywhere. A pile of
  // tumbling boxes (orientations from scene angles, contacts, sleeping) and the caterpillar
  // (joints, a motor) amplify a last-bit difference to millimetres within these steps.
  for (const [scene, params, steps] of [
    ['boxes', { count: 27 }, 150],
    ['caterpillar', {}, 120],
  ] as const) {
    it(`${scene}: ${steps} steps in the app end in the state Node computes, bit for bit`, async () => {
      const { page, errors } = await openPage();
      try {
        const query = Object.entries(params).map(([k, v]) => `&${k}=${v}`).join('');
        await page.goto(`${base}/?scene=${scene}${query}&backend=cpu`);
        await waitForApp(page);
        await stepTo(page, steps);
        const app = await worldState(page);
        const w = await builtinWorld(scene, params);
        for (let i = 0; i < steps; i++) await w.step();
        const s = w.saveState();
        expect(app.stepCount).toBe(steps);
        expect(app.pos).toEqual([...s.pos]);
        expect(app.quat).toEqual([...s.quat]);
        expect(app.vel).toEqual([...s.vel]);
        expect(app.angVel).toEqual([...s.angVel]);
        expect(app.asleep).toEqual([...s.asleep]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
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
      // A reload brings the dropped scene back (the tab kept its files)...
      await page.reload();
      await waitForApp(page);
      expect(await page.evaluate(() => document.body.dataset['scene'])).toBe('file:dropped.json');
      expect(await page.locator('#status').textContent()).toContain('3 bodies');
      expect(await page.locator('#error').isHidden()).toBe(true);
      // ...while another tab, given only the link, says plainly that the file is not there.
      const other = await h.browser.newPage({ viewport: { width: 1200, height: 720 } });
      try {
        await other.goto(page.url());
        await waitForApp(other);
        expect(await other.locator('.notice').first().textContent()).toMatch(/"dropped.json".*cannot carry the file.*Open it again/);
        expect(await other.evaluate(() => document.body.dataset['scene'])).not.toBe('file:dropped.json');
      } finally {
        await other.close();
      }
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('a mesh dropped alone, or a scene file that is not UTF-8, is named as such and the scene shown goes on', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      const drop = async (name: string, bytes: number[]) => {
        await dropFiles(page, [[name, bytes]]);
        await page.locator('#error').waitFor({ state: 'visible', timeout: 30_000 });
        return page.locator('#error').textContent();
      };
      expect(await drop('tet.obj', [...Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')])).toContain('tet.obj: an .obj file is a mesh: open it together with a scene file (.json) whose shapes name it');
      const latin1 = [...Buffer.from('{"format": "stackfield-scene/1", "shapes": {"b": {"type": "box"}},\n "bodies": [{"name": "a'), 0xe9, ...Buffer.from('", "shape": "b"}]}')];
      expect(await drop('latin1.json', latin1)).toContain('latin1.json: line 2, column 24: the file is not UTF-8 text (byte 0xe9): save it as UTF-8');
      expect(await page.evaluate(() => document.body.dataset['scene'])).toBe('tower');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('a scene of 1 200 bodies lists the first 1 000 in the body list, which says so (a list of 50 000 held the page for 15 s)', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      const bodies = Array.from({ length: 1200 }, (_, i) => ({ name: `b${i}`, shape: 'box', position: [(i % 40) * 2, 1, Math.floor(i / 40) * 2] }));
      const text = JSON.stringify({ format: 'stackfield-scene/1', shapes: { box: { type: 'box', size: [1, 1, 1], sdf: { cells: 8 } } }, bodies });
      await dropFiles(page, [['many.json', [...Buffer.from(text)]]]);
      await page.waitForFunction(() => document.body.dataset['scene'] === 'file:many.json', null, { timeout: 60_000 });
      const list = row(page, 'body');
      expect(await list.locator('option').count()).toBe(1001);
      expect(await list.getAttribute('title')).toBe('The body the camera follows and the depth field shows: the first 1000 of 1200 are listed; click a body in the view to choose any');
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

/** Keeps a handle on the page's device (window.__device) so a test can destroy it, as a driver reset would. */
async function keepDevice(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const request = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, d?: GPUDeviceDescriptor) {
      const dev = await request.call(this, d);
      (window as unknown as { __device: GPUDevice }).__device = dev;
      return dev;
    };
  });
}

describe('when the WebGPU device is lost', () => {
  it('says so and goes on with the CPU backend and the 2D wireframe', async () => {
    const { page, errors } = await openPage();
    await keepDevice(page);
    try {
      await page.goto(`${base}/?scene=tower&height=3&backend=gpu`);
      await waitForApp(page);
      expect(await page.evaluate(() => document.body.dataset['renderer'])).toBe('webgpu');
      // Past the first second of drawing: a device lost within it reads as one this browser cannot draw with.
      await page.waitForTimeout(1500);
      await page.evaluate(() => (window as unknown as { __device: GPUDevice }).__device.destroy());
      await page.waitForFunction(() => document.body.dataset['renderer'] === 'canvas2d', null, { timeout: 30_000 });
      const notice = await page.locator('.notice-gpu').textContent();
      expect(notice).toMatch(/^The GPU stopped working \(WebGPU device lost\), so the app switched to the CPU backend.*The browser said "[^"]*" \(reason "[a-z]+"\)\.×?$/);
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

describe('when the WebGPU device is lost on a software adapter', () => {
  it('takes down the notice that drawing still uses WebGPU', async () => {
    const { page, errors } = await openPage();
    await keepDevice(page);
    try {
      await page.goto(`${base}/?scene=tower&height=3`);
      await waitForApp(page);
      expect(await page.locator('#notices').textContent()).toMatch(/drawing still uses WebGPU/);
      await page.waitForTimeout(1500);
      await page.evaluate(() => (window as unknown as { __device: GPUDevice }).__device.destroy());
      await page.waitForFunction(() => document.body.dataset['renderer'] === 'canvas2d', null, { timeout: 30_000 });
      const notices = (await page.locator('#notices').textContent()) ?? '';
      expect(notices).toMatch(/device lost/);
      expect(notices).not.toMatch(/drawing still uses WebGPU/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('when the WebGPU device is lost during the first load', () => {
  it('loads the scene again on the CPU backend with the 2D view, and the URL keeps the scene', async () => {
    // Without the Vulkan flags SwiftShader's device is lost when the first frame is presented,
    // while the scene's SDFs are still baking on the GPU.
    const plain = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS.filter((a) => !/vulkan/i.test(a)) });
    try {
      const page = await plain.newPage({ viewport: { width: 1200, height: 720 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
      await page.goto(`${base}/?scene=tower&height=3&backend=gpu`);
      await waitForApp(page);
      await page.waitForFunction(() => document.body.dataset['scene'] === 'tower', null, { timeout: 30_000 });
      const ds = await page.evaluate(() => ({ ...document.body.dataset }));
      expect(ds['renderer']).toBe('canvas2d');
      expect(ds['backend']).toBe('cpu');
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(await page.locator('#status').textContent()).toContain('4 bodies');
      const notice = await page.locator('.notice-gpu').textContent();
      expect(notice).toMatch(/^WebGPU could not draw in this browser \(its device was lost as drawing began\), so the app runs on the CPU backend with the 2D wireframe view\. The browser said/);
      // A reload would lose it again: the notice does not suggest one.
      expect(notice).not.toMatch(/reload/);
      expect(notice).not.toMatch(/\.\./);
      const url = new URL(page.url());
      expect(url.searchParams.get('scene')).toBe('tower');
      expect(url.searchParams.get('height')).toBe('3');
      expect(url.searchParams.get('backend')).toBe('cpu');
      // And it runs.
      await page.getByRole('button', { name: 'Step' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 1, null, { timeout: 30_000 });
      expect(errors).toEqual([]);
      // Started on the CPU queries (a software adapter's default), the scene loads at once and the
      // device is lost at the first frame drawn: the same calm notice, not "the GPU stopped working".
      const second = await plain.newPage({ viewport: { width: 1200, height: 720 } });
      await second.goto(`${base}/?scene=tower&height=3`);
      await waitForApp(second);
      await second.waitForFunction(() => document.body.dataset['renderer'] === 'canvas2d', null, { timeout: 30_000 });
      expect(await second.locator('.notice-gpu').textContent()).toMatch(/^WebGPU could not draw in this browser/);
      expect(await second.locator('#error').isHidden()).toBe(true);
    } finally {
      await plain.close();
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
      expect(await page.locator('#bench-chart-title').textContent()).toMatch(/^CPU vs GPU \(mean ms: the SDF bake once, the rest per step/);
      for (const x of r.results) {
        expect(x.stepMs.median).toBeGreaterThan(0);
        expect(x.stepMs.p95).toBeGreaterThanOrEqual(x.stepMs.median);
        expect(x.sdfBakeMs.median).toBeGreaterThan(0);
        // Samples sent per second is 0 when no sample was queried in the measured
        // steps (cached pairs, or rings still in the air); never negative or NaN.
        expect(x.samplesSentPerSecond).toBeGreaterThanOrEqual(0);
      }
      // Samples evaluated after the culls: the CPU counts them; the GPU does not, and says none
      // (tests/bench/samplesCounted.test.ts), rather than its samples dispatched.
      expect(r.results[0]!.queriesPerSecond).toBeGreaterThanOrEqual(0);
      expect(r.results[1]!.queriesPerSecond).toBeNull();
      // The table has mean, median and p95 per backend, and samples sent beside those evaluated.
      const table = await page.locator('#bench-table').textContent();
      expect(table).toContain('whole step');
      expect(table).toContain('meanmedianp95');
      expect(table).toContain('samples sent per step');
      expect(table).toContain('samples evaluated per step (after the culls)');
      expect(table).toMatch(/samples evaluated per step \(after the culls\)[\d.]+(?: [kM])?n\/a/);
      // The backend's own query calls, and whether the bodies came to rest (three rings, four steps: none asleep).
      expect(table).toContain('backend query calls (wall)');
      expect(table).toContain('never (0 of 3 at the end)');
      // Query calls and the GPU's readbacks, each with the most one step made.
      expect(table).toMatch(/query calls per step \(most in one step\)[\d.]+ \(\d\)/);
      expect(table).toMatch(/GPU readbacks per step \(most in one step\)-[\d.]+ \(\d\)/);
      for (const x of r.results) expect(x.maxQueryCalls).toBeGreaterThanOrEqual(Math.ceil(x.queryCallsPerStep));
      // The summary compares by the mean, agreeing with the JSON, and says what the run was.
      const summary = (await page.locator('#bench-summary li').allTextContents()).join('\n');
      expect(summary).toContain('CPU: the queries ran on 1 thread (the main thread).');
      const [cpu, gpu] = r.results;
      const winner = cpu!.stepMs.mean <= gpu!.stepMs.mean ? 'CPU' : 'GPU';
      expect(summary).toMatch(new RegExp(`^Whole step: ${winner} [\\d.]+x faster by the mean`, 'm'));
      if (gpu!.software) expect(summary).toContain('is a software adapter, WebGPU emulated on the CPU');
      // Three rings 4 steps after a 1-step warm-up are still in the air.
      expect(r.results.every((x) => x.stepsWithContacts === 0)).toBe(true);
      expect(summary).toContain('No contact in the 4 measured steps');
      await page.screenshot({ path: join(OUT, 'e2e-bench.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 150_000);
});

describe('CPU queries on Web Workers', () => {
  it('the page is cross-origin isolated and the pool gives the one-thread records bit for bit', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=4&backend=cpu`);
      await waitForApp(page);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      // A string, not a function: vitest would rewrite a function's import() for Node.
      const r = (await page.evaluate(`(async () => {
        const { createBackend } = await import('/src/backends.ts');
        const { CpuPenetrationBackend } = await import('/src/collision/cpuQuery.ts');
        const { QueryBatchBuilder } = await import('/src/collision/query.ts');
        const { buildSamples } = await import('/src/geometry/samples.ts');
        const { boxMesh, torusMesh } = await import('/src/geometry/shapes.ts');
        const { bakeSdfCpu } = await import('/src/sdf/bake.ts');
        const shapes = [boxMesh([1, 0.6, 0.8]), torusMesh(0.8, 0.3, 24, 10)].map((m) => ({ samples: buildSamples(m, 3), sdf: bakeSdfCpu(m, { cells: 16 }) }));
        const b = await createBackend('cpu', { threads: 3, pool: { minSamples: 0, mainClaims: false } });
        b.query.setShapes(shapes);
        await b.ready();
        const one = new CpuPenetrationBackend();
        one.setShapes(shapes);
        const batch = new QueryBatchBuilder();
        for (let t = 0; t < 200; t++) {
          const a = 0.1 * t, c = Math.cos(a), s = Math.sin(a);
          batch.push(t % 2, (t >> 1) % 2, 0, s, 0, c, 0.9 * Math.cos(0.37 * t), 0.3 * Math.sin(0.11 * t), 0.5 * Math.sin(0.23 * t), 0.05);
        }
        const key = (r) => [Array.from(r.taskStart.slice(0, batch.count + 1)), Array.from(r.sample.slice(0, r.count)),
          Array.from(new Uint32Array(r.phi.slice(0, r.count).buffer)), Array.from(new Uint32Array(r.normal.slice(0, 3 * r.count).buffer))].join('|');
        const want = key(one.querySync(batch));
        const got = key(await b.query.query(batch));
        const out = { threads: b.threads, note: b.threadNote, records: one.querySync(batch).count, same: want === got, pooled: b.query.pooledCalls, main: b.query.lastMainChunks, chunks: b.query.lastChunks };
        b.destroy();
        return out;
      })()`)) as { threads: number; note: string | null; records: number; same: boolean; pooled: number; main: number; chunks: number };
      expect(r.threads).toBe(3);
      expect(r.note).toBeNull();
      expect(r.records).toBeGreaterThan(500);
      expect(r.pooled).toBe(1);
      expect(r.main).toBe(0); // every chunk ran on a worker
      expect(r.chunks).toBeGreaterThan(2);
      expect(r.same).toBe(true);
      // The app itself stepped on the pool without a notice.
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 3, null, { timeout: 60_000 });
      expect(await page.locator('.notice-warn').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('without cross-origin isolation the app says so and runs the queries on one thread', async () => {
    const { page, errors } = await openPage();
    await page.addInitScript(() => {
      Object.defineProperty(window, 'crossOriginIsolated', { get: () => false, configurable: true });
    });
    try {
      await page.goto(`${base}/?scene=tower&height=4&backend=cpu`);
      await waitForApp(page);
      const notice = await page.locator('.notice-warn').textContent();
      expect(notice).toMatch(/CPU queries run on one thread: the page is not cross-origin isolated/);
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 3, null, { timeout: 60_000 });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});

describe('what a new user types or opens is used as shown, or the app says what instead', () => {
  /** A closed, outward tetrahedron (CCW seen from outside) with edges `s` long along the axes. */
  const tet = (s: number) => [...Buffer.from([`v 0 0 0`, `v ${s} 0 0`, `v 0 ${s} 0`, `v 0 0 ${s}`, 'f 1 3 2', 'f 1 2 4', 'f 1 4 3', 'f 2 3 4', ''].join('\n'))];
  /** A scene of `n` tetrahedra from `mesh` on a floor, as file bytes. */
  const tets = (n: number, mesh = 'meshes/tet.obj') => [
    ...Buffer.from(
      JSON.stringify({
        format: 'stackfield-scene/1',
        shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, tet: { type: 'mesh', path: mesh, sdf: { cells: 12 } } },
        bodies: [{ name: 'ground', shape: 'floor', static: true }, ...Array.from({ length: n }, (_, i) => ({ name: `t${i}`, shape: 'tet', position: [3 * i, 0.5, 0] }))],
      }),
    ),
  ];
  const status = (page: Page) => page.locator('#status').textContent();

  it('a scene parameter typed beyond its range is clamped with a notice naming it, the value and the range; text that is not a number changes nothing; the notice goes once the parameter changes', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      const type = async (label: string, text: string) => {
        const input = row(page, label).locator('input');
        await input.fill(text);
        await input.press('Enter');
      };
      const notice = page.locator('.notice', { hasText: 'The value typed' });
      const param = (k: string) => new URL(page.url()).searchParams.get(k);
      await type('height', '0');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('height') === '1', null, { timeout: 30_000 });
      expect(await notice.textContent()).toBe('The value typed was adjusted: height=0 is outside 1 … 400; “Box tower” uses height=1.×');
      expect(await row(page, 'height').locator('input').inputValue()).toBe('1');
      // Not a number ("0/0" was NaN to the slider, and rebuilt the tower at its default height 20): nothing changes, and it says so.
      for (const text of ['abc', '0/0']) {
        await type('height', text);
        await expect.poll(() => notice.textContent()).toBe(`The value typed was ignored: height=${JSON.stringify(text)} is not a number; “Box tower” keeps height=1.×`);
        expect(await row(page, 'height').locator('input').inputValue()).toBe('1');
      }
      // A parameter without a step takes the value typed (a slider step of a hundredth of 0.001 … 100 made 0.5 into 0.001).
      await type('size', '0.5');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('size') === '0.5', null, { timeout: 30_000 });
      expect(await notice.count()).toBe(1);
      expect(param('height')).toBe('1');
      expect(await status(page)).toMatch(/^Box tower · 2 bodies/);
      // Once the parameter it names has another value, the note would be wrong ("keeps height=1"): it goes.
      await type('height', '3');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('height') === '3', null, { timeout: 30_000 });
      expect(await notice.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('while a scene file with a mesh loads, the status line names it, never the old scene beside the new body count', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      await expect.poll(() => status(page)).toMatch(/^Box tower · 3 bodies/);
      // Every text the line takes, as it is written.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { statusSeen: string[] }).statusSeen = seen;
        new MutationObserver((ms) => {
          for (const m of ms) for (const n of m.addedNodes) seen.push(n.textContent ?? '');
        }).observe(document.getElementById('status')!, { childList: true });
      });
      await dropFiles(page, [['status.json', tets(4)], ['tet.obj', tet(1)]]);
      await page.waitForFunction(() => document.body.dataset['scene'] === 'file:status.json', null, { timeout: 60_000 });
      await expect.poll(() => status(page)).toMatch(/^status\.json · 5 bodies/);
      const seen = await page.evaluate(() => (window as unknown as { statusSeen: string[] }).statusSeen);
      expect(seen.filter((t) => /bodies/.test(t) && !t.startsWith('status.json · 5 bodies'))).toEqual([]);
      expect(seen[0]).toBe('Loading status.json…');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('a scene file opened again alone says it uses the mesh opened with it before; a changed mesh is built anew; a mesh never opened is asked for by name', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=tower&height=2&backend=cpu`);
      await waitForApp(page);
      const mass = () => page.evaluate(() => {
        const b = window.stackfield.sim.world!.bodies;
        return b.mass[b.names.indexOf('t0')]!;
      });
      const reused = page.locator('.notice', { hasText: 'opened earlier' });
      await dropFiles(page, [['reuse.json', tets(2)], ['tet.obj', tet(1)]]);
      await expect.poll(() => status(page), { timeout: 60_000 }).toMatch(/^reuse\.json · 3 bodies/);
      expect(await reused.count()).toBe(0);
      const m1 = await mass();
      // The scene again, alone (one more body): the mesh opened with it before is used, and the app says so.
      await dropFiles(page, [['reuse.json', tets(3)]]);
      await expect.poll(() => status(page), { timeout: 60_000 }).toMatch(/^reuse\.json · 4 bodies/);
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(await reused.textContent()).toBe('reuse.json uses the mesh tet.obj opened earlier (not opened with it this time).×');
      expect(await mass()).toBe(m1);
      // The tab keeps the mesh with the scene: a reload brings both back.
      await page.reload();
      await waitForApp(page);
      expect(await status(page)).toMatch(/^reuse\.json · 4 bodies/);
      expect(await page.locator('#error').isHidden()).toBe(true);
      // A changed mesh opened with the scene is built from the new file, not taken from the shape built before.
      await dropFiles(page, [['reuse.json', tets(2)], ['tet.obj', tet(2)]]);
      await expect.poll(() => status(page), { timeout: 60_000 }).toMatch(/^reuse\.json · 3 bodies/);
      expect((await mass()) / m1).toBeCloseTo(8, 6);
      // A mesh that was never opened: the error names the file to open.
      await dropFiles(page, [['cone.json', tets(1, 'meshes/cone.obj')]]);
      await page.locator('#error').waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page.locator('#error-text').textContent()).toContain('"cone.obj" was not given; open or drop it together with cone.json');
      expect(await status(page)).toMatch(/^reuse\.json · 3 bodies/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});

describe('framing bodies that move', () => {
  /** What main.ts's boxOnScreen gives: the screen box of a body's world box (canvas pixels). */
  interface ScreenBox {
    x0: number;
    x1: number;
    y0: number;
    y1: number;
    front: boolean;
  }
  type BoxHandle = { boxOnScreen(i: number): ScreenBox | null; camera: { distance: number } };

  /**
   * Every frame until simulated time `t`: the boxes of the bodies (dynamic ones, or those named)
   * that reach out of the free view, with the time and the camera's distance of every frame.
   */
  function track(page: Page, t: number, names: string[] = []): Promise<{ frames: number; out: { name: string; time: number; box: ScreenBox }[]; distances: number[] }> {
    return page.evaluate(
      ([until, only]) =>
        new Promise((resolve) => {
          const app = window.stackfield as unknown as AppHandle & BoxHandle;
          const res = { frames: 0, out: [] as { name: string; time: number; box: ScreenBox }[], distances: [] as number[] };
          const tick = () => {
            const w = app.sim.world!;
            const v = app.viewport();
            res.frames++;
            res.distances.push(app.camera.distance);
            for (let i = 0; i < w.bodies.count; i++) {
              const name = w.bodies.names[i]!;
              if ((only as string[]).length ? !(only as string[]).includes(name) : w.bodies.isStatic[i]) continue;
              const b = app.boxOnScreen(i);
              if (!b) continue;
              if (!b.front || b.x0 < v.insets.left || b.x1 > v.width - v.insets.right || b.y0 < v.insets.top || b.y1 > v.height - v.insets.bottom) {
                if (res.out.length < 20) res.out.push({ name, time: w.time, box: b });
              }
            }
            if (w.time >= (until as number)) resolve(res);
            else requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        }),
      [t, names] as const,
    );
  }

  it('a hanging chain swings inside the free view, clear of the panel and the corner overlays, for 5 s (it swung out under the stage chart)', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=chain&backend=cpu`);
      await waitForApp(page);
      await cameraSettled(page, 4, 200);
      await page.screenshot({ path: join(OUT, 'e2e-chain-framed.png') });
      const tracked = track(page, 5);
      await page.getByRole('button', { name: 'Play' }).click();
      const got = await tracked;
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.screenshot({ path: join(OUT, 'e2e-chain-swung.png') });
      expect(got.frames).toBeGreaterThan(5);
      expect(got.out).toEqual([]);
      // Framed for the swing from the start: the view did not have to widen.
      expect(Math.max(...got.distances)).toBeCloseTo(got.distances[0]!, 6);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('a box thrown out of the view widens it smoothly (never closer); one thrown 1 km away does not; once the user zooms the view is theirs, until reset view', async () => {
    const { page, errors } = await openPage();
    const distance = () => page.evaluate(() => (window.stackfield as unknown as BoxHandle).camera.distance);
    /** Throws body `name` with velocity `v` (m/s), between steps. */
    const flick = (name: string, v: number[]) =>
      page.evaluate(
        ([n, vel]) =>
          window.stackfield.sim.between(() => {
            const w = window.stackfield.sim.world!;
            const m = w.bodies.mass[w.bodies.names.indexOf(n as string)]!;
            w.applyImpulse(n as string, (vel as number[]).map((x) => x * m) as [number, number, number]);
          }),
        [name, v] as const,
      );
    const time = () => page.evaluate(() => window.stackfield.sim.world!.time);
    try {
      await page.goto(`${base}/?scene=tower&height=3&backend=cpu`);
      await waitForApp(page);
      const names = await page.evaluate(() => window.stackfield.sim.world!.bodies.names.filter((_, i) => !window.stackfield.sim.world!.bodies.isStatic[i]));
      expect(names.length).toBe(3);
      const d0 = await distance();
      await page.getByRole('button', { name: 'Play' }).click();
      // Off the top of the tower, sideways and up: it lands about 5 m away, out of the framed view.
      await flick(names[2]!, [5, 4, 0]);
      const thrown = await track(page, (await time()) + 4, [names[2]!]);
      await page.screenshot({ path: join(OUT, 'e2e-throw-widened.png') });
      for (let k = 1; k < thrown.distances.length; k++) expect(thrown.distances[k]).toBeGreaterThanOrEqual(thrown.distances[k - 1]!);
      const d1 = await distance();
      expect(d1).toBeGreaterThan(1.2 * d0);
      // Where it came to rest it is in view.
      const settled = await track(page, (await time()) + 0.5, [names[2]!]);
      expect(settled.out).toEqual([]);
      // Thrown at 500 m/s: gone in a few steps, and the view does not go after it.
      await flick(names[1]!, [500, 50, 0]);
      const gone = await track(page, (await time()) + 2, [names[1]!]);
      expect(Math.max(...gone.distances)).toBeLessThan(1.5 * d1);
      expect(gone.distances.at(-1)).toBe(gone.distances.at(-5));
      // The user zooms in: the view is theirs, and a box thrown out of it is not followed.
      const r = await page.locator('#view').boundingBox();
      await page.mouse.move(r!.x + 500, r!.y + 400);
      await page.mouse.wheel(0, -400);
      await expect.poll(distance).toBeLessThan(d1);
      const d2 = await distance();
      await flick(names[0]!, [-5, 4, 0]);
      const mine = await track(page, (await time()) + 2);
      expect(Math.max(...mine.distances)).toBe(d2);
      // Reset view: the framed view, and the safety net again (the box hops where it landed, out of that view).
      await page.getByRole('button', { name: 'Reset view' }).click();
      await expect.poll(distance).toBeCloseTo(d0, 6);
      await flick(names[0]!, [0, 3, 0]);
      const again = await track(page, (await time()) + 2);
      expect(Math.max(...again.distances)).toBeGreaterThan(d0);
      await page.getByRole('button', { name: 'Pause' }).click();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 180_000);

  it('the followed caterpillar, all three plates, keeps clear of the panel at four times real time (its front plates walked under the panel)', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=caterpillar&backend=cpu`);
      await waitForApp(page);
      expect(await page.evaluate(() => document.body.dataset['selected'])).toBe('plate0');
      await page.getByRole('combobox', { name: 'speed' }).selectOption('4');
      const tracked = track(page, 10, ['plate0', 'plate1', 'plate2']);
      await page.getByRole('button', { name: 'Play' }).click();
      const got = await tracked;
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.screenshot({ path: join(OUT, 'e2e-follow-clear.png') });
      expect(got.frames).toBeGreaterThan(5);
      expect(got.out).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
