/**
 * Getting a WebGPU device, in the browser (navigator.gpu) and in Node (Dawn
 * through the `webgpu` npm package), and turning WebGPU's asynchronous error
 * reporting into exceptions.
 *
 * Why the care: WebGPU never throws for a bad pipeline or a bad buffer use. It
 * records a validation error on the device and carries on, so a broken pass
 * silently reads zeros or, worse, a caller waits for a result that means
 * nothing. `checkErrors` wraps a piece of GPU work in error scopes and throws
 * with the driver's message instead. Errors that escape every scope, and
 * device loss, are logged once with a clear prefix and remembered on the
 * context so later calls can say why they fail.
 */
import { GpuUnavailableError } from '../errors.ts';
import { shaderSource } from './shaders.ts';

export interface GpuContext {
  device: GPUDevice;
  /** Vendor / architecture / device / description of the adapter, whichever are non-empty. */
  adapterInfo: string;
  /** True when the device was created with 'timestamp-query' (passes may then time themselves). */
  hasTimestamps: boolean;
  /**
   * True for a fallback adapter or a known CPU rasteriser (SwiftShader, llvmpipe, WARP): WebGPU
   * works, but runs on the CPU, slower than the CPU backend's own code.
   */
  software: boolean;
  /** Why the device was lost, or null while it is alive (or after destroy()). */
  lostReason: string | null;
  destroy(): void;
}

export interface AcquireGpuOptions {
  powerPreference?: GPUPowerPreference;
  /** Ask for 'timestamp-query' when the adapter has it (default true). */
  timestamps?: boolean;
  /** Called for errors no error scope caught (default: console.error). */
  onUncapturedError?: (message: string) => void;
  /** Called once if the device is lost for any reason but destroy() (default: console.error). */
  onLost?: (message: string) => void;
}

/** A GPU validation or out-of-memory error caught by `checkErrors`; still a GpuUnavailableError for the CLI. */
export class GpuValidationError extends GpuUnavailableError {
  override name = 'GpuValidationError';
}

let nodeGpu: Promise<GPU> | null = null;

/** Loads Dawn for Node. The specifier is hidden from Vite so the browser bundle never includes it. */
function loadNodeGpu(): Promise<GPU> {
  nodeGpu ??= (async () => {
    const specifier = 'webgpu';
    let mod: { create(options: string[]): GPU; globals: Record<string, unknown> };
    try {
      mod = await import(/* @vite-ignore */ specifier);
    } catch (e) {
      throw new GpuUnavailableError(
        `WebGPU is not available: cannot load the "webgpu" package (${errorText(e)}); use --backend cpu`,
      );
    }
    // GPUBufferUsage, GPUMapMode, GPUShaderStage... are globals in a browser; Dawn hands them over separately.
    const g = globalThis as Record<string, unknown>;
    for (const [k, v] of Object.entries(mod.globals)) if (!(k in g)) g[k] = v;
    return mod.create([]);
  })();
  return nodeGpu;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return withoutNativeFrames(e.message) || e.name || 'no details';
  return withoutNativeFrames(String(e));
}

/** A native call site Dawn appends to its messages: "    at CheckVkSuccessImpl (/home/.../VulkanError.cpp:106)". */
const NATIVE_FRAME = /^\s*at \S[^\n]*\([^\n()]*:\d+\)\s*$/;

/**
 * Dawn's text without its native call sites: Dawn ends an error's message
 * with a line per frame of its C++ source. Shown to a user they read as a
 * stack trace of this program (a bug), and name a file on the machine that
 * built Dawn; the reason, and Dawn's " - While ..." lines that say what it
 * was doing, are kept.
 */
export function withoutNativeFrames(text: string): string {
  return text
    .split('\n')
    .filter((line) => !NATIVE_FRAME.test(line))
    .join('\n')
    .trimEnd();
}

