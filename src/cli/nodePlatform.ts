/**
 * Node-side platform setup shared by the CLI and the tests: where shader
 * sources come from, and a default Vulkan driver for Dawn (SwiftShader from
 * Debian's chromium package) when none is configured.
 */
import { existsSync, readFileSync } from 'node:fs';
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
}
