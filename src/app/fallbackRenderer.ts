/**
 * The Canvas2D wireframe renderer used when WebGPU is missing or the device
 * was lost: the CPU backend still simulates, and this keeps the app usable.
 * It draws the same camera, the ground grid, every body's mesh edges and the
 * overlay views (AABBs, contacts, samples, depth-field nodes); the SDF slice
 * needs the GPU and is left out.
 */
import { mat4 } from 'wgpu-matrix';
import { sampleCount, uniqueEdges } from '../geometry/samples.ts';
import { viewProjection, type OrbitCamera } from './camera.ts';
import { bodyMatrix, shadowPlane, type Plane } from './frameData.ts';
import { bodyColor, contactNormalLength, levelColor, OverlayGeometry, unpackColor, type VertexList } from './overlays.ts';
import { softSystemOf, type RenderWorld, type SceneRenderer } from './sceneRenderer.ts';
import { depthFieldNodes } from './sdfView.ts';
import { bodyLook, type ViewState } from './views.ts';

/** Clip-space w below which a point is behind the eye (lines are cut there). */
const NEAR_W = 1e-3;

export class Canvas2dRenderer implements SceneRenderer {
  readonly kind = 'canvas2d' as const;
  private readonly ctx: CanvasRenderingContext2D;
  private world: RenderWorld | null = null;
  private edges: Uint32Array[] = [];
  /** Per soft body: the edges of its drawn surface, and scratch for its positions. */
  private softEdges: Uint32Array[] = [];
  private softPositions = new Float32Array(0);
  private readonly vp = mat4.create();
  private readonly model = new Float32Array(16);
  private readonly mvp = mat4.create();
  /** Clip coordinates (x, y, z, w) of the current body's vertices. */
  private clip = new Float32Array(4 * 64);
  private readonly overlay = new OverlayGeometry();
  private normalLength = 0.2;
  private highlight = -1;
  private readonly color = new Float32Array(3);
  private readonly plane: Plane = { n: [0, 1, 0], d: 0 };
  private nodeCache = new Map<number, VertexList>();
  private readonly gridScratch = new Float64Array(6);

  constructor(readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('this canvas cannot give a 2D context');
    this.ctx = ctx;
  }

  setWorld(world: RenderWorld | null): void {
    this.world = world;
    this.highlight = -1;
    this.nodeCache.clear();
    this.normalLength = world ? contactNormalLength(world) : 0.2;
    this.edges = world ? world.shapes.map((s) => (s.kind === 'plane' ? new Uint32Array(0) : uniqueEdges(s.mesh))) : [];
    const soft = softSystemOf(world);
    this.softEdges = soft ? soft.bodies.map((sb) => uniqueEdges(sb.model.surface)) : [];
    for (const sb of soft?.bodies ?? []) {
      const n = sb.surface.skinWeight.length / 4;
      if (this.clip.length < 4 * n) this.clip = new Float32Array(4 * n);
      if (this.softPositions.length < 3 * n) this.softPositions = new Float32Array(3 * n);
    }
    let maxV = 0;
    for (const s of world?.shapes ?? []) maxV = Math.max(maxV, s.mesh.positions.length / 3, s.kind === 'mesh' ? sampleCount(s.samples) : 0);
    if (this.clip.length < 4 * maxV) this.clip = new Float32Array(4 * maxV);
  }

  setHighlight(body: number): void {
    this.highlight = body;
  }

  resize(width: number, height: number): void {
    const w = Math.max(1, Math.floor(width));
    const h = Math.max(1, Math.floor(height));
    if (this.canvas.width !== w) this.canvas.width = w;
    if (this.canvas.height !== h) this.canvas.height = h;
  }

