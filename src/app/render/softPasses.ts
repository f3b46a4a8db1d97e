/**
 * The soft bodies (docs/soft-bodies.md) as three passes, each drawn where
 * its rigid counterpart is:
 *
 *  - SoftShadowPass, after the bodies' shadows: the surfaces' planar shadows
 *    on the same ground pixels (stencil 1, each pixel darkened once);
 *  - SoftSurfacePass, after the bodies: the skinned surfaces, lit and
 *    depth-tested with them (left out in the wireframe view, and in the
 *    "soft springs" view, so the net shows inside);
 *  - SoftOverlayPass, over everything: the "soft springs" view (lines
 *    coloured by strain) and the "soft particles" view (dots).
 *
 * SoftSurfacePass owns the scene's SoftGeometry (softGeometry.ts, rebuilt
 * from the SoftSystem every frame into reused arrays) and the surface's
 * vertex and index buffers, which the shadow pass draws from too; the overlay
 * pass owns its line and point buffers. Buffers grow by doubling and outlive
 * scenes (like the overlay passes'), so a steady frame creates no GPU object.
 * Shaders: render_soft.wgsl for the surface and its shadow, the overlays'
 * render_lines.wgsl and render_points.wgsl for springs and particles.
 */
import { softSystemOf } from '../sceneRenderer.ts';
import { SoftGeometry } from '../softGeometry.ts';
import { drawsSolids, type ViewState } from '../views.ts';
import type { VertexList } from '../overlays.ts';
import { ALPHA_BLEND, GrowBuffer, PointStyle, SHADOW_PIPELINE, type RenderContext } from './context.ts';
import type { FrameState, RenderPassNode } from './types.ts';
import { OVERLAY_VERTEX_BYTES, VERTEX_INPUTS } from './layout.ts';
import { POINTS_ON_TOP } from './pointPasses.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** Dot size of a particle in CSS pixels. */
const PARTICLE_PX = 4;

/** Whether the frame shows the soft surfaces (their shadows fall whatever the views). */
function drawsSoftSurface(views: ViewState): boolean {
  return drawsSolids(views) && !views.softSprings;
}

/** The skinned surfaces of the scene's soft bodies; owns the frame's soft geometry. */
export class SoftSurfacePass implements RenderPassNode {
  readonly label = 'soft surfaces';
  /** The scene's soft bodies as drawn (null: the scene has none). */
  geometry: SoftGeometry | null = null;
  private readonly vertices: GrowBuffer;
  private readonly indices: GrowBuffer;
  private indexCount = 0;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    const U = GPUBufferUsage;
    this.vertices = new GrowBuffer(ctx.device, U.VERTEX | U.COPY_DST, 'soft surface', 256);
    this.indices = new GrowBuffer(ctx.device, U.INDEX | U.COPY_DST, 'soft surface triangles', 256);
  }

  static async create(ctx: RenderContext): Promise<SoftSurfacePass> {
    const pipeline = await ctx.pipeline({
      label: 'soft surfaces',
      input: VERTEX_INPUTS.softSurface,
      fragmentEntry: 'fs_surface',
      groups: 'frame',
      // No culling: a body squashed through itself for a moment still shows a surface.
      primitive: { cullMode: 'none' },
      depthWrite: true,
      depthCompare: 'less',
    });
    return new SoftSurfacePass(ctx, pipeline);
  }

  setScene(scene: SceneGeometry | null): void {
    const system = softSystemOf(scene?.world ?? null);
    // Colours continue the rigid bodies' palette.
    this.geometry = system && system.bodies.length > 0 ? new SoftGeometry(system, scene!.world.bodies.count) : null;
    this.indexCount = 0;
    if (this.geometry) this.write(this.indices, this.geometry.indices);
  }

  prepare(): void {
    const g = this.geometry;
    if (!g) return;
    // Every frame, whatever the views: the shadow pass draws from it.
    g.updateSurface();
    this.write(this.vertices, g.vertices);
    this.indexCount = g.indices.length;
  }

  private write(b: GrowBuffer, data: Float32Array | Uint32Array): void {
    b.ensure(data.byteLength);
    this.ctx.device.queue.writeBuffer(b.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  }

  /** Draws the surfaces' triangles with the pipeline set (this pass's, or the shadow's). */
  drawTriangles(pass: GPURenderPassEncoder): boolean {
    if (!this.geometry || this.indexCount === 0) return false;
    pass.setVertexBuffer(0, this.vertices.buffer);
    pass.setIndexBuffer(this.indices.buffer, 'uint32');
    pass.drawIndexed(this.indexCount);
    return true;
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    if (!this.geometry || this.indexCount === 0 || !drawsSoftSurface(f.views)) return;
    pass.setPipeline(this.pipeline);
    this.drawTriangles(pass);
  }

  destroy(): void {
    this.geometry = null;
    this.vertices.destroy();
    this.indices.destroy();
  }
}

