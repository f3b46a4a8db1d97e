/**
 * Device acquisition and error reporting (src/gpu/device.ts): WebGPU reports
 * mistakes asynchronously and never throws on its own, so these guard that a
 * broken shader or buffer use becomes an exception with the driver's message
 * rather than garbage results or a hang.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GpuUnavailableError } from '../../src/errors.ts';
import {
  acquireGpu,
  checkErrors,
  createComputePipelineChecked,
  GpuValidationError,
  isSoftwareAdapter,
  passSource,
  requireGpuFromEnv,
  sharedGpu,
  type GpuContext,
} from '../../src/gpu/device.ts';
import { bakeTriangleTableGpu } from '../../src/gpu/sdfBakePass.ts';

describe('WebGPU device', () => {
  let gpu: GpuContext;
  beforeAll(async () => {
    gpu = await requireGpuFromEnv();
  });

  it('describes its adapter and is shared by every caller in the process', async () => {
    expect(gpu.adapterInfo.length).toBeGreaterThan(0);
    expect(gpu.adapterInfo).not.toBe('unknown adapter');
    expect(await sharedGpu()).toBe(gpu);
    // destroy() on the shared context must not pull the device from under other users.
    gpu.destroy();
    expect(gpu.lostReason).toBeNull();
    const b = gpu.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
    await checkErrors(gpu.device, 'after shared destroy', () => b.destroy());
  });

  it('tells a software adapter (a CPU rasteriser or a fallback adapter) from a hardware one', () => {
    // The tests run on SwiftShader.
    if (/swiftshader/i.test(gpu.adapterInfo)) expect(gpu.software).toBe(true);
    expect(isSoftwareAdapter(null, 'google / swiftshader / swiftshader-device-subzero-')).toBe(true);
    expect(isSoftwareAdapter(null, 'mesa / llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftwareAdapter(null, 'Microsoft Basic Render Driver')).toBe(true);
    expect(isSoftwareAdapter(null, 'nvidia / ada / NVIDIA GeForce RTX 4070')).toBe(false);
    expect(isSoftwareAdapter(null, 'apple / metal-3 / Apple M2')).toBe(false);
    // A word inside another does not count ("warp" in a name).
    expect(isSoftwareAdapter(null, 'amd / rdna-3 / Radeon warpdrive')).toBe(false);
    expect(isSoftwareAdapter({ info: { isFallbackAdapter: true } } as unknown as GPUAdapter, 'some adapter')).toBe(true);
    expect(isSoftwareAdapter({ isFallbackAdapter: true } as unknown as GPUAdapter, 'some adapter')).toBe(true);
    expect(isSoftwareAdapter({ info: { isFallbackAdapter: false } } as unknown as GPUAdapter, 'some adapter')).toBe(false);
  });

  it('a WGSL compile error throws with file, line and the compiler message', async () => {
    const code = 'override WORKGROUP_SIZE: u32 = 64u;\n@compute @workgroup_size(1) fn main() {\n  let x: f32 = undefined_thing;\n}\n';
    const err = await createComputePipelineChecked(gpu.device, { label: 'broken.wgsl', code, layout: 'auto' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuValidationError);
    expect(err).toBeInstanceOf(GpuUnavailableError);
    expect((err as Error).message).toMatch(/broken\.wgsl:3:\d+: .*undefined_thing/);
  });

  it('errors in a pass after common.wgsl are reported at the pass file line', async () => {
    const { prefix } = passSource('penetration.wgsl');
    const code = `${'// common\n'.repeat(prefix.lines - 1)}\n@compute @workgroup_size(1) fn main() { let y = nope; }\n`;
    const err = await createComputePipelineChecked(gpu.device, { label: 'pass.wgsl', code, layout: 'auto', prefix }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/pass\.wgsl:1:\d+: .*nope/);
  });

  it('an invalid buffer use inside checkErrors throws a validation error with its label', async () => {
    const device = gpu.device;
    await expect(
      checkErrors(device, 'bad copy', async () => {
        const a = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_SRC });
        const b = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST });
        const enc = device.createCommandEncoder();
        enc.copyBufferToBuffer(a, 0, b, 0, 64); // past the end of both
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
      }),
    ).rejects.toThrow(/^bad copy: WebGPU validation error: .+/s);
    // Invalid usage flags (MAP_READ may only pair with COPY_DST).
    await expect(
      checkErrors(device, 'bad usage', () => {
        device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
      }),
    ).rejects.toBeInstanceOf(GpuValidationError);
  });

  it('an exception inside checkErrors propagates and leaves the error scopes balanced', async () => {
    const device = gpu.device;
    await expect(
      checkErrors(device, 'throws', () => {
        throw new RangeError('boom');
      }),
    ).rejects.toThrow('boom');
    // A clean run afterwards returns its value: no stale scope swallowed or reported anything.
    expect(await checkErrors(device, 'clean', () => 42)).toBe(42);
  });

  it('the bake refuses an empty triangle table with a message instead of dispatching', async () => {
    await expect(bakeTriangleTableGpu(gpu.device, new Float32Array(0), { origin: [0, 0, 0], cellSize: 1, dims: [2, 2, 2] })).rejects.toThrow(
      /whole number of 10-vec4f triangles/,
    );
  });

  it('errors outside any scope reach the uncaptured-error handler with a clear prefix', async () => {
    const messages: string[] = [];
    const own = await acquireGpu({ onUncapturedError: (m) => messages.push(m), timestamps: false });
    try {
      own.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
      await own.device.queue.onSubmittedWorkDone();
      for (let i = 0; i < 50 && messages.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(messages.length).toBeGreaterThan(0);
      expect(messages[0]).toMatch(/^stackfield: uncaught WebGPU error on .+: /);
    } finally {
      own.destroy();
    }
    // Destroying a device on purpose is not reported as a loss.
    await own.device.lost;
    expect(own.lostReason).toBeNull();
  });

  it('with STACKFIELD_REQUIRE_GPU=1 a missing adapter fails loudly, naming the variable', async () => {
    const saved = process.env['STACKFIELD_REQUIRE_GPU'];
    process.env['STACKFIELD_REQUIRE_GPU'] = '1';
    try {
      const noGpu = (): Promise<GpuContext> => Promise.reject(new GpuUnavailableError('WebGPU is not available: no adapter found; use --backend cpu'));
      await expect(requireGpuFromEnv(noGpu)).rejects.toThrow(/STACKFIELD_REQUIRE_GPU=1 but no GPU could be acquired: WebGPU is not available/);
    } finally {
      if (saved === undefined) delete process.env['STACKFIELD_REQUIRE_GPU'];
      else process.env['STACKFIELD_REQUIRE_GPU'] = saved;
    }
  });
});