  render(camera: OrbitCamera, views: ViewState): void {
    const ctx = this.ctx;
    const W = this.canvas.width;
    const H = this.canvas.height;
    const g = ctx.createLinearGradient(0, 0, 0, H);
    g.addColorStop(0, '#0b0d12');
    g.addColorStop(1, '#1a1e26');
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, W, H);
    viewProjection(camera, W / H, this.vp);
    const world = this.world;
    if (!world) return;
    ctx.lineWidth = Math.max(1, W / 1400);
    this.drawGround(world, camera);
    const b = world.bodies;
    for (let i = 0; i < b.count; i++) {
      const si = b.shape[i]!;
      const s = world.shapes[si]!;
      if (s.kind === 'plane') continue;
      if (views.levels) levelColor(i < world.level.length ? world.level[i]! : -1, this.color);
      else bodyColor(i, b.isStatic[i] === 1, this.color);
      bodyMatrix(b.pos, b.quat, i, this.model, 0);
      mat4.multiply(this.vp, this.model, this.mvp);
      const p = s.mesh.positions;
      const nv = p.length / 3;
      this.transform(p, 3, nv);
      // Sleeping bodies darker, the highlighted one light and thicker (as the WebGPU renderer does).
      const look = bodyLook(views, i);
      if (look === 'hidden') continue;
      const gain = (i === this.highlight ? 2.2 : b.asleep[i] && !b.isStatic[i] ? 0.6 : 1.25) * (look === 'faded' ? 0.3 : 1);
      ctx.strokeStyle = rgb(this.color, gain);
      ctx.lineWidth = Math.max(1, W / 1400) * (i === this.highlight ? 2 : 1);
      ctx.beginPath();
      const e = this.edges[si]!;
      for (let k = 0; k < e.length; k += 2) this.segment(e[k]!, e[k + 1]!, W, H);
      ctx.stroke();
      if (views.samples && s.kind === 'mesh') {
        const n = sampleCount(s.samples);
        this.transform(s.samples.points, 4, n);
        ctx.fillStyle = '#ffd633';
        for (let k = 0; k < n; k++) this.dot(k, W, H, 1.5);
      }
    }
    if (views.depthField && views.depthNodes && views.sliceBody >= 0 && views.sliceBody < b.count) {
      const i = views.sliceBody;
      const s = world.shapes[b.shape[i]!]!;
      if (s.sdf) {
        let nodes = this.nodeCache.get(b.shape[i]!);
        if (!nodes) {
          nodes = depthFieldNodes(s.sdf).list;
          this.nodeCache.set(b.shape[i]!, nodes);
        }
        bodyMatrix(b.pos, b.quat, i, this.model, 0);
        mat4.multiply(this.vp, this.model, this.mvp);
        if (this.clip.length < 4 * nodes.count) this.clip = new Float32Array(4 * nodes.count);
        this.transform(nodes.f32, 4, nodes.count);
        for (let k = 0; k < nodes.count; k++) {
          const c = unpackColor(nodes.u32[4 * k + 3]!);
          ctx.fillStyle = `rgba(${c[0] * 255},${c[1] * 255},${c[2] * 255},${c[3]})`;
          this.dot(k, W, H, 1.5);
        }
      }
    }
    this.drawSoft(world, W, H);
    this.drawOverlays(world, views, W, H);
  }

  /** The soft bodies' drawn surfaces as wireframes, in the rigid bodies' palette after them. */
  private drawSoft(world: RenderWorld, W: number, H: number): void {
    const soft = softSystemOf(world);
    if (!soft) return;
    const ctx = this.ctx;
    mat4.copy(this.vp, this.mvp);
    soft.bodies.forEach((sb, k) => {
      const n = sb.surface.skinWeight.length / 4;
      soft.surfacePositions(k, this.softPositions);
      this.transform(this.softPositions, 3, n);
      bodyColor(world.bodies.count + k, false, this.color);
      ctx.strokeStyle = rgb(this.color, 1.25);
      ctx.beginPath();
      const e = this.softEdges[k]!;
      for (let j = 0; j < e.length; j += 2) this.segment(e[j]!, e[j + 1]!, W, H);
      ctx.stroke();
    });
  }

  /** Grid lines on the shadow plane around the camera target, 1 m apart. */
  private drawGround(world: RenderWorld, camera: OrbitCamera): void {
    const plane = shadowPlane(world, this.plane);
    if (!plane) return;
    const ctx = this.ctx;
    const [nx, ny, nz] = plane.n;
    // In-plane axes: project world x and z onto the plane.
    const t1 = [1 - nx * nx, -nx * ny, -nx * nz];
    const t2 = [-nz * nx, -nz * ny, 1 - nz * nz];
    const o = [plane.d * nx, plane.d * ny, plane.d * nz];
    const cx = Math.round(camera.target[0]);
    const cz = Math.round(camera.target[2]);
    const R = 20;
    mat4.copy(this.vp, this.mvp);
    const pts = this.gridScratch;
    for (let k = -R; k <= R; k++) {
      ctx.strokeStyle = k % 5 === 0 ? 'rgba(120,130,150,0.45)' : 'rgba(90,98,115,0.25)';
      ctx.beginPath();
      for (let dir = 0; dir < 2; dir++) {
        for (let e = 0; e < 2; e++) {
          const a = dir === 0 ? cx + k : cx + (e === 0 ? -R : R);
          const c = dir === 0 ? cz + (e === 0 ? -R : R) : cz + k;
          for (let m = 0; m < 3; m++) pts[3 * e + m] = o[m]! + a * t1[m]! + c * t2[m]!;
        }
        this.transform(pts, 3, 2);
        this.segment(0, 1, this.canvas.width, this.canvas.height);
      }
      ctx.stroke();
    }
  }

  private drawOverlays(world: RenderWorld, views: ViewState, W: number, H: number): void {
    this.overlay.build(world, views, this.normalLength);
    const lines: VertexList = this.overlay.lines;
    const points: VertexList = this.overlay.points;
    if (lines.count === 0 && points.count === 0) return;
    mat4.copy(this.vp, this.mvp);
    const ctx = this.ctx;
    const n = Math.max(lines.count, points.count);
    if (this.clip.length < 4 * n) this.clip = new Float32Array(4 * n);
    this.transform(lines.f32, 4, lines.count);
    for (let k = 0; k < lines.count; k += 2) {
      const c = unpackColor(lines.u32[4 * k + 3]!);
      ctx.strokeStyle = `rgba(${c[0] * 255},${c[1] * 255},${c[2] * 255},${c[3]})`;
      ctx.beginPath();
      this.segment(k, k + 1, W, H);
      ctx.stroke();
    }
    this.transform(points.f32, 4, points.count);
    ctx.fillStyle = '#ff4059';
    for (let k = 0; k < points.count; k++) this.dot(k, W, H, 3.5);
  }

  /** Clip coordinates of n points (stride floats apart, xyz first) through this.mvp into this.clip. */
  private transform(p: ArrayLike<number>, stride: number, n: number): void {
    const m = this.mvp;
    const c = this.clip;
    for (let k = 0; k < n; k++) {
      const x = p[stride * k]!, y = p[stride * k + 1]!, z = p[stride * k + 2]!;
      c[4 * k] = m[0]! * x + m[4]! * y + m[8]! * z + m[12]!;
      c[4 * k + 1] = m[1]! * x + m[5]! * y + m[9]! * z + m[13]!;
      c[4 * k + 2] = m[2]! * x + m[6]! * y + m[10]! * z + m[14]!;
      c[4 * k + 3] = m[3]! * x + m[7]! * y + m[11]! * z + m[15]!;
    }
  }

  /** Adds the segment between transformed points a and b to the path, cut at the near plane. */
  private segment(a: number, b: number, W: number, H: number): void {
    const c = this.clip;
    let ax = c[4 * a]!, ay = c[4 * a + 1]!, aw = c[4 * a + 3]!;
    let bx = c[4 * b]!, by = c[4 * b + 1]!, bw = c[4 * b + 3]!;
    if (aw < NEAR_W && bw < NEAR_W) return;
    if (aw < NEAR_W || bw < NEAR_W) {
      const t = (NEAR_W - aw) / (bw - aw);
      const x = ax + t * (bx - ax), y = ay + t * (by - ay);
      if (aw < NEAR_W) {
        ax = x;
        ay = y;
        aw = NEAR_W;
      } else {
        bx = x;
        by = y;
        bw = NEAR_W;
      }
    }
    this.ctx.moveTo((0.5 + (0.5 * ax) / aw) * W, (0.5 - (0.5 * ay) / aw) * H);
    this.ctx.lineTo((0.5 + (0.5 * bx) / bw) * W, (0.5 - (0.5 * by) / bw) * H);
  }

  private dot(k: number, W: number, H: number, r: number): void {
    const c = this.clip;
    const w = c[4 * k + 3]!;
    if (w < NEAR_W) return;
    this.ctx.fillRect((0.5 + (0.5 * c[4 * k]!) / w) * W - r, (0.5 - (0.5 * c[4 * k + 1]!) / w) * H - r, 2 * r, 2 * r);
  }

  destroy(): void {
    this.world = null;
  }
}

function rgb(c: Float32Array, gain: number): string {
  const f = (x: number) => Math.round(Math.min(1, Math.pow(x * gain, 1 / 1.6)) * 255);
  return `rgb(${f(c[0]!)},${f(c[1]!)},${f(c[2]!)})`;
}
