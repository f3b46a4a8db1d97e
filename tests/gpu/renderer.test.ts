/**
 * The WebGPU renderer's resources, rendering offscreen through Dawn: every
 * buffer of a scene is destroyed when the next scene comes (live buffers
 * counted across 20 scene switches with every view on, soft bodies among the
 * scenes), a steady frame creates no GPU object (with soft bodies too), and
 * destroy() leaves nothing behind. The device's
 * createBuffer and GPUBuffer.destroy are wrapped to count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCamera, frameBox } from '../../src/app/camera.ts';
import { GpuSceneRenderer } from '../../src/app/gpuRenderer.ts';
import { softSystemOf } from '../../src/app/sceneRenderer.ts';
import { defaultViews, setDepthNodes, setOthers, setSliceBody, setView, VIEW_NAMES, type ViewState } from '../../src/app/views.ts';
import type { World } from '../../src/dynamics/world.ts';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { builtinWorld, run } from '../dynamics/helpers.ts';

const FORMAT: GPUTextureFormat = 'rgba8unorm';
const W = 192; // 4 W is a multiple of 256, as copyTextureToBuffer needs
const H = 128;

interface Tracker {
  live: Set<GPUBuffer>;
  created: { buffers: number; bindGroups: number; textures: number };
  restore(): void;
}

/** Counts buffers, bind groups and textures the device creates, and which buffers are not destroyed yet. */
function track(device: GPUDevice): Tracker {
  const live = new Set<GPUBuffer>();
  const created = { buffers: 0, bindGroups: 0, textures: 0 };
  const probe = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST });
  const bufferProto = Object.getPrototypeOf(probe) as GPUBuffer;
  probe.destroy();
  const dev = device as unknown as Record<string, unknown>;
  const own = { createBuffer: dev['createBuffer'], createBindGroup: dev['createBindGroup'], createTexture: dev['createTexture'] };
  const createBuffer = device.createBuffer;
  const createBindGroup = device.createBindGroup;
  const createTexture = device.createTexture;
  const destroy = bufferProto.destroy;
  device.createBuffer = function (this: GPUDevice, d: GPUBufferDescriptor) {
    const b = createBuffer.call(this, d);
    live.add(b);
    created.buffers++;
    return b;
  };
  device.createBindGroup = function (this: GPUDevice, d: GPUBindGroupDescriptor) {
    created.bindGroups++;
    return createBindGroup.call(this, d);
  };
  device.createTexture = function (this: GPUDevice, d: GPUTextureDescriptor) {
    created.textures++;
    return createTexture.call(this, d);
  };
  bufferProto.destroy = function (this: GPUBuffer) {
    live.delete(this);
    return destroy.call(this);
  };
  return {
    live,
    created,
    restore() {
      // Back to the prototype's methods (or whatever the instance had before).
      for (const [k, v] of Object.entries(own)) {
        if (v === Object.getPrototypeOf(device)[k]) delete dev[k];
        else dev[k] = v;
      }
      bufferProto.destroy = destroy;
    },
  };
}

function labels(live: Set<GPUBuffer>): string[] {
  return [...live].map((b) => b.label).sort();
}

/** Every view on, and the depth field on body `slice`. */
function allViews(slice: number): ViewState {
  let v = setDepthNodes(defaultViews(), true);
  for (const n of VIEW_NAMES) if (n !== 'wireframe') v = setView(v, n, true);
  return { ...v, sliceBody: slice };
}

/** A body with an SDF (the depth field needs one). */
function sdfBody(w: World): number {
  for (let i = 0; i < w.bodies.count; i++) if (w.shapes[w.bodies.shape[i]!]!.sdf && !w.bodies.isStatic[i]) return i;
  return -1;
}

