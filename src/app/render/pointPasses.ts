/**
 * Overlays drawn as lines and round dots: world-space lines (AABBs, contact
 * normals, joint anchors) from the frame's OverlayGeometry, the collision
 * samples of every body, and the contact points on top of everything.
 * Dots are screen-space quads (render_points.wgsl) read from a storage
 * buffer of PointRec, sized by a PointStyle uniform.
 */
import { sampleCount } from '../../geometry/samples.ts';
import { packColor, VertexList } from '../overlays.ts';
import { ALPHA_BLEND, GrowBuffer, PerShape, PointStyle, type PipelineSpec, type RenderContext } from './context.ts';
import type { FrameState, RenderPassNode } from './types.ts';
import { OVERLAY_VERTEX_BYTES, VERTEX_INPUTS } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** Dots drawn over everything (no depth test). */
export const POINTS_ON_TOP: PipelineSpec = {
  label: 'points',
  input: VERTEX_INPUTS.points,
  groups: 'points',
  blend: ALPHA_BLEND,
  depthWrite: false,
  depthCompare: 'always',
};

/** Writes a vertex list into a grow buffer; true when the buffer was replaced (its bind groups are stale). */
function upload(device: GPUDevice, buffer: GrowBuffer, list: VertexList): boolean {
  if (list.count === 0) return false;
  const replaced = buffer.ensure(list.count * OVERLAY_VERTEX_BYTES);
  device.queue.writeBuffer(buffer.buffer, 0, list.buffer, 0, list.count * OVERLAY_VERTEX_BYTES);
  return replaced;
}

/** The frame's overlay lines, over the scene. */
export class OverlayLinesPass implements RenderPassNode {
  readonly label = 'overlay lines';
  private readonly buffer: GrowBuffer;
  private count = 0;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    const U = GPUBufferUsage;
    this.buffer = new GrowBuffer(ctx.device, U.VERTEX | U.COPY_DST, 'overlay lines', 1024 * OVERLAY_VERTEX_BYTES);
  }

  static async create(ctx: RenderContext): Promise<OverlayLinesPass> {
    const pipeline = await ctx.pipeline({
      label: 'overlay lines',
      input: VERTEX_INPUTS.overlayLines,
      groups: 'frame',
      blend: ALPHA_BLEND,
      primitive: { topology: 'line-list' },
      depthWrite: false,
      depthCompare: 'always',
    });
    return new OverlayLinesPass(ctx, pipeline);
  }

  setScene(_scene: SceneGeometry | null): void {}

  prepare(f: FrameState): void {
    this.count = f.overlay.lines.count;
    upload(this.ctx.device, this.buffer, f.overlay.lines);
  }

  record(pass: GPURenderPassEncoder): void {
    if (this.count === 0) return;
    pass.setPipeline(this.pipeline);
    pass.setVertexBuffer(0, this.buffer.buffer);
    pass.draw(this.count);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

/** The frame's contact points (world space, instance slot 0). */
export class ContactPointsPass implements RenderPassNode {
  readonly label = 'contact points';
  private readonly buffer: GrowBuffer;
  private readonly style: PointStyle;
  private bindGroup: GPUBindGroup;
  private count = 0;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    const U = GPUBufferUsage;
    this.buffer = new GrowBuffer(ctx.device, U.STORAGE | U.COPY_DST, 'contact points', 256 * OVERLAY_VERTEX_BYTES);
    this.style = new PointStyle(ctx.device, 9, 'style contacts');
    this.bindGroup = ctx.pointBindGroup(this.buffer.buffer, this.style.buffer, 'contact points');
  }

  static async create(ctx: RenderContext): Promise<ContactPointsPass> {
    return new ContactPointsPass(ctx, await ctx.pipeline({ ...POINTS_ON_TOP, label: 'contact points' }));
  }

  setScene(_scene: SceneGeometry | null): void {}

  prepare(f: FrameState): void {
    this.count = f.overlay.points.count;
    if (upload(this.ctx.device, this.buffer, f.overlay.points)) {
      this.bindGroup = this.ctx.pointBindGroup(this.buffer.buffer, this.style.buffer, 'contact points');
    }
  }

  record(pass: GPURenderPassEncoder): void {
    if (this.count === 0) return;
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(1, this.bindGroup);
    pass.draw(6 * this.count, 1, 0, 0);
  }

  setPixelRatio(dpr: number): void {
    this.style.setPixelRatio(dpr);
  }

  destroy(): void {
    this.buffer.destroy();
    this.style.destroy();
  }
}