/** The soft surfaces flattened onto the shadow plane, on the ground pixels the rigid shadows use. */
export class SoftShadowPass implements RenderPassNode {
  readonly label = 'soft shadows';

  private constructor(
    private readonly pipeline: GPURenderPipeline,
    private readonly surface: SoftSurfacePass,
  ) {}

  static async create(ctx: RenderContext, surface: SoftSurfacePass): Promise<SoftShadowPass> {
    // As ShadowPass: only ground pixels not yet shadowed (stencil 1, then 2).
    const pipeline = await ctx.pipeline({ label: 'soft shadows', input: VERTEX_INPUTS.softShadow, ...SHADOW_PIPELINE });
    return new SoftShadowPass(pipeline, surface);
  }

  setScene(_scene: SceneGeometry | null): void {}

  record(pass: GPURenderPassEncoder): void {
    if (!this.surface.geometry) return;
    pass.setPipeline(this.pipeline);
    pass.setStencilReference(1);
    this.surface.drawTriangles(pass);
  }

  destroy(): void {}
}

/** The views "soft springs" (lines coloured by strain) and "soft particles" (dots), over the scene. */
export class SoftOverlayPass implements RenderPassNode {
  readonly label = 'soft springs and particles';
  private readonly lines: GrowBuffer;
  private readonly points: GrowBuffer;
  private readonly style: PointStyle;
  private pointGroup: GPUBindGroup;
  private lineCount = 0;
  private pointCount = 0;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipelines: { lines: GPURenderPipeline; points: GPURenderPipeline },
    private readonly surface: SoftSurfacePass,
  ) {
    const U = GPUBufferUsage;
    this.lines = new GrowBuffer(ctx.device, U.VERTEX | U.COPY_DST, 'soft springs', 1024 * OVERLAY_VERTEX_BYTES);
    this.points = new GrowBuffer(ctx.device, U.STORAGE | U.COPY_DST, 'soft particles', 1024 * OVERLAY_VERTEX_BYTES);
    this.style = new PointStyle(ctx.device, PARTICLE_PX, 'style soft particles');
    this.pointGroup = ctx.pointBindGroup(this.points.buffer, this.style.buffer, 'soft particles');
  }

  static async create(ctx: RenderContext, surface: SoftSurfacePass): Promise<SoftOverlayPass> {
    const [lines, points] = await Promise.all([
      ctx.pipeline({
        label: 'soft springs',
        input: VERTEX_INPUTS.overlayLines,
        groups: 'frame',
        blend: ALPHA_BLEND,
        primitive: { topology: 'line-list' },
        depthWrite: false,
        depthCompare: 'always',
      }),
      ctx.pipeline({ ...POINTS_ON_TOP, label: 'soft particles' }),
    ]);
    return new SoftOverlayPass(ctx, { lines, points }, surface);
  }

  setScene(_scene: SceneGeometry | null): void {
    this.lineCount = this.pointCount = 0;
  }

  private upload(b: GrowBuffer, list: VertexList): boolean {
    const replaced = b.ensure(list.count * OVERLAY_VERTEX_BYTES);
    this.ctx.device.queue.writeBuffer(b.buffer, 0, list.buffer, 0, list.count * OVERLAY_VERTEX_BYTES);
    return replaced;
  }

  prepare(f: FrameState): void {
    const g = this.surface.geometry;
    this.lineCount = this.pointCount = 0;
    if (!g) return;
    if (f.views.softSprings) {
      g.updateSprings();
      this.lineCount = g.springLines.count;
      if (this.lineCount > 0) this.upload(this.lines, g.springLines);
    }
    if (f.views.softParticles) {
      g.updateParticles();
      this.pointCount = g.particlePoints.count;
      if (this.pointCount > 0 && this.upload(this.points, g.particlePoints)) {
        this.pointGroup = this.ctx.pointBindGroup(this.points.buffer, this.style.buffer, 'soft particles');
      }
    }
  }

  record(pass: GPURenderPassEncoder): void {
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

  setPixelRatio(dpr: number): void {
    this.style.setPixelRatio(dpr);
  }

  destroy(): void {
    this.lines.destroy();
    this.points.destroy();
    this.style.destroy();
  }
}
