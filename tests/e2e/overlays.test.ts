/**
 * End-to-end: the overlays over the view keep out of each other's way. At
 * 1280x800, 1600x900, 1024x640 and 390x844 the boxes of the notices, the status line,
 * the stage chart, the library list, the numbers, the follow line, the
 * transport bar and the panel (getBoundingClientRect) lie inside the window
 * and overlap nowhere, and the framed tower's bodies are drawn where no
 * overlay is. The stage chart's axis labels are drawn whole: nothing is
 * painted at the canvas's left edge, where a clipped label would begin.
 *
 * The page opens `?scene=ring`, a mistake that brings a notice beside the
 * software-adapter one (SwiftShader is a software adapter), so two notices stand.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { OUT, ROOT, frames, openPage, useHarness, waitForApp, type Harness } from './harness.ts';

const EX = join(ROOT, 'examples', 'robots');
let h: Harness;

useHarness((x) => (h = x));

/** The overlays whose boxes must not meet. */
const OVERLAYS = ['#help', '#notices', '#library', '#numbers', '#levels-legend', '.stage-chart', '#brand', '#status', '#follow-note', '#transport', '#panel'];

interface Box {
  sel: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The boxes of the overlays that are shown (an element not drawn has an empty box). */
async function boxes(page: Page): Promise<Box[]> {
  return page.evaluate((sels) => {
    const out: Box[] = [];
    for (const sel of sels) {
      const el = document.querySelector<HTMLElement>(sel);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) out.push({ sel, left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    }
    return out;
  }, OVERLAYS);
}

/** Each box inside the window, no two meeting (a shared edge is allowed). */
function expectApart(list: Box[], width: number, height: number): void {
  for (const b of list) {
    expect({ sel: b.sel, inside: b.left >= 0 && b.top >= 0 && b.right <= width && b.bottom <= height }).toEqual({ sel: b.sel, inside: true });
  }
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const a = list[i]!, b = list[j]!;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const hgt = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      const overlap = w > 0.5 && hgt > 0.5 ? `${w.toFixed(1)} x ${hgt.toFixed(1)} px` : 'none';
      expect({ pair: `${a.sel} / ${b.sel}`, overlap }).toEqual({ pair: `${a.sel} / ${b.sel}`, overlap: 'none' });
    }
  }
}

/** Where each dynamic body's centre is drawn, in page pixels. */
async function bodyCentres(page: Page): Promise<{ x: number; y: number }[]> {
  return page.evaluate(() => {
    const app = (window as any).stackfield;
    const b = app.sim.world.bodies;
    const c = document.getElementById('view')!.getBoundingClientRect();
    const out: { x: number; y: number }[] = [];
    for (let i = 0; i < b.count; i++) {
      if (b.isStatic[i]) continue;
      const p = app.bodyOnScreen(i);
      if (p.front) out.push({ x: c.left + p.x, y: c.top + p.y });
    }
    return out;
  });
}

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1600, height: 900 },
  // Too narrow for the transport bar between the chart and the panel: it runs under the chart.
  { width: 1024, height: 640 },
  { width: 390, height: 844 },
];

