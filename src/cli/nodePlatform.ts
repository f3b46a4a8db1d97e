/**
 * Node-side platform setup shared by the CLI and the tests: where shader
 * sources come from, and a default Vulkan driver for Dawn (SwiftShader from
 * Debian's chromium package) when none is configured.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setShaderSourceLoader } from '../gpu/shaders.ts';

export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

let installed = false;

export function installNodePlatform(): void {
  if (installed) return;
  installed = true;
  setShaderSourceLoader((name) => readFileSync(join(PACKAGE_ROOT, 'shaders', name), 'utf8'));
  if (!process.env['VK_ICD_FILENAMES'] && existsSync(SWIFTSHADER_ICD)) {
    process.env['VK_ICD_FILENAMES'] = SWIFTSHADER_ICD;
  }
  // The Vulkan loader complains on stderr without a runtime dir (headless CI).
  if (!process.env['XDG_RUNTIME_DIR']) {
    const dir = join(tmpdir(), `stackfield-runtime-${process.getuid?.() ?? 0}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      process.env['XDG_RUNTIME_DIR'] = dir;
    } catch {
      // not fatal: only a warning from the loader
    }
  }
}
