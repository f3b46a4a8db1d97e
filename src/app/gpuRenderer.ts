/**
 * The WebGPU renderer: lit bodies instanced per shape, analytic planes as a
 * gridded ground, planar shadows, and the debug views (wireframe, samples,
 * depth field + SDF slice, AABBs, contacts, graph levels).
 *
 * One render pass per frame, 4x MSAA, recorded by a list of pass objects
 * (src/app/render/), each owning its pipeline and GPU resources, in order:
 *   background -> ground (writes stencil 1) -> shadows (stencil == 1, then
 *   incremented so overlapping shadows darken a pixel once) -> soft bodies'
 *   shadows (the same way) -> bodies -> soft surfaces -> SDF slice ->
 *   wireframe -> overlay lines -> samples -> SDF nodes -> contact points ->
 *   soft springs and particles.
 *
 * What the passes share is bind group 0 (FrameResources: the frame uniform
 * and one instance per body, rewritten every frame) and the scene's render
 * meshes (SceneGeometry, rebuilt on a scene change). A scene change destroys
 * every buffer of the old scene; a steady frame creates no GPU object but the
 * command encoder and the view of the canvas texture, and allocates no
 * arrays.
 *
 * `GpuSceneRenderer` draws into any texture (tests render offscreen in
 * Node); `WebGpuRenderer` is the app's SceneRenderer on a canvas.
 */
import { checkErrors } from '../gpu/device.ts';
import type { OrbitCamera } from './camera.ts';
import { OverlayGeometry } from './overlays.ts';
import { DEPTH_FORMAT, RenderContext, SAMPLE_COUNT } from './render/context.ts';
import type { FrameState, RenderPassNode } from './render/types.ts';
import { DepthNodesPass, SlicePass } from './render/depthFieldPasses.ts';
import { FrameResources } from './render/frameResources.ts';
import { ContactPointsPass, OverlayLinesPass, SamplePointsPass } from './render/pointPasses.ts';
import { SceneGeometry } from './render/sceneGeometry.ts';
import { BackgroundPass, BodyPass, GroundPass, ShadowPass } from './render/scenePasses.ts';
import { SoftOverlayPass, SoftShadowPass, SoftSurfacePass } from './render/softPasses.ts';
import { WireframePass } from './render/wireframePass.ts';
import type { RenderWorld, SceneRenderer } from './sceneRenderer.ts';
import type { ViewState } from './views.ts';

/** FrameState with writable fields, filled in place every frame. */
type MutableFrame = { -readonly [K in keyof FrameState]: FrameState[K] };

