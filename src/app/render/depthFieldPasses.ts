/**
 * The depth-field view of one body (views.sliceBody): a slice through its
 * SDF coloured by phi with the zero iso-line (render_slice.wgsl, trilinear
 * like the CPU twin), and its grid nodes near the surface as dots, inside
 * green and outside red, hidden behind the slice and other bodies so the
 * slice stays readable. The SDF values and node lists go to the GPU the
 * first time a shape is shown.
 */
import { depthFieldNodes, sliceQuad } from '../sdfView.ts';
import { ALPHA_BLEND, PerShape, PointStyle, type RenderContext } from './context.ts';
import type { FrameState, RenderPassNode } from './types.ts';
import { SLICE_LAYOUT, VERTEX_INPUTS } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** The depth-field body of this frame (one with an SDF), or -1 when the view shows nothing. */
function depthFieldBody(f: FrameState): number {
  if (!f.views.depthField) return -1;
  const i = f.views.sliceBody;
  const b = f.world.bodies;
  if (i < 0 || i >= b.count) return -1;
  return f.world.shapes[b.shape[i]!]?.sdf ? i : -1;
}

const SLICE_WORDS = SLICE_LAYOUT.offsets;

export class SlicePass implements RenderPassNode {
  readonly label = 'sdf slice';
  private scene: SceneGeometry | null = null;
  private readonly uniform: GPUBuffer;
  private readonly data = new ArrayBuffer(SLICE_LAYOUT.size);
  private readonly f32 = new Float32Array(this.data);
  private readonly u32 = new Uint32Array(this.data);
  private readonly phi: PerShape<{ values: GPUBuffer; bindGroup: GPUBindGroup }>;
  private current: GPUBindGroup | null = null;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    this.uniform = ctx.device.createBuffer({ size: SLICE_LAYOUT.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'slice' });
    this.phi = new PerShape(
      (s) => {
        const shape = this.scene!.world.shapes[s]!;
        const values = ctx.buffer(shape.sdf!.values, GPUBufferUsage.STORAGE, `${shape.name} phi`);
        const bindGroup = ctx.device.createBindGroup({
          label: `${shape.name} slice`,
          layout: ctx.layouts.slice,
          entries: [
            { binding: 0, resource: { buffer: this.uniform } },
            { binding: 1, resource: { buffer: values } },
          ],
        });
        return { values, bindGroup };
      },
      (p) => p.values.destroy(),
    );
  }

  static async create(ctx: RenderContext): Promise<SlicePass> {
    const pipeline = await ctx.pipeline({
      label: 'sdf slice',
      input: VERTEX_INPUTS.slice,
      groups: 'slice',
      primitive: { cullMode: 'none' },
      depthWrite: true,
      depthCompare: 'less',
    });
    return new SlicePass(ctx, pipeline);
  }

  setScene(scene: SceneGeometry | null): void {
    this.phi.clear();
    this.scene = scene;
  }

  prepare(f: FrameState): void {
    const body = depthFieldBody(f);
    this.current = null;
    if (body < 0) return;
    const shape = f.world.bodies.shape[body]!;
    this.current = this.phi.get(shape).bindGroup;
    const sdf = f.world.shapes[shape]!.sdf!;
    const fl = this.f32;
    const u = this.u32;
    sliceQuad(sdf, f.views.sliceAxis, f.views.sliceOffset, fl);
    const o = SLICE_WORDS.origin / 4;
    fl[o] = sdf.origin[0];
    fl[o + 1] = sdf.origin[1];
    fl[o + 2] = sdf.origin[2];
    fl[o + 3] = sdf.cellSize;
    const n = SLICE_WORDS.dims / 4;
    u[n] = sdf.dims[0];
    u[n + 1] = sdf.dims[1];
    u[n + 2] = sdf.dims[2];
    u[n + 3] = f.scene.slotOf[body]!;
    this.ctx.device.queue.writeBuffer(this.uniform, 0, this.data);
  }

  record(pass: GPURenderPassEncoder): void {
    if (!this.current) return;
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(1, this.current);
    pass.draw(6);
  }

  destroy(): void {
    this.phi.clear();
    this.uniform.destroy();
  }
}

interface NodeBuffers {
  buffer: GPUBuffer;
  outside: GPUBindGroup;
  inside: GPUBindGroup;
  outsideCount: number;
  insideCount: number;
}

export class DepthNodesPass implements RenderPassNode {
  readonly label = 'sdf nodes';
  private scene: SceneGeometry | null = null;
  private readonly insideStyle: PointStyle;
  private readonly outsideStyle: PointStyle;
  private readonly nodes: PerShape<NodeBuffers>;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    this.insideStyle = new PointStyle(ctx.device, 3.5, 'style inside nodes');
    this.outsideStyle = new PointStyle(ctx.device, 2, 'style outside nodes');
    this.nodes = new PerShape(
      (s) => this.makeNodes(s),
      (n) => n.buffer.destroy(),
    );
  }

  static async create(ctx: RenderContext): Promise<DepthNodesPass> {
    const pipeline = await ctx.pipeline({
      // Hidden behind the slice and other bodies, so the slice stays readable.
      label: 'sdf nodes',
      input: VERTEX_INPUTS.points,
      groups: 'points',
      blend: ALPHA_BLEND,
      depthWrite: false,
      depthCompare: 'less-equal',
    });
    return new DepthNodesPass(ctx, pipeline);
  }

  private makeNodes(s: number): NodeBuffers {
    const shape = this.scene!.world.shapes[s]!;
    const { list, outsideCount } = depthFieldNodes(shape.sdf!);
    const buffer = this.ctx.buffer(list.bytes(), GPUBufferUsage.STORAGE, `${shape.name} sdf nodes`);
    return {
      buffer,
      outside: this.ctx.pointBindGroup(buffer, this.outsideStyle.buffer, `${shape.name} outside nodes`),
      inside: this.ctx.pointBindGroup(buffer, this.insideStyle.buffer, `${shape.name} inside nodes`),
      outsideCount,
      insideCount: list.count - outsideCount,
    };
  }

  setScene(scene: SceneGeometry | null): void {
    this.nodes.clear();
    this.scene = scene;
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    const body = depthFieldBody(f);
    if (body < 0 || !f.views.depthNodes) return;
    const n = this.nodes.get(f.world.bodies.shape[body]!);
    const slot = f.scene.slotOf[body]!;
    pass.setPipeline(this.pipeline);
    if (n.outsideCount > 0) {
      pass.setBindGroup(1, n.outside);
      pass.draw(6 * n.outsideCount, 1, 0, slot);
    }
    if (n.insideCount > 0) {
      pass.setBindGroup(1, n.inside);
      pass.draw(6 * n.insideCount, 1, 6 * n.outsideCount, slot);
    }
  }

  setPixelRatio(dpr: number): void {
    this.insideStyle.setPixelRatio(dpr);
    this.outsideStyle.setPixelRatio(dpr);
  }

  destroy(): void {
    this.nodes.clear();
    this.insideStyle.destroy();
    this.outsideStyle.destroy();
  }
}