describe('the overlays do not collide', () => {
  for (const size of SIZES) {
    const tag = `${size.width}x${size.height}`;
    it(`at ${tag}: with two notices, and then with the library list and the follow line, each in the window and none over another`, async () => {
      const { page, errors } = await openPage(h.browser, size);
      try {
        await page.goto(`${h.base}/?scene=ring`);
        await waitForApp(page);
        await frames(page, 6);
        // The software adapter's notice and the unknown scene's (it shows the tower instead).
        expect(await page.locator('#notices .notice').count()).toBe(2);
        expect(await page.locator('#notices').textContent()).toContain('did you mean "rings"?');
        writeFileSync(join(OUT, `e2e-overlays-${tag}.png`), await page.screenshot());
        const first = await boxes(page);
        for (const sel of ['#notices', '#numbers', '#status', '#transport', '#panel']) expect(first.map((b) => b.sel)).toContain(sel);
        if (size.width > 720) expect(first.map((b) => b.sel)).toContain('.stage-chart');
        expectApart(first, size.width, size.height);
        // The status line is one line, and says the whole of it where it has the room.
        const status = await page.locator('#status').evaluate((el) => ({ text: el.textContent, height: el.clientHeight, cut: el.scrollWidth > el.clientWidth }));
        expect(status.text).toBe('Box tower · 21 bodies · CPU queries');
        expect(status.height).toBeLessThan(24);
        expect(status.cut).toBe(false);

        // The tower, framed: each box is drawn where no overlay is.
        const centres = await bodyCentres(page);
        expect(centres.length).toBe(20);
        for (const p of centres) {
          const under = first.filter((b) => p.x >= b.left && p.x <= b.right && p.y >= b.top && p.y <= b.bottom).map((b) => b.sel);
          expect({ at: [Math.round(p.x), Math.round(p.y)], under }).toEqual({ at: [Math.round(p.x), Math.round(p.y)], under: [] });
        }

        // A robot scene with its library: the list and the follow line join them.
        await page.setInputFiles('#file-input', [join(EX, 'cart-rings.scene.json'), join(EX, 'robots.library.json')]);
        await page.waitForFunction(() => document.body.dataset['scene'] === 'file:cart-rings.scene.json', null, { timeout: 60_000 });
        await page.waitForSelector('#library button[data-name="cart"]');
        await frames(page, 6);
        writeFileSync(join(OUT, `e2e-overlays-library-${tag}.png`), await page.screenshot());
        const second = await boxes(page);
        for (const sel of ['#library', '#follow-note', '#numbers', '#transport', '#panel']) expect(second.map((b) => b.sel)).toContain(sel);
        expectApart(second, size.width, size.height);
        // The followed chassis is drawn where no overlay is.
        const at = (await page.evaluate(() => (window as any).stackfield.screenOf('cart/chassis'))) as [number, number];
        const under = second.filter((b) => at[0] >= b.left && at[0] <= b.right && at[1] >= b.top && at[1] <= b.bottom).map((b) => b.sel);
        expect(under).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  it('draws the stage chart\'s axis labels whole, however long the steps', async () => {
    const { page, errors } = await openPage(h.browser, SIZES[0]!);
    try {
      await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
      await waitForApp(page);
      for (const total of [0.07, 3, 8000, 40_000]) {
        // Steps of `total` ms, split over two stages, fed to the chart as the simulation would.
        await page.evaluate((t) => {
          const chart = (window as any).stackfield.chart;
          chart.clear();
          const ms = new Proxy({}, { get: (_, k) => (k === 'collisionQuery' ? 0.75 * t : k === 'contactSolve' ? 0.25 * t : 0) });
          for (let n = 0; n < 30; n++) chart.push({ ms });
        }, total);
        await frames(page, 2);
        const shot = await page.evaluate(() => {
          const canvas = document.querySelector<HTMLCanvasElement>('.stage-chart canvas')!;
          const ctx = canvas.getContext('2d')!;
          const { width, height } = canvas;
          const px = ctx.getImageData(0, 0, width, height).data;
          const gutter = Number(canvas.dataset['gutter']);
          // Painted pixels in the two leftmost columns (a label cut by the edge starts there),
          // and in the gutter left of the bars (the labels themselves).
          let edge = 0;
          let labels = 0;
          for (let y = 0; y < height; y++) {
            for (let x = 0; x < gutter - 1; x++) {
              if (px[4 * (y * width + x) + 3]! === 0) continue;
              if (x < 2) edge++;
              else labels++;
            }
          }
          ctx.font = '10px system-ui, sans-serif';
          const widest = Math.max(...canvas.dataset['labels']!.split('|').map((l) => ctx.measureText(l).width));
          return { labels: canvas.dataset['labels'], gutter, widest, edge, painted: labels };
        });
        expect(shot.edge).toBe(0);
        expect(shot.painted).toBeGreaterThan(20);
        // The widest label, with 4 px either side, fits the gutter.
        expect(shot.widest + 8).toBeLessThanOrEqual(shot.gutter);
        if (total === 40_000) expect(shot.labels).toBe('0 ms|25000 ms|50000 ms');
        if (total === 0.07) expect(shot.labels).toBe('0 ms|0.05 ms|0.1 ms');
      }
      writeFileSync(join(OUT, 'e2e-overlays-chart.png'), await page.locator('.stage-chart').screenshot());
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
