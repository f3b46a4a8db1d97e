/**
 * The app's simulation controller: builds the World for a scene, runs steps
 * while playing, switches the query backend between steps, and resets by
 * rebuilding from the same scene.
 *
 * Every operation that touches the world or a backend (step, load, reset,
 * backend switch) runs through one queue, so a scene change never replaces
 * a world (or re-uploads a backend's shapes) while a GPU step is in flight.
 * Stepping is not tied to animation frames: the loop steps back to back,
 * never ahead of wall-clock time times `speed` (slow motion below 1), and
 * yields a frame every ~25 ms so the renderer keeps drawing while a slow
 * CPU step runs.
 *
 * Every step's state goes into a timeline (timeline.ts) of the last few
 * hundred steps; `seek` puts one back, and stepping on from there drops the
 * states after it.
 */
import { createBackend, type Backend } from '../backends.ts';
import { defaultThreads } from '../collision/parallelQuery.ts';
import type { BackendKind } from '../collision/query.ts';
import type { World } from '../dynamics/world.ts';
import { createWorld } from '../scene/build.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import type { SceneDesc, SolverSettings } from '../scene/types.ts';
import { DEFAULT_LIMITS, savedStateBytes, StateTimeline } from './timeline.ts';

export interface SceneIo {
  readText(path: string): Promise<string>;
  /**
   * The files the scene's mesh paths read (meshFiles.ts): shapes are cached
   * per scope, so a path read from another file never finds another's shape.
   * None for the built-ins, whose meshes are served with the page.
   */
  shapeScope?: string;
}

/** Solver settings the user changed in the panel; they survive reset. */
export type SolverOverrides = Partial<Pick<
  SolverSettings,
  'scheme' | 'contactSolver' | 'contactPose' | 'collisionIterations' | 'contactIterations' | 'jointIterations' | 'contactGraph' | 'shockPropagation'
>> & { dt?: number };

export interface SimulationEvents {
  /** After each step (for monitors). */
  onStep?(world: World): void;
  /** A new world was built (load or reset). */
  onWorld?(world: World): void;
  /** The world was put back to a state of the timeline. */
  onSeek?(world: World): void;
  /** A step or a load failed; the simulation is paused. */
  onError?(error: unknown): void;
  /** Playing state changed. */
  onPlaying?(playing: boolean): void;
  warn?(message: string): void;
}

export class Simulation {
  world: World | null = null;
  scene: SceneDesc | null = null;
  playing = false;
  overrides: SolverOverrides = {};
  /** Simulated seconds per wall-clock second while playing (slow motion below 1). */
  speed = 1;
  /** The last steps' states; `cursor` is the one the world shows. */
  timeline: StateTimeline | null = null;
  cursor = -1;
  /** The backend asked for while a step runs (a switch waits for it), else null. */
  pendingBackend: BackendKind | null = null;
  /** performance.now() when the running step began, 0 when none runs. */
  stepStartedAt = 0;
  private io: SceneIo | null = null;
  private readonly backends = new Map<BackendKind, Backend>();
  private backendKind: BackendKind;
  private queue: Promise<unknown> = Promise.resolve();
  private looping = false;
  /** Wall-clock ms and sim time when play was last pressed (for the real-time cap). */
  private wallStart = 0;
  private simStart = 0;

  /**
   * @param gpuAvailable whether the GPU backend may be used (createBackend('gpu')
   *   shares the page's one device, src/gpu/device.ts sharedGpu).
   */
  constructor(
    private gpuOk: boolean,
    backend: BackendKind,
    private readonly events: SimulationEvents = {},
  ) {
    this.backendKind = gpuOk ? backend : 'cpu';
  }

  get backend(): BackendKind {
    return this.backendKind;
  }

  get gpuAvailable(): boolean {
    return this.gpuOk;
  }

