/**
 * Echoing user strings (src/util/echo.ts), the device-loss wording and the
 * last guard of the state writer, as functions.
 */
import { describe, expect, it } from 'vitest';
import { displayName, escapeControls, fileLabel, quote, terminalSafe } from '../../src/util/echo.ts';
import { deviceLostMessage, withoutNativeFrames } from '../../src/gpu/device.ts';
import { missingVulkanDrivers } from '../../src/cli/nodePlatform.ts';
import { stateLine } from '../../src/cli/run.ts';
import { createWorld } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { CpuPenetrationBackend } from '../../src/collision/cpuQuery.ts';
import { InputError, SimulationError, bareMessage } from '../../src/errors.ts';

describe('quote', () => {
  it('escapes C0 and C1 controls, DEL, bidirectional and zero-width characters, and lone surrogates', () => {
    expect(quote('a\u001b[2J\u0000b')).toBe('"a\\u001b[2J\\u0000b"');
    expect(quote('x\ny\tz\r')).toBe('"x\\ny\\tz\\r"');
    expect(quote('\u007f\u0085\u009b')).toBe('"\\u007f\\u0085\\u009b"');
    expect(quote('evil\u202eexe.txt\u2066\u200b')).toBe('"evil\\u202eexe.txt\\u2066\\u200b"');
    expect(quote('\ud800x')).toBe('"\\ud800x"');
    // A valid pair (an emoji) and accented letters pass through.
    expect(quote('ring 😀 čaša')).toBe('"ring 😀 čaša"');
    // Quotes and backslashes as in JSON, so the quoted text cannot fake its own end.
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('cuts long strings, says their length, and never splits a surrogate pair', () => {
    expect(quote('x'.repeat(1_000_000))).toBe(`"${'x'.repeat(80)}..." (1000000 characters)`);
    expect(quote(`${'x'.repeat(79)}😀tail`)).toBe(`"${'x'.repeat(79)}..." (85 characters)`);
    expect(quote('short', 10)).toBe('"short"');
  });
});

describe('terminalSafe', () => {
  it('keeps line breaks, escapes the rest and caps the message', () => {
    expect(terminalSafe('line 1\nline\u001b[31m 2')).toBe('line 1\nline\\u001b[31m 2');
    expect(terminalSafe('y'.repeat(5000))).toBe(`${'y'.repeat(4000)}... (1000 more characters)`);
    expect(escapeControls('a\nb')).toBe('a\\nb');
  });
});

describe('file names in messages', () => {
  it('an InputError escapes its file name, line breaks too, and bareMessage still takes the prefix off', () => {
    const e = new InputError('file not found', 'nl\nFAKE\u001b[2J.json', 'shapes.m');
    expect(e.message).toBe('nl\\nFAKE\\u001b[2J.json: shapes.m: file not found');
    expect(e.file).toBe('nl\nFAKE\u001b[2J.json');
    expect(bareMessage(e)).toBe('file not found');
    expect(fileLabel('a\nb\r\t.json')).toBe('a\\nb\\r\\t.json');
  });
});

describe("Dawn's native text", () => {
  it('loses its C++ call sites and keeps the reason and what Dawn was doing', () => {
    const dawn =
      'vkCreateInstance failed with VK_ERROR_INCOMPATIBLE_DRIVER\n - While initializing the Vulkan backend\n' +
      '    at CheckVkSuccessImpl (/home/runner/work/node-webgpu/node-webgpu/third_party/dawn/src/dawn/native/vulkan/VulkanError.cpp:106)\n' +
      '    at Initialize (/home/runner/work/node-webgpu/node-webgpu/third_party/dawn/src/dawn/native/vulkan/BackendVk.cpp:412)\n';
    expect(withoutNativeFrames(dawn)).toBe('vkCreateInstance failed with VK_ERROR_INCOMPATIBLE_DRIVER\n - While initializing the Vulkan backend');
    expect(deviceLostMessage({ reason: 'unknown', message: 'Device lost.\n    at Foo (/x/y.cpp:1)\n' })).toBe('WebGPU device lost (unknown): Device lost');
    expect(withoutNativeFrames('look at this (a:1) line')).toBe('look at this (a:1) line');
  });

  it('a Vulkan driver list that names no file is found before Dawn is loaded (Linux only; an added driver or one existing file is enough)', () => {
    const none = '/nonexistent.json';
    expect(missingVulkanDrivers({ VK_ICD_FILENAMES: none }, 'linux')).toBe('VK_ICD_FILENAMES=/nonexistent.json: no such file, so the Vulkan loader finds no driver');
    expect(missingVulkanDrivers({ VK_DRIVER_FILES: `${none}:/also/missing.json`, VK_ICD_FILENAMES: '/etc/hostname' }, 'linux')).toMatch(/^VK_DRIVER_FILES=.*: none of these files exists/);
    expect(missingVulkanDrivers({ VK_ICD_FILENAMES: `${none}:/etc/hostname` }, 'linux')).toBeNull();
    expect(missingVulkanDrivers({ VK_ICD_FILENAMES: none, VK_ADD_DRIVER_FILES: '/x.json' }, 'linux')).toBeNull();
    expect(missingVulkanDrivers({}, 'linux')).toBeNull();
    expect(missingVulkanDrivers({ VK_ICD_FILENAMES: none }, 'darwin')).toBeNull();
  });
});

describe('deviceLostMessage', () => {
  it("drops the driver's closing period so a sentence can follow ('Device was destroyed..' no more)", () => {
    expect(deviceLostMessage({ reason: 'unknown', message: 'Device was destroyed.' })).toBe('WebGPU device lost (unknown): Device was destroyed');
    expect(deviceLostMessage({ reason: 'unknown', message: '' })).toBe('WebGPU device lost (unknown): no message');
  });
});

describe('stateLine', () => {
  it('refuses to write a non-finite number, naming the body and the field', async () => {
    const scene = validateScene(
      { format: 'stackfield-scene/1', shapes: { b: { type: 'box', sdf: { cells: 8 } } }, bodies: [{ name: 'crate\u001b', shape: 'b' }] },
      'x.json',
    );
    const world = await createWorld(scene, new CpuPenetrationBackend(), { readText: async () => '' });
    expect(JSON.parse(stateLine(world)).bodies[0].p).toEqual([0, 0, 0]);
    world.bodies.vel[1] = NaN;
    expect(() => stateLine(world)).toThrow(SimulationError);
    expect(() => stateLine(world)).toThrow('body "crate\\u001b": v[1] is NaN at step 0; the state is not finite, so it is not written');
  });

  it('writes a name\'s C1 controls and bidirectional overrides as escapes, which JSON reads back as the same name', async () => {
    const name = 'x\u009b2J\u202eevil\u0085\u2028é';
    const scene = validateScene(
      { format: 'stackfield-scene/1', shapes: { b: { type: 'box', sdf: { cells: 8 } } }, bodies: [{ name, shape: 'b' }] },
      'x.json',
    );
    const world = await createWorld(scene, new CpuPenetrationBackend(), { readText: async () => '' });
    const line = stateLine(world);
    expect(line).toContain('"name":"x\\u009b2J\\u202eevil\\u0085\\u2028é"');
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(JSON.parse(line).bodies[0].name).toBe(name);
  });
});

describe('displayName (the app\'s labels and lists)', () => {
  it('escapes control and bidirectional characters and cuts a long name with an ellipsis', () => {
    expect(displayName('ring7')).toBe('ring7');
    expect(displayName('ring\u001b[31mRED\u0007\u202eevil')).toBe('ring\\u001b[31mRED\\u0007\\u202eevil');
    const long = 'x'.repeat(500);
    expect(displayName(long)).toBe('x'.repeat(40) + '…');
    expect(displayName('<img src=x>')).toBe('<img src=x>');
    // A surrogate pair is not split at the cut.
    expect(displayName('a'.repeat(39) + '😀' + 'b')).toBe('a'.repeat(39) + '…');
  });
});
