/**
 * Step time split by stage (StepProfile.ms) as a stacked bar per step over
 * the last HISTORY steps, with a legend that shows the latest milliseconds.
 * A plain 2D canvas: tweakpane's graph monitor shows one number only.
 */
import { STAGES, stageOrder, type StepProfile } from '../dynamics/profile.ts';
import type { SolverSettings } from '../dynamics/settings.ts';

const HISTORY = 120;
/** Least width of the axis labels' column, left of the bars; wider when a label needs it (so bars never paint over them). */
const MIN_GUTTER = 30;
/** Space between a label's left end and the canvas's edge, and between its right end and the bars. */
const LABEL_PAD = 4;
/** Headroom above the tallest bar. */
const TOP = 6;
/** The scale never drops below this (ms): the browser's clock ticks in 0.1 ms steps. */
const MIN_SCALE_MS = 0.1;

/** One colour per stage, queries in warm colours (they are what the GPU accelerates). */
const STAGE_COLORS: Record<(typeof STAGES)[number], string> = {
  forces: '#6b7a8f',
  wake: '#a3b18a',
  predict: '#5b6b8c',
  broadphase: '#7d8fb3',
  collisionQuery: '#ff8a3d',
  collisionSolve: '#e0b84a',
  joints: '#56ccf2',
  velocityUpdate: '#8aa0a8',
  soft: '#4fd1c5',
  contactQuery: '#ff5d5d',
  contactGraph: '#6fcf97',
  contactPrepare: '#d9a441',
  contactSolve: '#f2c94c',
  shockPropagation: '#bb6bd9',
  positionCorrection: '#8a8fe0',
  contactStore: '#c9b26b',
  integrate: '#9aa5b1',
  pseudoPositions: '#a29bfe',
  islands: '#9aa3ad',
  publishContacts: '#b0b8c1',
};

/** Where the grid lines stand, as fractions of the scale. */
const AXIS_FRACTIONS = [0, 0.5, 1] as const;

/** The chart's full height in ms: the tallest step rounded up to 1, 2 or 5 times a power of ten, so the grid lines read well. */
export function chartScale(maxMs: number): number {
  const max = Math.max(MIN_SCALE_MS, maxMs);
  const pow = Math.pow(10, Math.floor(Math.log10(max)));
  return [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= max * (1 - 1e-9))!;
}

/** The grid lines' labels, bottom to top, in milliseconds as the title and the legend are. */
export function axisLabels(scaleMs: number): string[] {
  return AXIS_FRACTIONS.map((f) => `${+(scaleMs * f).toPrecision(3)} ms`);
}