  /** Runs `fn` after every queued operation; failures do not block later ones. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** The query backend and SDF baker of one kind, created once (the same twins the CLI and bench use). */
  private async backendFor(kind: BackendKind): Promise<Backend> {
    const k: BackendKind = kind === 'gpu' && this.gpuOk ? 'gpu' : 'cpu';
    let b = this.backends.get(k);
    if (!b) {
      // CPU queries on every core (at most 8) where the page is cross-origin isolated.
      b = await createBackend(k, { threads: k === 'cpu' ? await defaultThreads() : 1 });
      if (b.threadNote) this.events.warn?.(b.threadNote);
      this.backends.set(k, b);
    }
    return b;
  }

  private async build(scene: SceneDesc, io: SceneIo): Promise<World> {
    const b = await this.backendFor(this.backendKind);
    return createWorld(scene, b.query, {
      readText: (p) => io.readText(p),
      bake: b.bake,
      bakeAll: b.bakeAll,
      warn: (m) => this.events.warn?.(m),
      shapes: this.shapesOf(io.shapeScope ?? ''),
    });
  }

  /** Shapes by scope (SceneIo.shapeScope), then by their description. */
  private readonly shapeCache = new Map<string, Map<string, RigidShape>>();

  /**
   * The cached shapes of one scope. Keyed by description, so shapes survive a
   * rebuild with a placed instance; bounded across scenes (cleared past 256
   * shapes or 64 scopes).
   */
  private shapesOf(scope: string): Map<string, RigidShape> {
    let held = 0;
    for (const m of this.shapeCache.values()) held += m.size;
    if (held > 256 || this.shapeCache.size > 64) this.shapeCache.clear();
    let shapes = this.shapeCache.get(scope);
    if (!shapes) {
      shapes = new Map();
      this.shapeCache.set(scope, shapes);
    }
    return shapes;
  }

  /** Builds a world for the scene; the old one stays until the new one is ready. */
  load(scene: SceneDesc, io: SceneIo): Promise<World> {
    return this.exclusive(async () => {
      const world = await this.build(scene, io);
      this.scene = scene;
      this.io = io;
      this.install(world);
      return world;
    });
  }

  /** Rebuilds the current scene (time 0, initial state), keeping the user's solver settings. */
  reset(): Promise<World | null> {
    return this.exclusive(async () => {
      if (!this.scene || !this.io) return null;
      const world = await this.build(this.scene, this.io);
      this.install(world);
      return world;
    });
  }

  private install(world: World): void {
    this.world = world;
    this.applyOverrides();
    this.timeline = new StateTimeline(world.bodies.count, DEFAULT_LIMITS, world.soft ? savedStateBytes(world.soft.saveState()) : 0);
    this.timeline.record(world);
    this.cursor = 0;
    this.restartClock();
    this.events.onWorld?.(world);
  }

  /** Puts the world back to timeline state i (0 the oldest); pauses. */
  seek(i: number): Promise<void> {
    this.pause();
    return this.exclusive(async () => {
      const w = this.world;
      const tl = this.timeline;
      if (!w || !tl || tl.count === 0) return;
      const k = Math.max(0, Math.min(tl.count - 1, Math.round(i)));
      w.restoreState(tl.state(k));
      this.cursor = k;
      this.events.onSeek?.(w);
    });
  }

  /** One recorded step back (pauses). */
  stepBack(): Promise<void> {
    return this.seek(this.cursor - 1);
  }

  setSpeed(speed: number): void {
    if (!(speed > 0) || speed === this.speed) return;
    this.speed = speed;
    this.restartClock();
  }

  /** Changes solver settings now and after every reset. */
  setOverrides(o: SolverOverrides): void {
    this.overrides = { ...this.overrides, ...o };
    this.applyOverrides();
  }

  private applyOverrides(): void {
    const w = this.world;
    if (!w) return;
    const { dt, ...solver } = this.overrides;
    Object.assign(w.solver, solver);
    if (dt !== undefined && dt > 0) {
      w.dt = dt;
      this.restartClock();
    }
  }

