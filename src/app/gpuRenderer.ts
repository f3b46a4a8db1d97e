/**
 * The WebGPU renderer: lit bodies instanced per shape, analytic planes as a
 * gridded ground, planar shadows, and the debug views (wireframe, samples,
 * depth field + SDF slice, AABBs, contacts, graph levels).
 *
 * One render pass per frame, 4x MSAA, drawn in this order:
 *   background -> ground (writes stencil 1) -> shadows (stencil == 1, then
 *   incremented so overlapping shadows darken a pixel once) -> bodies ->
 *   SDF slice -> wireframe -> overlay lines -> points.
 *
 * Buffers: one render vertex buffer per shape (position + crease normal per
 * triangle corner), one wireframe position + edge index buffer per shape,
 * one instance storage buffer for every body (slot 0 the identity for
 * world-space overlays, then bodies grouped by shape so each shape is one
 * instanced draw with a firstInstance offset). The instance data is
 * rewritten every frame from the Float64 state.
 */
import { mat4 } from 'wgpu-matrix';
import { uniqueEdges, sampleCount } from '../geometry/samples.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import { checkErrors } from '../gpu/device.ts';
import { shaderSource } from '../gpu/shaders.ts';
import { cameraEye, viewProjection, type OrbitCamera } from './camera.ts';
import {
  bodyMatrix,
  FRAME,
  FRAME_BYTES,
  FRAME_FLOATS,
  INSTANCE_BYTES,
  INSTANCE_FLOATS,
  shadowMatrix,
  shadowPlane,
} from './frameData.ts';
import { bodyColor, levelColor, packColor, pushBoxLines, pushContact, pushSegments, VertexList, VERTEX_BYTES, worldAabb } from './overlays.ts';
import { buildRenderMesh, RENDER_VERTEX_FLOATS } from './renderMesh.ts';
import { LIGHT_DIR, type RenderWorld, type SceneRenderer } from './sceneRenderer.ts';
import { drawsSolids, type ViewState } from './views.ts';
import { depthFieldNodes, sliceQuad } from './sdfView.ts';
import { SoftPass } from './softPass.ts';
import { softSystemOf } from './sceneRenderer.ts';

const SAMPLE_COUNT = 4;
const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus-stencil8';
/** Bytes of the Slice uniform in render_slice.wgsl: 4 vec4f + 1 vec4u. */
const SLICE_BYTES = 80;

interface GpuShape {
  shape: RigidShape;
  vertices: GPUBuffer;
  vertexCount: number;
  wirePositions: GPUBuffer;
  wireIndices: GPUBuffer;
  wireIndexCount: number;
  /** Collision samples: vertices [0, vertexCount) drawn larger than edge samples [vertexCount, sampleCount). */
  samples: { vertices: GPUBindGroup; edges: GPUBindGroup; vertexCount: number; sampleCount: number } | null;
  /** Lazily built for the depth field view: outside nodes first, then inside ones, each with its dot size. */
  nodes: { outside: GPUBindGroup; inside: GPUBindGroup; outsideCount: number; insideCount: number } | null;
  phi: GPUBuffer | null;
}

/** A storage or vertex buffer that grows by doubling; its bind group is rebuilt when it does. */
class GrowBuffer {
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

export class WebGpuRenderer implements SceneRenderer {
  readonly kind = 'webgpu' as const;
  private readonly context: GPUCanvasContext;
  private msaa: GPUTexture | null = null;
  private depth: GPUTexture | null = null;
  private world: RenderWorld | null = null;
  private shapes: GpuShape[] = [];
  /** Bodies of shape s occupy instance slots [shapeFirst[s], shapeFirst[s] + shapeCount[s]). */
  private shapeFirst = new Uint32Array(0);
  private shapeCount = new Uint32Array(0);
  private slotOf = new Uint32Array(0);

  private readonly frameBuffer: GPUBuffer;
  private readonly frameData = new Float32Array(FRAME_FLOATS);
  private readonly instances: GrowBuffer;
  private instanceData = new Float32Array(INSTANCE_FLOATS * 64);
  private frameBindGroup: GPUBindGroup;

