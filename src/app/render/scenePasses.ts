/**
 * The passes that draw the scene itself: the background gradient, the
 * ground (analytic planes as a gridded quad, writing stencil 1), planar
 * shadows (only on ground pixels, each pixel darkened once) and the lit
 * bodies. All read the per-shape render meshes of SceneGeometry.
 */
import { drawsSolids } from '../views.ts';
import { ALPHA_BLEND, type FrameState, type RenderContext, type RenderPassNode } from './context.ts';
import { VERTEX_INPUTS } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** A full-screen triangle with the sky gradient. */
export class BackgroundPass implements RenderPassNode {
  readonly label = 'background';
  private constructor(private readonly pipeline: GPURenderPipeline) {}

  static async create(ctx: RenderContext): Promise<BackgroundPass> {
    return new BackgroundPass(
      await ctx.pipeline({ label: 'background', input: VERTEX_INPUTS.background, groups: 'frame', depthWrite: false, depthCompare: 'always' }),
    );
  }

  setScene(_scene: SceneGeometry | null): void {}

  record(pass: GPURenderPassEncoder): void {
    pass.setPipeline(this.pipeline);
    pass.draw(3);
  }

  destroy(): void {}
}

/** Every plane body as a faded, gridded quad; marks its pixels with stencil 1 for the shadows. */
export class GroundPass implements RenderPassNode {
  readonly label = 'ground';
  private constructor(private readonly pipeline: GPURenderPipeline) {}

  static async create(ctx: RenderContext): Promise<GroundPass> {
    return new GroundPass(
      await ctx.pipeline({
        label: 'ground',
        input: VERTEX_INPUTS.ground,
        groups: 'frame',
        blend: ALPHA_BLEND,
        primitive: { cullMode: 'none' },
        depthWrite: true,
        depthCompare: 'less',
        stencil: { compare: 'always', passOp: 'replace' },
      }),
    );
  }

  setScene(_scene: SceneGeometry | null): void {}

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    pass.setPipeline(this.pipeline);
    pass.setStencilReference(1);
    f.scene.drawShapes(pass, true);
  }

  destroy(): void {}
}

/** Every non-plane body flattened onto the shadow plane along the light. */
export class ShadowPass implements RenderPassNode {
  readonly label = 'shadows';
  private constructor(private readonly pipeline: GPURenderPipeline) {}

  static async create(ctx: RenderContext): Promise<ShadowPass> {
    return new ShadowPass(
      await ctx.pipeline({
        label: 'shadow',
        input: VERTEX_INPUTS.shadow,
        fragmentEntry: 'fs_shadow',
        groups: 'frame',
        // dst * (1 - a): darkens what the ground drew.
        blend: {
          color: { srcFactor: 'zero', dstFactor: 'one-minus-src-alpha' },
          alpha: { srcFactor: 'zero', dstFactor: 'one' },
        },
        primitive: { cullMode: 'none' },
        // Only ground pixels (stencil 1), each once (incremented to 2).
        depthWrite: false,
        depthCompare: 'always',
        stencil: { compare: 'equal', passOp: 'increment-clamp' },
      }),
    );
  }

  setScene(_scene: SceneGeometry | null): void {}

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    pass.setPipeline(this.pipeline);
    pass.setStencilReference(1);
    f.scene.drawShapes(pass, false);
  }

  destroy(): void {}
}

/** Lit, instanced bodies (unless the wireframe view replaces them). */
export class BodyPass implements RenderPassNode {
  readonly label = 'bodies';
  private constructor(private readonly pipeline: GPURenderPipeline) {}

  static async create(ctx: RenderContext): Promise<BodyPass> {
    return new BodyPass(
      await ctx.pipeline({
        label: 'bodies',
        input: VERTEX_INPUTS.bodies,
        groups: 'frame',
        primitive: { cullMode: 'back' },
        depthWrite: true,
        depthCompare: 'less',
      }),
    );
  }

  setScene(_scene: SceneGeometry | null): void {}

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    if (!drawsSolids(f.views)) return;
    pass.setPipeline(this.pipeline);
    f.scene.drawShapes(pass, false);
  }

  destroy(): void {}
}
