/**
 * Soft bodies in the app and on the benchmark page, in headless Chromium
 * (as tests/e2e/app.test.ts: the Debian chromium, WebGPU on SwiftShader, Vite's
 * dev server on 127.0.0.1). Screenshots go to test-output/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT, openPage as openHarnessPage, startHarness, type Harness } from '../e2e/harness.ts';
import { decodePng, lumaVariance, meanAbsDiff, type Image } from '../e2e/png.ts';

let harness: Harness;
let browser: Browser;
let base = '';

beforeAll(async () => {
  harness = await startHarness();
  browser = harness.browser;
  base = harness.base;
}, 120_000);

afterAll(async () => {
  await harness?.close();
});

function openPage(): Promise<{ page: Page; errors: string[] }> {
  return openHarnessPage(browser);
}

/** The scene area (between the stage chart and the panel), as pixels. */
async function sceneShot(page: Page, name: string): Promise<Image> {
  const png = await page.screenshot({ clip: { x: 320, y: 36, width: 560, height: 640 } });
  writeFileSync(join(OUT, `${name}.png`), png);
  return decodePng(png);
}

describe('soft bodies in the app', () => {
  it('draws the seesaw\'s soft ball, plays it, shows the net by strain, and offers the soft panel', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/?scene=soft-seesaw&backend=cpu`);
      await page.waitForFunction(() => document.body.dataset['steps'] !== undefined, null, { timeout: 120_000 });
      await expect.poll(() => page.locator('body').innerText(), { timeout: 30_000 }).toMatch(/1 soft body \(\d+ particles\)/);
      await expect.poll(() => page.getByText('Soft bodies', { exact: true }).count()).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number(document.body.dataset['steps']) >= 50, null, { timeout: 240_000 });
      await page.getByRole('button', { name: 'Pause' }).click();
      const surface = await sceneShot(page, 'soft-seesaw-surface');
      expect(lumaVariance(surface)).toBeGreaterThan(50);
      // The tweakpane row: its checkbox input is hidden, its visible box takes the click.
      const row = page.locator('.tp-lblv').filter({ has: page.locator('.tp-lblv_l', { hasText: 'soft springs (strain)' }) });
      await row.locator('.tp-ckbv_w').click();
      expect(await row.locator('input[type=checkbox]').isChecked()).toBe(true);
      await page.waitForTimeout(500);
      const net = await sceneShot(page, 'soft-seesaw-springs');
      // Paused, the same frame twice differs by nothing; the net recolours the ball, about 40 px
      // across in this clip since the framing keeps clear of the stage chart (0.11 measured).
      expect(meanAbsDiff(surface, net)).toBeGreaterThan(0.05);
      expect(new URL(page.url()).searchParams.get('views')).toContain('softSprings');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 400_000);

  it('the benchmark page reports the soft stage', async () => {
    const { page, errors } = await openPage();
    try {
      await page.goto(`${base}/bench.html?scene=soft-plus&steps=4&warmup=1&backends=cpu`);
      await page.waitForFunction(() => document.body.dataset['benchDone'] === '1', null, { timeout: 240_000 });
      const text = await page.locator('body').innerText();
      expect(text).toMatch(/soft stage ms per step/);
      expect(text).toMatch(/soft particle updates through the solver/);
      const results = (await page.evaluate(() => (window as unknown as { __benchResults: { results: { soft: { particles: number } | null }[] } }).__benchResults)).results;
      expect(results[0]!.soft!.particles).toBe(24);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 300_000);
});
