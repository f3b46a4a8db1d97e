/**
 * The tweakpane (v4) control panel: the scene picker with the scene's
 * description and parameters, scene files and export, the query backend and
 * (folded) solver settings, the camera (the chosen body, follow, framing),
 * views with the depth field's slice, monitors and recording. Play, step and
 * the timeline live in the transport bar (transport.ts), so the panel's key
 * controls fit a 720-pixel-high window.
 *
 * It holds no state of its own beyond what tweakpane binds to; every change
 * goes out through the callbacks and main.ts decides.
 */
import type { BindingApi } from '@tweakpane/core';
import { Pane, type ButtonApi, type FolderApi, type ListBladeApi } from 'tweakpane';
import type { BackendKind } from '../collision/query.ts';
import type { BuiltinInfo } from '../scene/builtins.ts';
import type { SolverOverrides } from './simulation.ts';
import { VIEW_LABELS, VIEW_NAMES, type OthersMode, type SliceMode, type ViewName, type ViewState } from './views.ts';
import { DEFAULT_DT, DEFAULT_SOLVER } from '../scene/validate.ts';
import { displayName } from '../util/echo.ts';
import { checkSceneParams } from './urlState.ts';

/**
 * Bodies the panel's body list names at most. Tweakpane builds a list in
 * time quadratic in its options: 50 000 bodies held the page for 15 s of a
 * 22 s load; 1 000 cost a few milliseconds.
 */
export const MAX_LISTED_BODIES = 1000;

export interface PanelCallbacks {
  selectScene(name: string): void;
  sceneParamsChanged(params: Record<string, number>): void;
  /** A value typed for a scene parameter was not used as typed: what was used instead, in words for a notice. */
  /** A note on what was typed for parameter `name`, which now holds `value` (the note stands while it does). */
  paramNote(text: string, name: string, value: number): void;
  openFile(): void;
  exportState(): void;
  setBackend(kind: BackendKind): void;
  solverChanged(s: PanelSolver): void;
  selectBody(body: number): void;
  setFollow(on: boolean): void;
  /** The mouse pulls a dragged body by a spring, or by a force drawn as an arrow. */
  setDragMode(mode: 'spring' | 'force'): void;
  frameAll(): void;
  frameBody(): void;
  resetView(): void;
  viewChanged(name: ViewName, on: boolean): void;
  numbersChanged(on: boolean): void;
  sliceChanged(mode: SliceMode, offset: number): void;
  othersChanged(others: OthersMode): void;
  depthNodesChanged(on: boolean): void;
  toggleRecording(): void;
  downloadRecording(): void;
}

/** The solver settings the panel shows (and may change), with the time step. */
export type PanelSolver = Required<SolverOverrides>;

/** Values the monitors read (updated in place by main.ts). */
export interface PanelStats {
  fps: number;
  stepMs: number;
  contacts: number;
  pairs: number;
  awake: number;
  asleep: number;
}

/** The description of a built-in (optional until every built-in has one). */
export function describeScene(info: BuiltinInfo | undefined): string {
  return (info as { description?: string } | undefined)?.description ?? '';
}

export class ControlPanel {
  readonly pane: Pane;
  readonly stats: PanelStats = { fps: 0, stepMs: 0, contacts: 0, pairs: 0, awake: 0, asleep: 0 };
  private readonly sceneFolder: FolderApi;
  private readonly sceneList: ListBladeApi<string>;
  private readonly sceneText: HTMLElement;
  private paramFolder: FolderApi | null = null;
  private sceneParams: Record<string, number> = {};
  private readonly recordButton: ButtonApi;
  private readonly downloadButton: ButtonApi;
  private readonly backendState: { backend: BackendKind };
  private readonly backendBinding: BindingApi;
  private readonly backendNote: HTMLElement;
  private readonly solver: PanelSolver;
  private readonly solverBindings: BindingApi[] = [];
  private readonly cameraFolder: FolderApi;
  private bodyList: ListBladeApi<number> | null = null;
  private bodyNames: readonly string[] = [];
  /** The body past MAX_LISTED_BODIES the list also holds (the selected one), -1 for none. */
  private bodyExtra = -1;
  private readonly follow = { follow: false };
  private readonly pull: { mode: 'spring' | 'force' } = { mode: 'spring' };
  private readonly followBinding: BindingApi;
  private readonly viewState: Record<ViewName | 'numbers', boolean>;
  private readonly viewBindings: BindingApi[] = [];
  private readonly slice = { axis: 'camera' as SliceMode, offset: 0.5, others: 'fade' as OthersMode, nodes: false };
  private readonly sliceBindings: BindingApi[] = [];
  private readonly sliceNote: HTMLElement;
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
    const exportButton = this.sceneFolder.addButton({ title: 'Export state…' });
    exportButton.on('click', () => cb.exportState());
    exportButton.element.title = 'Save this moment as a scene file that the app and `stackfield run` load';
    // Tweakpane places blades by DOM index: the note goes in once the folder's blades are there.
    this.sceneText = noteAfter(this.sceneList.element, 'scene-description');

