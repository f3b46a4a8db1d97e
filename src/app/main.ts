/**
 * The viewer (index.html): wires the simulation, a renderer, the panel, the
 * camera input, scene files and recording together. The pieces live in their
 * own modules; this file decides what happens when.
 *
 * Start-up: platform -> GPU (or a plain notice and the CPU + Canvas2D path)
 * -> renderer -> panel -> the scene named by the URL (or the first built-in).
 * The body's data attributes tell tests and scripts where the app is:
 * data-app-ready="1" once the first scene is shown, data-scene, data-renderer,
 * data-backend, data-steps (updated as it runs).
 */
import type { BackendKind } from '../collision/query.ts';
import { GpuUnavailableError, InputError } from '../errors.ts';
import { sharedGpu, type GpuContext } from '../gpu/device.ts';
import { builtinScene, listBuiltins, type BuiltinInfo } from '../scene/builtins.ts';
// Installs joints and motors into scene building (the joint and robot scenes need it).
import { parseSceneText } from '../scene/load.ts';
import type { SceneDesc } from '../scene/types.ts';
import type { World } from '../dynamics/world.ts';
import { validateScene } from '../scene/validate.ts';
import { defaultCamera, frameBounds } from './camera.ts';
import { Canvas2dRenderer } from './fallbackRenderer.ts';
import { WebGpuRenderer } from './gpuRenderer.ts';
import { attachCameraInput } from './input.ts';
import { worldAabb } from './overlays.ts';
import { ControlPanel, type PanelSolver } from './panel.ts';
import { droppedFilesReader, fetchText, installBrowserPlatform } from './platform.ts';
import { CanvasRecorder, downloadUrl } from './recorder.ts';
import { softSystemOf, type SceneRenderer } from './sceneRenderer.ts';
import { SoftPanel } from './softPanel.ts';
import { Simulation } from './simulation.ts';
import { StageChart } from './stageChart.ts';
import { formatAppUrl, parseAppUrl, sceneParams } from './urlState.ts';
import {
  defaultViews,
  resolveSliceBody,
  setSliceAxis,
  setSliceBody,
  setSliceOffset,
  setView,
  viewsFromParam,
  viewsToParam,
  type ViewState,
} from './views.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const WEBGPU_HELP =
  'Use Chrome or Edge 113 or newer (or another browser with WebGPU enabled, e.g. chrome://flags/#enable-unsafe-webgpu on Linux). ' +
  'Until then the app runs on the CPU backend and draws a 2D wireframe.';

class App {
  private gpu: GpuContext | null = null;
  private renderer!: SceneRenderer;
  private sim!: Simulation;
  private panel!: ControlPanel;
  private softPanel!: SoftPanel;
  private readonly chart = new StageChart();
  private readonly recorder = new CanvasRecorder();
  private readonly camera = defaultCamera();
  private views: ViewState = defaultViews();
  private builtins: BuiltinInfo[] = [];
  private sceneName: string | null = null;
  private params: Record<string, number> = {};
  private fileName: string | null = null;
  private detachInput: (() => void) | null = null;
  private frames = 0;
  private fpsT0 = performance.now();
  private readonly bounds = new Float64Array(6);

