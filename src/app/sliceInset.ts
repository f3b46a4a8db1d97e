/**
 * The depth field's 2D inset: the slice through the chosen body's SDF as a
 * heat map (the 3D slice's colours, sliceView.ts phiColor), the grid's node
 * lines (every cell, or every k-th where cells are under 4 pixels), the
 * zero contour in white, a colour scale in metres, and phi under the cursor
 * with the local point it is taken at. The map is turned and mirrored as
 * the view shows the slice (sliceView.ts insetFrame), its axes named under
 * it. The wheel over the map moves the slice one cell along its normal.
 * The map is drawn again only when the shape, the axis, the offset or the
 * layout changes.
 */
import type { SdfGrid } from '../sdf/grid.ts';
import { displayName } from '../util/echo.ts';
import {
  IDENTITY_FRAME,
  formatMetres,
  imagePoint,
  insetPoint,
  phiColor,
  scaleTicks,
  sliceImage,
  slicePoint,
  sliceValue,
  zeroContour,
  type InsetFrame,
  type SliceImage,
} from './sliceView.ts';
import type { SliceAxis } from './views.ts';

export interface InsetSlice {
  grid: SdfGrid;
  axis: SliceAxis;
  offset: number;
  body: string;
  /** Whether the axis was chosen to face the camera (said in the title). */
  facing: boolean;
  /** How the map is laid out to look as the view shows the slice. */
  frame: InsetFrame;
}

/** The map's longer side, CSS pixels. */
const MAP_PX = 216;
const AXIS_NAMES = ['x', 'y', 'z'];

export class SliceInset {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly map: HTMLCanvasElement;
  private readonly axes: HTMLElement;
  private readonly scale: HTMLElement;
  private readonly readout: HTMLElement;
  private grid: SdfGrid | null = null;
  private axis: SliceAxis | null = null;
  private offset = NaN;
  private frame: InsetFrame = IDENTITY_FRAME;
  private image: SliceImage | null = null;
  private titleText = '';

  /** `moveSlice(offset)`: the wheel asks for the slice at this offset (one cell along the normal per notch). */
  constructor(private readonly moveSlice: (offset: number) => void) {
    const el = document.createElement('div');
    el.id = 'slice-inset';
    el.hidden = true;
    this.title = div('inset-title');
    this.map = document.createElement('canvas');
    this.map.className = 'inset-map';
    this.map.title = 'The slice: phi under the cursor below; the wheel moves the slice along its normal';
    this.axes = div('inset-axes');
    this.scale = div('inset-scale');
    this.readout = div('inset-readout');
    el.append(this.title, this.map, this.axes, this.scale, this.readout);
    this.element = el;
    this.map.addEventListener('pointermove', (e) => this.hover(e));
    this.map.addEventListener('pointerleave', () => this.showReadoutHint());
    this.map.addEventListener(
      'wheel',
      (e) => {
        if (!this.grid || !this.image) return;
        e.preventDefault();
        const n = this.grid.dims[this.image.a]! - 1;
        this.moveSlice(Math.min(1, Math.max(0, this.offset + Math.sign(e.deltaY) / n)));
      },
      { passive: false },
    );
  }