interface SampleBuffers {
  buffer: GPUBuffer;
  vertices: GPUBindGroup;
  edges: GPUBindGroup;
  vertexCount: number;
  sampleCount: number;
}

const SAMPLE_VERTEX = packColor(1.0, 0.85, 0.2);
const SAMPLE_EDGE = packColor(1.0, 0.45, 0.15);

/** Collision samples of every mesh body: vertex samples larger than edge samples. */
export class SamplePointsPass implements RenderPassNode {
  readonly label = 'samples';
  private scene: SceneGeometry | null = null;
  private readonly vertexStyle: PointStyle;
  private readonly edgeStyle: PointStyle;
  private readonly samples: PerShape<SampleBuffers | null>;

  private constructor(
    private readonly ctx: RenderContext,
    private readonly pipeline: GPURenderPipeline,
  ) {
    this.vertexStyle = new PointStyle(ctx.device, 3.5, 'style sample vertices');
    this.edgeStyle = new PointStyle(ctx.device, 2, 'style edge samples');
    this.samples = new PerShape(
      (s) => this.makeSamples(s),
      (b) => b?.buffer.destroy(),
    );
  }

  static async create(ctx: RenderContext): Promise<SamplePointsPass> {
    return new SamplePointsPass(ctx, await ctx.pipeline({ ...POINTS_ON_TOP, label: 'samples' }));
  }

  private makeSamples(si: number): SampleBuffers | null {
    const s = this.scene!.world.shapes[si]!;
    const n = sampleCount(s.samples);
    if (s.kind !== 'mesh' || n === 0) return null;
    const list = new VertexList(n);
    const p = s.samples.points;
    for (let k = 0; k < n; k++) list.push(p[4 * k]!, p[4 * k + 1]!, p[4 * k + 2]!, k < s.samples.vertexCount ? SAMPLE_VERTEX : SAMPLE_EDGE);
    const buffer = this.ctx.buffer(list.bytes(), GPUBufferUsage.STORAGE, `${s.name} samples`);
    return {
      buffer,
      vertices: this.ctx.pointBindGroup(buffer, this.vertexStyle.buffer, `${s.name} vertex samples`),
      edges: this.ctx.pointBindGroup(buffer, this.edgeStyle.buffer, `${s.name} edge samples`),
      vertexCount: s.samples.vertexCount,
      sampleCount: n,
    };
  }

  setScene(scene: SceneGeometry | null): void {
    this.samples.clear();
    this.scene = scene;
  }

  record(pass: GPURenderPassEncoder, f: FrameState): void {
    if (!f.views.samples) return;
    pass.setPipeline(this.pipeline);
    const count = f.scene.shapeCount;
    for (let s = 0; s < count.length; s++) {
      if (count[s] === 0) continue;
      const sm = this.samples.get(s);
      if (!sm) continue;
      // Edge samples first, so the larger vertex dots stay on top.
      pass.setBindGroup(1, sm.edges);
      pass.draw(6 * (sm.sampleCount - sm.vertexCount), count[s]!, 6 * sm.vertexCount, f.scene.shapeFirst[s]!);
      pass.setBindGroup(1, sm.vertices);
      pass.draw(6 * sm.vertexCount, count[s]!, 0, f.scene.shapeFirst[s]!);
    }
  }

  setPixelRatio(dpr: number): void {
    this.vertexStyle.setPixelRatio(dpr);
    this.edgeStyle.setPixelRatio(dpr);
  }

  destroy(): void {
    this.samples.clear();
    this.vertexStyle.destroy();
    this.edgeStyle.destroy();
  }
}