  async start(): Promise<void> {
    installBrowserPlatform();
    const url = parseAppUrl(location.search);
    this.views = viewsFromParam(url.views);
    this.builtins = listBuiltins();
    await this.setUpGpu();
    const backend: BackendKind = this.gpu ? (url.backend ?? 'gpu') : 'cpu';
    this.sim = new Simulation(this.gpu !== null, backend, {
      onStep: (w) => {
        this.chart.push(w.profile);
        const s = this.panel.stats;
        s.stepMs = w.profile.totalMs;
        s.contacts = w.profile.contacts;
        s.pairs = w.profile.pairs;
        s.time = w.time;
        s.steps = w.stepCount;
        document.body.dataset['steps'] = String(w.stepCount);
      },
      onWorld: (w) => {
        this.renderer.setWorld(w);
        this.softPanel.dt = w.dt;
        this.softPanel.show(softSystemOf(w));
        this.chart.clear();
        this.views = resolveSliceBody(this.views, w.bodies.count, (i) => !!w.shapes[w.bodies.shape[i]!]?.sdf);
        this.panel.showViews(this.views, w.bodies.count);
        this.panel.showSolver({ ...w.solver, dt: w.dt });
        this.panel.stats.time = w.time;
        this.panel.stats.steps = w.stepCount;
        document.body.dataset['steps'] = String(w.stepCount);
      },
      onError: (e) => this.showError(e),
      onPlaying: (p) => this.panel.showPlaying(p),
      warn: (m) => this.notice(m, 'warn'),
    });
    this.panel = new ControlPanel(
      $('panel'),
      this.builtins,
      {
        selectScene: (name) => void this.openBuiltin(name, {}, true),
        sceneParamsChanged: (p) => void this.openBuiltin(this.sceneName!, p, false),
        openFile: () => $<HTMLInputElement>('file-input').click(),
        togglePlay: () => this.togglePlay(),
        step: () => void this.sim.step().catch((e) => this.showError(e)),
        reset: () => void this.reset(),
        setBackend: (k) => void this.setBackend(k),
        solverChanged: (s) => this.solverChanged(s),
        viewChanged: (n, on) => {
          this.views = setView(this.views, n, on);
          this.writeUrl();
        },
        sliceChanged: (body, axis, offset) => {
          this.views = setSliceOffset(setSliceAxis(setSliceBody(this.views, body), axis), offset);
          const w = this.sim.world;
          if (w) this.views = resolveSliceBody(this.views, w.bodies.count, (i) => !!w.shapes[w.bodies.shape[i]!]?.sdf);
        },
        toggleRecording: () => void this.toggleRecording(),
        downloadRecording: () => {
          const r = this.recorder.lastRecording;
          if (r) downloadUrl(r.url, r.fileName);
        },
      },
      this.gpu !== null,
      backend,
    );
    this.softPanel = new SoftPanel(this.panel.pane);
    this.panel.showViews(this.views, 1);
    $('hud').append(this.chart.element);
    this.setUpFiles();
    this.observeSize();
    requestAnimationFrame(this.frame);

    const name = url.scene && this.builtins.some((b) => b.name === url.scene) ? url.scene : this.builtins[0]?.name;
    if (url.scene && name !== url.scene) this.notice(`There is no built-in scene "${url.scene}"; showing "${name}".`, 'warn');
    if (url.file) this.notice(`The link named the scene file "${url.file}"; a link cannot carry the file itself: open it again.`, 'warn');
    if (name) await this.openBuiltin(name, url.params, true);
    document.body.dataset['appReady'] = '1';
  }

  /** WebGPU, or a notice and the fallback path. */
  private async setUpGpu(): Promise<void> {
    const canvas = $<HTMLCanvasElement>('view');
    try {
      // The one device of the page, shared with the GPU query backend and baker (collision/backends.ts).
      const gpu = await sharedGpu();
      this.gpu = gpu;
      // Any loss we did not cause, including a browser-side destroy (a crashed GPU process can
      // report reason "destroyed"), falls back to the CPU and the 2D view.
      void gpu.device.lost.then((info) => {
        if (this.gpu === gpu) void this.gpuLost(`WebGPU device lost (${info.reason}): ${info.message || 'no message'}`);
      });
      this.renderer = await WebGpuRenderer.create(canvas, gpu.device);
      document.body.dataset['adapter'] = this.gpu.adapterInfo;
    } catch (e) {
      this.gpu?.destroy();
      this.gpu = null;
      // The message is shared with the CLI, whose advice (a command-line flag) does not apply here.
      const why = (e instanceof GpuUnavailableError ? e.message : `WebGPU could not start: ${errorText(e)}`).replace(
        /;\s*use --backend cpu\s*$/,
        '',
      );
      this.notice(`${why}. ${WEBGPU_HELP}`, 'gpu');
      this.renderer = new Canvas2dRenderer(this.replaceCanvas());
    }
    document.body.dataset['renderer'] = this.renderer.kind;
    this.attachInput();
  }

  /** A canvas that had a WebGPU context cannot give a 2D one: swap in a fresh element. */
  private replaceCanvas(): HTMLCanvasElement {
    const old = $<HTMLCanvasElement>('view');
    const c = document.createElement('canvas');
    c.id = 'view';
    c.className = old.className;
    c.tabIndex = 0;
    old.replaceWith(c);
    return c;
  }

  private async gpuLost(message: string): Promise<void> {
    if (this.recorder.recording) await this.toggleRecording();
    this.gpu = null;
    this.notice(`${message}. Switched to the CPU backend and the 2D wireframe view; reload the page to try WebGPU again.`, 'gpu');
    this.renderer.destroy();
    this.renderer = new Canvas2dRenderer(this.replaceCanvas());
    document.body.dataset['renderer'] = this.renderer.kind;
    this.attachInput();
    this.observeSize();
    await this.sim.dropGpu();
    this.panel.showBackend('cpu', false);
    this.renderer.setWorld(this.sim.world);
    document.body.dataset['backend'] = 'cpu';
    this.writeUrl();
  }

  private attachInput(): void {
    this.detachInput?.();
    this.detachInput = attachCameraInput(this.renderer.canvas, this.camera, {
      onCameraChange: () => {},
      togglePlay: () => this.togglePlay(),
      step: () => void this.sim.step().catch((e) => this.showError(e)),
      reset: () => void this.reset(),
      frame: () => this.frameScene(),
    });
  }

