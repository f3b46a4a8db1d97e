/**
 * The viewer (index.html): wires the simulation, a renderer, the panel, the
 * transport bar, the overlays, the camera input, scene files and recording
 * together. The pieces live in their own modules; this file decides what
 * happens when.
 *
 * Start-up: platform -> GPU (or a plain notice and the CPU + Canvas2D path;
 * on a software adapter the queries default to the CPU) -> renderer ->
 * panel -> the scene named by the URL (a built-in, or a file this tab kept)
 * or the first built-in. A device lost on the way is survived: the load runs
 * again on the CPU with the 2D view.
 *
 * The body's data attributes tell tests and scripts where the app is:
 * data-app-ready="1" once the first scene is shown, data-scene,
 * data-renderer, data-backend, data-steps (updated as it runs).
 * `window.stackfield` holds the simulation and camera for the console and
 * the end-to-end tests.
 */
import type { BackendKind } from '../collision/query.ts';
import { rotateByQuat } from '../dynamics/math.ts';
import type { MotorHandle } from '../dynamics/motorHandle.ts';
import type { World } from '../dynamics/world.ts';
import { GpuUnavailableError, InputError } from '../errors.ts';
import { displayName, quote } from '../util/echo.ts';
import { sharedGpu, type GpuContext } from '../gpu/device.ts';
import { builtinScene, listBuiltins, type BuiltinInfo } from '../scene/builtins.ts';
import { loadSceneText } from '../scene/load.ts';
import type { SceneDesc } from '../scene/types.ts';
import { validateScene } from '../scene/validate.ts';
import { formatJson } from '../scene/json.ts';
import { type JsonObject } from '../scene/reader.ts';
import { applyViewport, cameraEye, defaultCamera, metresPerPixel, pixelRay, projectPoint, viewMatrix, type OrbitCamera, type Viewport } from './camera.ts';
import { exportFileName, exportSceneState } from './exportScene.ts';
import { shadowPlane } from './frameData.ts';
import { Canvas2dRenderer } from './fallbackRenderer.ts';
import { AutoFrame, followBody, frameWorld, pickBody, worldBounds, type FramedRegion } from './framing.ts';
import { WebGpuRenderer } from './gpuRenderer.ts';
import { BodyLabel, LevelsLegend, NumbersOverlay, sleepCounts, worldNumbers } from './hud.ts';
import { attachCameraInput } from './input.ts';
import { Interaction } from './interaction.ts';
import { LibraryPanel } from './libraryPanel.ts';
import { EditorPanel } from './editorPanel.ts';
import type { Ray } from './picking.ts';
import { MotorPanel } from './motorPanel.ts';
import { AppLibrary, readTexts, type LibraryItem } from './placing.ts';
import { ControlPanel, type PanelSolver } from './panel.ts';
import { OpenedMeshes } from './meshFiles.ts';
import { droppedFilesReader, fetchText, fileText, installBrowserPlatform } from './platform.ts';
import { CanvasRecorder, downloadUrl } from './recorder.ts';
import { frameSignature, RedrawGate } from './redrawGate.ts';
import { followedRobotBody } from './robots.ts';
import { softSystemOf, type SceneRenderer } from './sceneRenderer.ts';
import { SliceInset } from './sliceInset.ts';
import { AXES, axisDirection, dragSliceOffset, facingAxis, insetFrame, raySliceHit } from './sliceView.ts';
import { SoftPanel } from './softPanel.ts';
import { loadDroppedFiles, saveDroppedFiles } from './sessionFiles.ts';
import { Simulation, type SceneIo } from './simulation.ts';
import { StageChart } from './stageChart.ts';
import { TransportBar } from './transport.ts';
import { checkSceneParams, formatAppUrl, parseAppUrl, sceneParams, unknownSceneNote } from './urlState.ts';
import {
  defaultViews,
  setDepthNodes,
  setOthers,
  setSliceAxis,
  setSliceBody,
  setSliceMode,
  setSliceOffset,
  setView,
  viewsFromParam,
  viewsToParam,
  type OthersMode,
  type SliceMode,
  type ViewName,
  type ViewState,
} from './views.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const WEBGPU_HELP =
  'Use Chrome or Edge 113 or newer (or another browser with WebGPU enabled, e.g. chrome://flags/#enable-unsafe-webgpu on Linux). ' +
  'Until then the app runs on the CPU backend and draws a 2D wireframe.';

/** How long a failure on a live device waits for the loss that may have caused it. */
const LOSS_GRACE_MS = 500;
/** The overlays and monitors refresh this often (ms). */
const HUD_MS = 100;
/** A WebGPU device lost within this long (ms) of its first frame could not draw here at all (gpuLost). */
const FIRST_DRAWING_MS = 1000;
/** Framing margin for one body (it gets a little room around it). */
const BODY_MARGIN = 1.6;
/** Framing margin for the depth field's body: its slice (the whole grid across) fills more of the view. */
const DEPTH_MARGIN = 1.3;
const NUMBERS_KEY = 'stackfield.numbers';
/** How long a warning notice stays (ms). */
const NOTICE_MS = 25_000;

class App {
  private gpu: GpuContext | null = null;
  private renderer!: SceneRenderer;
  private sim!: Simulation;
  private panel!: ControlPanel;
  private transport!: TransportBar;
  private softPanel!: SoftPanel;
  private motorPanel!: MotorPanel;
  private readonly chart = new StageChart();
  private readonly numbers = new NumbersOverlay();
  private readonly legend = new LevelsLegend();
  private readonly label = new BodyLabel();
  /** The line that says which body the camera follows and how to stop. */
  private readonly followNote = document.createElement('div');
  private readonly recorder = new CanvasRecorder();
  private readonly inset = new SliceInset((offset) => {
    this.views = setSliceOffset(this.views, offset);
    this.showViews();
  });
  private readonly eye = new Float32Array(3);
  private readonly viewMat = new Float32Array(16);
  private readonly camera = defaultCamera();
  /** The view the scene opened with (Reset). */
  private homeCamera: OrbitCamera = defaultCamera();
  /** Widens the view while bodies head out of it, until the user moves the camera (framing.ts). */
  private readonly autoFrame = new AutoFrame();
  /** The step AutoFrame last saw: it acts while the simulation runs. */
  private autoStep = -1;
  private views: ViewState = defaultViews();
  private builtins: BuiltinInfo[] = [];
  private sceneName: string | null = null;
  private params: Record<string, number> = {};
  private fileName: string | null = null;
  /** The scene JSON the world was built from (for Export). */
  private sceneJson: unknown = null;
  /** The scene being loaded (kept in the URL while nothing is shown yet). */
  private requested: { scene: string | null; params: Record<string, number>; file: string | null } | null = null;
  /** Set when the device is lost: resolves once the app runs on the CPU with the 2D view. */
  private gpuLoss: Promise<void> | null = null;
  /** Notices about the scene shown (notice's `scoped`), removed when another scene opens. */
  private sceneNotices: HTMLElement[] = [];
  /** Why there is no GPU backend once the device was lost (the note under the backend choice); null before. */
  private gpuGoneNote: string | null = null;
  /** The chosen body (followed, shown by the depth field, highlighted), -1 none. */
  private selected = -1;
  private following = false;
  /** The world's body names (the panel's body list). */
  private bodyNames: string[] = [];
  /** The notice that the adapter draws in software (taken down when the device is lost). */
  private softwareNotice: HTMLElement | null = null;
  private detachInput: (() => void) | null = null;
  /** The files the scene's meshes are read from (placing a library instance builds it again). */
  private sceneIo: SceneIo = { readText: fetchText };
  /** The mesh files opened with scene files so far (a scene file opened again alone reads them, and says so). */
  private readonly meshes = new OpenedMeshes();
  /** What the status line calls the scene a world was built from: the built-in's title or the file's name. */
  private readonly sceneLabels = new WeakMap<SceneDesc, string>();
  /** The notice about the last typed scene parameter that was adjusted (the next one replaces it). */
  private paramNotice: HTMLElement | null = null;
  /** The parameter paramNotice is about and the value it says it has. */
  private paramNoted: { name: string; value: number } | null = null;

