/**
 * The tweakpane (v4) control panel: scene picker with the scene's
 * parameters, simulation controls and solver settings, views, monitors and
 * recording. It holds no state of its own beyond what tweakpane binds to;
 * every change goes out through the callbacks and main.ts decides.
 */
import type { BindingApi } from '@tweakpane/core';
import { Pane, type ButtonApi, type FolderApi, type ListBladeApi } from 'tweakpane';
import type { BackendKind } from '../collision/query.ts';
import type { BuiltinInfo } from '../scene/builtins.ts';
import type { SolverSettings } from '../scene/types.ts';
import { VIEW_LABELS, VIEW_NAMES, type SliceAxis, type ViewName, type ViewState } from './views.ts';
import { DEFAULT_DT, DEFAULT_SOLVER } from '../scene/validate.ts';

export interface PanelCallbacks {
  selectScene(name: string): void;
  sceneParamsChanged(params: Record<string, number>): void;
  openFile(): void;
  togglePlay(): void;
  step(): void;
  reset(): void;
  setBackend(kind: BackendKind): void;
  solverChanged(s: PanelSolver): void;
  viewChanged(name: ViewName, on: boolean): void;
  sliceChanged(body: number, axis: SliceAxis, offset: number): void;
  toggleRecording(): void;
  downloadRecording(): void;
}

export type PanelSolver = Pick<
  SolverSettings,
  'scheme' | 'contactSolver' | 'collisionIterations' | 'contactIterations' | 'jointIterations' | 'contactGraph' | 'shockPropagation'
> & { dt: number };

/** Values the monitors read (updated in place by main.ts). */
export interface PanelStats {
  fps: number;
  stepMs: number;
  contacts: number;
  pairs: number;
  time: number;
  steps: number;
}

export class ControlPanel {
  readonly pane: Pane;
  readonly stats: PanelStats = { fps: 0, stepMs: 0, contacts: 0, pairs: 0, time: 0, steps: 0 };
  private readonly sceneFolder: FolderApi;
  private sceneList: ListBladeApi<string>;
  private paramFolder: FolderApi | null = null;
  private sceneParams: Record<string, number> = {};
  private readonly playButton: ButtonApi;
  private readonly recordButton: ButtonApi;
  private readonly downloadButton: ButtonApi;
  private readonly backendState: { backend: BackendKind };
  private readonly backendBinding: BindingApi;
  private readonly solver: PanelSolver;
  private readonly solverBindings: BindingApi[] = [];
  private readonly viewState: Record<ViewName, boolean>;
  private readonly viewBindings: BindingApi[] = [];
  private readonly slice = { body: 0, axis: 'z' as SliceAxis, offset: 0.5 };
  private sliceBody: BindingApi;
  private sliceBodyMax = 1;
  private readonly viewsFolder: FolderApi;
  private readonly onSlice: () => void;
  private readonly sliceBindings: BindingApi[] = [];
  private quiet = false;

  constructor(
    container: HTMLElement,
    private readonly builtins: readonly BuiltinInfo[],
    private readonly cb: PanelCallbacks,
    gpuAvailable: boolean,
    backend: BackendKind,
  ) {
    this.pane = new Pane({ container, title: 'Stackfield' });

    this.sceneFolder = this.pane.addFolder({ title: 'Scene' });
    this.sceneList = this.sceneFolder.addBlade({
      view: 'list',
      label: 'scene',
      options: [...builtins.map((b) => ({ text: b.title, value: b.name })), { text: '(scene file)', value: '' }],
      value: builtins[0]?.name ?? '',
    }) as ListBladeApi<string>;
    this.sceneList.on('change', (ev) => {
      if (this.quiet || !ev.value) return;
      cb.selectScene(ev.value);
    });
    this.sceneFolder.addButton({ title: 'Open scene file…' }).on('click', () => cb.openFile());

    const sim = this.pane.addFolder({ title: 'Simulation' });
    this.playButton = sim.addButton({ title: 'Play' });
    this.playButton.on('click', () => cb.togglePlay());
    sim.addButton({ title: 'Step' }).on('click', () => cb.step());
    sim.addButton({ title: 'Reset' }).on('click', () => cb.reset());
    this.backendState = { backend: gpuAvailable ? backend : 'cpu' };
    this.backendBinding = sim.addBinding(this.backendState, 'backend', {
      label: 'backend',
      options: { CPU: 'cpu', GPU: 'gpu' },
      disabled: !gpuAvailable,
    });
    this.backendBinding.on('change', (ev) => {
      if (!this.quiet) cb.setBackend(ev.value as BackendKind);
    });
    const { edgeSamples: _unused, ...solverDefaults } = DEFAULT_SOLVER;
    this.solver = { ...solverDefaults, dt: DEFAULT_DT };
    const onSolver = () => {
      if (!this.quiet) cb.solverChanged({ ...this.solver });
    };
    const add = (b: BindingApi) => {
      b.on('change', onSolver);
      this.solverBindings.push(b);
    };
    add(sim.addBinding(this.solver, 'scheme', { options: { separated: 'separated', standard: 'standard' } }));
    add(sim.addBinding(this.solver, 'contactSolver', { label: 'contacts', options: { sequential: 'sequential', PGS: 'pgs' } }));
    add(sim.addBinding(this.solver, 'collisionIterations', { label: 'collision it.', min: 0, max: 50, step: 1 }));
    add(sim.addBinding(this.solver, 'contactIterations', { label: 'contact it.', min: 0, max: 50, step: 1 }));
    add(sim.addBinding(this.solver, 'jointIterations', { label: 'joint it.', min: 0, max: 50, step: 1 }));
    add(sim.addBinding(this.solver, 'contactGraph', { label: 'contact graph' }));
    add(sim.addBinding(this.solver, 'shockPropagation', { label: 'shock prop.' }));
    add(sim.addBinding(this.solver, 'dt', { label: 'dt (s)', min: 0.001, max: 0.05, step: 0.001 }));

    const views = this.pane.addFolder({ title: 'Views' });
    this.viewsFolder = views;
    this.viewState = Object.fromEntries(VIEW_NAMES.map((n) => [n, false])) as Record<ViewName, boolean>;
    for (const n of VIEW_NAMES) {
      const b = views.addBinding(this.viewState, n, { label: VIEW_LABELS[n] });
      b.on('change', (ev) => {
        if (!this.quiet) cb.viewChanged(n, ev.value as boolean);
      });
      this.viewBindings.push(b);
    }
    const onSlice = () => {
      if (!this.quiet) cb.sliceChanged(this.slice.body, this.slice.axis, this.slice.offset);
    };
    this.onSlice = onSlice;
    this.sliceBody = this.addSliceBody(1);
    const axis = views.addBinding(this.slice, 'axis', { label: 'slice axis', options: { x: 'x', y: 'y', z: 'z' } });
    axis.on('change', onSlice);
    const offset = views.addBinding(this.slice, 'offset', { label: 'slice at', min: 0, max: 1, step: 0.01 });
    offset.on('change', onSlice);
    this.sliceBindings.push(axis, offset);

    const mon = this.pane.addFolder({ title: 'Monitors' });
    mon.addBinding(this.stats, 'fps', { readonly: true, view: 'graph', min: 0, max: 120, interval: 250 });
    mon.addBinding(this.stats, 'stepMs', { label: 'step ms', readonly: true, view: 'graph', min: 0, max: 50, interval: 250 });
    mon.addBinding(this.stats, 'stepMs', { label: 'step ms', readonly: true, interval: 250, format: (v: number) => v.toFixed(2) });
    mon.addBinding(this.stats, 'contacts', { readonly: true, interval: 250, format: (v: number) => v.toFixed(0) });
    mon.addBinding(this.stats, 'pairs', { readonly: true, interval: 250, format: (v: number) => v.toFixed(0) });
    mon.addBinding(this.stats, 'time', { label: 'time (s)', readonly: true, interval: 250, format: (v: number) => v.toFixed(2) });
    mon.addBinding(this.stats, 'steps', { readonly: true, interval: 250, format: (v: number) => v.toFixed(0) });

    const rec = this.pane.addFolder({ title: 'Record', expanded: false });
    this.recordButton = rec.addButton({ title: 'Start recording' });
    this.recordButton.on('click', () => cb.toggleRecording());
    this.downloadButton = rec.addButton({ title: 'Download .webm', disabled: true });
    this.downloadButton.on('click', () => cb.downloadRecording());
  }