  private resizeObserver: ResizeObserver | null = null;

  /** Keeps the drawing buffer at the canvas's size in device pixels. */
  private observeSize(): void {
    this.resizeObserver?.disconnect();
    const canvas = this.renderer.canvas;
    const apply = (w: number, h: number) => {
      this.renderer.resize(w, h);
      if (this.renderer instanceof WebGpuRenderer) this.renderer.setPixelRatio(devicePixelRatio || 1);
    };
    this.resizeObserver = new ResizeObserver((entries) => {
      for (const e of entries) {
        const dp = e.devicePixelContentBoxSize?.[0];
        if (dp) apply(dp.inlineSize, dp.blockSize);
        else {
          const dpr = devicePixelRatio || 1;
          apply(Math.round(e.contentRect.width * dpr), Math.round(e.contentRect.height * dpr));
        }
      }
    });
    try {
      this.resizeObserver.observe(canvas, { box: 'device-pixel-content-box' });
    } catch {
      this.resizeObserver.observe(canvas);
    }
    const dpr = devicePixelRatio || 1;
    apply(Math.round(canvas.clientWidth * dpr), Math.round(canvas.clientHeight * dpr));
  }

  private readonly frame = (): void => {
    requestAnimationFrame(this.frame);
    this.frames++;
    const now = performance.now();
    if (now - this.fpsT0 >= 500) {
      this.panel.stats.fps = (this.frames * 1000) / (now - this.fpsT0);
      this.frames = 0;
      this.fpsT0 = now;
    }
    try {
      this.renderer.render(this.camera, this.views);
    } catch (e) {
      // A render error repeats every frame: report it once.
      if (!this.renderFailed) this.showError(e);
      this.renderFailed = true;
    }
    this.chart.draw();
    this.updateStatus();
  };
  private renderFailed = false;

  private updateStatus(): void {
    const w = this.sim.world;
    const el = $('status');
    const scene = this.fileName ?? this.builtins.find((b) => b.name === this.sceneName)?.title ?? '';
    const text = w
      ? `${scene} · ${w.bodies.count} bodies${softCount(w)} · t = ${w.time.toFixed(2)} s · ${this.sim.backend.toUpperCase()} queries${
          this.gpu && this.sim.backend === 'gpu' ? ` (${this.gpu.adapterInfo})` : ''
        } · drawn with ${this.renderer.kind === 'webgpu' ? 'WebGPU' : 'the 2D fallback'}`
      : 'loading…';
    if (el.textContent !== text) el.textContent = text;
  }

  private togglePlay(): void {
    if (this.sim.playing) this.sim.pause();
    else this.sim.play();
  }

  private async reset(): Promise<void> {
    try {
      await this.sim.reset();
    } catch (e) {
      this.showError(e);
    }
  }

  private async setBackend(kind: BackendKind): Promise<void> {
    await this.sim.setBackend(kind);
    this.panel.showBackend(this.sim.backend, this.gpu !== null);
    document.body.dataset['backend'] = this.sim.backend;
    this.writeUrl();
  }

  private solverChanged(s: PanelSolver): void {
    this.sim.setOverrides(s);
  }

  /** Built-in scene `name` with URL/panel parameters (clamped to the scene's ranges). */
  private async openBuiltin(name: string, raw: Record<string, number>, frame: boolean): Promise<void> {
    const info = this.builtins.find((b) => b.name === name);
    if (!info) return;
    const params = sceneParams(info.params, raw);
    this.setBusy(`Building “${info.title}”…`);
    try {
      const desc = validateScene(builtinScene(name, params), `<builtin:${name}>`);
      await this.loadScene(desc, { readText: fetchText }, frame);
      this.sceneName = name;
      this.params = params;
      this.fileName = null;
      this.panel.showScene(name, params);
      this.clearError();
      this.writeUrl();
      document.body.dataset['scene'] = name;
    } catch (e) {
      this.showError(e);
    } finally {
      this.setBusy(null);
    }
  }

  /** A scene file plus any mesh files picked or dropped with it. */
  private async openFiles(files: File[]): Promise<void> {
    if (files.length === 0) return;
    const scene = files.find((f) => f.name.toLowerCase().endsWith('.json')) ?? files[0]!;
    this.setBusy(`Loading ${scene.name}…`);
    try {
      const text = await scene.text();
      const desc = parseSceneText(text, scene.name);
      await this.loadScene(desc, droppedFilesReader(files, scene.name), true);
      this.fileName = scene.name;
      this.sceneName = null;
      this.panel.showScene(null, {});
      this.clearError();
      this.writeUrl();
      document.body.dataset['scene'] = `file:${scene.name}`;
    } catch (e) {
      this.showError(e);
    } finally {
      this.setBusy(null);
    }
  }

