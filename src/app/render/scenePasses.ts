/**
 * The passes that draw the scene itself: the background gradient, the
 * ground (analytic planes as a gridded quad, writing stencil 1), planar
 * shadows (only on ground pixels, each pixel darkened once) and the lit
 * bodies. All read the per-shape render meshes of SceneGeometry.
 */
import { drawsSolids } from '../views.ts';
import { ALPHA_BLEND, SHADOW_PIPELINE, type RenderContext } from './context.ts';
import type { FrameState, RenderPassNode } from './types.ts';
import { VERTEX_INPUTS } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** A pass that owns its pipeline and nothing per scene. */
abstract class PipelinePass implements RenderPassNode {
  protected constructor(
    readonly label: string,
    protected readonly pipeline: GPURenderPipeline,
  ) {}

  setScene(_scene: SceneGeometry | null): void {}

  abstract record(pass: GPURenderPassEncoder, frame: FrameState): void;

  destroy(): void {}
}

/** A full-screen triangle with the sky gradient. */
export class BackgroundPass extends PipelinePass {
  static async create(ctx: RenderContext): Promise<BackgroundPass> {
    return new BackgroundPass(
      'background',
      await ctx.pipeline({ label: 'background', input: VERTEX_INPUTS.background, groups: 'frame', depthWrite: false, depthCompare: 'always' }),
    );
  }

  record(pass: GPURenderPassEncoder): void {
    pass.setPipeline(this.pipeline);
    pass.draw(3);
  }
}

/** Every plane body as a faded, gridded quad; marks its pixels with stencil 1 for the shadows. */
export class GroundPass extends PipelinePass {
  static async create(ctx: RenderContext): Promise<GroundPass> {
    const pipeline = await ctx.pipeline({
      label: 'ground',
      input: VERTEX_INPUTS.ground,
      groups: 'frame',
      blend: ALPHA_BLEND,
      primitive: { cullMode: 'none' },
      depthWrite: true,
      depthCompare: 'less',
      stencil: { compare: 'always', passOp: 'replace' },
    });
    return new GroundPass('ground', pipeline);
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    pass.setPipeline(this.pipeline);
    pass.setStencilReference(1);
    f.scene.drawShapes(pass, true);
  }
}

/** Every non-plane body flattened onto the shadow plane along the light, each ground pixel darkened once. */
export class ShadowPass extends PipelinePass {
  static async create(ctx: RenderContext): Promise<ShadowPass> {
    const pipeline = await ctx.pipeline({ label: 'shadow', input: VERTEX_INPUTS.shadow, ...SHADOW_PIPELINE });
    return new ShadowPass('shadows', pipeline);
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    pass.setPipeline(this.pipeline);
    pass.setStencilReference(1);
    f.scene.drawShapes(pass, false);
  }
}

/** Lit, instanced bodies (unless the wireframe view replaces them). */
export class BodyPass extends PipelinePass {
  static async create(ctx: RenderContext): Promise<BodyPass> {
    const pipeline = await ctx.pipeline({
      label: 'bodies',
      input: VERTEX_INPUTS.bodies,
      groups: 'frame',
      primitive: { cullMode: 'back' },
      depthWrite: true,
      depthCompare: 'less',
    });
    return new BodyPass('bodies', pipeline);
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    if (!drawsSolids(f.views)) return;
    pass.setPipeline(this.pipeline);
    f.scene.drawShapes(pass, false);
  }
}
