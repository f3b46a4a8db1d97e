/**
 * End-to-end (issue 49, 3 and 5): a scene with motors opens following its
 * robot, which stays in view while it drives; the chosen robot's motors get
 * sliders that drive them through world.motor; a library item placed with a
 * plain click is disarmed, Escape disarms one; `?scene=ring` in the app and
 * on the bench page suggests "rings". Headless Chromium, CPU queries.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { projectPoint, type OrbitCamera, type Viewport } from '../../src/app/camera.ts';
import { OUT, ROOT, cameraSettled, frames, openPage, useHarness, waitForApp, type Harness } from './harness.ts';

let h: Harness;

useHarness((x) => (h = x));

const EX = join(ROOT, 'examples', 'robots');
const screenOf = (page: Page, name: string) => page.evaluate((n) => (window as any).stackfield.screenOf(n) as [number, number] | null, name);
const body = (page: Page, name: string) => page.evaluate((n) => (window as any).stackfield.body(n) as { p: number[] } | null, name);
const simTime = (page: Page) => page.evaluate(() => (window as any).stackfield.sim.world.time as number);
const armed = (page: Page) => page.locator('#library button.armed').count();

async function simFor(page: Page, s: number): Promise<void> {
  const t0 = await simTime(page);
  await page.waitForFunction(([t, d]) => (window as any).stackfield.sim.world.time >= t! + d!, [t0, s], { timeout: 120_000, polling: 100 });
}

/** The part of the canvas the panel, the help line and the transport bar leave free (page pixels). */
async function freeRect(page: Page): Promise<{ x0: number; x1: number; y0: number; y1: number }> {
  return page.evaluate(() => {
    const v = (window as any).stackfield.viewport();
    const r = document.getElementById('view')!.getBoundingClientRect();
    return { x0: r.left + v.insets.left, x1: r.left + v.width - v.insets.right, y0: r.top + v.insets.top, y1: r.top + v.height - v.insets.bottom };
  });
}

/** Where a world point is drawn by the camera `cam` (a saved copy of the app's) in the page's viewport, page pixels. */
async function projectWith(page: Page, cam: OrbitCamera, p: number[]): Promise<[number, number]> {
  const { view, left, top } = await page.evaluate(() => {
    const r = document.getElementById('view')!.getBoundingClientRect();
    return { view: (window as any).stackfield.viewport() as Viewport, left: r.left, top: r.top };
  });
  const out = { x: 0, y: 0, front: false };
  projectPoint(cam, view, p, out);
  expect(out.front).toBe(true);
  return [out.x + left, out.y + top];
}

/** A fresh page for `fn`, closed afterwards whatever happens (a page left open keeps drawing, and starves the next). */
async function withPage(size: { width: number; height: number }, fn: (page: Page, errors: string[]) => Promise<void>): Promise<void> {
  const { page, errors } = await openPage(h.browser, size);
  try {
    await fn(page, errors);
  } finally {
    await page.close();
  }
}