    const sim = this.pane.addFolder({ title: 'Simulation' });
    this.backendState = { backend: gpuAvailable ? backend : 'cpu' };
    this.backendBinding = sim.addBinding(this.backendState, 'backend', {
      label: 'queries',
      options: { CPU: 'cpu', GPU: 'gpu' },
      disabled: !gpuAvailable,
    });
    this.backendBinding.element.title = 'Where the penetration queries (sample against SDF) run';
    this.backendBinding.on('change', (ev) => {
      if (!this.quiet) cb.setBackend(ev.value as BackendKind);
    });
    const solverFolder = sim.addFolder({ title: 'Solver', expanded: false });
    const { edgeSamples: _samples, edgeSpacing: _spacing, ...solverDefaults } = DEFAULT_SOLVER;
    this.solver = { ...solverDefaults, dt: DEFAULT_DT };
    const onSolver = () => {
      if (!this.quiet) cb.solverChanged({ ...this.solver });
    };
    const add = (b: BindingApi, tip: string) => {
      b.on('change', onSolver);
      b.element.title = tip;
      this.solverBindings.push(b);
    };
    add(solverFolder.addBinding(this.solver, 'scheme', { options: { separated: 'separated', standard: 'standard' } }), 'separated: collisions, then velocities, then contacts (the seed\'s); standard: velocities first');
    add(solverFolder.addBinding(this.solver, 'contactSolver', { label: 'contacts', options: { sequential: 'sequential', PGS: 'pgs', accumulated: 'accumulated' } }), 'sequential: the seed\'s impulses with shock propagation (towers of any height stand; big heaps stay awake); pgs: projected Gauss-Seidel (towers of 20 or more fall); accumulated: persistent, sub-stepped contacts (heaps and ring piles come to rest and sleep; towers above about 50 fall)');
    add(solverFolder.addBinding(this.solver, 'contactPose', { label: 'contact pose', options: { current: 'current', predicted: 'predicted' } }), 'where contacts with static bodies are taken: where they touch now, or at the predicted poses (the seed)');
    add(solverFolder.addBinding(this.solver, 'collisionIterations', { label: 'collision it.', min: 0, max: 50, step: 1 }), 'collision passes per step');
    add(solverFolder.addBinding(this.solver, 'contactIterations', { label: 'contact it.', min: 0, max: 50, step: 1 }), 'contact passes per step');
    add(solverFolder.addBinding(this.solver, 'jointIterations', { label: 'joint it.', min: 0, max: 50, step: 1 }), 'joint passes per step');
    add(solverFolder.addBinding(this.solver, 'contactGraph', { label: 'contact graph' }), 'solve contacts level by level, from the ground up');
    add(solverFolder.addBinding(this.solver, 'shockPropagation', { label: 'shock prop.' }), 'one more pass with lower levels frozen, so stacks stand');
    add(solverFolder.addBinding(this.solver, 'dt', { label: 'dt (s)', min: 0.001, max: 0.05, step: 0.001 }), 'time step in seconds');
    this.backendNote = noteAfter(this.backendBinding.element, 'backend-note');

