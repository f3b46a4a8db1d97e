/**
 * Mouse work on the bodies themselves (issue 13): press on a body to choose
 * it and drag it with a spring (drag.ts), shift-click to throw it; with a
 * library item armed (libraryPanel.ts), click to place an instance where the
 * ray meets the scene (which disarms it), shift-click to throw one from the
 * eye (it stays armed for more). Picking is picking.ts, the ray camera.ts's.
 *
 * It listens on the canvas in the capture phase, before the camera's input
 * (input.ts): a press it takes (on a dynamic body, or to place) is not seen
 * by the camera; any other press (on a static body, on nothing, with the
 * right or middle button) orbits, pans and chooses as before. A press on a
 * body that does not move is a click, handed back to the app (choosing,
 * double-click framing). While the depth field is on, a press on its slice
 * drags the slice along its normal (up: away from the eye) before any body;
 * a click on it changes nothing. The grab point and the spring to the cursor are
 * drawn on top of the canvas as DOM (SVG), so they show with either renderer.
 */
import type { World } from '../dynamics/world.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { SpringDrag, THROW_SPEED, throwBody, type DragMode } from './drag.ts';
import { pickBody, type Hit, type Ray } from './picking.ts';
import type { LibraryItem } from './placing.ts';

export interface InteractionHost {
  world(): World | null;
  /** The ray from the eye through a canvas pixel (CSS pixels from its top left). */
  ray(px: number, py: number): Ray;
  /** Where a world point is drawn (canvas CSS pixels), or null behind the eye. */
  project(p: ArrayLike<number>): [number, number] | null;
  /** Chooses body i (the app's highlight, label and body list). */
  select(i: number): void;
  /** A click (not a drag) at a canvas pixel, `double` for the second of a double-click. */
  click(px: number, py: number, double: boolean): void;
  /** The armed library item, if any. */
  armed(): LibraryItem | null;
  /**
   * Places an instance of `item` (a robot's frame origin, or a template's
   * shape origin) at `position`, turned by `orientation`, moving at `velocity`.
   */
  place(item: LibraryItem, position: Vec3, velocity: Vec3, orientation: [number, number, number, number]): void;
  /** Disarms the library item (a placement without shift). */
  disarm(): void;
  /** Whether the ray meets the depth field's slice (shown, and in front of the eye). */
  onSlice?(ray: Ray): boolean;
  /** The grabbed slice follows a vertical drag of `dy` pixels (down positive). */
  dragSlice?(dy: number): void;
}

/** Where and how a click with a library item armed places an instance. */
export interface Placement {
  position: Vec3;
  velocity: Vec3;
  orientation: [number, number, number, number];
  /** Only shift keeps the item armed, for another one: a plain click places one and disarms. */
  keepArmed: boolean;
}

/**
 * A click along `ray` with `item` armed: shift throws an instance from just
 * in front of the eye along the ray, and keeps the item armed; a plain click
 * puts one where the ray meets the scene (lifted off the surface a little)
 * and disarms it. Null when a plain click meets nothing (the item stays armed).
 */
export function placement(world: World, item: LibraryItem, ray: Ray, shift: boolean): Placement | null {
  const orientation = facingAway(ray);
  if (shift) {
    const position = [0, 1, 2].map((k) => ray.origin[k]! + THROW_START * ray.dir[k]!) as Vec3;
    return { position, velocity: [0, 1, 2].map((k) => THROW_SPEED * ray.dir[k]!) as Vec3, orientation, keepArmed: true };
  }
  const hit = pickBody(world, ray);
  if (!hit) return null;
  const lift = item.kind === 'robot' ? ROBOT_LIFT : BODY_LIFT;
  return { position: [0, 1, 2].map((k) => hit.point[k]! + lift * hit.normal[k]!) as Vec3, velocity: [0, 0, 0], orientation, keepArmed: false };
}

/** How far above the clicked point a placed body's origin goes (it drops onto the surface); a robot's frame origin sits on it. */
const BODY_LIFT = 0.6;
const ROBOT_LIFT = 0.02;
/** A thrown instance starts this far along the ray from the eye. */
const THROW_START = 1;

const SVG = 'http://www.w3.org/2000/svg';

/** A press that moves less than this many pixels is a click, not a drag (as input.ts has it). */
const CLICK_SLOP = 4;
/** Two clicks this close in time are a double-click. */
const DOUBLE_MS = 350;

