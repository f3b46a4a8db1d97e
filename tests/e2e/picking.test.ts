/**
 * End-to-end: picking, dragging, throwing and placing library instances in the
 * viewer (issue 13; src/app/interaction.ts), in headless Chromium. Bodies are
 * found on the screen through the page's own projection
 * (window.stackfield.screenOf) and moved with the real mouse; their state
 * is read back through window.stackfield.body. CPU queries, so steps are
 * quick on SwiftShader.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT, ROOT, cameraSettled, frames, openPage, useHarness, waitForApp, type Harness } from './harness.ts';

interface BodyState {
  p: number[];
  v: number[];
  asleep: boolean;
}

let h: Harness;

useHarness((x) => (h = x));

const screenOf = (page: Page, name: string) => page.evaluate((n) => (window as any).stackfield.screenOf(n) as [number, number] | null, name);
const body = (page: Page, name: string) => page.evaluate((n) => (window as any).stackfield.body(n) as BodyState | null, name);
const dataset = (page: Page) => page.evaluate(() => ({ ...document.body.dataset }));
const simTime = (page: Page) => page.evaluate(() => (window as any).stackfield.sim.world.time as number);

async function play(page: Page): Promise<void> {
  await page.locator('#view').focus();
  await page.keyboard.press(' ');
}

/** Waits until `s` more seconds of simulated time have passed. */
async function simFor(page: Page, s: number): Promise<void> {
  const t0 = await simTime(page);
  await page.waitForFunction(([t, d]) => (window as any).stackfield.sim.world.time >= t! + d!, [t0, s], { timeout: 60_000, polling: 100 });
}

describe('picking and dragging in the viewer', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    ({ page, errors } = await openPage(h.browser));
    await page.goto(`${h.base}/?scene=tower&height=3&backend=cpu`);
    await waitForApp(page);
    await play(page);
  }, 120_000);

  afterAll(async () => {
    await page?.close();
  });

  it('a sleeping box under the cursor is selected, wakes, and follows the drag', async () => {
    // The tower settles and falls asleep within a couple of seconds.
    await page.waitForFunction(() => (window as any).stackfield.body('box2')?.asleep === true, null, { timeout: 60_000, polling: 200 });
    const before = (await body(page, 'box2'))!;
    const at = (await screenOf(page, 'box2'))!;
    await page.mouse.move(at[0], at[1]);
    await page.mouse.down();
    const ds = await dataset(page);
    expect(ds['selected']).toBe('box2');
    await frames(page);
    // Its label: name, shape, mass and speed.
    expect(await page.locator('#body-label').textContent()).toMatch(/^box2 \(box\) · [\d.]+ kg · [\d.]+ m\/s/);
    // Drag 160 px to the right (and a little up) over a second of simulated time.
    for (let k = 1; k <= 16; k++) {
      await page.mouse.move(at[0] + 10 * k, at[1] - 3 * k);
      await simFor(page, 0.06);
    }
    await simFor(page, 0.8);
    const during = (await body(page, 'box2'))!;
    const moved = (await screenOf(page, 'box2'))!;
    writeFileSync(join(OUT, 'e2e-drag.png'), await page.screenshot());
    await page.mouse.up();
    expect(during.asleep).toBe(false);
    // On the screen it went where the cursor went.
    expect(moved[0] - at[0]).toBeGreaterThan(90);
    expect(Math.hypot(during.p[0]! - before.p[0]!, during.p[2]! - before.p[2]!)).toBeGreaterThan(0.3);
    expect(errors).toEqual([]);
  }, 120_000);

  it('a press on the ground orbits the camera, as before', async () => {
    const box = (await screenOf(page, 'box0'))!;
    // The ground in front of the tower.
    await page.mouse.move(box[0], box[1] + 110);
    await page.mouse.down();
    const body0 = (await body(page, 'box0'))!;
    const pitch = () => page.evaluate(() => (window as unknown as { stackfield: { camera: { pitch: number } } }).stackfield.camera.pitch);
    const pitch0 = await pitch();
    await page.mouse.move(box[0], box[1] + 30, { steps: 4 });
    await page.mouse.up();
    await frames(page);
    const after = (await screenOf(page, 'box0'))!;
    // The camera tilted about its target (the tower's middle), so the bottom box is drawn elsewhere;
    // the box itself did not move. (How far in pixels depends on how far out the view is: the
    // drag before may have carried box2 near the edge, and the view widened for it.)
    expect(Math.abs((await pitch()) - pitch0)).toBeGreaterThan(0.05);
    expect(Math.abs(after[1] - box[1])).toBeGreaterThan(3);
    const body1 = (await body(page, 'box0'))!;
    for (let k = 0; k < 3; k++) expect(Math.abs(body1.p[k]! - body0.p[k]!)).toBeLessThan(0.01);
    // An orbit is not a click: the chosen body stays chosen.
    expect((await dataset(page))['selected']).toBe('box2');
    expect(errors).toEqual([]);
  }, 60_000);

  it('shift-click throws the body under the cursor away from the eye', async () => {
    const at = (await screenOf(page, 'box1'))!;
    await page.keyboard.down('Shift');
    await page.mouse.click(at[0], at[1]);
    await page.keyboard.up('Shift');
    await simFor(page, 0.05);
    const s = (await body(page, 'box1'))!;
    expect(Math.hypot(s.v[0]!, s.v[1]!, s.v[2]!)).toBeGreaterThan(3);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('the library panel', () => {
  it('lists the robots of an opened library and places a cart where the ground is clicked; the cart drives', async () => {
    const { page, errors } = await openPage(h.browser);
    await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
    await waitForApp(page);
    expect(await page.locator('#library').isHidden()).toBe(true);
    const ex = join(ROOT, 'examples', 'robots');
    await page.setInputFiles('#file-input', [join(ex, 'caterpillar.scene.json'), join(ex, 'robots.library.json')]);
    await page.waitForFunction(() => document.body.dataset['scene'] === 'file:caterpillar.scene.json', null, { timeout: 60_000 });
    expect(await page.locator('#library button').evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset['name']))).toEqual([
      'cart', 'caterpillar', 'inchworm', 'chassis', 'ground', 'plate', 'segment', 'wheel',
    ]);
    expect(await body(page, 'cat/h0')).not.toBeNull();
    // The scene has a motor: it opens following the caterpillar; the camera settles on it first.
    expect((await dataset(page))['selected']).toBe('cat/h0');
    await cameraSettled(page);
    await page.locator('#library button[data-name="cart"]').click();
    expect(await page.locator('#library button.armed').textContent()).toMatch(/^cart/);
    // The ground in front of the caterpillar.
    const cat = (await screenOf(page, 'cat/h1'))!;
    await page.mouse.click(cat[0] - 150, Math.min(680, cat[1] + 120));
    await page.waitForFunction(() => document.body.dataset['placed'] === 'cart-1', null, { timeout: 60_000 });
    const placed = (await body(page, 'cart-1/chassis'))!;
    // Placed on the ground: its wheels (radius 0.25) on it, the chassis at their height.
    expect(placed.p[1]).toBeCloseTo(0.25 + 0.02, 1);
    expect(await body(page, 'cat/h0')).not.toBeNull();
    await play(page);
    await simFor(page, 1.5);
    const later = (await body(page, 'cart-1/chassis'))!;
    writeFileSync(join(OUT, 'e2e-library.png'), await page.screenshot());
    // Its wheels' joint motors drive it along its x axis at about 1 m/s.
    expect(Math.hypot(later.p[0]! - placed.p[0]!, later.p[2]! - placed.p[2]!)).toBeGreaterThan(0.8);
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);
});