/** Node only: why no Vulkan driver can load, found before Dawn starts (src/cli/nodePlatform.ts), or null. */
let driverCheck: (() => string | null) | null = null;

/**
 * Installs the check acquireGpu runs before it loads Dawn in Node. Dawn that
 * finds no driver writes the failure, native call site and all, straight to
 * the process's standard error, where no JavaScript can filter it; a driver
 * setting known to fail is better said before that.
 */
export function setDriverCheck(check: (() => string | null) | null): void {
  driverCheck = check;
}

function describeAdapter(info: GPUAdapterInfo | undefined): string {
  if (!info) return 'unknown adapter';
  const parts = [info.vendor, info.architecture, info.device, info.description].filter((s) => !!s && s.length > 0);
  return parts.length > 0 ? parts.join(' / ') : 'unknown adapter';
}

export async function acquireGpu(opts: AcquireGpuOptions = {}): Promise<GpuContext> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  let gpu: GPU;
  if (nav?.gpu) {
    gpu = nav.gpu;
  } else if (typeof process !== 'undefined' && process.versions?.node) {
    const noDriver = driverCheck?.() ?? null;
    if (noDriver !== null) throw new GpuUnavailableError(`WebGPU is not available: no adapter found (${noDriver}); use --backend cpu`);
    gpu = await loadNodeGpu();
  } else {
    throw new GpuUnavailableError('WebGPU is not available: this browser has no navigator.gpu; use --backend cpu');
  }

  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter(opts.powerPreference ? { powerPreference: opts.powerPreference } : undefined);
  } catch (e) {
    throw new GpuUnavailableError(`WebGPU is not available: requestAdapter failed (${errorText(e)}); use --backend cpu`);
  }
  if (!adapter) {
    const hint =
      typeof process !== 'undefined' && process.versions?.node
        ? `no adapter found (VK_ICD_FILENAMES=${process.env['VK_ICD_FILENAMES'] ?? '<unset>'})`
        : 'no adapter found';
    throw new GpuUnavailableError(`WebGPU is not available: ${hint}; use --backend cpu`);
  }

  const wantTimestamps = opts.timestamps !== false && adapter.features.has('timestamp-query');
  const requiredFeatures: GPUFeatureName[] = wantTimestamps ? ['timestamp-query'] : [];
  // Ask for the adapter's storage limits: the bake and the query bind large buffers.
  const al = adapter.limits;
  const requiredLimits: Record<string, number> = {
    maxStorageBufferBindingSize: al.maxStorageBufferBindingSize,
    maxBufferSize: al.maxBufferSize,
    maxComputeWorkgroupsPerDimension: al.maxComputeWorkgroupsPerDimension,
  };
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ requiredFeatures, requiredLimits, label: 'stackfield' });
  } catch (e) {
    throw new GpuUnavailableError(`WebGPU is not available: requestDevice failed (${errorText(e)}); use --backend cpu`);
  }

  const adapterInfo = describeAdapter(adapter.info);
  const software = isSoftwareAdapter(adapter, adapterInfo);
  const reportError = opts.onUncapturedError ?? ((m: string) => console.error(m));
  const reportLost = opts.onLost ?? ((m: string) => console.error(m));
  let destroyed = false;
  const ctx: GpuContext = {
    device,
    adapterInfo,
    hasTimestamps: wantTimestamps,
    software,
    lostReason: null,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      destroyedDevices.add(device);
      device.destroy();
    },
  };
  device.addEventListener('uncapturederror', (ev) => {
    const err = (ev as GPUUncapturedErrorEvent).error;
    reportError(`stackfield: uncaught WebGPU error on ${adapterInfo}: ${withoutNativeFrames(err.message)}`);
  });
  void device.lost.then((info) => {
    if (destroyed || info.reason === 'destroyed') return;
    ctx.lostReason = deviceLostMessage(info);
    reportLost(`stackfield: ${ctx.lostReason}`);
  });
  lostReasons.set(device, ctx);
  return ctx;
}

