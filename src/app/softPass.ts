/**
 * The soft bodies in the WebGPU renderer, as one pass object that owns its
 * pipelines and buffers (record / destroy, like the renderer's other passes):
 *
 *  - recordShadow: the surfaces' planar shadows, drawn where the rigid
 *    bodies' are (ground pixels, stencil 1, each darkened once);
 *  - recordSurface: the skinned surfaces, lit, depth-tested with the bodies;
 *  - recordOverlay: the views "soft springs" (lines coloured by strain; the
 *    renderer then leaves the surface out, so the net shows inside) and
 *    "soft particles" (dots), over the scene.
 *
 * Everything is rebuilt per frame from the SoftSystem into reused arrays
 * (softGeometry.ts) and written with writeBuffer; buffers grow by doubling,
 * so a steady frame creates no GPU object. Shaders: render_soft.wgsl (the
 * surface and its shadow), render_lines.wgsl and render_points.wgsl (as the
 * overlays), each with render_common.wgsl in front, bind group 0 the
 * renderer's frame uniform and instances.
 */
import { shaderSource } from '../gpu/shaders.ts';
import type { SoftSystem } from '../soft/system.ts';
import { VERTEX_BYTES } from './overlays.ts';
import { SOFT_VERTEX_BYTES, SoftGeometry } from './softGeometry.ts';

/** Which soft views are on. */
export interface SoftViews {
  /** The surfaces (with the renderer's "solids"; their shadows are drawn either way). */
  surface: boolean;
  springs: boolean;
  particles: boolean;
}

export interface SoftPassTarget {
  format: GPUTextureFormat;
  sampleCount: number;
  depthFormat: GPUTextureFormat;
  /** Bind group 0 of the renderer: frame uniform (binding 0) and instances (binding 1). */
  frameLayout: GPUBindGroupLayout;
}

/** A GPU buffer that grows by doubling. */
class Grow {
  buffer: GPUBuffer;
  constructor(private readonly device: GPUDevice, private readonly usage: GPUBufferUsageFlags, private readonly label: string) {
    this.buffer = device.createBuffer({ size: 256, usage: usage | GPUBufferUsage.COPY_DST, label });
  }
  /** Room for `bytes`; true when the buffer was replaced (bind groups on it must be remade). */
  ensure(bytes: number): boolean {
    if (bytes <= this.buffer.size) return false;
    let size = this.buffer.size;
    while (size < bytes) size *= 2;
    this.buffer.destroy();
    this.buffer = this.device.createBuffer({ size, usage: this.usage | GPUBufferUsage.COPY_DST, label: this.label });
    return true;
  }
  write(data: ArrayBufferView): void {
    this.ensure(data.byteLength);
    this.device.queue.writeBuffer(this.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  }
  destroy(): void {
    this.buffer.destroy();
  }
}

/** Dot size of a particle in CSS pixels. */
const PARTICLE_PX = 4;

export class SoftPass {
  readonly label = 'soft bodies';
  private geometry: SoftGeometry | null = null;
  private readonly surface: Grow;
  private readonly index: Grow;
  private readonly lines: Grow;
  private readonly points: Grow;
  private readonly style: GPUBuffer;
  private pointGroup: GPUBindGroup;
  private indexCount = 0;
  private lineCount = 0;
  private pointCount = 0;
  private views: SoftViews = { surface: true, springs: false, particles: false };

  private constructor(
    private readonly device: GPUDevice,
    private readonly pipelines: { surface: GPURenderPipeline; shadow: GPURenderPipeline; lines: GPURenderPipeline; points: GPURenderPipeline },
    private readonly pointLayout: GPUBindGroupLayout,
  ) {
    const U = GPUBufferUsage;
    this.surface = new Grow(device, U.VERTEX, 'soft surface');
    this.index = new Grow(device, U.INDEX, 'soft surface triangles');
    this.lines = new Grow(device, U.VERTEX, 'soft springs');
    this.points = new Grow(device, U.STORAGE, 'soft particles');
    this.style = device.createBuffer({ size: 16, usage: U.UNIFORM | U.COPY_DST, label: 'soft particle style' });
    this.setPixelRatio(1);
    this.pointGroup = this.makePointGroup();
  }

