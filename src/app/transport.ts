/**
 * The transport bar under the view: back one step, play / pause, one step,
 * reset, the speed (slow motion), the timeline of the last recorded steps as
 * a slider, the step counter, and a busy indicator while a slow step runs.
 * Plain DOM; main.ts wires the actions and calls `show` every frame (it only
 * touches the DOM when something changed).
 */

export interface TransportActions {
  back(): void;
  togglePlay(): void;
  step(): void;
  reset(): void;
  setSpeed(speed: number): void;
  /** The slider moved to timeline state i (0 the oldest). */
  seek(i: number): void;
}

export interface TransportState {
  playing: boolean;
  speed: number;
  /** States in the timeline, and the one shown. */
  count: number;
  cursor: number;
  step: number;
  time: number;
  /** Simulated seconds between the state shown and the newest one (0 when at the newest). */
  behind: number;
  /** Seconds the running step has taken so far, 0 when none runs. */
  busySeconds: number;
  /** What the app is waiting for, if anything ("switching to CPU…"). */
  pending: string;
}

export const SPEEDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4] as const;

/** A step running this long shows the busy indicator. */
const BUSY_AFTER_S = 0.3;

export class TransportBar {
  readonly element: HTMLElement;
  private readonly play: HTMLButtonElement;
  private readonly speed: HTMLSelectElement;
  private readonly slider: HTMLInputElement;
  private readonly counter: HTMLElement;
  private readonly busy: HTMLElement;
  private last = '';
  private dragging = false;

  constructor(actions: TransportActions) {
    const el = document.createElement('div');
    el.id = 'transport';
    el.setAttribute('role', 'toolbar');
    el.setAttribute('aria-label', 'time');
    const button = (label: string, icon: string, tip: string, act: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('aria-label', label);
      b.title = tip;
      b.innerHTML = icon;
      b.addEventListener('click', act);
      el.append(b);
      return b;
    };
    button('Back', ICON_BACK, 'One step back (,)', () => actions.back());
    this.play = button('Play', ICON_PLAY, 'Play / pause (space)', () => actions.togglePlay());
    this.play.classList.add('transport-play');
    button('Step', ICON_STEP, 'One step (N)', () => actions.step());
    button('Reset', ICON_RESET, 'Back to the start (R)', () => actions.reset());
    this.speed = document.createElement('select');
    this.speed.setAttribute('aria-label', 'speed');
    this.speed.title = 'Simulated time per second: slow motion below 1×';
    for (const s of SPEEDS) {
      const o = document.createElement('option');
      o.value = String(s);
      o.textContent = `${s}×`;
      this.speed.append(o);
    }
    this.speed.value = '1';
    this.speed.addEventListener('change', () => actions.setSpeed(Number(this.speed.value)));
    this.slider = document.createElement('input');
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.step = '1';
    this.slider.setAttribute('aria-label', 'timeline');
    this.slider.title = 'The last recorded steps: drag back to see (and go on from) an earlier state';
    this.slider.addEventListener('input', () => actions.seek(Number(this.slider.value)));
    this.slider.addEventListener('pointerdown', () => (this.dragging = true));
    window.addEventListener('pointerup', () => (this.dragging = false));
    this.counter = document.createElement('span');
    this.counter.className = 'transport-counter';
    this.busy = document.createElement('span');
    this.busy.className = 'transport-busy';
    this.busy.setAttribute('role', 'status');
    this.busy.hidden = true;
    el.append(this.speed, this.slider, this.counter, this.busy);
    this.element = el;
  }

  show(s: TransportState): void {
    const busyText = s.pending || (s.busySeconds > BUSY_AFTER_S ? `step running… ${s.busySeconds.toFixed(1)} s` : '');
    const key = `${s.playing}|${s.speed}|${s.count}|${s.cursor}|${s.step}|${busyText}`;
    if (key === this.last) return;
    this.last = key;
    this.play.setAttribute('aria-label', s.playing ? 'Pause' : 'Play');
    this.play.innerHTML = s.playing ? ICON_PAUSE : ICON_PLAY;
    if (this.speed.value !== String(s.speed)) this.speed.value = String(s.speed);
    this.slider.max = String(Math.max(0, s.count - 1));
    this.slider.disabled = s.count < 2;
    if (!this.dragging) this.slider.value = String(s.cursor);
    const back = s.behind > 0 ? ` · ${s.behind.toFixed(2)} s back` : '';
    this.counter.textContent = `step ${s.step} · t = ${s.time.toFixed(2)} s${back}`;
    this.counter.dataset['step'] = String(s.step);
    this.busy.hidden = busyText === '';
    this.busy.textContent = busyText;
  }
}

const svg = (path: string) => `<svg viewBox="0 0 16 16" aria-hidden="true"><path d="${path}"/></svg>`;
const ICON_PLAY = svg('M4 2.5v11l9-5.5z');
const ICON_PAUSE = svg('M4 2.5h3v11H4zM9 2.5h3v11H9z');
const ICON_STEP = svg('M3 2.5v11l7-5.5zM11 2.5h2v11h-2z');
const ICON_BACK = svg('M13 2.5v11l-7-5.5zM3 2.5h2v11H3z');
const ICON_RESET = svg('M8 2a6 6 0 1 1-5.6 3.9l1.8.7A4 4 0 1 0 8 4v2.5L4.5 3.2 8 0z');