export class Interaction {
  private drag: SpringDrag | null = null;
  /** How a drag pulls: the spring (a hand) or the force tool (an arrow in the forces view). */
  dragMode: DragMode = 'spring';
  /** A press on a dynamic body that has not moved yet: a drag once it does, a click if it does not. */
  private pending: { hit: Hit; ray: Ray; x: number; y: number } | null = null;
  private lastClick = -Infinity;
  /** A press on the depth field's slice: the last pointer position, and whether it has moved. */
  private slicePress: { x: number; y: number; lastY: number; moved: boolean } | null = null;
  private canvas: HTMLCanvasElement | null = null;
  private detachListeners: (() => void) | null = null;
  private readonly overlay: SVGSVGElement;
  private readonly ring: SVGCircleElement;
  private readonly line: SVGLineElement;

  constructor(private readonly host: InteractionHost, parent: HTMLElement) {
    this.overlay = document.createElementNS(SVG, 'svg');
    this.overlay.id = 'pick-overlay';
    this.ring = document.createElementNS(SVG, 'circle');
    this.ring.setAttribute('r', '7');
    this.line = document.createElementNS(SVG, 'line');
    this.overlay.append(this.line, this.ring);
    this.overlay.style.display = 'none';
    parent.append(this.overlay);
  }

  /** Listens on a (new) canvas; the old one is let go. */
  attach(canvas: HTMLCanvasElement): void {
    this.detachListeners?.();
    this.canvas = canvas;
    const opts = { capture: true };
    const down = (e: PointerEvent) => this.down(e);
    const move = (e: PointerEvent) => this.move(e);
    const up = (e: PointerEvent) => this.up(e);
    canvas.addEventListener('pointerdown', down, opts);
    canvas.addEventListener('pointermove', move, opts);
    canvas.addEventListener('pointerup', up, opts);
    canvas.addEventListener('pointercancel', up, opts);
    this.detachListeners = () => {
      canvas.removeEventListener('pointerdown', down, opts);
      canvas.removeEventListener('pointermove', move, opts);
      canvas.removeEventListener('pointerup', up, opts);
      canvas.removeEventListener('pointercancel', up, opts);
    };
  }

  /** Shows the armed state on the canvas (a crosshair while placing). */
  showArmed(item: LibraryItem | null): void {
    this.canvas?.classList.toggle('placing', item !== null);
  }

  /** A new world (a load, a reset, a placed instance, a step back): a drag ends. */
  worldChanged(): void {
    this.drag = null;
    this.pending = null;
    this.slicePress = null;
  }

  /** Between simulation steps: the drag's pull for the next step. */
  afterStep(world: World): void {
    if (this.drag) this.drag.apply(world, world.dt);
  }

  /** Every animation frame: the grab point and the spring to the cursor, while dragging. */
  frame(): void {
    const w = this.host.world();
    const d = this.drag;
    const p = w && d ? this.host.project(d.anchor(w)) : null;
    const t = p && d ? this.host.project(d.target) : null;
    this.overlay.style.display = p ? '' : 'none';
    if (!p) return;
    this.ring.setAttribute('cx', p[0].toFixed(1));
    this.ring.setAttribute('cy', p[1].toFixed(1));
    this.line.style.display = t ? '' : 'none';
    if (t) {
      this.line.setAttribute('x1', p[0].toFixed(1));
      this.line.setAttribute('y1', p[1].toFixed(1));
      this.line.setAttribute('x2', t[0].toFixed(1));
      this.line.setAttribute('y2', t[1].toFixed(1));
    }
  }

  /** Where body `name`'s centre of mass is drawn (page CSS pixels), for scripts and tests. */
  screenOf(name: string): [number, number] | null {
    const w = this.host.world(), c = this.canvas;
    const i = w ? w.bodies.names.indexOf(name) : -1;
    if (!w || !c || i < 0) return null;
    const r = c.getBoundingClientRect();
    const p = this.host.project(w.bodies.pos.subarray(3 * i, 3 * i + 3));
    return p ? [p[0] + r.left, p[1] + r.top] : null;
  }