  static async create(device: GPUDevice, t: SoftPassTarget): Promise<SoftPass> {
    const S = GPUShaderStage;
    const pointLayout = device.createBindGroupLayout({
      label: 'soft particles',
      entries: [
        { binding: 0, visibility: S.VERTEX, buffer: { type: 'read-only-storage' } },
        { binding: 1, visibility: S.VERTEX, buffer: { type: 'uniform' } },
      ],
    });
    const common = shaderSource('render_common.wgsl', false);
    const module = (file: string) => device.createShaderModule({ label: file, code: `${common}\n${shaderSource(file, false)}` });
    const soft = module('render_soft.wgsl'), lines = module('render_lines.wgsl'), points = module('render_points.wgsl');
    const layout0 = device.createPipelineLayout({ bindGroupLayouts: [t.frameLayout] });
    const layoutPts = device.createPipelineLayout({ bindGroupLayouts: [t.frameLayout, pointLayout] });
    const surfaceVertex: GPUVertexBufferLayout = {
      arrayStride: SOFT_VERTEX_BYTES,
      attributes: [
        { shaderLocation: 0, offset: 0, format: 'float32x3' },
        { shaderLocation: 1, offset: 12, format: 'float32x3' },
        { shaderLocation: 2, offset: 24, format: 'unorm8x4' },
      ],
    };
    const positionOnly: GPUVertexBufferLayout = { arrayStride: SOFT_VERTEX_BYTES, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }] };
    const coloured: GPUVertexBufferLayout = {
      arrayStride: VERTEX_BYTES,
      attributes: [
        { shaderLocation: 0, offset: 0, format: 'float32x3' },
        { shaderLocation: 1, offset: 12, format: 'unorm8x4' },
      ],
    };
    const alphaBlend: GPUBlendState = {
      color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' },
      alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' },
    };
    const keep: GPUStencilFaceState = { compare: 'always', passOp: 'keep' };
    const depth = (write: boolean, compare: GPUCompareFunction, stencil: GPUStencilFaceState = keep): GPUDepthStencilState => ({
      format: t.depthFormat,
      depthWriteEnabled: write,
      depthCompare: compare,
      stencilFront: stencil,
      stencilBack: stencil,
    });
    const ms: GPUMultisampleState = { count: t.sampleCount };
    const make = (d: GPURenderPipelineDescriptor) => device.createRenderPipelineAsync(d);
    const [surface, shadow, linesP, pointsP] = await Promise.all([
      make({
        label: 'soft surface',
        layout: layout0,
        vertex: { module: soft, entryPoint: 'vs_surface', buffers: [surfaceVertex] },
        fragment: { module: soft, entryPoint: 'fs_surface', targets: [{ format: t.format }] },
        // No culling: a body squashed through itself for a moment still shows a surface.
        primitive: { cullMode: 'none' },
        depthStencil: depth(true, 'less'),
        multisample: ms,
      }),
      make({
        label: 'soft shadow',
        layout: layout0,
        vertex: { module: soft, entryPoint: 'vs_shadow', buffers: [positionOnly] },
        fragment: {
          module: soft,
          entryPoint: 'fs_shadow',
          targets: [{ format: t.format, blend: { color: { srcFactor: 'zero', dstFactor: 'one-minus-src-alpha' }, alpha: { srcFactor: 'zero', dstFactor: 'one' } } }],
        },
        primitive: { cullMode: 'none' },
        // Ground pixels not yet shadowed (stencil 1), each once (then 2), as the rigid bodies' shadows.
        depthStencil: depth(false, 'always', { compare: 'equal', passOp: 'increment-clamp' }),
        multisample: ms,
      }),
      make({
        label: 'soft springs',
        layout: layout0,
        vertex: { module: lines, entryPoint: 'vs_world', buffers: [coloured] },
        fragment: { module: lines, entryPoint: 'fs_main', targets: [{ format: t.format, blend: alphaBlend }] },
        primitive: { topology: 'line-list' },
        depthStencil: depth(false, 'always'),
        multisample: ms,
      }),
      make({
        label: 'soft particles',
        layout: layoutPts,
        vertex: { module: points, entryPoint: 'vs_main' },
        fragment: { module: points, entryPoint: 'fs_main', targets: [{ format: t.format, blend: alphaBlend }] },
        depthStencil: depth(false, 'always'),
        multisample: ms,
      }),
    ]);
    return new SoftPass(device, { surface, shadow, lines: linesP, points: pointsP }, pointLayout);
  }

  private makePointGroup(): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'soft particles',
      layout: this.pointLayout,
      entries: [
        { binding: 0, resource: { buffer: this.points.buffer } },
        { binding: 1, resource: { buffer: this.style } },
      ],
    });
  }

  /** The soft bodies to draw (null: none); colours continue the rigid bodies' palette from `colorOffset`. */
  setSystem(system: SoftSystem | null, colorOffset = 0): void {
    this.geometry = system && system.bodies.length > 0 ? new SoftGeometry(system, colorOffset) : null;
    this.indexCount = this.lineCount = this.pointCount = 0;
    if (this.geometry) this.index.write(this.geometry.indices);
  }

  setPixelRatio(dpr: number): void {
    this.device.queue.writeBuffer(this.style, 0, new Float32Array([PARTICLE_PX * dpr, 0, 0, 0]));
  }

  /** Writes this frame's geometry for the views that are on. */
  prepare(views: SoftViews): void {
    this.views = views;
    const g = this.geometry;
    if (!g) return;
    // The surface always (its shadow falls whatever the views).
    g.updateSurface();
    this.surface.write(g.vertices);
    this.indexCount = g.indices.length;
    this.lineCount = 0;
    if (views.springs) {
      g.updateSprings();
      this.lines.write(g.springLines.bytes());
      this.lineCount = g.springLines.count;
    }
    this.pointCount = 0;
    if (views.particles) {
      g.updateParticles();
      if (this.points.ensure(g.particlePoints.count * VERTEX_BYTES)) this.pointGroup = this.makePointGroup();
      this.points.write(g.particlePoints.bytes());
      this.pointCount = g.particlePoints.count;
    }
  }

  recordShadow(pass: GPURenderPassEncoder): void {
    if (!this.geometry || this.indexCount === 0) return;
    pass.setStencilReference(1);
    pass.setPipeline(this.pipelines.shadow);
    pass.setVertexBuffer(0, this.surface.buffer);
    pass.setIndexBuffer(this.index.buffer, 'uint32');
    pass.drawIndexed(this.indexCount);
  }

  recordSurface(pass: GPURenderPassEncoder): void {
    if (!this.geometry || !this.views.surface || this.indexCount === 0) return;
    pass.setPipeline(this.pipelines.surface);
    pass.setVertexBuffer(0, this.surface.buffer);
    pass.setIndexBuffer(this.index.buffer, 'uint32');
    pass.drawIndexed(this.indexCount);
  }

  recordOverlay(pass: GPURenderPassEncoder): void {
    if (!this.geometry) return;
    if (this.lineCount > 0) {
      pass.setPipeline(this.pipelines.lines);
      pass.setVertexBuffer(0, this.lines.buffer);
      pass.draw(this.lineCount);
    }
    if (this.pointCount > 0) {
      pass.setPipeline(this.pipelines.points);
      pass.setBindGroup(1, this.pointGroup);
      pass.draw(6 * this.pointCount);
    }
  }

  destroy(): void {
    this.geometry = null;
    for (const b of [this.surface, this.index, this.lines, this.points]) b.destroy();
    this.style.destroy();
  }
}
