/**
 * What every render pass shares: the device, the target format, the bind
 * group layouts, shader modules (render_common.wgsl joined in front of each
 * file), the pipeline defaults (4x MSAA, depth + stencil) and buffer helpers.
 * The interface a pass implements, and the frame it reads, are in types.ts.
 */
import { shaderSource } from '../../gpu/shaders.ts';
import type { VertexInput } from './layout.ts';

export const SAMPLE_COUNT = 4;
export const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus-stencil8';

export interface PipelineSpec {
  label: string;
  input: VertexInput;
  fragmentEntry?: string;
  /** Bind groups after the frame's: none, the point list + style, or the slice. */
  groups: 'frame' | 'points' | 'slice';
  blend?: GPUBlendState;
  primitive?: GPUPrimitiveState;
  depthWrite: boolean;
  depthCompare: GPUCompareFunction;
  stencil?: GPUStencilFaceState;
}

export const ALPHA_BLEND: GPUBlendState = {
  color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' },
  alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' },
};

/**
 * How every shadow is drawn (the rigid bodies', ShadowPass, and the soft
 * surfaces', SoftShadowPass): geometry flattened onto the shadow plane
 * darkens what the ground drew, dst * (1 - a), only on ground pixels
 * (stencil 1), each once (incremented to 2, so overlapping shadows do not
 * darken twice).
 */
export const SHADOW_PIPELINE: Omit<PipelineSpec, 'label' | 'input'> = {
  fragmentEntry: 'fs_shadow',
  groups: 'frame',
  blend: { color: { srcFactor: 'zero', dstFactor: 'one-minus-src-alpha' }, alpha: { srcFactor: 'zero', dstFactor: 'one' } },
  primitive: { cullMode: 'none' },
  depthWrite: false,
  depthCompare: 'always',
  stencil: { compare: 'equal', passOp: 'increment-clamp' },
};

const KEEP_STENCIL: GPUStencilFaceState = { compare: 'always', passOp: 'keep' };

export class RenderContext {
  readonly layouts: { frame: GPUBindGroupLayout; points: GPUBindGroupLayout; slice: GPUBindGroupLayout };
  private readonly pipelineLayouts: Record<PipelineSpec['groups'], GPUPipelineLayout>;
  private readonly modules = new Map<string, GPUShaderModule>();

  constructor(
    readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
  ) {
    const S = GPUShaderStage;
    const frame = device.createBindGroupLayout({
      label: 'frame + instances',
      entries: [
        { binding: 0, visibility: S.VERTEX | S.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: S.VERTEX, buffer: { type: 'read-only-storage' } },
      ],
    });
    const points = device.createBindGroupLayout({
      label: 'points',
      entries: [
        { binding: 0, visibility: S.VERTEX, buffer: { type: 'read-only-storage' } },
        { binding: 1, visibility: S.VERTEX, buffer: { type: 'uniform' } },
      ],
    });
    const slice = device.createBindGroupLayout({
      label: 'slice',
      entries: [
        { binding: 0, visibility: S.VERTEX | S.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: S.FRAGMENT, buffer: { type: 'read-only-storage' } },
      ],
    });
    this.layouts = { frame, points, slice };
    this.pipelineLayouts = {
      frame: device.createPipelineLayout({ bindGroupLayouts: [frame] }),
      points: device.createPipelineLayout({ bindGroupLayouts: [frame, points] }),
      slice: device.createPipelineLayout({ bindGroupLayouts: [frame, slice] }),
    };
  }

  /** The module of one render_*.wgsl file, with render_common.wgsl in front (made once). */
  module(file: string): GPUShaderModule {
    let m = this.modules.get(file);
    if (!m) {
      const code = `${shaderSource('render_common.wgsl', false)}\n${shaderSource(file, false)}`;
      m = this.device.createShaderModule({ label: file, code });
      this.modules.set(file, m);
    }
    return m;
  }

  /** A pipeline with the renderer's defaults: MSAA, the depth + stencil target, one colour target. */
  pipeline(s: PipelineSpec): Promise<GPURenderPipeline> {
    const module = this.module(s.input.file);
    const stencil = s.stencil ?? KEEP_STENCIL;
    return this.device.createRenderPipelineAsync({
      label: s.label,
      layout: this.pipelineLayouts[s.groups],
      vertex: { module, entryPoint: s.input.entryPoint, buffers: [...s.input.buffers] },
      fragment: {
        module,
        entryPoint: s.fragmentEntry ?? 'fs_main',
        targets: [s.blend ? { format: this.format, blend: s.blend } : { format: this.format }],
      },
      primitive: s.primitive ?? {},
      depthStencil: {
        format: DEPTH_FORMAT,
        depthWriteEnabled: s.depthWrite,
        depthCompare: s.depthCompare,
        stencilFront: stencil,
        stencilBack: stencil,
      },
      multisample: { count: SAMPLE_COUNT },
    });
  }

  /** A buffer holding `data` (at least 16 bytes, a multiple of 4). */
  buffer(data: ArrayBufferView, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    const size = Math.max(16, (data.byteLength + 3) & ~3);
    const b = this.device.createBuffer({ size, usage: usage | GPUBufferUsage.COPY_DST, label });
    this.device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  }

  pointBindGroup(points: GPUBuffer, style: GPUBuffer, label: string): GPUBindGroup {
    return this.device.createBindGroup({
      label,
      layout: this.layouts.points,
      entries: [
        { binding: 0, resource: { buffer: points } },
        { binding: 1, resource: { buffer: style } },
      ],
    });
  }
}

/** A storage or vertex buffer that grows by doubling; callers rebuild bind groups when it does. */
export class GrowBuffer {
  buffer: GPUBuffer;
  constructor(
    private readonly device: GPUDevice,
    private readonly usage: GPUBufferUsageFlags,
    private readonly label: string,
    bytes: number,
  ) {
    this.buffer = device.createBuffer({ size: Math.max(256, bytes), usage, label });
  }

  /** Makes room for `bytes`; true when the buffer was replaced. */
  ensure(bytes: number): boolean {
    if (bytes <= this.buffer.size) return false;
    let size = this.buffer.size;
    while (size < bytes) size *= 2;
    this.buffer.destroy();
    this.buffer = this.device.createBuffer({ size, usage: this.usage, label: this.label });
    return true;
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

/** A dot size uniform (render_points.wgsl PointStyle) in CSS pixels, written in device pixels. */
export class PointStyle {
  readonly buffer: GPUBuffer;
  private readonly data = new Float32Array(4);

  constructor(
    private readonly device: GPUDevice,
    private readonly cssPixels: number,
    label: string,
  ) {
    this.buffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label });
    this.setPixelRatio(1);
  }

  setPixelRatio(dpr: number): void {
    this.data[0] = this.cssPixels * dpr;
    this.device.queue.writeBuffer(this.buffer, 0, this.data);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

/**
 * GPU objects a pass builds per shape on first use (sample buffers, SDF
 * values, wireframes) and releases all at once when the scene changes.
 */
export class PerShape<T> {
  private readonly items = new Map<number, T>();
  constructor(
    private readonly make: (shape: number) => T,
    private readonly release: (item: T) => void,
  ) {}

  get(shape: number): T {
    let v = this.items.get(shape);
    if (v === undefined) {
      v = this.make(shape);
      this.items.set(shape, v);
    }
    return v;
  }

  clear(): void {
    for (const v of this.items.values()) this.release(v);
    this.items.clear();
  }
}
