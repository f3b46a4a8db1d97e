/**
 * End-to-end: the depth-field view in a crowd (issue 49, 1). In the `rings`
 * and `pile` scenes, after the bodies have fallen onto each other, choosing a
 * body and switching the depth field on must make that body's slice a
 * visible part of the picture: the other bodies fade, the camera frames the
 * body, the slice faces the camera. Measured from the screenshot's pixels:
 * the share of the free view (less the panel, the bars and the inset) whose
 * colour lies on the slice's colour map (sliceView.ts phiColor with the
 * shader's contour-band shading), against the same view with the depth field
 * off. The inset is checked to draw the slice and read phi under the cursor,
 * and a drag on the slice to move it along its normal.
 * Screenshots go to test-output/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { phiColor } from '../../src/app/sliceView.ts';
import type { Viewport } from '../../src/app/camera.ts';
import { decodePng, type Image } from './png.ts';
import { OUT, frames, openPage, row, setCheckbox, useHarness, waitForApp, type Harness } from './harness.ts';

let h: Harness;

useHarness((x) => (h = x));

/**
 * Colour bins (6 bits a channel) on the slice's colour map: every phi from
 * deep inside to far outside, times the shader's contour-band shading (0.8
 * to 1 before its 1/1.2 gamma), and the bins next to them (antialiasing,
 * rounding).
 */
const SLICE_BINS = (() => {
  const bins = new Uint8Array(64 * 64 * 64);
  const c = [0, 0, 0];
  for (let q = -400; q <= 400; q++) {
    phiColor(q === 0 ? 1e-9 : q / 400, 1 / 8, c);
    for (let shade = 0.8; shade <= 1.0001; shade += 0.01) {
      const g = Math.pow(shade, 1 / 1.2);
      const r = Math.floor((255 * c[0]! * g) / 4), gg = Math.floor((255 * c[1]! * g) / 4), b = Math.floor((255 * c[2]! * g) / 4);
      for (let dr = -1; dr <= 1; dr++)
        for (let dg = -1; dg <= 1; dg++)
          for (let db = -1; db <= 1; db++) {
            const R = r + dr, G = gg + dg, B = b + db;
            if (R >= 0 && R < 64 && G >= 0 && G < 64 && B >= 0 && B < 64) bins[R + 64 * (G + 64 * B)] = 1;
          }
    }
  }
  return bins;
})();

const onMap = (d: Uint8Array, o: number) => SLICE_BINS[(d[o]! >> 2) + 64 * ((d[o + 1]! >> 2) + 64 * (d[o + 2]! >> 2))] === 1;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The share of the pixels of `area` (less `skip`) whose colour is on the
 * slice's colour map in `img`; with `without` (the same view without the
 * depth field), only those that the depth field changed (a body of an amber
 * colour is not the slice).
 */
function sliceShare(img: Image, area: Rect, skip: Rect | null, without?: Image): number {
  let hits = 0, total = 0;
  const d = img.rgba, e = without?.rgba;
  const x1 = Math.min(img.width, Math.floor(area.x + area.width)), y1 = Math.min(img.height, Math.floor(area.y + area.height));
  for (let y = Math.max(0, Math.ceil(area.y)); y < y1; y++) {
    for (let x = Math.max(0, Math.ceil(area.x)); x < x1; x++) {
      if (skip && x >= skip.x && x < skip.x + skip.width && y >= skip.y && y < skip.y + skip.height) continue;
      const o = 4 * (x + img.width * y);
      total++;
      if (!onMap(d, o)) continue;
      if (e && Math.abs(d[o]! - e[o]!) + Math.abs(d[o + 1]! - e[o + 1]!) + Math.abs(d[o + 2]! - e[o + 2]!) < 48) continue;
      hits++;
    }
  }
  return total > 0 ? hits / total : 0;
}

/** Steps the world (as the N key does) `n` times: the bodies fall onto each other. */
async function stepMany(page: Page, n: number): Promise<void> {
  await page.evaluate(async (m) => {
    const sim = (window as any).stackfield.sim;
    const end = sim.world.stepCount + m;
    while (sim.world.stepCount < end) await sim.step();
  }, n);
}

/** The free view (page pixels): the canvas less the panel, the help line and the transport bar. */
function freeView(page: Page): Promise<Rect> {
  return page.evaluate(() => {
    const v = (window as any).stackfield.viewport() as Viewport;
    return { x: v.insets.left, y: v.insets.top, width: v.width - v.insets.left - v.insets.right, height: v.height - v.insets.top - v.insets.bottom };
  });
}

async function shot(page: Page, name: string): Promise<Image> {
  const png = await page.screenshot();
  writeFileSync(join(OUT, `e2e-depth-${name}.png`), png);
  return decodePng(png);
}

const CASES = [
  // ring5 sits in the middle of a peg's stack; cup13 in the heap.
  { scene: 'rings', query: 'rings=36&pegs=3', body: 'ring5', steps: 240 },
  { scene: 'pile', query: 'count=30', body: 'cup13', steps: 160 },
];