  private addSliceBody(max: number): BindingApi {
    this.sliceBodyMax = max;
    const b = this.viewsFolder.addBinding(this.slice, 'body', { label: 'SDF body', min: 0, max, step: 1, index: VIEW_NAMES.length });
    b.on('change', this.onSlice);
    return b;
  }

  /** Shows the scene (or the file entry) as selected and rebuilds the parameter sliders. */
  showScene(name: string | null, params: Record<string, number>): void {
    this.quiet = true;
    try {
      this.sceneList.value = name ?? '';
      this.paramFolder?.dispose();
      this.paramFolder = null;
      const info = name ? this.builtins.find((b) => b.name === name) : undefined;
      if (info && info.params.length > 0) {
        this.sceneParams = { ...params };
        const f = this.sceneFolder.addFolder({ title: 'Parameters', index: 1 });
        for (const p of info.params) {
          const b = f.addBinding(this.sceneParams, p.name, { min: p.min, max: p.max, step: p.step ?? (p.max - p.min) / 100 });
          // Rebuilding a scene is expensive: react when the slider is released, not on every pixel.
          b.on('change', (ev) => {
            if (!this.quiet && ev.last) this.cb.sceneParamsChanged({ ...this.sceneParams });
          });
        }
        this.paramFolder = f;
      }
    } finally {
      this.quiet = false;
    }
  }

  showSolver(s: PanelSolver): void {
    this.quiet = true;
    Object.assign(this.solver, s);
    for (const b of this.solverBindings) b.refresh();
    this.quiet = false;
  }

  showViews(v: ViewState, bodyCount: number): void {
    this.quiet = true;
    for (const n of VIEW_NAMES) this.viewState[n] = v[n];
    for (const b of this.viewBindings) b.refresh();
    this.slice.body = Math.max(0, v.sliceBody);
    this.slice.axis = v.sliceAxis;
    this.slice.offset = v.sliceOffset;
    // A binding's range is fixed when it is made: rebuild the body slider when the body count changes.
    const max = Math.max(1, bodyCount - 1);
    if (max !== this.sliceBodyMax) {
      this.sliceBody.dispose();
      this.sliceBody = this.addSliceBody(max);
    }
    this.sliceBody.refresh();
    for (const b of this.sliceBindings) b.refresh();
    this.quiet = false;
  }

  showPlaying(playing: boolean): void {
    this.playButton.title = playing ? 'Pause' : 'Play';
  }

  showBackend(kind: BackendKind, gpuAvailable: boolean): void {
    this.quiet = true;
    this.backendState.backend = kind;
    this.backendBinding.disabled = !gpuAvailable;
    this.backendBinding.refresh();
    this.quiet = false;
  }

  showRecording(recording: boolean, hasFile: boolean): void {
    this.recordButton.title = recording ? 'Stop recording' : 'Start recording';
    this.downloadButton.disabled = !hasFile;
  }

  /** Tweakpane monitors poll on their interval; nothing to do per frame. */
  dispose(): void {
    this.pane.dispose();
  }
}