    this.cameraFolder = this.pane.addFolder({ title: 'Camera' });
    this.followBinding = this.cameraFolder.addBinding(this.follow, 'follow');
    this.followBinding.element.title = 'Keep the chosen body in the middle of the view (G)';
    this.followBinding.on('change', (ev) => {
      if (!this.quiet) cb.setFollow(ev.value as boolean);
    });
    const pull = this.cameraFolder.addBinding(this.pull, 'mode', { label: 'mouse pull', options: { spring: 'spring', 'force (arrow)': 'force' } });
    pull.element.title = 'Drag a body: by a spring (a hand), or by a force at the grab point, drawn as an arrow (the force tool)';
    pull.on('change', (ev) => cb.setDragMode(ev.value as 'spring' | 'force'));
    buttonRow(this.cameraFolder, [
      { title: 'Frame all', tip: 'Fit every body in the view (F)', click: () => cb.frameAll() },
      { title: 'Frame body', tip: 'Zoom onto the chosen body (double-click a body)', click: () => cb.frameBody() },
      { title: 'Reset view', tip: 'The view the scene opened with (0)', click: () => cb.resetView() },
    ]);

    const views = this.pane.addFolder({ title: 'Views' });
    this.viewState = { ...(Object.fromEntries(VIEW_NAMES.map((n) => [n, false])) as Record<ViewName, boolean>), numbers: true };
    for (const n of VIEW_NAMES) {
      const b = views.addBinding(this.viewState, n, { label: VIEW_LABELS[n] });
      b.on('change', (ev) => {
        if (!this.quiet) cb.viewChanged(n, ev.value as boolean);
      });
      this.viewBindings.push(b);
    }
    const onSlice = () => {
      if (!this.quiet) cb.sliceChanged(this.slice.axis, this.slice.offset);
    };
    // The slice controls right under the depth-field switch.
    const under = VIEW_NAMES.indexOf('depthField') + 1;
    const offset = views.addBinding(this.slice, 'offset', { label: 'slice at', min: 0, max: 1, step: 0.01, index: under });
    offset.on('change', onSlice);
    offset.element.title = 'Where the slice cuts the grid along its normal (0 first node plane, 1 last); the wheel over the inset moves it a cell';
    const axis = views.addBinding(this.slice, 'axis', { label: 'slice axis', options: { 'faces camera': 'camera', x: 'x', y: 'y', z: 'z' }, index: under + 1 });
    axis.on('change', onSlice);
    axis.element.title = "faces camera: the body grid's axis nearest the line of sight, as the camera turns; or a fixed axis of the grid";
    const others = views.addBinding(this.slice, 'others', { label: 'other bodies', options: { fade: 'fade', hide: 'hide', show: 'show' }, index: under + 2 });
    others.on('change', (ev) => {
      if (!this.quiet) cb.othersChanged(ev.value as OthersMode);
    });
    others.element.title = 'While the depth field is on: the other bodies as faint edges, not at all, or as they are';
    const nodes = views.addBinding(this.slice, 'nodes', { label: 'grid nodes', index: under + 3 });
    nodes.on('change', (ev) => {
      if (!this.quiet) cb.depthNodesChanged(ev.value as boolean);
    });
    nodes.element.title = 'The grid nodes within 1.5 cells of the surface: inside green, outside red';
    this.sliceBindings.push(offset, axis, others, nodes);
    const numbers = views.addBinding(this.viewState, 'numbers', { label: 'numbers' });
    numbers.element.title = 'FPS, step time, bodies awake and asleep, contacts, energy, deepest penetration (O)';
    numbers.on('change', (ev) => {
      if (!this.quiet) cb.numbersChanged(ev.value as boolean);
    });
    this.viewBindings.push(numbers);
    this.sliceNote = noteAfter(this.viewBindings[VIEW_NAMES.indexOf('depthField')]!.element, 'slice-note');

    const mon = this.pane.addFolder({ title: 'Monitors', expanded: false });
    mon.addBinding(this.stats, 'fps', { readonly: true, view: 'graph', min: 0, max: 120, interval: 250 });
    mon.addBinding(this.stats, 'stepMs', { label: 'step ms', readonly: true, view: 'graph', min: 0, max: 50, interval: 250 });
    const count = (v: number) => v.toFixed(0);
    mon.addBinding(this.stats, 'contacts', { readonly: true, interval: 250, format: count });
    mon.addBinding(this.stats, 'pairs', { readonly: true, interval: 250, format: count });
    mon.addBinding(this.stats, 'awake', { label: 'awake', readonly: true, interval: 250, format: count });
    mon.addBinding(this.stats, 'asleep', { label: 'asleep', readonly: true, interval: 250, format: count });