export class GpuSceneRenderer {
  private readonly frame: FrameResources;
  private readonly overlay = new OverlayGeometry();
  private scene: SceneGeometry | null = null;
  private msaa: GPUTexture | null = null;
  private depth: GPUTexture | null = null;
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly state: MutableFrame;
  private readonly submission: GPUCommandBuffer[] = [];
  private highlight = -1;
  private dpr = 1;
  width = 1;
  height = 1;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly passes: readonly RenderPassNode[],
  ) {
    this.frame = new FrameResources(ctx);
    this.colorAttachment = {
      view: undefined as unknown as GPUTextureView,
      resolveTarget: undefined,
      clearValue: { r: 0.02, g: 0.022, b: 0.03, a: 1 },
      loadOp: 'clear',
      storeOp: 'discard',
    };
    this.depthAttachment = {
      view: undefined as unknown as GPUTextureView,
      depthClearValue: 1,
      depthLoadOp: 'clear',
      depthStoreOp: 'discard',
      stencilClearValue: 0,
      stencilLoadOp: 'clear',
      stencilStoreOp: 'discard',
    };
    this.passDescriptor = { label: 'scene', colorAttachments: [this.colorAttachment], depthStencilAttachment: this.depthAttachment };
    this.state = { world: null as unknown as RenderWorld, views: null as unknown as ViewState, scene: null as unknown as SceneGeometry, overlay: this.overlay, highlight: -1 };
  }

  /** Builds every pass; a shader or pipeline error rejects (with the driver's message) instead of drawing nothing. */
  static create(device: GPUDevice, format: GPUTextureFormat): Promise<GpuSceneRenderer> {
    return checkErrors(device, 'renderer setup', async () => {
      const ctx = new RenderContext(device, format);
      // The soft shadows and overlays draw from the surface pass's geometry.
      const softSurface = await SoftSurfacePass.create(ctx);
      const passes = await Promise.all([
        BackgroundPass.create(ctx),
        GroundPass.create(ctx),
        ShadowPass.create(ctx),
        SoftShadowPass.create(ctx, softSurface),
        BodyPass.create(ctx),
        softSurface,
        SlicePass.create(ctx),
        WireframePass.create(ctx),
        OverlayLinesPass.create(ctx),
        SamplePointsPass.create(ctx),
        DepthNodesPass.create(ctx),
        ContactPointsPass.create(ctx),
        SoftOverlayPass.create(ctx, softSurface),
      ]);
      return new GpuSceneRenderer(ctx, passes);
    });
  }

  /** The passes in drawing order (labels), for tests and the docs. */
  get passLabels(): string[] {
    return this.passes.map((p) => p.label);
  }

  setWorld(world: RenderWorld | null): void {
    this.scene?.destroy();
    this.scene = world ? new SceneGeometry(this.ctx, world) : null;
    if (this.scene) this.frame.reserve(this.scene);
    for (const p of this.passes) p.setScene(this.scene);
    this.highlight = -1;
  }

  setHighlight(body: number): void {
    this.highlight = body;
  }

  resize(width: number, height: number): void {
    const max = this.ctx.device.limits.maxTextureDimension2D;
    const w = Math.max(1, Math.min(max, Math.floor(width)));
    const h = Math.max(1, Math.min(max, Math.floor(height)));
    if (w === this.width && h === this.height && this.msaa) return;
    this.width = w;
    this.height = h;
    this.msaa?.destroy();
    this.depth?.destroy();
    const usage = GPUTextureUsage.RENDER_ATTACHMENT;
    this.msaa = this.ctx.device.createTexture({ size: [w, h], format: this.ctx.format, sampleCount: SAMPLE_COUNT, usage, label: 'msaa colour' });
    this.depth = this.ctx.device.createTexture({ size: [w, h], format: DEPTH_FORMAT, sampleCount: SAMPLE_COUNT, usage, label: 'depth + stencil' });
    this.colorAttachment.view = this.msaa.createView();
    this.depthAttachment.view = this.depth.createView();
  }

  /** Device pixels per CSS pixel, so dot sizes stay the same on a high-DPI screen. */
  setPixelRatio(dpr: number): void {
    if (dpr === this.dpr) return;
    this.dpr = dpr;
    for (const p of this.passes) p.setPixelRatio?.(dpr);
  }

  /** Draws one frame into `target` (a view of a texture of this renderer's size and format). */
  render(camera: OrbitCamera, views: ViewState, target: GPUTextureView): void {
    if (!this.msaa) this.resize(this.width, this.height);
    const scene = this.scene;
    const world = scene?.world ?? null;
    this.frame.writeFrame(camera, world, this.width, this.height);
    const f = this.state;
    if (scene && world) {
      f.world = world;
      f.views = views;
      f.scene = scene;
      f.highlight = this.highlight;
      this.frame.writeInstances(world, scene, views, this.highlight);
      this.overlay.build(world, views, scene.normalLength);
      for (const p of this.passes) p.prepare?.(f);
    }
    this.colorAttachment.resolveTarget = target;
    const encoder = this.ctx.device.createCommandEncoder({ label: 'frame' });
    const pass = encoder.beginRenderPass(this.passDescriptor);
    pass.setBindGroup(0, this.frame.bindGroup);
    if (scene) for (const p of this.passes) p.record(pass, f);
    // No scene: the background alone (it reads nothing of the frame state).
    else this.passes[0]!.record(pass, f);
    pass.end();
    this.submission[0] = encoder.finish();
    this.ctx.device.queue.submit(this.submission);
  }

  destroy(): void {
    this.scene?.destroy();
    this.scene = null;
    for (const p of this.passes) p.destroy();
    this.frame.destroy();
    this.msaa?.destroy();
    this.depth?.destroy();
    this.msaa = this.depth = null;
  }
}

export class WebGpuRenderer implements SceneRenderer {
  readonly kind = 'webgpu' as const;

  private constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly context: GPUCanvasContext,
    private readonly core: GpuSceneRenderer,
  ) {}

  static async create(canvas: HTMLCanvasElement, device: GPUDevice): Promise<WebGpuRenderer> {
    const format = navigator.gpu.getPreferredCanvasFormat();
    const core = await GpuSceneRenderer.create(device, format);
    const ctx = canvas.getContext('webgpu');
    if (!ctx) {
      core.destroy();
      throw new Error('this canvas cannot give a WebGPU context');
    }
    ctx.configure({ device, format, alphaMode: 'opaque' });
    return new WebGpuRenderer(canvas, ctx, core);
  }

  setWorld(world: RenderWorld | null): void {
    this.core.setWorld(world);
  }

  setHighlight(body: number): void {
    this.core.setHighlight(body);
  }

  resize(width: number, height: number): void {
    this.core.resize(width, height);
    if (this.canvas.width !== this.core.width) this.canvas.width = this.core.width;
    if (this.canvas.height !== this.core.height) this.canvas.height = this.core.height;
  }

  setPixelRatio(dpr: number): void {
    this.core.setPixelRatio(dpr);
  }

  render(camera: OrbitCamera, views: ViewState): void {
    if (this.core.width !== this.canvas.width || this.core.height !== this.canvas.height) this.resize(this.canvas.width, this.canvas.height);
    this.core.render(camera, views, this.context.getCurrentTexture().createView());
  }

  destroy(): void {
    this.core.destroy();
    this.context.unconfigure();
  }
}