  private async loadScene(desc: SceneDesc, io: { readText(p: string): Promise<string> }, frame: boolean): Promise<void> {
    const wasPlaying = this.sim.playing;
    this.sim.pause();
    const w = await this.sim.load(desc, io);
    if (frame) {
      this.frameScene();
      // A new scene: the depth field shows the body nearest the middle of the view.
      this.views = setSliceBody(this.views, this.nearestBodyWithSdf(w));
      this.panel.showViews(this.views, w.bodies.count);
    }
    if (wasPlaying) this.sim.play();
  }

  private nearestBodyWithSdf(w: World): number {
    let best = -1;
    let bestD = Infinity;
    const b = w.bodies;
    const t = this.camera.target;
    for (let i = 0; i < b.count; i++) {
      if (!w.shapes[b.shape[i]!]?.sdf) continue;
      const d = Math.hypot(b.pos[3 * i]! - t[0], b.pos[3 * i + 1]! - t[1], b.pos[3 * i + 2]! - t[2]);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    return best;
  }

  /** Points the camera at every non-plane body. */
  private frameScene(): void {
    const w = this.sim.world;
    if (!w) return;
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    const b = w.bodies;
    for (let i = 0; i < b.count; i++) {
      const s = w.shapes[b.shape[i]!]!;
      if (s.kind === 'plane') continue;
      worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, this.bounds);
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k]!, this.bounds[k]!);
        max[k] = Math.max(max[k]!, this.bounds[k + 3]!);
      }
    }
    if (!Number.isFinite(min[0]!)) return;
    const c = this.renderer.canvas;
    this.camera.yaw = 0.55;
    this.camera.pitch = 0.42;
    frameBounds(this.camera, min, max, c.clientWidth / Math.max(1, c.clientHeight), 1.25);
  }

  private writeUrl(): void {
    const search = formatAppUrl({
      scene: this.sceneName,
      params: this.params,
      backend: this.sim.backend,
      views: viewsToParam(this.views) || null,
      file: this.fileName,
    });
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
    document.body.dataset['backend'] = this.sim.backend;
  }

  private async toggleRecording(): Promise<void> {
    try {
      if (this.recorder.recording) {
        await this.recorder.stop(this.sceneName ?? this.fileName?.replace(/\.json$/i, '') ?? 'stackfield');
      } else {
        this.recorder.start(this.renderer.canvas);
      }
    } catch (e) {
      this.showError(e);
    }
    this.panel.showRecording(this.recorder.recording, this.recorder.lastRecording !== null);
    $('rec-dot').hidden = !this.recorder.recording;
  }

  private setUpFiles(): void {
    const input = $<HTMLInputElement>('file-input');
    input.addEventListener('change', () => {
      const files = [...(input.files ?? [])];
      input.value = '';
      void this.openFiles(files);
    });
    const overlay = $('drop-overlay');
    let depth = 0;
    window.addEventListener('dragenter', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      depth++;
      overlay.hidden = false;
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) overlay.hidden = true;
    });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      overlay.hidden = true;
      void this.openFiles([...(e.dataTransfer?.files ?? [])]);
    });
    $('error-close').addEventListener('click', () => this.clearError());
  }

  private setBusy(message: string | null): void {
    const el = $('busy');
    el.hidden = message === null;
    if (message) el.textContent = message;
  }

  /** Shows an error in the page: input errors verbatim (file, JSON path, what was expected), others with their kind. */
  private showError(e: unknown): void {
    const text = e instanceof InputError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (!(e instanceof InputError)) console.warn(e);
    $('error-text').textContent = text;
    $('error').hidden = false;
  }

  private clearError(): void {
    $('error').hidden = true;
    $('error-text').textContent = '';
  }

  /** A dismissible notice at the top (missing WebGPU, warnings). */
  private notice(message: string, kind: 'gpu' | 'warn'): void {
    const box = $('notices');
    const n = document.createElement('div');
    n.className = `notice notice-${kind}`;
    n.setAttribute('role', kind === 'gpu' ? 'alert' : 'status');
    const t = document.createElement('span');
    t.textContent = message;
    const x = document.createElement('button');
    x.textContent = '×';
    x.title = 'dismiss';
    x.addEventListener('click', () => n.remove());
    n.append(t, x);
    box.append(n);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

void new App().start().catch((e) => {
  const el = document.getElementById('error-text');
  if (el) {
    el.textContent = `The app could not start: ${errorText(e)}`;
    document.getElementById('error')!.hidden = false;
  }
  console.error(e);
});

/** " · N soft bodies (P particles)" for the status line, or nothing. */
function softCount(w: World): string {
  const soft = softSystemOf(w);
  if (!soft || soft.bodies.length === 0) return '';
  return ` · ${soft.bodies.length} soft bod${soft.bodies.length === 1 ? 'y' : 'ies'} (${soft.particleCount} particles)`;
}