describe('the depth-field view in a crowd', () => {
  for (const c of CASES) {
    it(`${c.scene}: ${c.body}'s slice takes a visible share of the view, and the inset reads it`, async () => {
      const { page, errors } = await openPage(h.browser, { width: 1280, height: 800 });
      try {
        await page.goto(`${h.base}/?scene=${c.scene}&${c.query}&backend=cpu`);
        await waitForApp(page);
        await stepMany(page, c.steps);
        await row(page, 'body').locator('select').selectOption({ label: c.body });
        await setCheckbox(page, 'depth field', true);
        await frames(page, 6);
        const view = await freeView(page);
        const inset = page.locator('#slice-inset');
        expect(await inset.isVisible()).toBe(true);
        const box = (await inset.boundingBox())!;
        const on = await shot(page, `${c.scene}-on`);
        // The inset: the body, the axis facing the camera, a map with both signs of phi, and a scale in metres.
        const title = (await inset.locator('.inset-title').textContent())!;
        expect(title).toMatch(new RegExp(`^${c.body}: slice across [xyz] at [xyz] = .* m \\(faces the camera\\)$`));
        expect(await inset.locator('.inset-ticks span').allTextContents()).toHaveLength(5);
        expect(await inset.locator('.inset-unit').textContent()).toContain('(m)');
        // phi under the cursor: inside (< 0) at some point of the map and outside (> 0) at its corner.
        const map = (await inset.locator('.inset-map').boundingBox())!;
        await page.mouse.move(map.x + 1, map.y + 1);
        const corner = Number(await inset.locator('.inset-readout').getAttribute('data-phi'));
        expect(corner).toBeGreaterThan(0);
        expect(await inset.locator('.inset-readout').textContent()).toMatch(/^phi = [\d.]+ m at \(-?[\d.]+, -?[\d.]+, -?[\d.]+\) m$/);
        // The points of a 7 x 7 grid over the map, nearest its centre first (the body's
        // centre, framed, is most likely inside), probed in the page by the map's own
        // pointermove listener up to the first one inside (a real move waits for a
        // frame: 0.3 s on a software GPU); then the mouse goes there and reads it too.
        const inside = await page.evaluate(() => {
          const el = document.querySelector('#slice-inset .inset-map') as HTMLElement;
          const out = document.querySelector('#slice-inset .inset-readout') as HTMLElement;
          const r = el.getBoundingClientRect();
          const probes: [number, number][] = [];
          for (let k = 1; k < 8; k++) for (let l = 1; l < 8; l++) probes.push([k, l]);
          probes.sort((p, q) => Math.hypot(p[0] - 4, p[1] - 4) - Math.hypot(q[0] - 4, q[1] - 4));
          for (const [k, l] of probes) {
            const x = r.left + (r.width * k) / 8, y = r.top + (r.height * l) / 8;
            el.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, bubbles: true }));
            if (Number(out.dataset['phi']) < 0) return [x, y] as [number, number];
          }
          return null;
        });
        expect(inside, 'a point of the map inside the body').not.toBeNull();
        await page.mouse.move(inside![0], inside![1]);
        expect(Number(await inset.locator('.inset-readout').getAttribute('data-phi'))).toBeLessThan(0);
        await page.mouse.move(0, view.y + view.height / 2);

        // Dragging the slice in the view (pressed at the body's centre, on the slice) moves it along
        // its normal: the panel's offset and the inset's plane change, the choice stays.
        const sliceAt = row(page, 'slice at').locator('input');
        const before = Number(await sliceAt.inputValue());
        const planeBefore = title.match(/= (.*) m \(/)![1];
        const centre = (await page.evaluate((n) => (window as any).stackfield.screenOf(n), c.body)) as [number, number];
        await page.mouse.move(centre[0], centre[1]);
        await page.mouse.down();
        for (let k = 1; k <= 5; k++) await page.mouse.move(centre[0], centre[1] - 8 * k);
        await page.mouse.up();
        await frames(page, 2);
        const after = Number(await sliceAt.inputValue());
        expect(Math.abs(after - before)).toBeGreaterThan(0.02);
        expect((await inset.locator('.inset-title').textContent())!.match(/= (.*) m \(/)![1]).not.toBe(planeBefore);
        expect(await page.evaluate(() => document.body.dataset['selected'])).toBe(c.body);
        await sliceAt.fill(String(before));
        await sliceAt.press('Enter');
        await frames(page, 4);
        await page.mouse.move(0, view.y + view.height / 2);

        // The slice's share of the free view: pixels of its colours that the depth field put there
        // (the same camera without it; bodies of an amber colour do not count).
        await setCheckbox(page, 'depth field', false);
        await frames(page, 4);
        expect(await inset.isVisible()).toBe(false);
        const off = await shot(page, `${c.scene}-off`);
        const share = sliceShare(on, view, box, off);
        console.log(
          `${c.scene} ${c.body}: the slice covers ${(100 * share).toFixed(1)} % of the free view ` +
            `(pixels of its colours: ${(100 * sliceShare(on, view, box)).toFixed(1)} % with the depth field, ${(100 * sliceShare(off, view, box)).toFixed(1)} % without)`,
        );
        expect(share).toBeGreaterThan(0.05);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 240_000);
  }

  it('at 390 pixels wide the inset and the slice are on screen', async () => {
    const { page, errors } = await openPage(h.browser, { width: 390, height: 844 });
    try {
      await page.goto(`${h.base}/?scene=pile&count=30&backend=cpu`);
      await waitForApp(page);
      await stepMany(page, 160);
      // A narrow screen opens the panel folded (a bar across the top): unfold it, choose, fold it.
      await page.locator('.tp-rotv_b').first().click();
      await row(page, 'body').locator('select').selectOption({ label: 'cup13' });
      await setCheckbox(page, 'depth field', true);
      await page.locator('.tp-rotv_b').first().click();
      // The view is framed again once the fold has settled (main.ts).
      await page.waitForTimeout(900);
      await frames(page, 6);
      const box = (await page.locator('#slice-inset').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.y + box.height).toBeLessThanOrEqual(844);
      const img = await shot(page, 'pile-390');
      const share = sliceShare(img, await freeView(page), box);
      console.log(`pile at 390 px: slice colours ${(100 * share).toFixed(1)} % of the free view`);
      expect(share).toBeGreaterThan(0.03);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 240_000);
});
