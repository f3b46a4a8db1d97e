/**
 * The robot editor in the browser (src/app/editorPanel.ts): two bodies
 * joined by a motor hinge, tried in the view (its motor drives it through
 * world.motor), and saved as a download that `stackfield check` accepts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/cli/check.ts';
import { OUT, openPage, useHarness, waitForApp, type Harness } from './harness.ts';

let h: Harness;

useHarness((x) => (h = x));

describe('the robot editor', () => {
  it('builds a two-body robot with a motor hinge, tries it in the view and saves a library check accepts', async () => {
    const { page, errors } = await openPage(h.browser, { width: 1280, height: 800 });
    try {
      await page.goto(`${h.base}/?scene=tower&height=1&backend=cpu`);
      await waitForApp(page);
      await page.locator('#editor summary').click();
      const fill = (name: string, v: string) => page.locator(`#editor [name="${name}"]`).fill(v);
      await fill('robot', 'duo');
      await fill('position', '0 0.05 0');
      await page.locator('#editor [name="material"]').selectOption('plastic');
      await page.locator('#editor [data-act="body"]').click();
      await fill('position', '0.42 0.05 0');
      await page.locator('#editor [name="material"]').selectOption('rubber');
      await page.locator('#editor [data-act="body"]').click();
      await fill('pivot', '0.21 0.05 0');
      await page.locator('#editor [name="motor"]').check();
      await page.locator('#editor [data-act="joint"]').click();
      expect(await page.locator('#editor .ed-list div').count()).toBe(3);
      await page.locator('#editor [data-act="check"]').click();
      await page.waitForFunction(() => (document.querySelector('#editor .ed-status')!.textContent ?? '') !== '', null, { timeout: 30_000 });
      expect(await page.locator('#editor .ed-status').textContent()).toBe('duo.library.json: ok: library, 2 shapes, 2 materials, 2 body templates, 1 robot');
      await page.locator('#editor [data-act="try"]').click();
      await page.waitForFunction(() => document.body.dataset['scene'] === 'file:duo-try.scene.json', null, { timeout: 60_000 });
      expect(await page.evaluate(() => (window as any).stackfield.sim.world.motorNames())).toEqual(['duo/j0-motor']);
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#editor [data-act="save"]').click()]);
      expect(download.suggestedFilename()).toBe('duo.library.json');
      const file = join(OUT, 'e2e-editor-duo.library.json');
      await download.saveAs(file);
      expect(await checkFile(file, () => {})).toBe('library, 2 shapes, 2 materials, 2 body templates, 1 robot');
      expect(JSON.parse(readFileSync(file, 'utf8')).robots.duo.motors).toEqual([{ name: 'j0-motor', joint: 'j0', speed: 2, maxTorque: 10 }]);
      writeFileSync(join(OUT, 'e2e-editor.png'), await page.screenshot());
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 240_000);
});