  private readonly lineVerts = new VertexList(1024);
  private readonly pointVerts = new VertexList(256);
  private readonly lineBuffer: GrowBuffer;
  private readonly pointBuffer: GrowBuffer;
  private pointBindGroup: GPUBindGroup;
  /** Dot sizes in CSS pixels per style uniform; scaled by the pixel ratio. */
  private readonly styles: { buffer: GPUBuffer; px: number }[] = [];
  private readonly styleVertex: GPUBuffer;
  private readonly styleEdge: GPUBuffer;
  private readonly styleInside: GPUBuffer;
  private readonly styleOutside: GPUBuffer;
  private readonly styleContacts: GPUBuffer;
  private readonly sliceUniform: GPUBuffer;
  private readonly sliceData = new ArrayBuffer(SLICE_BYTES);
  private sliceBindGroup: GPUBindGroup | null = null;
  private sliceBindShape = -1;
  private readonly aabbScratch = new Float64Array(6);
  private readonly colorScratch = new Float32Array(3);
  private readonly viewProj = mat4.create();
  private readonly eye = new Float32Array(3);
  private width = 1;
  private height = 1;
  private dpr = 1;

  private constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly device: GPUDevice,
    private readonly format: GPUTextureFormat,
    private readonly layouts: { frame: GPUBindGroupLayout; points: GPUBindGroupLayout; slice: GPUBindGroupLayout },
    private readonly pipelines: Record<
      'background' | 'ground' | 'shadow' | 'mesh' | 'wire' | 'lines' | 'points' | 'depthPoints' | 'slice',
      GPURenderPipeline
    >,
    private readonly soft: SoftPass,
  ) {
    const ctx = canvas.getContext('webgpu');
    if (!ctx) throw new Error('this canvas cannot give a WebGPU context');
    this.context = ctx;
    ctx.configure({ device, format, alphaMode: 'opaque' });
    const U = GPUBufferUsage;
    this.frameBuffer = device.createBuffer({ size: FRAME_BYTES, usage: U.UNIFORM | U.COPY_DST, label: 'frame' });
    this.instances = new GrowBuffer(device, U.STORAGE | U.COPY_DST, 'instances', INSTANCE_BYTES * 64);
    this.frameBindGroup = this.makeFrameBindGroup();
    this.lineBuffer = new GrowBuffer(device, U.VERTEX | U.COPY_DST, 'overlay lines', 1024 * VERTEX_BYTES);
    this.pointBuffer = new GrowBuffer(device, U.STORAGE | U.COPY_DST, 'overlay points', 256 * VERTEX_BYTES);
    const style = (px: number, label: string) => {
      const b = device.createBuffer({ size: 16, usage: U.UNIFORM | U.COPY_DST, label });
      device.queue.writeBuffer(b, 0, new Float32Array([px, 0, 0, 0]));
      this.styles.push({ buffer: b, px });
      return b;
    };
    this.styleVertex = style(3.5, 'style sample vertices');
    this.styleEdge = style(2, 'style edge samples');
    this.styleInside = style(3.5, 'style inside nodes');
    this.styleOutside = style(2, 'style outside nodes');
    this.styleContacts = style(9, 'style contacts');
    this.pointBindGroup = this.makePointBindGroup(this.pointBuffer.buffer, this.styleContacts);
    this.sliceUniform = device.createBuffer({ size: SLICE_BYTES, usage: U.UNIFORM | U.COPY_DST, label: 'slice' });
  }

  /** Builds every pipeline; a shader or pipeline error rejects (with the driver's message) instead of drawing nothing. */
  static create(canvas: HTMLCanvasElement, device: GPUDevice): Promise<WebGpuRenderer> {
    return checkErrors(device, 'renderer setup', () => WebGpuRenderer.build(canvas, device));
  }