  private dropParamNotice(): void {
    this.paramNotice?.remove();
    this.paramNotice = null;
    this.paramNoted = null;
  }
  /** What is being loaded, as the busy line says it; null when nothing is. */
  private loading: string | null = null;
  /** The opened library files, their panel, and the mouse on the bodies (drag, throw, place). */
  private readonly library = new AppLibrary();
  private libraryPanel!: LibraryPanel;
  private interaction!: Interaction;
  private frames = 0;
  /** Whether the first scene has loaded: a WebGPU device lost before is one this browser cannot draw with (gpuLost). */
  private ready = false;
  /** When the WebGPU renderer first drew (performance.now()): a device lost within FIRST_DRAWING_MS of it is one this browser cannot draw with either (gpuLost). */
  private firstGpuFrameAt: number | null = null;
  private fps = 0;
  private fpsT0 = performance.now();
  private lastFrame = performance.now();
  private lastHud = 0;
  private renderFailed = false;
  private readonly projected = { x: 0, y: 0, front: false };
  /** The viewport as last measured (on every resize): read every frame without a layout. */
  private view: Viewport = { width: 1, height: 1, insets: { left: 0, top: 0, right: 0, bottom: 0 } };
  private readonly box = new Float64Array(6);
  private readonly rayOrigin = new Float64Array(3);
  private readonly rayDir = new Float64Array(3);