  /** Switch between CPU and GPU queries while running (takes effect before the next step). */
  setBackend(kind: BackendKind): Promise<void> {
    this.pendingBackend = kind;
    return this.exclusive(async () => {
      try {
        const k: BackendKind = kind === 'gpu' && this.gpuOk ? 'gpu' : 'cpu';
        const b = await this.backendFor(k);
        this.backendKind = k;
        this.world?.setBackend(b.query);
      } finally {
        if (this.pendingBackend === kind) this.pendingBackend = null;
      }
    });
  }

  /** The GPU is gone (device lost): from now on everything runs on the CPU. */
  dropGpu(): Promise<void> {
    this.gpuOk = false;
    return this.exclusive(async () => {
      const gpu = this.backends.get('gpu');
      this.backends.delete('gpu');
      this.backendKind = 'cpu';
      this.world?.setBackend((await this.backendFor('cpu')).query);
      try {
        gpu?.destroy();
      } catch {
        // Its buffers went with the device.
      }
    });
  }

  step(): Promise<void> {
    return this.exclusive(async () => {
      const w = this.world;
      if (!w) return;
      const tl = this.timeline!;
      // Stepping on from an earlier state: its future is replaced.
      if (this.cursor < tl.count - 1) tl.truncateAfter(this.cursor);
      this.stepStartedAt = performance.now();
      try {
        await w.step();
      } finally {
        this.stepStartedAt = 0;
      }
      tl.record(w);
      this.cursor = tl.count - 1;
      this.events.onStep?.(w);
    });
  }

  play(): void {
    if (this.playing) return;
    this.playing = true;
    this.restartClock();
    this.events.onPlaying?.(true);
    void this.loop();
  }

  pause(): void {
    if (!this.playing) return;
    this.playing = false;
    this.events.onPlaying?.(false);
  }

  private restartClock(): void {
    this.wallStart = performance.now();
    this.simStart = this.world?.time ?? 0;
  }

  private async loop(): Promise<void> {
    if (this.looping) return;
    this.looping = true;
    let lastYield = performance.now();
    let frameCost = 0;
    try {
      while (this.playing && this.world) {
        const w = this.world;
        const wall = (this.speed * (performance.now() - this.wallStart)) / 1000;
        const behind = wall - (w.time - this.simStart);
        if (behind <= 0) {
          await nextFrame();
          lastYield = performance.now();
          continue;
        }
        // A simulation slower than real time does not build a debt it would later rush through.
        if (behind > MAX_DEBT_S * this.speed) this.wallStart += ((behind - MAX_DEBT_S * this.speed) / this.speed) * 1000;
        await this.step();
        // Step for at least as long as a frame takes to draw, so a slow renderer (a software
        // adapter draws a frame in a few hundred ms) does not starve the simulation.
        if (performance.now() - lastYield > Math.max(STEP_SLICE_MS, frameCost)) {
          const t = performance.now();
          await nextFrame();
          lastYield = performance.now();
          frameCost = lastYield - t;
        }
      }
    } catch (e) {
      this.pause();
      this.events.onError?.(e);
    } finally {
      this.looping = false;
    }
  }

  /** Waits for queued operations (tests and the recorder use it). */
  idle(): Promise<void> {
    return this.exclusive(async () => {});
  }

  /** Runs `fn` between operations (no step runs meanwhile): reading a consistent world. */
  between<T>(fn: () => T): Promise<T> {
    return this.exclusive(async () => fn());
  }

  destroy(): void {
    this.playing = false;
    for (const b of this.backends.values()) b.destroy();
    this.backends.clear();
  }
}

/** Stepping runs at least this long between frames (ms). */
const STEP_SLICE_MS = 25;
/** Simulated seconds (per unit of speed) the loop may fall behind the wall clock before it lets them go. */
const MAX_DEBT_S = 0.25;

function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible') {
      requestAnimationFrame(() => resolve());
    } else {
      setTimeout(resolve, 16);
    }
  });
}