  private static async build(canvas: HTMLCanvasElement, device: GPUDevice): Promise<WebGpuRenderer> {
    const format = navigator.gpu.getPreferredCanvasFormat();
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
    const common = shaderSource('render_common.wgsl', false);
    const module = (file: string) =>
      device.createShaderModule({ label: file, code: `${common}\n${shaderSource(file, false)}` });
    const layout0 = device.createPipelineLayout({ bindGroupLayouts: [frame] });
    const layoutPts = device.createPipelineLayout({ bindGroupLayouts: [frame, points] });
    const layoutSlice = device.createPipelineLayout({ bindGroupLayouts: [frame, slice] });
    const mesh = module('render_mesh.wgsl');
    const ground = module('render_ground.wgsl');
    const lines = module('render_lines.wgsl');
    const pts = module('render_points.wgsl');
    const sl = module('render_slice.wgsl');
    const bg = module('render_background.wgsl');

    const renderVertex: GPUVertexBufferLayout = {
      arrayStride: RENDER_VERTEX_FLOATS * 4,
      attributes: [
        { shaderLocation: 0, offset: 0, format: 'float32x3' },
        { shaderLocation: 1, offset: 12, format: 'float32x3' },
      ],
    };
    const positionOnly: GPUVertexBufferLayout = {
      arrayStride: RENDER_VERTEX_FLOATS * 4,
      attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }],
    };
    const wireVertex: GPUVertexBufferLayout = {
      arrayStride: 12,
      attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }],
    };
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
    const keepStencil: GPUStencilFaceState = { compare: 'always', passOp: 'keep' };
    const depth = (
      write: boolean,
      compare: GPUCompareFunction,
      stencil: GPUStencilFaceState = keepStencil,
    ): GPUDepthStencilState => ({
      format: DEPTH_FORMAT,
      depthWriteEnabled: write,
      depthCompare: compare,
      stencilFront: stencil,
      stencilBack: stencil,
    });
    const target = (blend?: GPUBlendState): GPUColorTargetState[] => [blend ? { format, blend } : { format }];
    const ms: GPUMultisampleState = { count: SAMPLE_COUNT };

    const make = (d: GPURenderPipelineDescriptor) => device.createRenderPipelineAsync(d);
    const [background, groundP, shadow, meshP, wire, linesP, pointsP, depthPointsP, sliceP] = await Promise.all([
      make({
        label: 'background',
        layout: layout0,
        vertex: { module: bg, entryPoint: 'vs_main' },
        fragment: { module: bg, entryPoint: 'fs_main', targets: target() },
        depthStencil: depth(false, 'always'),
        multisample: ms,
      }),
      make({
        label: 'ground',
        layout: layout0,
        vertex: { module: ground, entryPoint: 'vs_main', buffers: [renderVertex] },
        fragment: { module: ground, entryPoint: 'fs_main', targets: target(alphaBlend) },
        primitive: { cullMode: 'none' },
        depthStencil: depth(true, 'less', { compare: 'always', passOp: 'replace' }),
        multisample: ms,
      }),
      make({
        label: 'shadow',
        layout: layout0,
        vertex: { module: mesh, entryPoint: 'vs_shadow', buffers: [positionOnly] },
        fragment: {
          module: mesh,
          entryPoint: 'fs_shadow',
          targets: target({
            color: { srcFactor: 'zero', dstFactor: 'one-minus-src-alpha' },
            alpha: { srcFactor: 'zero', dstFactor: 'one' },
          }),
        },
        primitive: { cullMode: 'none' },
        // Only ground pixels (stencil 1), each once (incremented to 2).
        depthStencil: depth(false, 'always', { compare: 'equal', passOp: 'increment-clamp' }),
        multisample: ms,
      }),
      make({
        label: 'bodies',
        layout: layout0,
        vertex: { module: mesh, entryPoint: 'vs_main', buffers: [renderVertex] },
        fragment: { module: mesh, entryPoint: 'fs_main', targets: target() },
        primitive: { cullMode: 'back' },
        depthStencil: depth(true, 'less'),
        multisample: ms,
      }),
      make({
        label: 'wireframe',
        layout: layout0,
        vertex: { module: lines, entryPoint: 'vs_wire', buffers: [wireVertex] },
        fragment: { module: lines, entryPoint: 'fs_main', targets: target(alphaBlend) },
        primitive: { topology: 'line-list' },
        depthStencil: depth(false, 'less-equal'),
        multisample: ms,
      }),
      make({
        label: 'overlay lines',
        layout: layout0,
        vertex: { module: lines, entryPoint: 'vs_world', buffers: [coloured] },
        fragment: { module: lines, entryPoint: 'fs_main', targets: target(alphaBlend) },
        primitive: { topology: 'line-list' },
        depthStencil: depth(false, 'always'),
        multisample: ms,
      }),
      make({
        label: 'points',
        layout: layoutPts,
        vertex: { module: pts, entryPoint: 'vs_main' },
        fragment: { module: pts, entryPoint: 'fs_main', targets: target(alphaBlend) },
        depthStencil: depth(false, 'always'),
        multisample: ms,
      }),
      make({
        // SDF grid nodes: hidden behind the slice and other bodies, so the slice stays readable.
        label: 'depth-tested points',
        layout: layoutPts,
        vertex: { module: pts, entryPoint: 'vs_main' },
        fragment: { module: pts, entryPoint: 'fs_main', targets: target(alphaBlend) },
        depthStencil: depth(false, 'less-equal'),
        multisample: ms,
      }),
      make({
        label: 'sdf slice',
        layout: layoutSlice,
        vertex: { module: sl, entryPoint: 'vs_main' },
        fragment: { module: sl, entryPoint: 'fs_main', targets: target() },
        primitive: { cullMode: 'none' },
        depthStencil: depth(true, 'less'),
        multisample: ms,
      }),
    ]);
    const soft = await SoftPass.create(device, { format, sampleCount: SAMPLE_COUNT, depthFormat: DEPTH_FORMAT, frameLayout: frame });
    return new WebGpuRenderer(canvas, device, format, { frame, points, slice }, {
      background,
      ground: groundP,
      shadow,
      mesh: meshP,
      wire,
      lines: linesP,
      points: pointsP,
      depthPoints: depthPointsP,
      slice: sliceP,
    }, soft);
  }

  private makeFrameBindGroup(): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'frame',
      layout: this.layouts.frame,
      entries: [
        { binding: 0, resource: { buffer: this.frameBuffer } },
        { binding: 1, resource: { buffer: this.instances.buffer } },
      ],
    });
  }

  private makePointBindGroup(points: GPUBuffer, style: GPUBuffer): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'points',
      layout: this.layouts.points,
      entries: [
        { binding: 0, resource: { buffer: points } },
        { binding: 1, resource: { buffer: style } },
      ],
    });
  }

  private buffer(data: ArrayBufferView, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    const b = this.device.createBuffer({ size: Math.max(16, align4(data.byteLength)), usage: usage | GPUBufferUsage.COPY_DST, label });
    this.device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  }

  setWorld(world: RenderWorld | null): void {
    this.releaseShapes();
    this.world = world;
    this.soft.setSystem(softSystemOf(world), world?.bodies.count ?? 0);
    if (!world) return;
    const U = GPUBufferUsage;
    for (const s of world.shapes) {
      const rm = buildRenderMesh(s.mesh);
      const wirePos = Float32Array.from(s.mesh.positions);
      const edges = uniqueEdges(s.mesh);
      let samples: GpuShape['samples'] = null;
      const n = sampleCount(s.samples);
      if (s.kind === 'mesh' && n > 0) {
        const list = new VertexList(n);
        const vc = packColor(1.0, 0.85, 0.2);
        const ec = packColor(1.0, 0.45, 0.15);
        const p = s.samples.points;
        for (let k = 0; k < n; k++) list.push(p[4 * k]!, p[4 * k + 1]!, p[4 * k + 2]!, k < s.samples.vertexCount ? vc : ec);
        const buf = this.buffer(list.bytes(), U.STORAGE, `${s.name} samples`);
        samples = {
          vertices: this.makePointBindGroup(buf, this.styleVertex),
          edges: this.makePointBindGroup(buf, this.styleEdge),
          vertexCount: s.samples.vertexCount,
          sampleCount: n,
        };
      }
      this.shapes.push({
        shape: s,
        vertices: this.buffer(rm.vertices, U.VERTEX, `${s.name} mesh`),
        vertexCount: rm.vertexCount,
        wirePositions: this.buffer(wirePos, U.VERTEX, `${s.name} wire positions`),
        wireIndices: this.buffer(edges, U.INDEX, `${s.name} edges`),
        wireIndexCount: edges.length,
        samples,
        nodes: null,
        phi: null,
      });
    }
    // Instance slots: 0 = identity, then bodies grouped by shape.
    const b = world.bodies;
    const ns = world.shapes.length;
    this.shapeCount = new Uint32Array(ns);
    this.shapeFirst = new Uint32Array(ns);
    for (let i = 0; i < b.count; i++) this.shapeCount[b.shape[i]!]!++;
    let next = 1;
    for (let s = 0; s < ns; s++) {
      this.shapeFirst[s] = next;
      next += this.shapeCount[s]!;
    }
    const fill = this.shapeFirst.slice();
    this.slotOf = new Uint32Array(b.count);
    for (let i = 0; i < b.count; i++) this.slotOf[i] = fill[b.shape[i]!]!++;
    const floats = INSTANCE_FLOATS * (b.count + 1);
    if (this.instanceData.length < floats) this.instanceData = new Float32Array(floats);
    if (this.instances.ensure(floats * 4)) this.frameBindGroup = this.makeFrameBindGroup();
  }

  private releaseShapes(): void {
    for (const g of this.shapes) {
      g.vertices.destroy();
      g.wirePositions.destroy();
      g.wireIndices.destroy();
      g.phi?.destroy();
    }
    this.shapes = [];
    this.sliceBindGroup = null;
    this.sliceBindShape = -1;
  }

  resize(width: number, height: number): void {
    const max = this.device.limits.maxTextureDimension2D;
    const w = Math.max(1, Math.min(max, Math.floor(width)));
    const h = Math.max(1, Math.min(max, Math.floor(height)));
    if (w === this.width && h === this.height && this.msaa) return;
    this.width = w;
    this.height = h;
    this.canvas.width = w;
    this.canvas.height = h;
    this.msaa?.destroy();
    this.depth?.destroy();
    this.msaa = this.device.createTexture({
      size: [w, h],
      format: this.format,
      sampleCount: SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
      label: 'msaa colour',
    });
    this.depth = this.device.createTexture({
      size: [w, h],
      format: DEPTH_FORMAT,
      sampleCount: SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
      label: 'depth + stencil',
    });
  }

  /** Device pixels per CSS pixel, so dot sizes stay the same on a high-DPI screen. */
  setPixelRatio(dpr: number): void {
    if (dpr === this.dpr) return;
    this.dpr = dpr;
    for (const st of this.styles) this.device.queue.writeBuffer(st.buffer, 0, new Float32Array([st.px * dpr]));
    this.soft.setPixelRatio(dpr);
  }

  render(camera: OrbitCamera, views: ViewState): void {
    if (!this.msaa || !this.depth) this.resize(this.canvas.width, this.canvas.height);
    const world = this.world;
    this.writeFrame(camera, world);
    if (world) this.writeInstances(world, views);
    const lineCount = world ? this.buildOverlays(world, views) : 0;
    // The springs view shows the net instead of the surface (inside it, coloured by strain).
    if (world) this.soft.prepare({ surface: drawsSolids(views) && !views.softSprings, springs: views.softSprings, particles: views.softParticles });

    const encoder = this.device.createCommandEncoder({ label: 'frame' });
    const pass = encoder.beginRenderPass({
      label: 'scene',
      colorAttachments: [
        {
          view: this.msaa!.createView(),
          resolveTarget: this.context.getCurrentTexture().createView(),
          clearValue: { r: 0.02, g: 0.022, b: 0.03, a: 1 },
          loadOp: 'clear',
          storeOp: 'discard',
        },
      ],
      depthStencilAttachment: {
        view: this.depth!.createView(),
        depthClearValue: 1,
        depthLoadOp: 'clear',
        depthStoreOp: 'discard',
        stencilClearValue: 0,
        stencilLoadOp: 'clear',
        stencilStoreOp: 'discard',
      },
    });
    pass.setBindGroup(0, this.frameBindGroup);
    pass.setPipeline(this.pipelines.background);
    pass.draw(3);
    if (world) this.drawWorld(pass, world, views, lineCount);
    pass.end();
    this.device.queue.submit([encoder.finish()]);
  }

  private drawWorld(pass: GPURenderPassEncoder, world: RenderWorld, views: ViewState, lineCount: number): void {
    const shapes = this.shapes;
    // Ground planes.
    pass.setPipeline(this.pipelines.ground);
    pass.setStencilReference(1);
    for (let s = 0; s < shapes.length; s++) {
      const g = shapes[s]!;
      if (g.shape.kind !== 'plane' || this.shapeCount[s] === 0) continue;
      pass.setVertexBuffer(0, g.vertices);
      pass.draw(g.vertexCount, this.shapeCount[s]!, 0, this.shapeFirst[s]!);
    }
    // Planar shadows of every non-plane body.
    pass.setPipeline(this.pipelines.shadow);
    pass.setStencilReference(1);
    for (let s = 0; s < shapes.length; s++) {
      const g = shapes[s]!;
      if (g.shape.kind === 'plane' || this.shapeCount[s] === 0) continue;
      pass.setVertexBuffer(0, g.vertices);
      pass.draw(g.vertexCount, this.shapeCount[s]!, 0, this.shapeFirst[s]!);
    }
    this.soft.recordShadow(pass);
    if (drawsSolids(views)) {
      pass.setPipeline(this.pipelines.mesh);
      for (let s = 0; s < shapes.length; s++) {
        const g = shapes[s]!;
        if (g.shape.kind === 'plane' || this.shapeCount[s] === 0) continue;
        pass.setVertexBuffer(0, g.vertices);
        pass.draw(g.vertexCount, this.shapeCount[s]!, 0, this.shapeFirst[s]!);
      }
      this.soft.recordSurface(pass);
    }
    // Depth field: the slice through the chosen body, then its grid nodes (drawn with the points).
    const sb = views.depthField ? views.sliceBody : -1;
    const sliceShape = sb >= 0 && sb < world.bodies.count ? world.bodies.shape[sb]! : -1;
    const sg = sliceShape >= 0 ? shapes[sliceShape] : undefined;
    if (sg?.shape.sdf) {
      this.prepareSlice(sliceShape, sg, views, this.slotOf[sb]!);
      pass.setPipeline(this.pipelines.slice);
      pass.setBindGroup(1, this.sliceBindGroup!);
      pass.draw(6);
    }
    if (views.wireframe || views.depthField) {
      pass.setPipeline(this.pipelines.wire);
      for (let s = 0; s < shapes.length; s++) {
        const g = shapes[s]!;
        if (g.shape.kind === 'plane' || this.shapeCount[s] === 0) continue;
        if (!views.wireframe && s !== sliceShape) continue;
        pass.setVertexBuffer(0, g.wirePositions);
        pass.setIndexBuffer(g.wireIndices, 'uint32');
        if (views.wireframe) pass.drawIndexed(g.wireIndexCount, this.shapeCount[s]!, 0, 0, this.shapeFirst[s]!);
        else pass.drawIndexed(g.wireIndexCount, 1, 0, 0, this.slotOf[sb]!);
      }
    }
    if (lineCount > 0) {
      pass.setPipeline(this.pipelines.lines);
      pass.setVertexBuffer(0, this.lineBuffer.buffer);
      pass.draw(lineCount);
    }
    pass.setPipeline(this.pipelines.points);
    if (views.samples) {
      for (let s = 0; s < shapes.length; s++) {
        const g = shapes[s]!;
        const sm = g.samples;
        if (!sm || this.shapeCount[s] === 0) continue;
        pass.setBindGroup(1, sm.edges);
        pass.draw(6 * (sm.sampleCount - sm.vertexCount), this.shapeCount[s]!, 6 * sm.vertexCount, this.shapeFirst[s]!);
        pass.setBindGroup(1, sm.vertices);
        pass.draw(6 * sm.vertexCount, this.shapeCount[s]!, 0, this.shapeFirst[s]!);
      }
    }
    if (sg?.shape.sdf) {
      const nodes = this.nodesOf(sg);
      const slot = this.slotOf[sb]!;
      pass.setPipeline(this.pipelines.depthPoints);
      if (nodes.outsideCount > 0) {
        pass.setBindGroup(1, nodes.outside);
        pass.draw(6 * nodes.outsideCount, 1, 0, slot);
      }
      if (nodes.insideCount > 0) {
        pass.setBindGroup(1, nodes.inside);
        pass.draw(6 * nodes.insideCount, 1, 6 * nodes.outsideCount, slot);
      }
    }
    if (this.pointVerts.count > 0) {
      pass.setPipeline(this.pipelines.points);
      pass.setBindGroup(1, this.pointBindGroup);
      pass.draw(6 * this.pointVerts.count, 1, 0, 0);
    }
    this.soft.recordOverlay(pass);
  }

  private nodesOf(g: GpuShape): NonNullable<GpuShape['nodes']> {
    if (!g.nodes) {
      const { list, outsideCount } = depthFieldNodes(g.shape.sdf!);
      const buf = this.buffer(list.bytes(), GPUBufferUsage.STORAGE, `${g.shape.name} sdf nodes`);
      g.nodes = {
        outside: this.makePointBindGroup(buf, this.styleOutside),
        inside: this.makePointBindGroup(buf, this.styleInside),
        outsideCount,
        insideCount: list.count - outsideCount,
      };
    }
    return g.nodes;
  }

  private prepareSlice(shapeIndex: number, g: GpuShape, views: ViewState, slot: number): void {
    const sdf = g.shape.sdf!;
    if (!g.phi) g.phi = this.buffer(sdf.values, GPUBufferUsage.STORAGE, `${g.shape.name} phi`);
    if (this.sliceBindShape !== shapeIndex || !this.sliceBindGroup) {
      this.sliceBindShape = shapeIndex;
      this.sliceBindGroup = this.device.createBindGroup({
        label: 'slice',
        layout: this.layouts.slice,
        entries: [
          { binding: 0, resource: { buffer: this.sliceUniform } },
          { binding: 1, resource: { buffer: g.phi } },
        ],
      });
    }
    const f = new Float32Array(this.sliceData);
    const u = new Uint32Array(this.sliceData);
    sliceQuad(sdf, views.sliceAxis, views.sliceOffset, f);
    f[12] = sdf.origin[0];
    f[13] = sdf.origin[1];
    f[14] = sdf.origin[2];
    f[15] = sdf.cellSize;
    u[16] = sdf.dims[0];
    u[17] = sdf.dims[1];
    u[18] = sdf.dims[2];
    u[19] = slot;
    this.device.queue.writeBuffer(this.sliceUniform, 0, this.sliceData);
  }

  private writeFrame(camera: OrbitCamera, world: RenderWorld | null): void {
    const f = this.frameData;
    viewProjection(camera, this.width / this.height, this.viewProj);
    f.set(this.viewProj, FRAME.viewProj);
    const plane = world ? shadowPlane(world) : null;
    if (plane) shadowMatrix(plane, LIGHT_DIR, 0.002, f, FRAME.shadowProj);
    else shadowMatrix({ n: [0, 1, 0], d: 0 }, [0, 0, 0], 0, f, FRAME.shadowProj);
    cameraEye(camera, this.eye);
    f[FRAME.eye] = this.eye[0]!;
    f[FRAME.eye + 1] = this.eye[1]!;
    f[FRAME.eye + 2] = this.eye[2]!;
    f[FRAME.eye + 3] = 1;
    f[FRAME.lightDir] = LIGHT_DIR[0];
    f[FRAME.lightDir + 1] = LIGHT_DIR[1];
    f[FRAME.lightDir + 2] = LIGHT_DIR[2];
    f[FRAME.lightDir + 3] = 0;
    f[FRAME.viewport] = this.width;
    f[FRAME.viewport + 1] = this.height;
    f[FRAME.viewport + 2] = 1 / this.width;
    f[FRAME.viewport + 3] = 1 / this.height;
    // Fog starts past the scene and hides the ground quad's far edge.
    f[FRAME.fog] = camera.distance * 1.2;
    f[FRAME.fog + 1] = camera.distance * 4 + 8;
    f[FRAME.fog + 2] = 0.45;
    f[FRAME.fog + 3] = 0;
    f[FRAME.focus] = camera.target[0];
    f[FRAME.focus + 1] = camera.target[1];
    f[FRAME.focus + 2] = camera.target[2];
    // Past this radius the ground is gone; within the plane quad (half-size 60 m) at every zoom.
    f[FRAME.focus + 3] = Math.min(55, 8 + 3 * camera.distance);
    this.device.queue.writeBuffer(this.frameBuffer, 0, f);
  }

  private writeInstances(world: RenderWorld, views: ViewState): void {
    const b = world.bodies;
    const d = this.instanceData;
    // Slot 0: identity, for world-space overlays.
    d.fill(0, 0, INSTANCE_FLOATS);
    d[0] = d[5] = d[10] = d[15] = 1;
    d[16] = d[17] = d[18] = d[19] = 1;
    const c = this.colorScratch;
    const hide = views.depthField ? views.sliceBody : -1;
    for (let i = 0; i < b.count; i++) {
      const o = this.slotOf[i]! * INSTANCE_FLOATS;
      bodyMatrix(b.pos, b.quat, i, d, o);
      const isStatic = b.isStatic[i] === 1;
      if (views.levels) levelColor(i < world.level.length ? world.level[i]! : -1, c);
      else bodyColor(i, isStatic, c);
      d[o + 16] = c[0]!;
      d[o + 17] = c[1]!;
      d[o + 18] = c[2]!;
      // The depth-field body is drawn as its slice and wireframe only, so the slice is not hidden inside it.
      d[o + 19] = i === hide ? 0 : 1;
    }
    this.device.queue.writeBuffer(this.instances.buffer, 0, d.buffer, 0, (b.count + 1) * INSTANCE_BYTES);
  }

  /** Fills and uploads the overlay lines and points; returns the number of line vertices. */
  private buildOverlays(world: RenderWorld, views: ViewState): number {
    const lines = this.lineVerts;
    const points = this.pointVerts;
    lines.clear();
    points.clear();
    const b = world.bodies;
    if (views.aabbs) {
      const dyn = packColor(0.4, 0.85, 1.0, 0.8);
      const stat = packColor(0.55, 0.6, 0.7, 0.5);
      for (let i = 0; i < b.count; i++) {
        const s = world.shapes[b.shape[i]!]!;
        if (s.kind === 'plane') continue;
        worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, this.aabbScratch);
        pushBoxLines(lines, this.aabbScratch, 0, b.isStatic[i] ? stat : dyn);
      }
    }
    if (views.contacts) {
      const c = world.contacts;
      const pc = packColor(1.0, 0.25, 0.35);
      const lc = packColor(1.0, 0.6, 0.3, 0.95);
      const len = this.contactNormalLength(world);
      for (let i = 0; i < c.count; i++) pushContact(points, lines, c.points, c.normals, i, len, pc, lc);
      pushSegments(lines, world.constraints?.anchorSegments?.(), packColor(0.95, 0.95, 0.5, 0.95));
    }
    if (lines.count > 0) {
      this.lineBuffer.ensure(lines.count * VERTEX_BYTES);
      this.device.queue.writeBuffer(this.lineBuffer.buffer, 0, lines.buffer, 0, lines.count * VERTEX_BYTES);
    }
    if (points.count > 0) {
      if (this.pointBuffer.ensure(points.count * VERTEX_BYTES)) {
        this.pointBindGroup = this.makePointBindGroup(this.pointBuffer.buffer, this.styleContacts);
      }
      this.device.queue.writeBuffer(this.pointBuffer.buffer, 0, points.buffer, 0, points.count * VERTEX_BYTES);
    }
    return lines.count;
  }

  /** Normals drawn a third of the typical body size long. */
  private contactNormalLength(world: RenderWorld): number {
    let r = 0;
    let n = 0;
    for (const s of world.shapes) {
      if (s.kind === 'plane') continue;
      r += s.radius;
      n++;
    }
    return n > 0 ? (0.35 * r) / n : 0.2;
  }

  destroy(): void {
    this.releaseShapes();
    this.msaa?.destroy();
    this.depth?.destroy();
    this.frameBuffer.destroy();
    this.instances.destroy();
    this.lineBuffer.destroy();
    this.pointBuffer.destroy();
    this.sliceUniform.destroy();
    for (const st of this.styles) st.buffer.destroy();
    this.soft.destroy();
    this.context.unconfigure();
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