  async start(): Promise<void> {
    installBrowserPlatform();
    const url = parseAppUrl(location.search);
    this.views = viewsFromParam(url.views);
    this.numbers.visible = localStorage.getItem(NUMBERS_KEY) !== '0';
    this.builtins = listBuiltins();
    this.interaction = new Interaction(
      {
        world: () => this.sim?.world ?? null,
        ray: (px, py) => {
          pixelRay(this.camera, this.view, px, py, this.rayOrigin, this.rayDir);
          const o = this.rayOrigin, d = this.rayDir;
          return { origin: [o[0]!, o[1]!, o[2]!], dir: [d[0]!, d[1]!, d[2]!] } satisfies Ray;
        },
        project: (p) => {
          projectPoint(this.camera, this.view, p, this.projected);
          return this.projected.front ? [this.projected.x, this.projected.y] : null;
        },
        select: (i) => this.select(i),
        click: (x, y, double) => this.clicked(x, y, double),
        armed: () => this.libraryPanel.armed,
        place: (item, position, velocity, orientation) => void this.place(item, position, velocity, orientation),
        disarm: () => this.libraryPanel.arm(null),
        onSlice: (ray) => this.onSlice(ray),
        dragSlice: (dy) => this.dragSlice(dy),
      },
      $('stage'),
    );
    this.libraryPanel = new LibraryPanel($('column'), (item) => this.interaction.showArmed(item));
    // Between the notices and the stage chart, in the column that keeps them apart.
    $('hud').before(this.libraryPanel.element);
    // The robot editor (folded) under the library list, in the same column.
    const editor = new EditorPanel($('column'), (files) => this.openFiles(files, true));
    $('hud').before(editor.element);
    await this.setUpGpu();
    // A software adapter (SwiftShader, llvmpipe) runs the GPU queries far slower than the CPU backend.
    const software = this.gpu?.software ?? false;
    const backend: BackendKind = this.gpu ? (url.backend ?? (software ? 'cpu' : 'gpu')) : 'cpu';
    if (this.gpu && software && !url.backend) {
      this.softwareNotice = this.notice(
        `This browser's WebGPU adapter (${this.gpu.adapterInfo}) draws in software, on the CPU: the collision queries run on the CPU backend, ` +
          'which is faster here; drawing still uses WebGPU. Choose GPU under Simulation → queries to try the GPU queries anyway.',
        'warn',
      );
    }
    document.body.dataset['software'] = software ? '1' : '0';
    this.sim = new Simulation(this.gpu !== null, backend, {
      onStep: (w) => {
        this.interaction.afterStep(w);
        this.chart.showStages(w.solver);
        this.chart.push(w.profile);
        document.body.dataset['steps'] = String(w.stepCount);
        if (!this.sim.playing) this.refreshHud(true);
      },
      onSeek: (w) => {
        document.body.dataset['steps'] = String(w.stepCount);
        this.refreshHud(true);
      },
      onWorld: (w) => this.worldChanged(w),
      onError: (e) => void this.stepFailed(e),
      warn: (m) => this.notice(m, 'warn', true),
    });
    this.panel = new ControlPanel(
      $('panel'),
      this.builtins,
      {
        selectScene: (name) => {
          this.dropParamNotice();
          void this.openBuiltin(name, {}, true);
        },
        sceneParamsChanged: (p) => {
          // A note about what was typed stands while its parameter keeps the value it names: once
          // that changes it is stale ("keeps height=400" stayed up over a tower of 8).
          const n = this.paramNoted;
          if (n && p[n.name] !== n.value) this.dropParamNotice();
          void this.openBuiltin(this.sceneName!, p, false);
        },
        paramNote: (text, name, value) => {
          this.paramNotice?.remove();
          this.paramNotice = this.notice(text, 'warn');
          this.paramNoted = { name, value };
        },
        openFile: () => $<HTMLInputElement>('file-input').click(),
        exportState: () => void this.exportState(),
        setBackend: (k) => void this.setBackend(k),
        solverChanged: (s) => this.solverChanged(s),
        selectBody: (i) => this.select(i),
        setFollow: (on) => this.setFollow(on),
        setDragMode: (mode) => {
          this.interaction.dragMode = mode;
          // The force tool's pull is drawn as an arrow: the forces view comes on with it.
          if (mode === 'force') this.setViewOn('forces', true);
        },
        frameAll: () => this.frameScene(),
        frameBody: () => this.frameBody(),
        resetView: () => this.resetView(),
        viewChanged: (n, on) => this.setViewOn(n, on),
        numbersChanged: (on) => this.setNumbers(on),
        sliceChanged: (mode, offset) => this.sliceChanged(mode, offset),
        othersChanged: (o) => this.othersChanged(o),
        depthNodesChanged: (on) => {
          this.views = setDepthNodes(this.views, on);
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
    // A narrow screen has no room beside the view: the panel opens folded, a bar across the top.
    if (matchMedia('(max-width: 720px)').matches) this.panel.pane.expanded = false;
    // Folding or opening the panel there changes the free view: a body framed for the depth field
    // is framed again whenever the panel's size settles (under an open panel it would end up at the
    // foot of the view once the panel folds).
    if (typeof ResizeObserver !== 'undefined') {
      let queued = 0;
      new ResizeObserver(() => {
        clearTimeout(queued);
        queued = window.setTimeout(() => {
          if (this.views.depthField && this.selected >= 0 && matchMedia('(max-width: 720px)').matches) this.frameBody();
        }, 60);
      }).observe($('panel'));
    }
    this.panel.showBackend(backend, this.gpu !== null, this.backendNote());
    this.softPanel = new SoftPanel(this.panel.pane);
    // Under the camera folder: the chosen robot's motors.
    this.motorPanel = new MotorPanel(
      this.panel.pane,
      {
        setSpeed: (n, v) => this.driveMotors([n], (m) => m.setSpeed(v)),
        setMaxTorque: (n, v) => this.driveMotors([n], (m) => m.setMaxTorque(v)),
        useProgram: (names) => this.driveMotors(names, (m) => m.useProgram()),
        off: (names) => this.driveMotors(names, (m) => m.off()),
      },
      3,
    );
    this.followNote.id = 'follow-note';
    this.followNote.hidden = true;
    this.transport = new TransportBar({
      back: () => void this.sim.stepBack(),
      togglePlay: () => this.togglePlay(),
      step: () => this.stepOnce(),
      reset: () => void this.reset(),
      setSpeed: (s) => this.sim.setSpeed(s),
      seek: (i) => void this.sim.seek(i),
    });
    $('side').append(this.numbers.element, this.legend.element);
    $('bottom').append(this.followNote, this.transport.element);
    $('stage').append(this.label.element, this.inset.element);
    $('hud').append(this.chart.element);
    this.showViews();
    this.setUpFiles();
    this.observeSize();
    // For the console and the end-to-end tests: the simulation, the camera, and where a body is drawn.
    (window as unknown as { stackfield: unknown }).stackfield = {
      sim: this.sim,
      camera: this.camera,
      viewport: () => this.viewport(),
      bodyOnScreen: (i: number) => {
        const out = { x: 0, y: 0, front: false };
        const w = this.sim.world;
        if (w && i >= 0 && i < w.bodies.count) projectPoint(this.camera, this.viewport(), w.bodies.pos.subarray(3 * i, 3 * i + 3), out);
        return out;
      },
      // The screen box (canvas pixels) of the corners of body i's world box; front: all in front of the eye.
      boxOnScreen: (i: number) => {
        const out = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity, front: true };
        const w = this.sim.world;
        if (!w || i < 0 || i >= w.bodies.count || !worldBounds(w, this.box, i)) return null;
        const v = this.viewport(), p = { x: 0, y: 0, front: false };
        for (let k = 0; k < 8; k++) {
          projectPoint(this.camera, v, [this.box[k & 1 ? 3 : 0]!, this.box[k & 2 ? 4 : 1]!, this.box[k & 4 ? 5 : 2]!], p);
          out.x0 = Math.min(out.x0, p.x);
          out.x1 = Math.max(out.x1, p.x);
          out.y0 = Math.min(out.y0, p.y);
          out.y1 = Math.max(out.y1, p.y);
          out.front &&= p.front;
        }
        return out;
      },
      // By name: where body `n` is drawn (page pixels) and its state.
      screenOf: (n: string) => this.interaction.screenOf(n),
      body: (n: string) => this.interaction.bodyState(n),
      // The stage chart (a test feeds it steps of a chosen length).
      chart: this.chart,
    };
    requestAnimationFrame(this.frame);

    if (url.file && (await this.reopenKeptFiles(url.file))) {
      this.ready = true;
      document.body.dataset['appReady'] = '1';
      return;
    }
    const name = url.scene && this.builtins.some((b) => b.name === url.scene) ? url.scene : this.builtins[0]?.name;
    if (url.scene && name !== url.scene) this.notice(unknownSceneNote(url.scene, this.builtins.map((b) => b.name), name), 'warn');
    if (name) {
      // Say what the link asked for that the scene cannot be (a clamped count, an unknown key).
      const info = this.builtins.find((b) => b.name === name)!;
      const { params, notes: adjusted } = checkSceneParams(info.params, name === url.scene ? url.params : {}, `“${info.title}”`, name === url.scene ? url.texts : {});
      const notes = [...url.unreadable, ...adjusted];
      if (notes.length > 0) this.notice(`The link's parameters were adjusted: ${notes.join(' ')}`, 'warn');
      await this.openBuiltin(name, params, true);
    }
    this.ready = true;
    document.body.dataset['appReady'] = '1';
  }

  /** WebGPU, or a notice and the fallback path. */
  private async setUpGpu(): Promise<void> {
    const canvas = $<HTMLCanvasElement>('view');
    try {
      // The one device of the page, shared with the GPU query backend and baker (backends.ts).
      const gpu = await sharedGpu();
      this.gpu = gpu;
      // Any loss we did not cause, including a browser-side destroy (a crashed GPU process can
      // report reason "destroyed"), falls back to the CPU and the 2D view.
      void gpu.device.lost.then((info) => {
        if (this.gpu === gpu) this.gpuLoss = this.gpuLost(info);
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
    c.setAttribute('aria-label', old.getAttribute('aria-label') ?? '');
    old.replaceWith(c);
    return c;
  }

  /**
   * Whether `gpu` was lost under an operation that just failed. The loss can
   * be reported a moment after the failure it caused (a bake's error scope
   * rejects first), so a failure on a live device waits briefly for it.
   */
  private async lostUnder(gpu: GpuContext | null): Promise<boolean> {
    if (!gpu) return false;
    if (this.gpuLoss || gpu.lostReason) return true;
    return Promise.race([gpu.device.lost.then(() => true), sleep(LOSS_GRACE_MS).then(() => false)]);
  }

  /**
   * Runs `op` (a load or a step); when the device was lost under it, waits
   * until the app has moved to the CPU backend and the 2D view, and runs it
   * once more there.
   */
  private async retryOnCpu<T>(op: () => Promise<T>): Promise<T> {
    const gpu = this.gpu;
    try {
      return await op();
    } catch (e) {
      if (!(await this.lostUnder(gpu))) throw e;
      await this.gpuLoss;
      return op();
    }
  }

  private async gpuLost(info: { reason: string; message: string }): Promise<void> {
    if (this.recorder.recording) await this.toggleRecording();
    this.gpu = null;
    // "drawing still uses WebGPU; choose GPU to try it" is no longer true.
    this.softwareNotice?.remove();
    this.softwareNotice = null;
    // What happened and what to do first, in words; the driver's own text (any length, any
    // characters) last, escaped and cut, for a bug report.
    // Lost before the first scene had loaded, or on one of the first frames
    // drawn (Chromium without its Vulkan flags on a software adapter loses it
    // as the first frame is presented, every time): a reload would only fail
    // again, so the notice does not suggest one and says nothing crashed.
    const atStart = !this.ready || this.firstGpuFrameAt === null || performance.now() - this.firstGpuFrameAt < FIRST_DRAWING_MS;
    this.gpuGoneNote = atStart ? 'WebGPU could not draw here (device lost): CPU only' : 'WebGPU device lost: CPU only until a reload';
    const said = `The browser said ${quote(info.message.trim().replace(/\.+$/, '') || 'nothing', 160)} (reason ${quote(info.reason, 40)}).`;
    this.notice(
      atStart
        ? `WebGPU could not draw in this browser (its device was lost as drawing began), so the app runs on the CPU backend with the 2D wireframe view. ${said}`
        : `The GPU stopped working (WebGPU device lost), so the app switched to the CPU backend and the 2D wireframe view; reload the page to try WebGPU again. ${said}`,
      'gpu',
    );
    this.renderer.destroy();
    this.renderer = new Canvas2dRenderer(this.replaceCanvas());
    document.body.dataset['renderer'] = this.renderer.kind;
    this.attachInput();
    this.observeSize();
    await this.sim.dropGpu();
    this.panel.showBackend('cpu', false, this.backendNote());
    this.renderer.setWorld(this.sim.world);
    this.renderer.setHighlight(this.selected);
    this.redraw.invalidate();
    document.body.dataset['backend'] = 'cpu';
    this.writeUrl();
  }

  private attachInput(): void {
    this.detachInput?.();
    // Before the camera's own listeners: a press on a body, or to place an instance, is not an orbit.
    this.interaction.attach(this.renderer.canvas);
    this.detachInput = attachCameraInput(this.renderer.canvas, this.camera, {
      onCameraChange: (kind) => {
        // Moving the target by hand ends following; turning and zooming around the body keep it.
        if (kind === 'move' && this.following) this.setFollow(false);
        this.autoFrame.stop();
      },
      togglePlay: () => this.togglePlay(),
      step: () => this.stepOnce(),
      stepBack: () => void this.sim.stepBack(),
      reset: () => void this.reset(),
      frame: () => this.frameScene(),
      resetView: () => this.resetView(),
      toggleFollow: () => this.setFollow(!this.following),
      toggleNumbers: () => this.setNumbers(!this.numbers.visible),
      click: (x, y, double) => this.clicked(x, y, double),
      groundY: () => groundHeight(this.sim.world),
    });
  }

  private resizeObserver: ResizeObserver | null = null;

  /** Keeps the drawing buffer at the canvas's size in device pixels, and the lens shift on the free part. */
  private observeSize(): void {
    this.resizeObserver?.disconnect();
    const canvas = this.renderer.canvas;
    const apply = (w: number, h: number) => {
      this.renderer.resize(w, h);
      if (this.renderer instanceof WebGpuRenderer) this.renderer.setPixelRatio(devicePixelRatio || 1);
      this.redraw.invalidate();
      this.view = this.viewport();
      applyViewport(this.camera, this.view);
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

  /**
   * The canvas in CSS pixels, less what the overlays cover: a panel beside the view narrows it;
   * the help line, and whatever crosses the middle of what is left (the notices; on a narrow
   * screen the panel's bar, the numbers, the library list) lower its top; the transport bar
   * and the follow line (and there the stage chart) raise its bottom; the stage chart and the
   * numbers in the corners then narrow it or shorten it, whichever leaves more.
   */
  private viewport(): Viewport {
    const c = this.renderer.canvas.getBoundingClientRect();
    const panel = $('panel').getBoundingClientRect();
    const beside = panel.width > 0 && panel.width < c.width / 2 && panel.left < c.right;
    let right = beside ? Math.min(c.right - panel.left + 8, c.width / 2) : 0;
    const mid = c.left + (c.width - right) / 2;
    let top = 8;
    let bottom = 8;
    const above = [$('help'), $('notices'), this.libraryPanel?.element, $('side')];
    if (!beside) above.push($('panel'));
    for (const el of above) {
      const r = el?.getBoundingClientRect();
      if (r && r.height > 0 && (el === above[0] || (r.left < mid && r.right > mid))) top = Math.max(top, r.bottom - c.top + (el === above[0] ? 4 : 8));
    }
    for (const el of [$('bottom'), $('hud')]) {
      const r = el.getBoundingClientRect();
      if (r.height > 0 && r.left < mid && r.right > mid) bottom = Math.max(bottom, c.bottom - r.top + 8);
    }
    // The depth field's inset, where it sits under the middle of the free view (a narrow window).
    if (!this.inset.element.hidden) {
      const r = this.inset.element.getBoundingClientRect();
      if (r.width > 0 && r.left < mid) bottom = Math.max(bottom, c.bottom - r.top + 8);
    }
    // An open panel over a narrow screen covers nearly all of it: frame in at least a quarter of the
    // height rather than in a sliver (the view is framed again when the panel folds).
    const covered = top + bottom, most = 0.75 * c.height;
    if (covered > most) {
      top *= most / covered;
      bottom *= most / covered;
    }
    // Overlays in a corner of what is left (the stage chart and status at the bottom left, the
    // numbers at the top right): kept out by the side or the end that leaves the larger view (the
    // dominoes' ring started half under the chart, a hanging chain swung behind it).
    let left = 0;
    const corners: [HTMLElement, 'bottomLeft' | 'topRight' | 'bottomRight'][] = [[$('hud'), 'bottomLeft'], [$('side'), 'topRight']];
    // The depth field's inset at the bottom right: the body it shows is framed in the middle, and
    // an inset that reaches past the middle hid half of it.
    if (!this.inset.element.hidden) corners.push([this.inset.element, 'bottomRight']);
    for (const [el, corner] of corners) {
      const r = el.getBoundingClientRect();
      const x0 = left, x1 = c.width - right, y0 = top, y1 = c.height - bottom;
      const ox0 = r.left - c.left, ox1 = r.right - c.left, oy0 = r.top - c.top, oy1 = r.bottom - c.top;
      if (r.width === 0 || r.height === 0 || ox1 <= x0 || ox0 >= x1 || oy1 <= y0 || oy0 >= y1) continue;
      if (corner === 'bottomLeft') {
        const byLeft = (x1 - Math.max(x0, ox1 + 8)) * (y1 - y0), byBottom = (x1 - x0) * (Math.min(y1, oy0 - 8) - y0);
        if (byLeft >= byBottom) left = Math.min(Math.max(left, ox1 + 8), c.width / 2);
        else bottom = Math.max(bottom, c.height - oy0 + 8);
      } else if (corner === 'topRight') {
        const byRight = (Math.min(x1, ox0 - 8) - x0) * (y1 - y0), byTop = (x1 - x0) * (y1 - Math.max(y0, oy1 + 8));
        if (byRight >= byTop) right = Math.max(right, c.width - ox0 + 8);
        else top = Math.max(top, oy1 + 8);
      } else {
        const byRight = (Math.min(x1, ox0 - 8) - x0) * (y1 - y0), byBottom = (x1 - x0) * (Math.min(y1, oy0 - 8) - y0);
        if (byRight >= byBottom) right = Math.max(right, c.width - ox0 + 8);
        else bottom = Math.max(bottom, c.height - oy0 + 8);
      }
    }
    return { width: c.width, height: c.height, insets: { left, top, right, bottom } };
  }

  /** Draws the scene again only when something it shows changed (redrawGate.ts). */
  private readonly redraw = new RedrawGate();
  private signature: Float64Array = new Float64Array(0);

  private readonly frame = (now: number): void => {
    requestAnimationFrame(this.frame);
    const dt = Math.min(0.1, Math.max(0, (now - this.lastFrame) / 1000));
    this.lastFrame = now;
    this.frames++;
    if (now - this.fpsT0 >= 500) {
      this.fps = (this.frames * 1000) / (now - this.fpsT0);
      this.frames = 0;
      this.fpsT0 = now;
    }
    const w = this.sim?.world;
    if (w && this.following && this.selected >= 0 && this.selected < w.bodies.count) {
      followBody(this.camera, w, this.view, this.selected, dt);
    } else if (w && this.autoFrame.active) {
      const stepped = w.stepCount !== this.autoStep;
      this.autoStep = w.stepCount;
      // Not while a body is dragged (interaction.ts marks the canvas): the drag pulls it to the
      // cursor's ray, which widening the view moves outwards, and it would widen without end.
      const dragging = this.renderer.canvas.classList.contains('dragging');
      if ((stepped || this.sim.playing || this.autoFrame.gliding) && !dragging) this.autoFrame.update(this.camera, w, this.view, dt);
    }
    this.updateSlice(w ?? null);
    // Drawn only when what it shows changed (redrawGate.ts); a recording takes every frame.
    const c = this.renderer.canvas;
    this.signature = frameSignature({ world: w ?? null, camera: this.camera, views: this.views, selected: this.selected, width: c.width, height: c.height }, this.signature);
    if (this.redraw.due(now, this.signature, this.recorder.recording)) {
      try {
        this.renderer.render(this.camera, this.views);
        if (this.gpu) this.firstGpuFrameAt ??= now;
      } catch (e) {
        // A render error repeats every frame: report it once.
        if (!this.renderFailed) this.showError(e, 'Drawing failed');
        this.renderFailed = true;
      }
    }
    this.chart.draw();
    this.interaction.frame();
    this.placeLabel();
    if (now - this.lastHud >= HUD_MS) this.refreshHud(false);
  };

  /** The numbers overlay, monitors, transport bar, backend note and status line. */
  private refreshHud(stepEvent: boolean): void {
    this.lastHud = performance.now();
    const w = this.sim?.world ?? null;
    if (w) {
      if (this.numbers.visible) this.numbers.show(worldNumbers(w, this.fps), w.stepCount);
      const s = this.panel.stats;
      const counts = sleepCounts(w);
      s.fps = this.fps;
      s.stepMs = w.profile.totalMs;
      s.contacts = w.profile.contacts;
      s.pairs = w.profile.pairs;
      s.awake = counts.awake;
      s.asleep = counts.asleep;
      if (!stepEvent) this.motorPanel.refresh(w);
    }
    if (stepEvent) return;
    const tl = this.sim.timeline;
    const started = this.sim.stepStartedAt;
    const pending = this.sim.pendingBackend;
    this.transport.show({
      playing: this.sim.playing,
      speed: this.sim.speed,
      count: tl?.count ?? 0,
      cursor: this.sim.cursor,
      step: w?.stepCount ?? 0,
      time: w?.time ?? 0,
      behind: tl && this.sim.cursor >= 0 && this.sim.cursor < tl.count - 1 ? tl.timeOf(tl.count - 1) - tl.timeOf(this.sim.cursor) : 0,
      busySeconds: started > 0 ? (performance.now() - started) / 1000 : 0,
      pending: pending ? `→ ${pending.toUpperCase()} after this step…` : '',
    });
    this.panel.showBackendNote(this.backendNote());
    this.updateStatus();
  }

  /** The line under the backend choice: a pending switch, or why the default is the CPU. */
  private backendNote(): string {
    const pending = this.sim?.pendingBackend;
    if (pending) return `switching to ${pending.toUpperCase()}: waits for the running step`;
    if (!this.gpu) return this.gpuGoneNote ?? 'WebGPU is not available: CPU only';
    if (this.gpu.software) return `software adapter (${this.gpu.adapterInfo.split(' / ')[0]}…): CPU is faster here`;
    return '';
  }

  /** The name of the scene the world was built from (the new one's as soon as it is up). */
  private statusLabel(): string {
    const built = this.sim.scene;
    return (built && this.sceneLabels.get(built)) ?? '';
  }

  private updateStatus(): void {
    const w = this.sim.world;
    const el = $('status');
    const scene = this.statusLabel();
    const pending = this.sim.pendingBackend ? ` (→ ${this.sim.pendingBackend.toUpperCase()} pending)` : '';
    // While a scene loads, the line says which, as the busy line does (the old scene's name
    // beside the new world's body count, installed before the load ends, misled).
    const text = this.loading
      ? this.loading
      : w
        ? `${scene} · ${w.bodies.count} ${w.bodies.count === 1 ? 'body' : 'bodies'}${softCount(w)} · ${this.sim.backend.toUpperCase()} queries${pending}${
            this.gpu && this.sim.backend === 'gpu' ? ` (${this.gpu.adapterInfo})` : ''
          }${this.renderer.kind === 'webgpu' ? '' : ' · 2D view'}`
        : 'no scene is loaded';
    // One line: what does not fit is cut with an ellipsis, and the whole of it is the tooltip.
    if (el.textContent !== text) {
      el.textContent = text;
      el.title = text;
    }
  }

  /** The chosen body's name over it. */
  private placeLabel(): void {
    const w = this.sim?.world;
    const i = this.selected;
    if (!w || i < 0 || i >= w.bodies.count || !worldBounds(w, this.box, i)) {
      this.label.show(null);
      return;
    }
    const b = this.box;
    // Above the middle of the body's box top.
    projectPoint(this.camera, this.view, [0.5 * (b[0]! + b[3]!), b[4]!, 0.5 * (b[2]! + b[5]!)], this.projected);
    if (!this.projected.front) {
      this.label.show(null);
      return;
    }
    const shape = w.shapes[w.bodies.shape[i]!]!;
    const B = w.bodies;
    const speed = Math.hypot(B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!);
    const motion = B.isStatic[i] ? '' : ` · ${fmtMass(B.mass[i]!)} kg · ${speed.toFixed(2)} m/s`;
    const state = motion + (B.isStatic[i] ? ' · static' : B.asleep[i] ? ' · asleep' : '');
    this.label.show(`${displayName(w.bodies.names[i]!)} (${displayName(shape.name)})${state}${this.following ? ' · followed' : ''}`, this.projected.x, this.projected.y - 6);
  }

  private worldChanged(w: World): void {
    this.renderer.setWorld(w);
    this.redraw.invalidate();
    this.softPanel.dt = w.dt;
    this.softPanel.show(softSystemOf(w));
    this.interaction.worldChanged();
    this.chart.clear();
    this.chart.showStages(w.solver);
    if (this.selected >= w.bodies.count) this.selected = -1;
    if (this.selected < 0) this.following = false;
    this.renderer.setHighlight(this.selected);
    this.views = setSliceBody(this.views, this.selected);
    this.bodyNames = w.bodies.names.slice(0, w.bodies.count);
    this.panel.showBodies(this.bodyNames, this.selected);
    this.panel.showFollow(this.following);
    this.showFollowNote();
    this.motorPanel.show(w, this.selected);
    this.panel.showSolver({ ...w.solver, dt: w.dt });
    this.showViews();
    document.body.dataset['steps'] = String(w.stepCount);
    this.refreshHud(false);
  }

  private stepOnce(): void {
    void this.retryOnCpu(() => this.sim.step()).catch((e) => this.showError(e, 'A step failed'));
  }

  /** The play loop stopped on an error: a lost device is not the user's problem (play goes on on the CPU). */
  private async stepFailed(e: unknown): Promise<void> {
    if (await this.lostUnder(this.gpu)) {
      await this.gpuLoss;
      this.sim.play();
      return;
    }
    this.showError(e, 'A step failed');
  }

  private togglePlay(): void {
    if (this.sim.playing) this.sim.pause();
    else this.sim.play();
    this.refreshHud(false);
  }

  private async reset(): Promise<void> {
    try {
      await this.retryOnCpu(() => this.sim.reset());
      // Back to the start: a view only the safety net moved goes home with the bodies; one the
      // user moved stays, and the safety net watches it again.
      if (this.autoFrame.active) this.resetView();
      else this.autoFrame.resume();
    } catch (e) {
      this.showError(e, 'Could not reset the scene');
    }
  }

  private async setBackend(kind: BackendKind): Promise<void> {
    const switching = this.sim.setBackend(kind);
    this.refreshHud(false);
    try {
      await switching;
    } catch (e) {
      this.showError(e, `Could not switch to the ${kind.toUpperCase()} backend`);
    }
    this.panel.showBackend(this.sim.backend, this.gpu !== null, this.backendNote());
    document.body.dataset['backend'] = this.sim.backend;
    // The software adapter's notice ends "choose GPU ... to try the GPU queries anyway": done (the
    // panel's backend note still says the CPU is faster here).
    if (this.sim.backend === 'gpu') {
      this.softwareNotice?.remove();
      this.softwareNotice = null;
    }
    this.writeUrl();
    this.refreshHud(false);
  }

  private solverChanged(s: PanelSolver): void {
    this.sim.setOverrides(s);
  }

  // ------------------------------------------------------------ the chosen body, the camera

  private select(i: number): void {
    const w = this.sim.world;
    const before = this.selected;
    this.selected = w && i >= 0 && i < w.bodies.count ? i : -1;
    document.body.dataset['selected'] = w && this.selected >= 0 ? w.bodies.names[this.selected]! : '';
    if (this.selected < 0 && this.following) this.setFollow(false);
    this.renderer.setHighlight(this.selected);
    this.redraw.invalidate();
    this.views = setSliceBody(this.views, this.selected);
    if (w) this.panel.showBodies(this.bodyNames, this.selected);
    this.motorPanel.show(w, this.selected);
    this.showFollowNote();
    this.showViews();
    // The depth field frames the body it shows.
    if (this.views.depthField && this.selected >= 0 && this.selected !== before) this.frameBody();
  }

  private clicked(x: number, y: number, double: boolean): void {
    const w = this.sim.world;
    if (!w) return;
    pixelRay(this.camera, this.viewport(), x, y, this.rayOrigin, this.rayDir);
    const hit = pickBody(w, this.rayOrigin, this.rayDir);
    if (hit < 0 && double) return;
    this.select(hit);
    if (double && hit >= 0) this.frameBody();
  }

  private setFollow(on: boolean): void {
    this.following = on && this.selected >= 0;
    this.panel.showFollow(this.following);
    this.showFollowNote();
    if (on && this.selected < 0) this.notice('Choose a body to follow first: click it in the view, or pick it under Camera → body.', 'warn');
  }

  /** While the camera follows a body: which, and how to stop. */
  private showFollowNote(): void {
    const w = this.sim?.world;
    const on = this.following && !!w && this.selected >= 0 && this.selected < w.bodies.count;
    if (this.followNote.hidden === on) {
      this.followNote.hidden = !on;
      // The line raises the free view's bottom, which following and the safety net read every frame.
      this.view = this.viewport();
    }
    if (on) this.followNote.textContent = `following ${displayName(w.bodies.names[this.selected]!, 40)} · G: stop following`;
  }

  /**
   * Runs `fn` on the handles of the motors `names` (world.motor) between
   * steps; a motor the world no longer has (a new scene came first) is skipped.
   */
  private driveMotors(names: readonly string[], fn: (m: MotorHandle) => void): void {
    void this.sim.between(() => {
      const w = this.sim.world;
      if (!w) return;
      const have = new Set(w.motorNames());
      for (const n of names) if (have.has(n)) fn(w.motor(n));
    });
  }

  /** Frames every body (keeping the angle of view). */
  private frameScene(): void {
    const w = this.sim.world;
    if (!w) return;
    frameWorld(this.camera, w, this.viewport());
    this.autoFrame.resume();
  }

  private frameBody(): void {
    const w = this.sim.world;
    if (!w || this.selected < 0) return;
    // The inset first, so that the free view is measured with it.
    this.updateSlice(w);
    this.autoFrame.stop();
    frameWorld(this.camera, w, this.viewport(), this.selected, this.views.depthField ? DEPTH_MARGIN : BODY_MARGIN);
  }

  private resetView(): void {
    const h = this.homeCamera;
    this.camera.target = [h.target[0], h.target[1], h.target[2]];
    this.camera.yaw = h.yaw;
    this.camera.pitch = h.pitch;
    this.camera.distance = h.distance;
    this.view = this.viewport();
    applyViewport(this.camera, this.view);
    this.autoFrame.resume();
  }

  // ------------------------------------------------------------ views

  private setViewOn(n: ViewName, on: boolean): void {
    this.views = setView(this.views, n, on);
    if (n === 'depthField' && on) {
      // The depth field needs a body with an SDF: keep the chosen one, else the one nearest the
      // middle of the view; then frame it, since a whole scene's view makes its grid a speck.
      const w = this.sim.world;
      if (w && !(this.selected >= 0 && w.shapes[w.bodies.shape[this.selected]!]?.sdf)) this.select(this.nearestBodyWithSdf(w));
      this.frameBody();
    }
    this.showViews();
    this.writeUrl();
  }

  private sliceChanged(mode: SliceMode, offset: number): void {
    this.views = setSliceOffset(setSliceMode(this.views, mode), offset);
    this.showViews();
  }

  private othersChanged(o: OthersMode): void {
    this.views = setOthers(this.views, o);
  }

  /** The depth field's body and grid, when the view shows one. */
  private sliceTarget(): { w: World; i: number; sdf: NonNullable<World['shapes'][number]['sdf']> } | null {
    const w = this.sim?.world;
    const i = this.views.sliceBody;
    const sdf = w && this.views.depthField && i >= 0 && i < w.bodies.count ? w.shapes[w.bodies.shape[i]!]?.sdf : undefined;
    return w && sdf ? { w, i, sdf } : null;
  }

  private onSlice(ray: Ray): boolean {
    const s = this.sliceTarget();
    const b = s?.w.bodies;
    return !!s && raySliceHit(s.sdf, this.views.sliceAxis, this.views.sliceOffset, b!.pos, b!.quat, s.i, ray.origin, ray.dir) !== null;
  }

  /** A vertical drag on the slice moves it along its normal, up away from the eye. */
  private dragSlice(dy: number): void {
    const s = this.sliceTarget();
    if (!s) return;
    const a = AXES.indexOf(this.views.sliceAxis);
    const q = s.w.bodies.quat;
    const e = cameraEye(this.camera, this.eye);
    const t = this.camera.target;
    const rotated = axisDirection(q, 4 * s.i, a);
    const dot = rotated[0]! * (t[0] - e[0]!) + rotated[1]! * (t[1] - e[1]!) + rotated[2]! * (t[2] - e[2]!);
    const extent = (s.sdf.dims[a]! - 1) * s.sdf.cellSize;
    this.views = setSliceOffset(this.views, dragSliceOffset(this.views.sliceOffset, dy, metresPerPixel(this.camera, this.view.height), extent, dot));
    this.showViews();
  }

  /**
   * Every frame while the depth field is on: in 'camera' mode the slice turns to the body-grid
   * axis nearest the line of sight; the inset shows the slice (or hides).
   */
  private updateSlice(w: World | null): void {
    const v = this.views;
    const i = v.sliceBody;
    const sdf = w && v.depthField && i >= 0 && i < w.bodies.count ? w.shapes[w.bodies.shape[i]!]?.sdf : undefined;
    if (!w || !sdf) {
      if (!this.inset.element.hidden) {
        this.inset.show(null);
        this.view = this.viewport();
        applyViewport(this.camera, this.view);
      }
      return;
    }
    if (v.sliceMode === 'camera') {
      const e = cameraEye(this.camera, this.eye);
      const t = this.camera.target;
      const axis = facingAxis(w.bodies.quat, 4 * i, [t[0] - e[0]!, t[1] - e[1]!, t[2] - e[2]!], v.sliceAxis);
      if (axis !== v.sliceAxis) this.views = setSliceAxis(v, axis);
    }
    const shown = !this.inset.element.hidden;
    // The inset turned as the view shows the slice: the image axes against the camera's right and up.
    const a = AXES.indexOf(this.views.sliceAxis);
    const m = viewMatrix(this.camera, this.viewMat);
    const q = w.bodies.quat;
    const frame = insetFrame(axisDirection(q, 4 * i, (a + 1) % 3), axisDirection(q, 4 * i, (a + 2) % 3), [m[0]!, m[4]!, m[8]!], [m[1]!, m[5]!, m[9]!]);
    this.inset.show({ grid: sdf, axis: this.views.sliceAxis, offset: this.views.sliceOffset, body: w.bodies.names[i]!, facing: v.sliceMode === 'camera', frame });
    if (!shown) {
      this.view = this.viewport();
      applyViewport(this.camera, this.view);
    }
  }

  private setNumbers(on: boolean): void {
    this.numbers.visible = on;
    localStorage.setItem(NUMBERS_KEY, on ? '1' : '0');
    this.showViews();
    this.refreshHud(false);
  }

  private showViews(): void {
    const w = this.sim?.world;
    const i = this.views.sliceBody;
    const name = w && i >= 0 && i < w.bodies.count && w.shapes[w.bodies.shape[i]!]?.sdf ? w.bodies.names[i]! : null;
    this.panel.showViews(this.views, this.numbers.visible, name);
    this.legend.visible = this.views.levels;
  }

  private nearestBodyWithSdf(w: World): number {
    let best = -1;
    let bestD = Infinity;
    const b = w.bodies;
    const t = this.camera.target;
    for (let i = 0; i < b.count; i++) {
      if (!w.shapes[b.shape[i]!]?.sdf || w.shapes[b.shape[i]!]!.kind === 'plane') continue;
      // Dynamic bodies first: a peg or a static floor box is rarely what one wants to look into.
      const d = Math.hypot(b.pos[3 * i]! - t[0], b.pos[3 * i + 1]! - t[1], b.pos[3 * i + 2]! - t[2]) + (b.isStatic[i] ? 1e6 : 0);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    return best;
  }

  // ------------------------------------------------------------ scenes

  /** Built-in scene `name` with URL/panel parameters (clamped to the scene's ranges). */
  private async openBuiltin(name: string, raw: Record<string, number>, frame: boolean): Promise<void> {
    const info = this.builtins.find((b) => b.name === name);
    if (!info) return;
    const params = sceneParams(info.params, raw);
    this.setBusy(`Building “${info.title}”…`);
    this.requested = { scene: name, params, file: null };
    try {
      const json = builtinScene(name, params);
      const desc = validateScene(json, `<builtin:${name}>`);
      this.sceneLabels.set(desc, info.title);
      await this.retryOnCpu(() => this.loadScene(desc, { readText: fetchText }, frame));
      this.sceneJson = json;
      this.sceneIo = { readText: fetchText };
      this.sceneName = name;
      this.params = params;
      this.fileName = null;
      this.panel.showScene(name, params);
      this.clearError();
      document.body.dataset['scene'] = name;
    } catch (e) {
      this.showError(e, 'Could not load the scene');
    } finally {
      this.requested = null;
      this.writeUrl();
      this.setBusy(null);
    }
  }

  /**
   * A scene file plus any mesh and library files picked or dropped with it,
   * or library files alone, whose robots and bodies the library panel lists
   * (docs/LIBRARY_FORMAT.md). A scene's files are kept for the tab, so a
   * reload shows the scene again.
   */
  private async openFiles(files: File[], kept = false): Promise<boolean> {
    if (files.length === 0) return false;
    let name = files[0]!.name;
    try {
      const texts = await readTexts(files);
      this.library.add(texts);
      this.libraryPanel.show(this.library.items(), this.library.size);
      const isScene = (t: string) => /"format"\s*:\s*"stackfield-scene\//.test(t);
      const scene = files.find((f) => isScene(texts.get(f.name) ?? '')) ?? (this.library.size > 0 ? null : files[0]!);
      if (!scene) {
        this.clearError();
        return false;
      }
      name = scene.name;
      if (/\.obj$/i.test(scene.name)) {
        // A mesh alone read as JSON said "invalid JSON: expected a value, found "#"".
        throw new InputError('an .obj file is a mesh: open it together with a scene file (.json) whose shapes name it', scene.name);
      }
      this.setBusy(`Loading ${scene.name}…`);
      const dropped = droppedFilesReader(files, scene.name);
      // A robot or template the scene names without including its library is looked for among the opened libraries.
      const searchPath = () => Promise.resolve(this.library.names());
      const loaded = await loadSceneText(texts.get(scene.name) ?? (await fileText(scene)), scene.name, {
        readText: (p: string) => Promise.resolve(this.library.text(p) ?? dropped.readText(p)),
        searchPath,
      });
      // Its meshes: those opened with it, else those opened with a scene before (said below).
      const meshes = this.meshes.forScene(loaded.scene, scene.name, files);
      const io = { readText: (p: string) => Promise.resolve(this.library.text(p) ?? meshes.readText(p)), searchPath, shapeScope: meshes.shapeScope };
      this.sceneLabels.set(loaded.scene, scene.name);
      await this.retryOnCpu(() => this.loadScene(loaded.scene, io, true));
      // The plain scene the world was built from (library instances written out), for Export and placing.
      this.sceneJson = loaded.flat;
      this.sceneIo = io;
      this.fileName = scene.name;
      this.sceneName = null;
      this.meshes.remember(files);
      this.panel.showScene(null, {}, scene.name);
      this.clearError();
      this.writeUrl();
      if (meshes.reused.length > 0) {
        const names = meshes.reused.map((f) => f.name).join(', ');
        this.notice(`${scene.name} uses the mesh${meshes.reused.length > 1 ? 'es' : ''} ${names} opened earlier (not opened with it this time).`, 'warn', true);
      }
      // The files are kept for the tab before the scene counts as loaded: a
      // reload as soon as it shows (the URL already names the file) finds them.
      if (!kept && !(await saveDroppedFiles(scene.name, [...files, ...meshes.reused]))) {
        this.notice(`This browser would not keep ${scene.name} for the tab: a reload will not bring the scene back (open it again then).`, 'warn');
      }
      document.body.dataset['scene'] = `file:${scene.name}`;
      return true;
    } catch (e) {
      this.showError(e, `Could not load ${name}`);
      return false;
    } finally {
      this.setBusy(null);
    }
  }

  /**
   * A new instance of a library robot or body in the running scene: the
   * current state as Export writes it, plus the instance (placing.ts), built
   * in place of the world, without moving the camera.
   */
  private async place(item: LibraryItem, position: [number, number, number], velocity: [number, number, number], orientation: [number, number, number, number]): Promise<void> {
    try {
      const out = await this.sim.between(() => {
        const w = this.sim.world;
        if (!w || !this.sceneJson) throw new Error('no scene is loaded');
        return this.library.placeInto(exportSceneState(this.sceneJson, w) as JsonObject, item, position, velocity, orientation);
      });
      const desc = validateScene(out.scene, this.fileName ?? `<builtin:${this.sceneName}>`);
      this.sceneLabels.set(desc, this.statusLabel());
      await this.retryOnCpu(() => this.sim.load(desc, this.sceneIo));
      this.sceneJson = out.scene;
      document.body.dataset['placed'] = out.instance;
    } catch (e) {
      this.showError(e, `Could not place ${item.name}`);
    }
  }

  /** A reload of a page that showed a dropped scene file: the tab's kept files, or a plain word that they are gone. */
  private async reopenKeptFiles(name: string): Promise<boolean> {
    const files = await loadDroppedFiles(name);
    if (files && (await this.openFiles(files, true))) return true;
    this.notice(
      `The link names the scene file "${name}", which was opened by hand: a link cannot carry the file, and this tab has not kept it. Open it again (Scene → Open scene file…, or drop it on the page).`,
      'warn',
    );
    return false;
  }

  private async loadScene(desc: SceneDesc, io: SceneIo, frame: boolean): Promise<void> {
    if (frame) {
      for (const n of this.sceneNotices) n.remove();
      this.sceneNotices = [];
    }
    const wasPlaying = this.sim.playing;
    this.sim.pause();
    const w = await this.sim.load(desc, io);
    if (frame) {
      this.select(-1);
      viewAngles(this.camera, w);
      this.view = this.viewport();
      const region: FramedRegion = { centre: [0, 0, 0], radius: 0, bottom: 0 };
      frameWorld(this.camera, w, this.view, -1, undefined, region);
      this.autoFrame.arm(w, region);
      this.homeCamera = { ...this.camera, target: [...this.camera.target] as [number, number, number] };
      // A scene with motors drives a robot out of any fixed view: follow its first robot.
      const robot = followedRobotBody(w);
      if (robot >= 0) {
        this.select(robot);
        this.setFollow(true);
      }
      if (this.views.depthField) this.setViewOn('depthField', true);
    }
    if (wasPlaying) this.sim.play();
  }

  private async exportState(): Promise<void> {
    const name = this.sceneName ?? this.fileName ?? 'stackfield';
    try {
      const out = await this.sim.between(() => {
        const w = this.sim.world;
        if (!w || !this.sceneJson) throw new Error('no scene is loaded');
        return { json: exportSceneState(this.sceneJson, w, this.sim.overrides), time: w.time };
      });
      // The command line's --dump layout: vectors on one line, numbers exact.
      const blob = new Blob([`${formatJson(out.json)}\n`], { type: 'application/json' });
      const url = URL.createObjectURL(blob);
      downloadUrl(url, exportFileName(name, out.time));
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      this.showError(e, 'Could not export the state');
    }
  }

  /** The URL names what is shown, or while nothing is yet, what was asked for (a failed first load keeps it). */
  private writeUrl(): void {
    const shown = this.sceneName !== null || this.fileName !== null;
    const what = !shown && this.requested ? this.requested : { scene: this.sceneName, params: this.params, file: this.fileName };
    const search = formatAppUrl({
      ...what,
      backend: this.sim.backend,
      views: viewsToParam(this.views) || null,
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
      this.showError(e, 'Recording failed');
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
    this.loading = message;
    const el = $('busy');
    el.hidden = message === null;
    if (message) el.textContent = message;
    this.updateStatus();
  }

  /**
   * Shows an error in the page under a title that says what failed (loading,
   * a step, the device...): input errors verbatim (file, JSON path, what was
   * expected), others with their kind.
   */
  private showError(e: unknown, title: string): void {
    const text = e instanceof InputError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (!(e instanceof InputError)) console.warn(e);
    $('error-title').textContent = title;
    $('error-text').textContent = text;
    $('error').hidden = false;
  }

  private clearError(): void {
    $('error').hidden = true;
    $('error-text').textContent = '';
  }

  /**
   * A dismissible notice over the view (missing WebGPU, warnings). `scoped`: it is about the scene shown (a
   * warning from building it, a mesh taken from an earlier opening), and
   * goes when another scene is opened.
   */
  private notice(message: string, kind: 'gpu' | 'warn', scoped = false): HTMLElement {
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
    if (scoped) this.sceneNotices.push(n);
    // Warnings step aside after a while (what they say stays in the panel or the status line);
    // a lost or missing GPU stays until dismissed. Not while the pointer is on one.
    if (kind === 'warn') {
      const fade = () => {
        if (n.matches(':hover')) setTimeout(fade, 5_000);
        else n.remove();
      };
      setTimeout(fade, NOTICE_MS);
    }
    return n;
  }
}

/**
 * The angle a scene is first seen from: from the front right and a little
 * above; a sloped ground (an incline) from its side, so the slope shows as a
 * slope rather than foreshortened.
 */
function viewAngles(c: OrbitCamera, w: World): void {
  c.yaw = 0.55;
  c.pitch = 0.42;
  const ground = shadowPlane(w);
  if (ground && Math.hypot(ground.n[0], ground.n[2]) > Math.sin((5 * Math.PI) / 180)) {
    // The eye looks along -(sin yaw, ., cos yaw); downhill is along (n.x, n.z): look across it.
    c.yaw = Math.atan2(ground.n[0], ground.n[2]) + Math.PI / 2 - 0.3;
    c.pitch = 0.3;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

void new App().start().catch((e) => {
  const el = document.getElementById('error-text');
  if (el) {
    document.getElementById('error-title')!.textContent = 'The app could not start';
    el.textContent = errorText(e);
    document.getElementById('error')!.hidden = false;
  }
  console.error(e);
});

/** A mass for the label: three significant digits. */
function fmtMass(m: number): string {
  return m >= 100 ? m.toFixed(0) : m >= 1 ? m.toPrecision(3) : m.toPrecision(2);
}

/** " · N soft bodies (P particles)" for the status line, or nothing. */
function softCount(w: World): string {
  const soft = softSystemOf(w);
  if (!soft || soft.bodies.length === 0) return '';
  return ` · ${soft.bodies.length} soft bod${soft.bodies.length === 1 ? 'y' : 'ies'} (${soft.particleCount} particles)`;
}

/**
 * The height of the world's highest level floor: a static plane whose normal
 * points up (within about 3 degrees); null when it has none.
 */
function groundHeight(w: World | null | undefined): number | null {
  if (!w) return null;
  const B = w.bodies;
  let top: number | null = null;
  for (let i = 0; i < B.count; i++) {
    const shape = w.shapes[B.shape[i]!]!;
    if (!B.isStatic[i] || shape.kind !== 'plane' || !shape.planeNormal) continue;
    const [nx, ny, nz] = shape.planeNormal;
    rotateByQuat(B.quat, 4 * i, nx, ny, nz, worldNormal);
    if (worldNormal[1]! < 0.9986) continue;
    const y = B.pos[3 * i + 1]!;
    if (top === null || y > top) top = y;
  }
  return top;
}
const worldNormal = new Float64Array(3);