describe('a scene with motors', () => {
  for (const size of [
    { width: 1280, height: 800, tag: '1280' },
    { width: 390, height: 844, tag: '390' },
  ]) {
    it(`opens following its robot, which stays in the free part of the view after 3 s of driving (${size.tag} px wide)`, async () => {
      await withPage(size, async (page, errors) => {
        await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
        await waitForApp(page);
        await page.setInputFiles('#file-input', [join(EX, 'cart-rings.scene.json'), join(EX, 'robots.library.json')]);
        await page.waitForFunction(() => document.body.dataset['scene'] === 'file:cart-rings.scene.json', null, { timeout: 60_000 });
        // The robot's root (its first part) is chosen and followed, and the view says how to stop.
        expect(await page.evaluate(() => document.body.dataset['selected'])).toBe('cart/chassis');
        const note = page.locator('#follow-note');
        expect(await note.isVisible()).toBe(true);
        expect(await note.textContent()).toBe('following cart/chassis · G: stop following');
        // The motor sliders of the chosen robot: the four wheels, and one for all of them.
        const motors = await page.locator('[data-motor]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['motor']));
        expect(motors).toEqual(['cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
        await cameraSettled(page);
        const home = (await page.evaluate(() => JSON.parse(JSON.stringify((window as any).stackfield.camera)))) as OrbitCamera;
        const start = (await body(page, 'cart/chassis'))!.p;
        await page.locator('#view').focus();
        await page.keyboard.press(' ');
        await simFor(page, 3);
        await page.keyboard.press(' ');
        await cameraSettled(page);
        const end = (await body(page, 'cart/chassis'))!.p;
        const at = (await screenOf(page, 'cart/chassis'))!;
        const free = await freeRect(page);
        writeFileSync(join(OUT, `e2e-follow-${size.tag}.png`), await page.screenshot());
        const driven = Math.hypot(end[0]! - start[0]!, end[2]! - start[2]!);
        const fixed = await projectWith(page, home, end);
        const unfollowed = await projectWith(page, home, start);
        console.log(
          `follow ${size.tag}: drove ${driven.toFixed(2)} m in 3 s; chassis drawn at (${at[0].toFixed(0)}, ${at[1].toFixed(0)}) in free part x ${free.x0.toFixed(0)}..${free.x1.toFixed(0)}, y ${free.y0.toFixed(0)}..${free.y1.toFixed(0)}; ` +
            `the opening camera would draw it at (${fixed[0].toFixed(0)}, ${fixed[1].toFixed(0)}) (it started at ${unfollowed[0].toFixed(0)})`,
        );
        // It drove: about 1 m/s.
        expect(driven).toBeGreaterThan(1.5);
        // Followed: near the middle of the free part (within a fifth of its width and height of it).
        const cx = 0.5 * (free.x0 + free.x1), cy = 0.5 * (free.y0 + free.y1);
        expect(Math.abs(at[0] - cx)).toBeLessThan(0.2 * (free.x1 - free.x0));
        expect(Math.abs(at[1] - cy)).toBeLessThan(0.2 * (free.y1 - free.y0));
        // The camera it opened with, left in place, would have moved it by more than that on the screen.
        expect(Math.hypot(fixed[0] - at[0], fixed[1] - at[1])).toBeGreaterThan(0.2 * (free.x1 - free.x0));
        // G stops following: the target stays where it is while the cart drives on.
        await page.keyboard.press('g');
        expect(await note.isHidden()).toBe(true);
        expect(errors).toEqual([]);
      });
    }, 240_000);
  }

  it('the motor sliders drive the chosen robot through world.motor', async () => {
    await withPage({ width: 1280, height: 800 }, async (page, errors) => {
      await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
      await waitForApp(page);
      await page.setInputFiles('#file-input', [join(EX, 'cart-rings.scene.json'), join(EX, 'robots.library.json')]);
      await page.waitForFunction(() => document.body.dataset['scene'] === 'file:cart-rings.scene.json', null, { timeout: 60_000 });
      const motor = (n: string) =>
        page.evaluate((m) => {
          const h = (window as any).stackfield.sim.world.motor(m);
          return { target: h.target as number, maxTorque: h.maxTorque as number, manual: h.manual as boolean };
        }, n);
      // The scene's program: -4 rad/s, 40 N m.
      expect(await motor('cart/fr')).toEqual({ target: -4, maxTorque: 40, manual: false });
      const set = async (sel: string, value: string) => {
        const input = page.locator(`${sel} input`).first();
        await input.fill(value);
        await input.press('Enter');
      };
      await set('[data-motor="cart/fr"]', '2.5');
      await set('[data-motor-torque="cart/fr"]', '12');
      await page.waitForFunction(() => (window as any).stackfield.sim.world.motor('cart/fr').manual === true, null, { timeout: 10_000 });
      expect(await motor('cart/fr')).toEqual({ target: 2.5, maxTorque: 12, manual: true });
      // The others keep their program.
      expect(await motor('cart/fl')).toEqual({ target: -4, maxTorque: 40, manual: false });
      // "program" gives them back their scene program.
      await page.getByRole('button', { name: 'program' }).click();
      await page.waitForFunction(() => (window as any).stackfield.sim.world.motor('cart/fr').manual === false, null, { timeout: 10_000 });
      expect((await motor('cart/fr')).target).toBe(-4);
      // "off": no target, and the sliders say 0.
      await page.getByRole('button', { name: 'off' }).click();
      await page.waitForFunction(() => Number.isNaN((window as any).stackfield.sim.world.motor('cart/rl').target), null, { timeout: 10_000 });
      expect(await page.locator('[data-motor="cart/rl"] input').first().inputValue()).toBe('0.00');
      expect(errors).toEqual([]);
    });
  }, 180_000);
});

describe('the library panel disarms', () => {
  it('after a plain click places an instance, and on Escape; shift keeps the item armed', async () => {
    await withPage({ width: 1280, height: 800 }, async (page, errors) => {
      await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
      await waitForApp(page);
      await page.setInputFiles('#file-input', [join(EX, 'robots.library.json')]);
      await page.waitForSelector('#library button[data-name="cart"]');
      await page.locator('#library button[data-name="cart"]').click();
      expect(await armed(page)).toBe(1);
      const box = (await screenOf(page, 'box0'))!;
      // The ground in front of the box.
      await page.mouse.click(box[0] - 160, box[1] + 90);
      await page.waitForFunction(() => document.body.dataset['placed'] === 'cart-1', null, { timeout: 60_000 });
      expect(await armed(page)).toBe(0);
      expect(await page.locator('#view').evaluate((c) => c.classList.contains('placing'))).toBe(false);
      // A second click ("deselect") places nothing.
      await page.mouse.click(box[0] + 160, box[1] + 90);
      await frames(page, 10);
      await page.evaluate(() => (window as any).stackfield.sim.idle());
      expect(await body(page, 'cart-2/chassis')).toBeNull();
      expect(await body(page, 'cart-1/chassis')).not.toBeNull();
      // Escape disarms.
      await page.locator('#library button[data-name="cart"]').click();
      expect(await armed(page)).toBe(1);
      await page.keyboard.press('Escape');
      expect(await armed(page)).toBe(0);
      // Shift-click throws one and keeps the item armed for more.
      await page.locator('#library button[data-name="inchworm"]').click();
      await page.keyboard.down('Shift');
      await page.mouse.click(box[0], box[1] - 120);
      await page.keyboard.up('Shift');
      await page.waitForFunction(() => document.body.dataset['placed'] === 'inchworm-1', null, { timeout: 60_000 });
      expect(await armed(page)).toBe(1);
      writeFileSync(join(OUT, 'e2e-library-disarm.png'), await page.screenshot());
      await page.keyboard.press('Escape');
      expect(await armed(page)).toBe(0);
      expect(errors).toEqual([]);
    });
  }, 180_000);
});

describe('an unknown scene in the link', () => {
  it('the app says which built-in was meant', async () => {
    await withPage({ width: 1280, height: 800 }, async (page) => {
      await page.goto(`${h.base}/?scene=ring&backend=cpu`);
      await waitForApp(page);
      const text = await page.locator('#notices .notice-warn').allTextContents();
      expect(text.join('\n')).toContain('There is no built-in scene "ring" (did you mean "rings"?); showing "tower"');
      writeFileSync(join(OUT, 'e2e-scene-ring-1280.png'), await page.screenshot());
      await page.setViewportSize({ width: 390, height: 844 });
      await frames(page, 4);
      writeFileSync(join(OUT, 'e2e-scene-ring-390.png'), await page.screenshot());
    });
  }, 120_000);

  it('the bench page says which built-in was meant', async () => {
    await withPage({ width: 1280, height: 800 }, async (page) => {
      await page.goto(`${h.base}/bench.html?scene=ring&steps=2`);
      await page.waitForFunction(() => !!document.body.dataset['benchError'] || document.body.dataset['benchDone'] === '1', null, { timeout: 60_000 });
      const err = await page.locator('#bench-error').textContent();
      expect(err).toContain('unknown scene "ring" (did you mean "rings"?)');
      writeFileSync(join(OUT, 'e2e-bench-ring.png'), await page.screenshot());
    });
  }, 120_000);
});
