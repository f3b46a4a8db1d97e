/**
 * What the end-to-end tests share: Vite's dev server on 127.0.0.1 and headless
 * Chromium (the Debian package at /usr/bin/chromium, driven by playwright-core;
 * no browser is downloaded) with WebGPU on SwiftShader.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect } from 'vitest';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OUT = join(ROOT, 'test-output');
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags that give headless Chromium a WebGPU adapter (SwiftShader) whose canvas
 * can be presented: without the Vulkan ones, the first frame presented to a
 * WebGPU canvas makes the browser destroy the device.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=vulkan',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Harness {
  server: ViteDevServer;
  browser: Browser;
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

/** The dev server on a free port and the browser. */
export async function startHarness(): Promise<Harness> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  mkdirSync(OUT, { recursive: true });
  const server = await createServer({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
    // Pre-bundle up front: a dependency discovered mid-test makes Vite reload the page.
    optimizeDeps: { include: ['wgpu-matrix', 'tweakpane'], noDiscovery: true },
  });
  await server.listen();
  const addr = server.httpServer!.address();
  if (!addr || typeof addr === 'string') throw new Error('Vite did not report its port');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    server,
    browser,
    base: `http://127.0.0.1:${addr.port}`,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** A page that records console errors and uncaught exceptions. */
export async function openPage(browser: Browser, viewport = { width: 1200, height: 720 }): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return { page, errors };
}

export async function waitForApp(page: Page): Promise<void> {
  await page.waitForFunction(() => document.body.dataset['appReady'] === '1', null, { timeout: 90_000 });
}

/**
 * Waits until a followed body's camera has caught up with it: at least
 * `minFrames` frames and `ms` of wall time (the camera closes 1 - e^(-dt /
 * 0.15 s) of its distance a frame, dt capped at 0.1 s: 10 software-drawn
 * frames or 1 s of fast ones leave under 0.2 % of it).
 */
export async function cameraSettled(page: Page, minFrames = 10, ms = 1000): Promise<void> {
  await page.evaluate(
    ([k, t]) =>
      new Promise<void>((resolve) => {
        let left = k!;
        const end = performance.now() + t!;
        const tick = () => (--left <= 0 && performance.now() >= end ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    [minFrames, ms],
  );
}

/** Waits until the render loop has drawn a few more frames. */
export async function frames(page: Page, n = 4): Promise<void> {
  await page.evaluate(
    (k) =>
      new Promise<void>((resolve) => {
        let left = k;
        const tick = () => (--left <= 0 ? resolve() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    n,
  );
}

/**
 * Starts the harness before a test file's tests (handing it to `set`) and
 * closes it after them.
 */
export function useHarness(set: (h: Harness) => void): void {
  let held: Harness | undefined;
  beforeAll(async () => {
    held = await startHarness();
    set(held);
  }, 120_000);
  afterAll(async () => {
    await held?.close();
  });
}

/** A tweakpane row by its label. */
export function row(page: Page, label: string) {
  return page.locator('.tp-lblv').filter({ has: page.locator('.tp-lblv_l', { hasText: new RegExp(`^${label}$`) }) });
}

/** Clicks a tweakpane checkbox (its visible box; the input itself is hidden) and waits until it is `on`. */
export async function setCheckbox(page: Page, label: string, on: boolean): Promise<void> {
  const r = row(page, label);
  const input = r.locator('input[type=checkbox]');
  if ((await input.isChecked()) !== on) await r.locator('.tp-ckbv_w').click();
  expect(await input.isChecked()).toBe(on);
}
