/**
 * Mesh edges, instanced per shape: every body in the wireframe view, and
 * while the depth field fades the other bodies (each instance's alpha says
 * how strong, render_lines.wgsl); otherwise only the depth-field body
 * (drawn as its wireframe around the slice) and the highlighted body (its
 * edges over its surface). Edge buffers are made for a shape the first time
 * it is drawn.
 */
import { uniqueEdges } from '../../geometry/samples.ts';
import { ALPHA_BLEND, PerShape, type RenderContext } from './context.ts';
import type { FrameState, RenderPassNode } from './types.ts';
import { VERTEX_INPUTS } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

interface WireBuffers {
  positions: GPUBuffer;
  indices: GPUBuffer;
  indexCount: number;
}

export class WireframePass implements RenderPassNode {
  readonly label = 'wireframe';
  private scene: SceneGeometry | null = null;
  private readonly wires: PerShape<WireBuffers>;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    this.wires = new PerShape(
      (s) => this.makeWire(s),
      (w) => {
        w.positions.destroy();
        w.indices.destroy();
      },
    );
  }

  static async create(ctx: RenderContext): Promise<WireframePass> {
    const pipeline = await ctx.pipeline({
      label: 'wireframe',
      input: VERTEX_INPUTS.wireframe,
      groups: 'frame',
      blend: ALPHA_BLEND,
      primitive: { topology: 'line-list' },
      depthWrite: false,
      depthCompare: 'less-equal',
    });
    return new WireframePass(ctx, pipeline);
  }

  private makeWire(s: number): WireBuffers {
    const shape = this.scene!.world.shapes[s]!;
    const edges = uniqueEdges(shape.mesh);
    return {
      positions: this.ctx.buffer(Float32Array.from(shape.mesh.positions), GPUBufferUsage.VERTEX, `${shape.name} wire positions`),
      indices: this.ctx.buffer(edges, GPUBufferUsage.INDEX, `${shape.name} edges`),
      indexCount: edges.length,
    };
  }

  setScene(scene: SceneGeometry | null): void {
    this.wires.clear();
    this.scene = scene;
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    const world = f.world;
    const depthBody = f.views.depthField ? f.views.sliceBody : -1;
    if (!f.views.wireframe && depthBody < 0 && f.highlight < 0) return;
    pass.setPipeline(this.pipeline);
    if (f.views.wireframe || (depthBody >= 0 && f.views.others === 'fade')) {
      for (let s = 0; s < world.shapes.length; s++) {
        if (world.shapes[s]!.kind === 'plane' || f.scene.shapeCount[s] === 0) continue;
        this.draw(pass, s, f.scene.shapeCount[s]!, f.scene.shapeFirst[s]!);
      }
      return;
    }
    this.drawBody(pass, f, depthBody);
    if (f.highlight !== depthBody) this.drawBody(pass, f, f.highlight);
  }

  private drawBody(pass: GPURenderPassEncoder, f: FrameState, i: number): void {
    const b = f.world.bodies;
    if (i < 0 || i >= b.count || f.world.shapes[b.shape[i]!]!.kind === 'plane') return;
    this.draw(pass, b.shape[i]!, 1, f.scene.slotOf[i]!);
  }

  private draw(pass: GPURenderPassEncoder, shape: number, instances: number, first: number): void {
    const w = this.wires.get(shape);
    pass.setVertexBuffer(0, w.positions);
    pass.setIndexBuffer(w.indices, 'uint32');
    pass.drawIndexed(w.indexCount, instances, 0, 0, first);
  }

  destroy(): void {
    this.wires.clear();
  }
}