  /** Body `name`'s centre of mass, velocity and sleep, for scripts and tests. */
  bodyState(name: string): { p: number[]; v: number[]; asleep: boolean } | null {
    const w = this.host.world();
    const i = w ? w.bodies.names.indexOf(name) : -1;
    if (!w || i < 0) return null;
    const B = w.bodies;
    return { p: Array.from(B.pos.subarray(3 * i, 3 * i + 3)), v: Array.from(B.vel.subarray(3 * i, 3 * i + 3)), asleep: B.asleep[i] === 1 };
  }

  private clicked(x: number, y: number): void {
    const now = performance.now();
    this.host.click(x, y, now - this.lastClick < DOUBLE_MS);
    this.lastClick = now;
  }

  private local(e: PointerEvent): [number, number] {
    const r = this.canvas!.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  /** Takes the event from the camera. */
  private take(e: PointerEvent): void {
    e.stopImmediatePropagation();
    e.preventDefault();
  }

  private down(e: PointerEvent): void {
    const w = this.host.world();
    if (e.button !== 0 || !w) return;
    const [x, y] = this.local(e);
    const ray = this.host.ray(x, y);
    const item = this.host.armed();
    if (item) {
      this.take(e);
      const p = placement(w, item, ray, e.shiftKey);
      if (!p) return;
      if (!p.keepArmed) this.host.disarm();
      this.host.place(item, p.position, p.velocity, p.orientation);
      return;
    }
    if (this.host.onSlice?.(ray)) {
      this.take(e);
      this.slicePress = { x, y, lastY: y, moved: false };
      this.canvas!.setPointerCapture(e.pointerId);
      return;
    }
    const hit = pickBody(w, ray);
    // A static body or nothing: the camera's press (it orbits, or chooses on a click).
    if (!hit || w.bodies.isStatic[hit.body]) return;
    this.take(e);
    this.host.select(hit.body);
    if (e.shiftKey) {
      throwBody(w, hit.body, ray.dir);
      return;
    }
    this.pending = { hit, ray, x, y };
    this.canvas!.setPointerCapture(e.pointerId);
  }

  private move(e: PointerEvent): void {
    const s = this.slicePress;
    if (s) {
      this.take(e);
      const [x, y] = this.local(e);
      if (!s.moved && Math.hypot(x - s.x, y - s.y) < CLICK_SLOP) return;
      s.moved = true;
      this.host.dragSlice?.(y - s.lastY);
      s.lastY = y;
      return;
    }
    if (!this.drag && !this.pending) {
      // Over the slice the cursor says it can be dragged up and down (no button held: e.buttons 0).
      if (this.host.onSlice && e.buttons === 0) {
        const [x, y] = this.local(e);
        this.canvas!.classList.toggle('over-slice', this.host.onSlice(this.host.ray(x, y)));
      }
      return;
    }
    this.take(e);
    const [x, y] = this.local(e);
    const p = this.pending;
    if (p) {
      if (Math.hypot(x - p.x, y - p.y) < CLICK_SLOP) return;
      this.drag = SpringDrag.start(p.hit, p.ray, this.dragMode);
      this.pending = null;
      this.canvas!.classList.add('dragging');
    }
    this.drag!.follow(this.host.ray(x, y));
  }

  private up(e: PointerEvent): void {
    const s = this.slicePress;
    if (s) {
      this.take(e);
      this.slicePress = null;
      // Not moved: a click on the slice keeps the choice (a click beside it chooses, or clears).
      if (this.canvas!.hasPointerCapture(e.pointerId)) this.canvas!.releasePointerCapture(e.pointerId);
      return;
    }
    if (!this.drag && !this.pending) return;
    this.take(e);
    // It did not move: a click, as the camera's input would have reported it.
    if (this.pending && e.type === 'pointerup') this.clicked(this.pending.x, this.pending.y);
    this.pending = null;
    this.drag = null;
    this.canvas!.classList.remove('dragging');
    if (this.canvas!.hasPointerCapture(e.pointerId)) this.canvas!.releasePointerCapture(e.pointerId);
  }
}

/**
 * A turn about +y that points an instance's +x axis (the way the example
 * robots drive) along the ray's horizontal direction, away from the eye.
 */
export function facingAway(ray: Ray): [number, number, number, number] {
  const h = Math.atan2(-ray.dir[2], ray.dir[0]) / 2;
  return Number.isFinite(h) ? [0, Math.sin(h), 0, Math.cos(h)] : [0, 0, 0, 1];
}