/**
 * "WebGPU device lost (unknown): Device was destroyed", without the driver's
 * closing period, so a caller can end its own sentence after it (the app
 * once said "Device was destroyed..").
 */
export function deviceLostMessage(info: { reason: string; message: string }): string {
  const message = withoutNativeFrames(info.message).trim().replace(/\.+$/, '') || 'no message';
  return `WebGPU device lost (${info.reason}): ${message}`;
}

/** Names of adapters that rasterise on the CPU. */
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|\bwarp\b|basic render driver/i;

/**
 * A fallback adapter (GPUAdapterInfo.isFallbackAdapter, or the older
 * GPUAdapter.isFallbackAdapter) or one whose name says it is a CPU rasteriser:
 * browsers do not always flag SwiftShader as a fallback.
 */
export function isSoftwareAdapter(adapter: GPUAdapter | null, description: string): boolean {
  const flags = adapter as unknown as { isFallbackAdapter?: boolean; info?: { isFallbackAdapter?: boolean } } | null;
  return !!(flags?.info?.isFallbackAdapter || flags?.isFallbackAdapter) || SOFTWARE_ADAPTER.test(description);
}

/** Context per device, so passes holding only a GPUDevice can explain a loss. */
const lostReasons = new WeakMap<GPUDevice, GpuContext>();

/** Devices destroyed through their context's destroy(). */
const destroyedDevices = new WeakSet<GPUDevice>();

/** Why `device` can no longer be used (lost, or destroyed on purpose), or null while it can. */
export function deviceLostReason(device: GPUDevice): string | null {
  if (destroyedDevices.has(device)) return 'the WebGPU device was destroyed';
  return lostReasons.get(device)?.lostReason ?? null;
}

/**
 * Runs `fn` (which records and submits GPU work, and may await its results)
 * inside validation and out-of-memory error scopes; throws a
 * GpuValidationError naming `label` and carrying the driver's message if
 * either caught something. Errors thrown by `fn` itself win (scopes are
 * still popped so the stack stays balanced). Scopes belong to the device,
 * not to `fn`: GPU calls made elsewhere while `fn` awaits are caught too,
 * which only ever attributes an error to the wrong label, never loses it.
 */
export async function checkErrors<T>(device: GPUDevice, label: string, fn: () => T | Promise<T>): Promise<T> {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: T | undefined;
  let thrown: unknown = null;
  let failed = false;
  try {
    result = await fn();
  } catch (e) {
    thrown = e;
    failed = true;
  }
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  if (failed) {
    const lost = deviceLostReason(device);
    if (lost && !(thrown instanceof GpuUnavailableError)) {
      throw new GpuUnavailableError(`${label}: ${lost} (${errorText(thrown)})`);
    }
    // A rejected promise often only says "invalid due to a previous error"; the scope holds that error.
    const cause = validation ?? oom;
    if (cause && !(thrown instanceof GpuUnavailableError)) {
      throw new GpuValidationError(`${label}: ${errorText(thrown)}; WebGPU error: ${withoutNativeFrames(cause.message)}`);
    }
    throw thrown;
  }
  if (validation) throw new GpuValidationError(`${label}: WebGPU validation error: ${withoutNativeFrames(validation.message)}`);
  if (oom) throw new GpuValidationError(`${label}: WebGPU out of memory: ${withoutNativeFrames(oom.message)}`);
  return result as T;
}

let shared: Promise<GpuContext> | null = null;

/**
 * One device per process (tests and the CLI share it; creating Dawn devices
 * is slow and each holds driver memory). A failed attempt is not cached
 * forever: the next call tries again.
 */
