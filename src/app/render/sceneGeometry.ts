/**
 * The GPU side of one scene that several passes draw: a render mesh per
 * shape (position + crease normal per triangle corner; the ground, shadow and
 * body passes all read it) and the instance slots. Bodies are grouped by
 * shape so each shape is one instanced draw: slot 0 is the identity (for
 * world-space overlays), then the bodies of shape 0, shape 1, ...
 *
 * Made by the renderer on a scene change and destroyed on the next one.
 */
import type { RenderContext } from './context.ts';
import { contactNormalLength } from '../overlays.ts';
import { buildRenderMesh } from '../renderMesh.ts';
import type { RenderWorld } from '../sceneRenderer.ts';

interface ShapeMesh {
  vertices: GPUBuffer;
  vertexCount: number;
  isPlane: boolean;
}

export class SceneGeometry {
  private readonly meshes: ShapeMesh[] = [];
  /** Bodies of shape s occupy instance slots [shapeFirst[s], shapeFirst[s] + shapeCount[s]). */
  readonly shapeFirst: Uint32Array;
  readonly shapeCount: Uint32Array;
  /** Instance slot of each body. */
  readonly slotOf: Uint32Array;
  /** Bodies + the identity slot. */
  readonly instanceCount: number;
  /** Length of the contact normals drawn (overlays.ts contactNormalLength). */
  readonly normalLength: number;

  constructor(
    ctx: RenderContext,
    readonly world: RenderWorld,
  ) {
    for (const s of world.shapes) {
      const rm = buildRenderMesh(s.mesh);
      this.meshes.push({
        vertices: ctx.buffer(rm.vertices, GPUBufferUsage.VERTEX, `${s.name} mesh`),
        vertexCount: rm.vertexCount,
        isPlane: s.kind === 'plane',
      });
    }
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
    this.instanceCount = b.count + 1;
    this.normalLength = contactNormalLength(world);
  }

  /** One instanced draw per shape: the planes, or every other shape. */
  drawShapes(pass: GPURenderPassEncoder, planes: boolean): void {
    for (let s = 0; s < this.meshes.length; s++) {
      const m = this.meshes[s]!;
      if (m.isPlane !== planes || this.shapeCount[s] === 0) continue;
      pass.setVertexBuffer(0, m.vertices);
      pass.draw(m.vertexCount, this.shapeCount[s]!, 0, this.shapeFirst[s]!);
    }
  }

  destroy(): void {
    for (const m of this.meshes) m.vertices.destroy();
    this.meshes.length = 0;
  }
}
