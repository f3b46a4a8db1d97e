/**
 * Bind group 0 of every pass: the Frame uniform (camera, light, fog, shadow
 * projection) and the Instance array (one model matrix and colour per body),
 * both rewritten every frame from the Float64 state into arrays kept between
 * frames.
 */
import { mat4 } from 'wgpu-matrix';
import { cameraEye, viewProjection, type OrbitCamera } from '../camera.ts';
import { bodyMatrix, FRAME, FRAME_FLOATS, INSTANCE_FLOATS, shadowMatrix, shadowPlane, type Plane } from '../frameData.ts';
import { bodyColor, levelColor } from '../overlays.ts';
import { LIGHT_DIR, type RenderWorld } from '../sceneRenderer.ts';
import { bodyLook, type ViewState } from '../views.ts';
import { GrowBuffer, type RenderContext } from './context.ts';
import { FRAME_LAYOUT, INSTANCE_ALPHA, INSTANCE_LAYOUT } from './layout.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** How much darker a sleeping body is drawn. */
const ASLEEP_SHADE = 0.5;
/** How far the highlighted body's colour moves towards white. */
const HIGHLIGHT_LIFT = 0.35;

const NO_PLANE = { n: [0, 1, 0] as [number, number, number], d: 0 };
const NO_LIGHT = [0, 0, 0] as const;

export class FrameResources {
  private readonly uniform: GPUBuffer;
  private readonly frameData = new Float32Array(FRAME_FLOATS);
  private readonly instances: GrowBuffer;
  private instanceData = new Float32Array(INSTANCE_FLOATS * 64);
  bindGroup: GPUBindGroup;
  private readonly viewProj = mat4.create();
  private readonly eye = new Float32Array(3);
  private readonly color = new Float32Array(3);
  private readonly plane: Plane = { n: [0, 1, 0], d: 0 };

  constructor(private readonly ctx: RenderContext) {
    const U = GPUBufferUsage;
    this.uniform = ctx.device.createBuffer({ size: FRAME_LAYOUT.size, usage: U.UNIFORM | U.COPY_DST, label: 'frame' });
    this.instances = new GrowBuffer(ctx.device, U.STORAGE | U.COPY_DST, 'instances', INSTANCE_LAYOUT.size * 64);
    this.bindGroup = this.makeBindGroup();
  }

  private makeBindGroup(): GPUBindGroup {
    return this.ctx.device.createBindGroup({
      label: 'frame',
      layout: this.ctx.layouts.frame,
      entries: [
        { binding: 0, resource: { buffer: this.uniform } },
        { binding: 1, resource: { buffer: this.instances.buffer } },
      ],
    });
  }

  /** Room for a scene's instances (on a scene change, not per frame). */
  reserve(scene: SceneGeometry): void {
    const floats = INSTANCE_FLOATS * scene.instanceCount;
    if (this.instanceData.length < floats) this.instanceData = new Float32Array(floats);
    if (this.instances.ensure(floats * 4)) this.bindGroup = this.makeBindGroup();
  }

  writeFrame(camera: OrbitCamera, world: RenderWorld | null, width: number, height: number): void {
    const f = this.frameData;
    viewProjection(camera, width / height, this.viewProj);
    f.set(this.viewProj, FRAME.viewProj);
    const plane = world ? shadowPlane(world, this.plane) : null;
    if (plane) shadowMatrix(plane, LIGHT_DIR, 0.002, f, FRAME.shadowProj);
    else shadowMatrix(NO_PLANE, NO_LIGHT, 0, f, FRAME.shadowProj);
    cameraEye(camera, this.eye);
    f[FRAME.eye] = this.eye[0]!;
    f[FRAME.eye + 1] = this.eye[1]!;
    f[FRAME.eye + 2] = this.eye[2]!;
    f[FRAME.eye + 3] = 1;
    f[FRAME.lightDir] = LIGHT_DIR[0];
    f[FRAME.lightDir + 1] = LIGHT_DIR[1];
    f[FRAME.lightDir + 2] = LIGHT_DIR[2];
    f[FRAME.lightDir + 3] = 0;
    f[FRAME.viewport] = width;
    f[FRAME.viewport + 1] = height;
    f[FRAME.viewport + 2] = 1 / width;
    f[FRAME.viewport + 3] = 1 / height;
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
    this.ctx.device.queue.writeBuffer(this.uniform, 0, f);
  }

  /**
   * Model matrix and colour of every body: the palette or the graph level,
   * darker when asleep, lighter when highlighted; while the depth field is
   * on, its body as its wireframe only (so its slice is not hidden inside
   * it) and the others faded, hidden or solid (views.ts bodyLook).
   */
  writeInstances(world: RenderWorld, scene: SceneGeometry, views: ViewState, highlight: number): void {
    const b = world.bodies;
    const d = this.instanceData;
    // Slot 0: identity, for world-space overlays.
    d.fill(0, 0, INSTANCE_FLOATS);
    d[0] = d[5] = d[10] = d[15] = 1;
    d[16] = d[17] = d[18] = d[19] = 1;
    const c = this.color;
    for (let i = 0; i < b.count; i++) {
      const o = scene.slotOf[i]! * INSTANCE_FLOATS;
      bodyMatrix(b.pos, b.quat, i, d, o);
      const isStatic = b.isStatic[i] === 1;
      if (views.levels) levelColor(i < world.level.length ? world.level[i]! : -1, c);
      else bodyColor(i, isStatic, c);
      const shade = b.asleep[i] && !isStatic ? ASLEEP_SHADE : 1;
      const lift = i === highlight ? HIGHLIGHT_LIFT : 0;
      for (let k = 0; k < 3; k++) d[o + 16 + k] = c[k]! * shade * (1 - lift) + lift;
      const look = bodyLook(views, i);
      d[o + 19] = look === 'wire' ? INSTANCE_ALPHA.wireOnly : look === 'faded' ? INSTANCE_ALPHA.faded : look === 'hidden' ? INSTANCE_ALPHA.hidden : INSTANCE_ALPHA.solid;
    }
    this.ctx.device.queue.writeBuffer(this.instances.buffer, 0, d.buffer, 0, scene.instanceCount * INSTANCE_LAYOUT.size);
  }

  destroy(): void {
    this.uniform.destroy();
    this.instances.destroy();
  }
}