export function sharedGpu(): Promise<GpuContext> {
  if (!shared) {
    shared = acquireGpu().then(
      (ctx) => {
        // Destroying the shared device would break every later user; make it a no-op.
        const realDestroy = ctx.destroy;
        ctx.destroy = () => {};
        sharedDestroy = realDestroy;
        return ctx;
      },
      (e: unknown) => {
        shared = null;
        throw e;
      },
    );
  }
  return shared;
}

let sharedDestroy: (() => void) | null = null;

/** Destroys the shared device (end of a CLI run, so Dawn lets the process exit). */
export function releaseSharedGpu(): void {
  sharedDestroy?.();
  sharedDestroy = null;
  shared = null;
}

/** Whether the environment demands a GPU (CI with a driver): STACKFIELD_REQUIRE_GPU=1. */
export function gpuRequired(): boolean {
  return typeof process !== 'undefined' && process.env?.['STACKFIELD_REQUIRE_GPU'] === '1';
}

let announced = false;

/**
 * The shared device for tests and tools (logs the adapter once per process). Always rejects when no adapter can be
 * had; with STACKFIELD_REQUIRE_GPU=1 the message says the GPU was required, so
 * a CI machine that lost its driver fails loudly instead of quietly running
 * nothing. `acquire` is for tests of this rule.
 */
export async function requireGpuFromEnv(acquire: () => Promise<GpuContext> = sharedGpu): Promise<GpuContext> {
  try {
    const ctx = await acquire();
    if (!announced) {
      announced = true;
      // Once per process, so a CI log shows which adapter (e.g. SwiftShader) ran the GPU tests.
      console.log(`stackfield: WebGPU adapter: ${ctx.adapterInfo}${ctx.hasTimestamps ? ' (timestamp-query)' : ''}`);
    }
    return ctx;
  } catch (e) {
    if (gpuRequired()) {
      throw new GpuUnavailableError(`STACKFIELD_REQUIRE_GPU=1 but no GPU could be acquired: ${errorText(e)}`);
    }
    throw e;
  }
}

/**
 * A compute pipeline from WGSL source; a shader that does not compile throws
 * a GpuValidationError listing the compiler's messages with line:column
 * (WebGPU alone would only report an invalid pipeline later).
 */
export async function createComputePipelineChecked(
  device: GPUDevice,
  desc: {
    label: string;
    code: string;
    layout: GPUPipelineLayout | 'auto';
    constants?: Record<string, number>;
    /** A file prepended to `code` (common.wgsl) and its line count, so messages name the right file and line. */
    prefix?: { file: string; lines: number };
  },
): Promise<GPUComputePipeline> {
  // The scope keeps the module's own error from also going to the
  // uncaptured-error handler: the compilation messages below say it better.
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label: desc.label, code: desc.code });
  const info = await module.getCompilationInfo();
  const moduleError = await device.popErrorScope();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length === 0 && moduleError) {
    throw new GpuValidationError(`${desc.label}: ${withoutNativeFrames(moduleError.message)}`);
  }
  if (errors.length > 0) {
    const where = (line: number): string =>
      desc.prefix && line > 0 && line <= desc.prefix.lines
        ? `${desc.prefix.file}:${line}`
        : `${desc.label}:${line - (desc.prefix?.lines ?? 0)}`;
    const lines = errors.map((m) => `  ${where(m.lineNum)}:${m.linePos}: ${m.message}`);
    throw new GpuValidationError(`WGSL compilation failed:\n${lines.join('\n')}`);
  }
  return device.createComputePipelineAsync({
    label: desc.label,
    layout: desc.layout,
    compute: desc.constants ? { module, entryPoint: 'main', constants: desc.constants } : { module, entryPoint: 'main' },
  });
}

/** A pass's WGSL with common.wgsl prepended, and the prefix to hand to createComputePipelineChecked. */
export function passSource(file: string): { code: string; prefix: { file: string; lines: number } } {
  return {
    code: shaderSource(file, true),
    prefix: { file: 'common.wgsl', lines: shaderSource('common.wgsl', false).split('\n').length },
  };
}