  /** Shows the slice (drawn again only when it changed), or hides the inset. */
  show(s: InsetSlice | null): void {
    if (!s) {
      if (!this.element.hidden) this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    const f = s.frame, g = this.frame;
    const turned = f.swap !== g.swap || f.flipAcross !== g.flipAcross || f.flipUp !== g.flipUp;
    if (s.grid !== this.grid || s.axis !== this.axis || s.offset !== this.offset) {
      this.grid = s.grid;
      this.axis = s.axis;
      this.offset = s.offset;
      this.image = sliceImage(s.grid, s.axis, s.offset);
    } else if (!turned) {
      this.showTitle(s);
      return;
    }
    this.frame = { ...f };
    this.draw(this.image!, this.frame);
    this.showReadoutHint();
    this.showTitle(s);
  }

  private showTitle(s: InsetSlice): void {
    const img = this.image!;
    const title = `${displayName(s.body)}: slice across ${s.axis} at ${s.axis} = ${formatMetres(img.plane)}${s.facing ? ' (faces the camera)' : ''}`;
    if (title !== this.titleText) {
      this.titleText = title;
      this.title.textContent = title;
    }
  }

  /** The image shown (for tests and the console). */
  get slice(): SliceImage | null {
    return this.element.hidden ? null : this.image;
  }

  private draw(img: SliceImage, f: InsetFrame): void {
    const { nu, nv } = img;
    // The longer side MAP_PX, or the inset's width where it is narrower (a phone).
    const cs = getComputedStyle(this.element);
    const free = this.element.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const side = free > 40 ? Math.min(MAP_PX, free) : MAP_PX;
    // Cells across and up as laid out.
    const across = (f.swap ? nv : nu) - 1, upward = (f.swap ? nu : nv) - 1;
    const wide = across >= upward;
    const cssW = wide ? side : Math.round((side * across) / upward);
    const cssH = wide ? Math.round((side * upward) / across) : side;
    const dpr = Math.min(2, globalThis.devicePixelRatio || 1);
    const W = Math.max(1, Math.round(cssW * dpr)), H = Math.max(1, Math.round(cssH * dpr));
    this.map.width = W;
    this.map.height = H;
    this.map.style.width = `${cssW}px`;
    this.map.style.height = `${cssH}px`;
    const ctx = this.map.getContext('2d');
    if (!ctx) return;
    // Heat map, pixel by pixel (bilinear in the slice, as the 3D view's trilinear on the plane).
    const data = ctx.createImageData(W, H);
    const c = [0, 0, 0];
    const h = img.cellSize;
    for (let y = 0; y < H; y++) {
      const Y = 1 - (y + 0.5) / H;
      for (let x = 0; x < W; x++) {
        const [s, t] = imagePoint(img, f, (x + 0.5) / W, Y);
        phiColor(sliceValue(img, s, t), h, c);
        const o = 4 * (x + W * y);
        data.data[o] = 255 * c[0]!;
        data.data[o + 1] = 255 * c[1]!;
        data.data[o + 2] = 255 * c[2]!;
        data.data[o + 3] = 255;
      }
    }
    ctx.putImageData(data, 0, 0);
    // Image point (s, t) to canvas pixels.
    const px = (s: number, t: number): [number, number] => {
      const [X, Y] = insetPoint(img, f, s, t);
      return [X * W, (1 - Y) * H];
    };
    // Node lines: every cell, or every k-th so that lines are at least 4 CSS pixels apart.
    const k = Math.max(1, Math.ceil((4 * dpr) / Math.min(W / across, H / upward)));
    ctx.strokeStyle = 'rgba(20, 24, 32, 0.28)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    const line = (a: [number, number], b: [number, number]) => {
      // On pixel centres, so that one-pixel lines stay sharp.
      ctx.moveTo(Math.round(a[0]) + 0.5, Math.round(a[1]) + 0.5);
      ctx.lineTo(Math.round(b[0]) + 0.5, Math.round(b[1]) + 0.5);
    };
    for (let i = 0; i < nu; i += k) line(px(i, 0), px(i, nv - 1));
    for (let j = 0; j < nv; j += k) line(px(0, j), px(nu - 1, j));
    ctx.stroke();
    // The zero contour.
    const seg = zeroContour(img);
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2 * dpr;
    ctx.lineCap = 'round';
    ctx.beginPath();
    for (let q = 0; q < seg.length; q += 4) {
      ctx.moveTo(...px(seg[q]!, seg[q + 1]!));
      ctx.lineTo(...px(seg[q + 2]!, seg[q + 3]!));
    }
    ctx.stroke();
    const every = k === 1 ? 'every cell' : `every ${k} cells`;
    const name = (a: number, back: boolean) => `${back ? '\u2212' : '+'}${AXIS_NAMES[a]}`;
    const acrossName = name(f.swap ? img.v : img.u, f.flipAcross), upName = name(f.swap ? img.u : img.v, f.flipUp);
    this.axes.textContent = `→ ${acrossName}, ↑ ${upName} (body frame, as seen) · lines ${every} of ${formatMetres(h)} · white: phi = 0`;
    // The colour scale: a gradient of the map's colours and its ticks in metres.
    const ticks = scaleTicks(h);
    const lo = ticks[0]!, hi = ticks[ticks.length - 1]!;
    const stops: string[] = [];
    for (let q = 0; q <= 20; q++) {
      const phi = lo + ((hi - lo) * q) / 20;
      phiColor(phi === 0 ? 1e-12 : phi, h, c);
      stops.push(`rgb(${(255 * c[0]!).toFixed(0)}, ${(255 * c[1]!).toFixed(0)}, ${(255 * c[2]!).toFixed(0)}) ${q * 5}%`);
    }
    this.scale.replaceChildren();
    const bar = div('inset-bar');
    bar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    const labels = div('inset-ticks');
    for (const t of ticks) {
      const s = document.createElement('span');
      s.textContent = t === 0 ? '0' : formatMetres(t).replace(' m', '');
      labels.append(s);
    }
    const unit = div('inset-unit');
    unit.textContent = 'phi (m): inside < 0 < outside';
    this.scale.append(bar, labels, unit);
  }

  private hover(e: PointerEvent): void {
    const img = this.image;
    if (!img) return;
    const r = this.map.getBoundingClientRect();
    const [s, t] = imagePoint(img, this.frame, (e.clientX - r.left) / Math.max(1, r.width), 1 - (e.clientY - r.top) / Math.max(1, r.height));
    const phi = sliceValue(img, s, t);
    const p = slicePoint(img, Math.min(Math.max(s, 0), img.nu - 1), Math.min(Math.max(t, 0), img.nv - 1));
    this.readout.textContent = `phi = ${formatMetres(phi)} at (${p.map((v) => v.toFixed(3)).join(', ')}) m`;
    this.readout.dataset['phi'] = String(phi);
  }

  private showReadoutHint(): void {
    this.readout.textContent = 'point at the map: phi under the cursor';
    delete this.readout.dataset['phi'];
  }
}

function div(className: string): HTMLElement {
  const el = document.createElement('div');
  el.className = className;
  return el;
}
