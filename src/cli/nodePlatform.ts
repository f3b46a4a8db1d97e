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
import { setDriverCheck } from '../gpu/device.ts';

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
  setDriverCheck(() => missingVulkanDrivers(process.env));
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

/**
 * Why the Vulkan loader (Linux, where Dawn runs on Vulkan) will find no
 * driver, or null: VK_DRIVER_FILES, or VK_ICD_FILENAMES which it replaces,
 * names only paths that do not exist, and VK_ADD_DRIVER_FILES adds none.
 * Dawn would fail in its Vulkan backend and print that, with a native call
 * site ("at CheckVkSuccessImpl (.../VulkanError.cpp:106)"), on standard error
 * before the command's own message (src/gpu/device.ts setDriverCheck).
 */
export function missingVulkanDrivers(env: Record<string, string | undefined>, platform: string = process.platform): string | null {
  if (platform !== 'linux' || env['VK_ADD_DRIVER_FILES']) return null;
  const name = env['VK_DRIVER_FILES'] ? 'VK_DRIVER_FILES' : env['VK_ICD_FILENAMES'] ? 'VK_ICD_FILENAMES' : null;
  if (name === null) return null;
  const value = env[name]!;
  const paths = value.split(':').filter((p) => p !== '');
  if (paths.length === 0 || paths.some((p) => existsSync(p))) return null;
  return `${name}=${value}: ${paths.length === 1 ? 'no such file' : 'none of these files exists'}, so the Vulkan loader finds no driver`;
}
