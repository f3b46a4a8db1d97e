/**
 * What the app writes over the view (plain DOM, updated a few times a
 * second): the numbers overlay (FPS, step time, bodies awake and asleep,
 * contact points, kinetic energy, deepest penetration, each read from the
 * world as it is), the legend of the graph-levels colours, and the name of
 * the chosen body next to it.
 */
import type { World } from '../dynamics/world.ts';
import { levelColor } from './overlays.ts';

/** The numbers, each as the world gives it (data-value) and as shown. */
export interface WorldNumbers {
  fps: number;
  stepMs: number;
  awake: number;
  asleep: number;
  contacts: number;
  energy: number;
  penetration: number;
}

/** Dynamic bodies awake and asleep, counted from the world's own flags; soft bodies never sleep. */
export function sleepCounts(world: World): { awake: number; asleep: number } {
  const b = world.bodies;
  let awake = world.soft?.bodyCount ?? 0;
  let asleep = 0;
  for (let i = 0; i < b.count; i++) {
    if (b.isStatic[i]) continue;
    if (b.asleep[i]) asleep++;
    else awake++;
  }
  return { awake, asleep };
}

export function worldNumbers(world: World, fps: number): WorldNumbers {
  return {
    fps,
    stepMs: world.profile.totalMs,
    ...sleepCounts(world),
    contacts: world.contacts.count,
    energy: world.kineticEnergy() + (world.soft?.kineticEnergy() ?? 0),
    penetration: world.deepestPenetration(),
  };
}

const ROWS: { key: keyof WorldNumbers; label: string; tip: string; format: (v: number) => string }[] = [
  { key: 'fps', label: 'FPS', tip: 'frames drawn per second', format: (v) => v.toFixed(0) },
  { key: 'stepMs', label: 'step', tip: 'wall-clock time of the last step', format: (v) => `${fixed(v)} ms` },
  { key: 'awake', label: 'awake', tip: 'dynamic bodies awake (soft bodies included: they never sleep)', format: (v) => v.toFixed(0) },
  { key: 'asleep', label: 'asleep', tip: 'dynamic bodies asleep (drawn darker; they cost nothing)', format: (v) => v.toFixed(0) },
  { key: 'contacts', label: 'contacts', tip: 'penetrating contact points of the last step between rigid bodies, one of them awake (a sleeping pile and soft bodies count none)', format: (v) => v.toFixed(0) },
  { key: 'energy', label: 'kinetic E', tip: 'kinetic energy of every body: rigid bodies translating and turning, soft bodies\' particles', format: (v) => `${fixed(v)} J` },
  { key: 'penetration', label: 'deepest', tip: 'deepest penetration among the rigid contacts of the last step (a sleeping pile and soft bodies count none)', format: (v) => `${fixed(v * 1000)} mm` },
];

/** Three significant figures, without an exponent for everyday sizes; rounding noise as 0. */
function fixed(v: number): string {
  if (Math.abs(v) < 1e-9) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 0.001) return v.toPrecision(3);
  return v.toExponential(2);
}

export class NumbersOverlay {
  readonly element: HTMLElement;
  private readonly cells = new Map<keyof WorldNumbers, HTMLElement>();

  constructor() {
    const el = document.createElement('div');
    el.id = 'numbers';
    el.setAttribute('aria-label', 'simulation numbers');
    for (const r of ROWS) {
      const row = document.createElement('div');
      row.title = r.tip;
      const label = document.createElement('span');
      label.textContent = r.label;
      const value = document.createElement('b');
      value.dataset['key'] = r.key;
      row.append(label, value);
      el.append(row);
      this.cells.set(r.key, value);
    }
    this.element = el;
  }

  set visible(on: boolean) {
    this.element.hidden = !on;
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  /** Shows the numbers; `step` is the world's step count they belong to (data-step, for tests). */
  show(n: WorldNumbers, step: number): void {
    for (const r of ROWS) {
      const cell = this.cells.get(r.key)!;
      const v = n[r.key];
      const text = r.format(v);
      if (cell.textContent !== text) cell.textContent = text;
      cell.dataset['value'] = String(v);
    }
    this.element.dataset['step'] = String(step);
  }
}

/** The colours of the graph-levels view, with what they mean. */
export class LevelsLegend {
  readonly element: HTMLElement;

  constructor() {
    const el = document.createElement('div');
    el.id = 'levels-legend';
    el.hidden = true;
    const title = document.createElement('div');
    title.className = 'legend-title';
    title.textContent = 'contact-graph level';
    const bar = document.createElement('div');
    bar.className = 'legend-bar';
    const c = [0, 0, 0];
    for (let level = 0; level < 12; level++) {
      levelColor(level, c);
      const sw = document.createElement('i');
      sw.style.background = css(c);
      sw.title = `level ${level}${level === 0 ? ': on the ground (or a static body)' : ''}`;
      bar.append(sw);
    }
    const scale = document.createElement('div');
    scale.className = 'legend-scale';
    scale.innerHTML = '<span>0: on the ground</span><span>11, then 0 again</span>';
    const none = document.createElement('div');
    none.className = 'legend-none';
    levelColor(-1, c);
    none.innerHTML = `<i style="background:${css(c)}"></i>static, or touching nothing`;
    el.append(title, bar, scale, none);
    this.element = el;
  }

  set visible(on: boolean) {
    this.element.hidden = !on;
  }
}

/** Linear palette colour to CSS, with the display gamma the shaders apply. */
function css(c: readonly number[]): string {
  const f = (x: number) => Math.round(255 * Math.min(1, Math.pow(Math.max(0, x), 1 / 2.2)));
  return `rgb(${f(c[0]!)},${f(c[1]!)},${f(c[2]!)})`;
}

/** The chosen body's name, floating above it. */
export class BodyLabel {
  readonly element: HTMLElement;
  private text = '';

  constructor() {
    this.element = document.createElement('div');
    this.element.id = 'body-label';
    this.element.hidden = true;
  }

  /** Places the label at pixel (x, y) of the canvas, or hides it (null). */
  show(text: string | null, x = 0, y = 0): void {
    if (text === null) {
      this.element.hidden = true;
      return;
    }
    if (text !== this.text) {
      this.text = text;
      this.element.textContent = text;
    }
    this.element.hidden = false;
    this.element.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px) translate(-50%, -100%)`;
  }
}