describe('WebGPU renderer resources', () => {
  let gpu: GpuContext;
  let worlds: World[];
  let target: GPUTexture;
  let readback: GPUBuffer;

  beforeAll(async () => {
    gpu = await requireGpuFromEnv();
    worlds = [
      await builtinWorld('tower', { height: 3 }),
      await builtinWorld('rings', { rings: 3 }),
      await builtinWorld('pile', { count: 3 }),
      await builtinWorld('chain', { links: 2 }),
      // Soft bodies: their surface, shadow, springs and particles passes.
      await builtinWorld('soft-seesaw'),
    ];
    // Contacts and joint anchors to draw.
    for (const w of worlds) await run(w, 3);
    target = gpu.device.createTexture({ size: [W, H], format: FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    readback = gpu.device.createBuffer({ size: W * H * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }, 120_000);

  afterAll(() => {
    target?.destroy();
    readback?.destroy();
  });

  async function pixels(): Promise<Uint8Array> {
    const enc = gpu.device.createCommandEncoder();
    enc.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow: W * 4 }, [W, H]);
    gpu.device.queue.submit([enc.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const px = new Uint8Array(readback.getMappedRange().slice(0));
    readback.unmap();
    return px;
  }

  function frame(r: GpuSceneRenderer, w: World | null, views: ViewState, box: [number[], number[]] = [[-2, 0, -2], [2, 3, 2]]): void {
    const cam = defaultCamera();
    if (w) frameBox(cam, box[0], box[1], { width: W, height: H, insets: { left: 0, top: 0, right: 0, bottom: 0 } });
    r.render(cam, views, target.createView());
  }

  it('a scene switch destroys every buffer of the old scene: the live count is the same after 20 switches', async () => {
    const t = track(gpu.device);
    try {
      const r = await GpuSceneRenderer.create(gpu.device, FORMAT);
      r.resize(W, H);
      frame(r, null, defaultViews());
      const base = labels(t.live);
      // After one pass over the scenes with every view on (per-shape buffers made on first use).
      const after: string[][] = [];
      for (let k = 0; k < 4 * worlds.length; k++) {
        const w = worlds[k % worlds.length]!;
        r.setWorld(w);
        r.setHighlight(sdfBody(w));
        const views = k % 2 === 0 ? allViews(sdfBody(w)) : setView(allViews(sdfBody(w)), 'wireframe', true);
        frame(r, w, views);
        frame(r, w, views);
        after.push(labels(t.live));
      }
      await gpu.device.queue.onSubmittedWorkDone();
      // The same scene with the same views holds the same buffers, however many switches came between.
      for (let k = worlds.length; k < after.length; k++) expect(after[k], `switch ${k}`).toEqual(after[k % (2 * worlds.length)]);
      expect(after.length).toBe(20);
      // Per-scene buffers exist while a scene is shown (meshes, samples, SDF values and nodes, wires)...
      expect(after[19]!.length).toBeGreaterThan(base.length);
      expect(after[19]!.some((l) => / mesh$/.test(l))).toBe(true);
      expect(after[18]!.some((l) => / samples$/.test(l))).toBe(true);
      expect(after[18]!.some((l) => / phi$/.test(l))).toBe(true);
      expect(after[18]!.some((l) => / sdf nodes$/.test(l))).toBe(true);
      // ...and none once the scene is gone.
      r.setWorld(null);
      frame(r, null, defaultViews());
      expect(labels(t.live)).toEqual(base);
      r.destroy();
      expect(labels(t.live)).toEqual([]);
    } finally {
      t.restore();
    }
  }, 60_000);

  it('a steady frame creates no buffer, bind group or texture (joints; soft bodies)', async () => {
    const r = await GpuSceneRenderer.create(gpu.device, FORMAT);
    try {
      r.resize(W, H);
      for (const w of [worlds[3]!, worlds[4]!]) {
        r.setWorld(w);
        const views = allViews(sdfBody(w));
        // Warm-up: lazily made per-shape buffers and the overlay buffers' growth.
        for (let k = 0; k < 3; k++) frame(r, w, views);
        const t = track(gpu.device);
        try {
          for (let k = 0; k < 10; k++) {
            // The soft bodies move between frames, so their geometry is rewritten every frame.
            if (w.soft) await w.step();
            frame(r, w, views);
          }
          expect(t.created, w.bodies.names.join(' ')).toEqual({ buffers: 0, bindGroups: 0, textures: 0 });
        } finally {
          t.restore();
        }
      }
    } finally {
      r.destroy();
    }
  }, 60_000);

  it('draws the soft bodies: their surface, and the net in its place in the springs view', async () => {
    const r = await GpuSceneRenderer.create(gpu.device, FORMAT);
    try {
      r.resize(W, H);
      expect(r.passLabels).toEqual([
        'background', 'ground', 'shadows', 'soft shadows', 'bodies', 'soft surfaces', 'sdf slice', 'wireframe',
        'overlay lines', 'samples', 'sdf nodes', 'contact points', 'soft springs and particles',
      ]);
      const w = worlds[4]!;
      const views = defaultViews();
      // Framed on the soft ball.
      const c = softSystemOf(w)!.centroid(0);
      const box: [number[], number[]] = [c.map((x) => x - 0.35), c.map((x) => x + 0.35)];
      r.setWorld(w);
      frame(r, w, views, box);
      const withSoft = await pixels();
      // The same rigid bodies without the soft ones.
      const soft = w.soft;
      w.soft = null;
      r.setWorld(w);
      frame(r, w, views, box);
      const without = await pixels();
      w.soft = soft;
      r.setWorld(w);
      frame(r, w, setView(setView(views, 'softSprings', true), 'softParticles', true), box);
      const net = await pixels();
      const diff = (a: Uint8Array, b: Uint8Array) => {
        let n = 0;
        for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!) > 30) n++;
        return n / (a.length / 4);
      };
      // The ball (0.3 m) fills some 10 % of the picture framed on it.
      expect(diff(without, withSoft)).toBeGreaterThan(0.05);
      expect(diff(withSoft, net)).toBeGreaterThan(0.05);
    } finally {
      r.destroy();
    }
  }, 60_000);

  it('the depth field fades or hides the other bodies, their shadows too', async () => {
    const r = await GpuSceneRenderer.create(gpu.device, FORMAT);
    try {
      r.resize(W, H);
      const w = worlds[0]!;
      r.setWorld(w);
      const on = setSliceBody(setView(defaultViews(), 'depthField', true), sdfBody(w));
      const shots: Record<string, Uint8Array> = {};
      for (const o of ['show', 'fade', 'hide'] as const) {
        frame(r, w, setOthers(on, o));
        shots[o] = await pixels();
      }
      const diff = (a: Uint8Array, b: Uint8Array) => {
        let n = 0;
        for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!) > 30) n++;
        return n / (a.length / 4);
      };
      /** Mean colour change a pixel (0..765). */
      const change = (a: Uint8Array, b: Uint8Array) => {
        let sum = 0;
        for (let i = 0; i < a.length; i += 4) sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
        return sum / (a.length / 4);
      };
      // Fading takes the other boxes' surfaces and shadows away; their faint edges are what stays of them.
      expect(diff(shots['show']!, shots['fade']!)).toBeGreaterThan(0.02);
      expect(diff(shots['fade']!, shots['hide']!)).toBeGreaterThan(0.002);
      expect(change(shots['fade']!, shots['hide']!)).toBeLessThan(change(shots['show']!, shots['hide']!) / 4);
    } finally {
      r.destroy();
    }
  }, 60_000);

  it('draws a picture: the scene differs from the empty background, and a view changes it', async () => {
    const r = await GpuSceneRenderer.create(gpu.device, FORMAT);
    try {
      r.resize(W, H);
      frame(r, null, defaultViews());
      const empty = await pixels();
      const w = worlds[0]!;
      r.setWorld(w);
      frame(r, w, defaultViews());
      const scene = await pixels();
      frame(r, w, setView(defaultViews(), 'wireframe', true));
      const wire = await pixels();
      const diff = (a: Uint8Array, b: Uint8Array) => {
        let n = 0;
        for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!) > 30) n++;
        return n / (a.length / 4);
      };
      // The tower and its ground cover a good part of the 192 x 128 picture.
      expect(diff(empty, scene)).toBeGreaterThan(0.05);
      expect(diff(scene, wire)).toBeGreaterThan(0.01);
    } finally {
      r.destroy();
    }
  }, 60_000);
});