export class StageChart {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly legend: HTMLElement;
  private readonly legendValues: HTMLElement[] = [];
  private readonly legendRows: HTMLElement[] = [];
  /** The scheme and contact solver whose stages the legend shows (showStages); '' before the first call. */
  private shown = '';
  private readonly data = new Float32Array(HISTORY * STAGES.length);
  private head = 0;
  private filled = 0;
  private dirty = false;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'stage-chart';
    const title = document.createElement('div');
    title.className = 'stage-chart-title';
    title.textContent = 'step time by stage (ms)';
    this.canvas = document.createElement('canvas');
    this.canvas.width = 280;
    this.canvas.height = 90;
    this.ctx = this.canvas.getContext('2d')!;
    this.legend = document.createElement('div');
    this.legend.className = 'stage-legend';
    for (const s of STAGES) {
      const row = document.createElement('span');
      row.className = 'stage-legend-item';
      const sw = document.createElement('i');
      sw.style.background = STAGE_COLORS[s];
      const name = document.createElement('span');
      name.textContent = s;
      const val = document.createElement('b');
      val.textContent = '0.0';
      row.append(sw, name, val);
      row.dataset['stage'] = s;
      // The narrow legend cuts the longest names (shockPropagation): the full one on hover.
      row.title = s;
      this.legend.append(row);
      this.legendRows.push(row);
      this.legendValues.push(val);
    }
    this.element.append(title, this.canvas, this.legend);
  }

  /**
   * Shows in the legend only the stages this scheme and contact solver book
   * (profile.ts stageOrder): a stage another solver books would only ever
   * read 0. Cheap when nothing changed (the app calls it every step).
   */
  showStages(solver: Pick<SolverSettings, 'scheme' | 'contactSolver'>): void {
    const key = `${solver.scheme} ${solver.contactSolver}`;
    if (key === this.shown) return;
    this.shown = key;
    const order = stageOrder(solver.scheme, solver.contactSolver);
    STAGES.forEach((s, k) => {
      this.legendRows[k]!.hidden = !order.includes(s);
    });
  }

  push(p: StepProfile): void {
    const o = this.head * STAGES.length;
    for (let k = 0; k < STAGES.length; k++) this.data[o + k] = p.ms[STAGES[k]!];
    this.head = (this.head + 1) % HISTORY;
    this.filled = Math.min(HISTORY, this.filled + 1);
    this.dirty = true;
  }

  /** Bars, oldest on the left, against a 1-2-5 scale with its labels in the gutter. */
  private drawBars(W: number, H: number): void {
    const ctx = this.ctx;
    let max = MIN_SCALE_MS;
    for (let i = 0; i < this.filled; i++) {
      let t = 0;
      for (let k = 0; k < STAGES.length; k++) t += this.data[i * STAGES.length + k]!;
      if (t > max) max = t;
    }
    const scale = chartScale(max);
    const plotH = H - TOP;
    const labels = axisLabels(scale);
    // The gutter fits the widest label as this font draws it.
    let widest = 0;
    for (const l of labels) widest = Math.max(widest, ctx.measureText(l).width);
    const GUTTER = Math.max(MIN_GUTTER, Math.ceil(widest) + 2 * LABEL_PAD);
    this.canvas.dataset['gutter'] = String(GUTTER);
    this.canvas.dataset['labelWidth'] = String(widest);
    this.canvas.dataset['labels'] = labels.join('|');
    ctx.strokeStyle = 'rgba(255,255,255,0.08)';
    ctx.fillStyle = 'rgba(255,255,255,0.5)';
    ctx.textAlign = 'right';
    AXIS_FRACTIONS.forEach((f, k) => {
      const y = H - f * plotH;
      ctx.beginPath();
      ctx.moveTo(GUTTER, y - 0.5);
      ctx.lineTo(W, y - 0.5);
      ctx.stroke();
      ctx.fillText(labels[k]!, GUTTER - LABEL_PAD, Math.min(H - 1, Math.max(9, y + 3)));
    });
    ctx.textAlign = 'left';
    const bw = (W - GUTTER) / HISTORY;
    for (let n = 0; n < this.filled; n++) {
      // Oldest on the left, newest at the right edge.
      const slot = (this.head - this.filled + n + HISTORY) % HISTORY;
      const x = W - (this.filled - n) * bw;
      let y = H;
      for (let k = 0; k < STAGES.length; k++) {
        const h = (this.data[slot * STAGES.length + k]! / scale) * plotH;
        if (h <= 0) continue;
        ctx.fillStyle = STAGE_COLORS[STAGES[k]!];
        ctx.fillRect(x, y - h, Math.max(1, bw - 0.5), h);
        y -= h;
      }
    }
  }

  clear(): void {
    this.head = 0;
    this.filled = 0;
    this.data.fill(0);
    this.dirty = true;
  }

  /** Redraws when new steps arrived (called once per animation frame). */
  draw(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const { ctx, canvas } = this;
    const W = canvas.width;
    const H = canvas.height;
    ctx.clearRect(0, 0, W, H);
    ctx.font = '10px system-ui, sans-serif';
    if (this.filled === 0) {
      ctx.fillStyle = 'rgba(255,255,255,0.45)';
      ctx.fillText('no steps yet: press play (space) or step (N)', 4, H / 2 + 3);
    } else {
      this.drawBars(W, H);
    }
    const last = (this.head - 1 + HISTORY) % HISTORY;
    for (let k = 0; k < STAGES.length; k++) {
      const v = this.filled > 0 ? this.data[last * STAGES.length + k]! : 0;
      this.legendValues[k]!.textContent = v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
    }
  }
}