    const rec = this.pane.addFolder({ title: 'Record', expanded: false });
    this.recordButton = rec.addButton({ title: 'Start recording' });
    this.recordButton.on('click', () => cb.toggleRecording());
    this.downloadButton = rec.addButton({ title: 'Download .webm', disabled: true });
    this.downloadButton.on('click', () => cb.downloadRecording());
  }

  /** Shows the scene (or the file entry) as selected, its description, and rebuilds the parameter sliders. */
  showScene(name: string | null, params: Record<string, number>, fileName: string | null = null): void {
    this.quiet = true;
    try {
      this.sceneList.value = name ?? '';
      this.paramFolder?.dispose();
      this.paramFolder = null;
      const info = name ? this.builtins.find((b) => b.name === name) : undefined;
      const text = info ? describeScene(info) : fileName ? `Scene file ${fileName}.` : '';
      this.sceneText.textContent = text;
      // Two lines at most (the slice controls stay on screen at 720 px); the whole text on hover.
      this.sceneText.title = text;
      this.sceneText.hidden = text === '';
      this.sceneList.element.title = text;
      if (info && info.params.length > 0) {
        this.sceneParams = { ...params };
        const f = this.sceneFolder.addFolder({ title: 'Parameters', index: 2 });
        for (const p of info.params) {
          // A parameter without a step of its own takes any value in range, typed or dragged: a slider
          // step of a hundredth of the range turned a typed size 0.5 (0.001 … 100) into 0.001.
          const stepped = p.step !== undefined && p.step > 0;
          const b = f.addBinding(
            this.sceneParams,
            p.name,
            stepped ? { min: p.min, max: p.max, step: p.step } : { min: p.min, max: p.max, keyScale: (p.max - p.min) / 100, format: (v: number) => String(Number(v.toPrecision(6))) },
          );
          b.element.title = `${p.description ?? p.name} (${p.min} … ${p.max}, default ${p.default})`;
          let typing = false;
          // Tweakpane clamps a typed value to the slider's range without a word, and lets "0/0"
          // through as NaN: the text is read first, and what is used instead is said.
          b.element.addEventListener('change', (e) => {
            if (!(e.target instanceof HTMLInputElement)) return;
            typing = true;
            e.target.value = String(this.typedParam(info.title, p, e.target.value));
          }, true);
          b.element.addEventListener('change', () => {
            typing = false;
          });
          // Rebuilding a scene is expensive: react when the slider is released, not on every pixel.
          b.on('change', (ev) => {
            if (this.quiet || !ev.last) return;
            // A dragged value of a stepless parameter: the three digits a slider's pixel can mean.
            if (!stepped && !typing) {
              this.sceneParams[p.name] = Number(ev.value.toPrecision(3));
              this.quiet = true;
              b.refresh();
              this.quiet = false;
            }
            this.cb.sceneParamsChanged({ ...this.sceneParams });
          });
        }
        this.paramFolder = f;
      }
    } finally {
      this.quiet = false;
    }
  }

  /**
   * The value a parameter's typed text gives, as the link's parameters are
   * read (urlState.ts): clamped to the range and snapped to the step, with a
   * sentence for the user when that changed it; text that is not a number
   * leaves the value as it was, and says so.
   */
  private typedParam(title: string, p: BuiltinInfo['params'][number], text: string): number {
    const now = this.sceneParams[p.name]!;
    const typed = text.trim();
    const x = typed === '' ? NaN : Number(typed);
    if (!Number.isFinite(x)) {
      this.cb.paramNote(`The value typed was ignored: ${p.name}=${JSON.stringify(typed)} is not a number; “${title}” keeps ${p.name}=${now}.`, p.name, now);
      return now;
    }
    const { params, notes } = checkSceneParams([p], { [p.name]: x }, `“${title}”`);
    if (notes.length > 0) this.cb.paramNote(`The value typed was adjusted: ${notes.join(' ')}`, p.name, params[p.name]!);
    return params[p.name]!;
  }

  showSolver(s: PanelSolver): void {
    this.quiet = true;
    Object.assign(this.solver, s);
    for (const b of this.solverBindings) b.refresh();
    this.quiet = false;
  }

  /**
   * The bodies one can choose (by name), rebuilt for each world: the first
   * MAX_LISTED_BODIES, and the selected one if it lies beyond them (a click
   * in the view chooses any body).
   */
  showBodies(names: readonly string[], selected: number): void {
    this.quiet = true;
    try {
      const extra = selected >= MAX_LISTED_BODIES && selected < names.length ? selected : -1;
      if (names !== this.bodyNames || !this.bodyList || extra !== this.bodyExtra) {
        this.bodyNames = names;
        this.bodyExtra = extra;
        this.bodyList?.dispose();
        const listed = names.slice(0, MAX_LISTED_BODIES).map((n, i) => ({ text: displayName(n), value: i }));
        if (extra >= 0) listed.push({ text: displayName(names[extra]!), value: extra });
        const list = this.cameraFolder.addBlade({
          view: 'list',
          label: 'body',
          options: [{ text: '(none)', value: -1 }, ...listed],
          value: selected,
          index: 0,
        }) as ListBladeApi<number>;
        list.element.title = names.length > MAX_LISTED_BODIES
          ? `The body the camera follows and the depth field shows: the first ${MAX_LISTED_BODIES} of ${names.length} are listed; click a body in the view to choose any`
          : 'The body the camera follows and the depth field shows; click a body in the view to choose it';
        list.on('change', (ev) => {
          if (!this.quiet) this.cb.selectBody(ev.value);
        });
        this.bodyList = list;
      }
      this.bodyList.value = selected;
    } finally {
      this.quiet = false;
    }
  }

  showFollow(on: boolean): void {
    this.quiet = true;
    this.follow.follow = on;
    this.followBinding.refresh();
    this.quiet = false;
  }

  /**
   * The view switches, and the slice controls only while the depth field is
   * on, with the name of the body it shows.
   */
  showViews(v: ViewState, numbers: boolean, depthBody: string | null): void {
    this.quiet = true;
    for (const n of VIEW_NAMES) this.viewState[n] = v[n];
    this.viewState.numbers = numbers;
    for (const b of this.viewBindings) b.refresh();
    this.slice.axis = v.sliceMode;
    this.slice.offset = v.sliceOffset;
    this.slice.others = v.others;
    this.slice.nodes = v.depthNodes;
    for (const b of this.sliceBindings) {
      b.refresh();
      b.hidden = !v.depthField;
    }
    this.sliceNote.hidden = !v.depthField;
    this.sliceNote.textContent = depthBody
      ? `SDF of ${displayName(depthBody)}: the slice blue inside, amber outside, white at the surface (the inset reads it); grid nodes inside green, outside red`
      : 'No body with an SDF is chosen: click a body.';
    this.quiet = false;
  }

  /** The backend in use, and a line under it: a switch waiting for the running step, or why the default is what it is. */
  showBackend(kind: BackendKind, gpuAvailable: boolean, noteText = ''): void {
    this.quiet = true;
    this.backendState.backend = kind;
    this.backendBinding.disabled = !gpuAvailable;
    this.backendBinding.refresh();
    this.quiet = false;
    this.showBackendNote(noteText);
  }

  showBackendNote(text: string): void {
    if (this.backendNote.textContent !== text) this.backendNote.textContent = text;
    this.backendNote.hidden = text === '';
  }

  showRecording(recording: boolean, hasFile: boolean): void {
    this.recordButton.title = recording ? 'Stop recording' : 'Start recording';
    this.downloadButton.disabled = !hasFile;
  }

  dispose(): void {
    this.pane.dispose();
  }
}

/** A line of text after a blade (tweakpane has no text blade). */
function noteAfter(blade: HTMLElement, className: string): HTMLElement {
  const el = document.createElement('div');
  el.className = `panel-note ${className}`;
  el.hidden = true;
  blade.after(el);
  return el;
}

/** Buttons side by side in one row of a folder, styled as tweakpane's own. */
function buttonRow(folder: FolderApi, buttons: { title: string; tip: string; click: () => void }[]): void {
  const row = document.createElement('div');
  row.className = 'panel-buttons';
  for (const b of buttons) {
    const el = document.createElement('button');
    el.type = 'button';
    el.className = 'tp-btnv_b';
    el.textContent = b.title;
    el.title = b.tip;
    el.addEventListener('click', b.click);
    row.append(el);
  }
  contentOf(folder).append(row);
}

function contentOf(folder: FolderApi): HTMLElement {
  return (folder.element.querySelector(':scope > .tp-fldv_c') as HTMLElement | null) ?? folder.element;
}
