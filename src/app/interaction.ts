/**
 * Mouse work on the bodies themselves (issue 13): click a body to select it
 * (its name, mass and velocity show at the bottom), drag it with a spring
 * (drag.ts), shift-click to throw it; with a library item armed
 * (libraryPanel.ts), click to place an instance where the ray meets the
 * scene, shift-click to throw one from the eye. Picking is picking.ts.
 *
 * It listens on the canvas in the capture phase, before the camera's input
 * (input.ts): a press it takes (on a dynamic body, or to place) is not seen
 * by the camera; any other press (on a static body, on nothing, with the
 * right or middle button) orbits and pans as before. Drawn on top of the
 * canvas as DOM (an SVG ring at the grab point, a dashed line to the cursor
 * while dragging), so it works with either renderer.
 */
import type { World } from '../dynamics/world.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { SpringDrag, THROW_SPEED, throwBody } from './drag.ts';
import { pickBody, pixelRay, projectPoint, type Ray } from './picking.ts';
import type { LibraryItem } from './placing.ts';

export interface InteractionHost {
  world(): World | null;
  /** The view-projection the renderer draws the canvas with, for its current size. */
  viewProjection(): ArrayLike<number>;
  /** The armed library item, if any. */
  armed(): LibraryItem | null;
  /**
   * Places an instance of `item` (a robot's frame origin, or a template's
   * shape origin) at `position`, turned by `orientation`, moving at `velocity`.
   */
  place(item: LibraryItem, position: Vec3, velocity: Vec3, orientation: [number, number, number, number]): void;
}

/** How far above the clicked point a placed body's origin goes (it drops onto the surface); a robot's frame origin sits on it. */
const BODY_LIFT = 0.6;
const ROBOT_LIFT = 0.02;
/** A thrown instance starts this far along the ray from the eye. */
const THROW_START = 1;

const SVG = 'http://www.w3.org/2000/svg';

export class Interaction {
  /** The selected body (-1: none), and its name (kept across a rebuilt world). */
  private selected = -1;
  private selectedName = '';
  private drag: SpringDrag | null = null;
  private canvas: HTMLCanvasElement | null = null;
  private detachListeners: (() => void) | null = null;
  private readonly info: HTMLElement;
  private readonly overlay: SVGSVGElement;
  private readonly ring: SVGCircleElement;
  private readonly line: SVGLineElement;

  constructor(private readonly host: InteractionHost, parent: HTMLElement) {
    this.info = document.createElement('div');
    this.info.id = 'pick-info';
    this.info.hidden = true;
    this.overlay = document.createElementNS(SVG, 'svg');
    this.overlay.id = 'pick-overlay';
    this.ring = document.createElementNS(SVG, 'circle');
    this.ring.setAttribute('r', '7');
    this.line = document.createElementNS(SVG, 'line');
    this.overlay.append(this.line, this.ring);
    parent.append(this.overlay, this.info);
    document.body.dataset['selected'] = '';
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

  /** A new world (a load, a reset, a placed instance): the selection follows its name, a drag ends. */
  worldChanged(world: World): void {
    this.drag = null;
    const i = this.selectedName ? world.bodies.names.indexOf(this.selectedName) : -1;
    this.select(world, i);
  }

  /** Between simulation steps: the drag's pull for the next step. */
  afterStep(world: World): void {
    if (this.drag) this.drag.apply(world, world.dt);
  }

  /** Every animation frame: the selection box and the marker. */
  frame(): void {
    const w = this.host.world();
    const c = this.canvas;
    if (!w || !c || this.selected < 0 || this.selected >= w.bodies.count) {
      this.info.hidden = true;
      this.overlay.style.display = 'none';
      return;
    }
    const B = w.bodies, i = this.selected;
    const v = [B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!];
    const text = B.isStatic[i]
      ? [B.names[i]!, 'static']
      : [B.names[i]!, `${fmt(B.mass[i]!)} kg`, `v (${v.map((x) => x.toFixed(2)).join(', ')}) m/s, |v| ${Math.hypot(v[0]!, v[1]!, v[2]!).toFixed(2)}`, B.asleep[i] ? 'asleep' : ''];
    this.showInfo(text.filter(Boolean));
    const m = this.host.viewProjection();
    const anchor = this.drag ? this.drag.anchor(w) : [B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!];
    const p = projectPoint(m, anchor, c.clientWidth, c.clientHeight);
    this.overlay.style.display = p ? '' : 'none';
    if (!p) return;
    this.ring.setAttribute('cx', p[0].toFixed(1));
    this.ring.setAttribute('cy', p[1].toFixed(1));
    const t = this.drag ? projectPoint(m, this.drag.target, c.clientWidth, c.clientHeight) : null;
    this.line.style.display = t ? '' : 'none';
    if (t) {
      this.line.setAttribute('x1', p[0].toFixed(1));
      this.line.setAttribute('y1', p[1].toFixed(1));
      this.line.setAttribute('x2', t[0].toFixed(1));
      this.line.setAttribute('y2', t[1].toFixed(1));
    }
  }

  /** Where body `name`'s centre of mass is drawn (CSS pixels of the canvas), for scripts and tests. */
  screenOf(name: string): [number, number] | null {
    const w = this.host.world(), c = this.canvas;
    const i = w ? w.bodies.names.indexOf(name) : -1;
    if (!w || !c || i < 0) return null;
    const r = c.getBoundingClientRect();
    const p = projectPoint(this.host.viewProjection(), w.bodies.pos.subarray(3 * i, 3 * i + 3), c.clientWidth, c.clientHeight);
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

  private showInfo(parts: string[]): void {
    const key = parts.join('|');
    if (this.info.dataset['key'] === key && !this.info.hidden) return;
    this.info.dataset['key'] = key;
    const name = document.createElement('b');
    name.textContent = parts[0]!;
    this.info.replaceChildren(name, ...parts.slice(1).map((t) => {
      const s = document.createElement('span');
      s.textContent = t;
      return s;
    }));
    this.info.hidden = false;
  }

  private select(world: World | null, i: number): void {
    this.selected = i;
    this.selectedName = world && i >= 0 ? world.bodies.names[i]! : '';
    document.body.dataset['selected'] = this.selectedName;
  }

  private rayAt(e: PointerEvent): Ray | null {
    const c = this.canvas!;
    const r = c.getBoundingClientRect();
    return pixelRay(this.host.viewProjection(), e.clientX - r.left, e.clientY - r.top, r.width, r.height);
  }

  /** Takes the event from the camera. */
  private take(e: PointerEvent): void {
    e.stopImmediatePropagation();
    e.preventDefault();
  }

  private down(e: PointerEvent): void {
    const w = this.host.world();
    if (e.button !== 0 || !w) return;
    const ray = this.rayAt(e);
    if (!ray) return;
    const item = this.host.armed();
    if (item) {
      this.take(e);
      const facing = facingAway(ray);
      if (e.shiftKey) {
        const from: Vec3 = [0, 1, 2].map((k) => ray.origin[k]! + THROW_START * ray.dir[k]!) as Vec3;
        this.host.place(item, from, [0, 1, 2].map((k) => THROW_SPEED * ray.dir[k]!) as Vec3, facing);
        return;
      }
      const hit = pickBody(w, ray);
      if (!hit) return;
      const lift = item.kind === 'robot' ? ROBOT_LIFT : BODY_LIFT;
      this.host.place(item, [0, 1, 2].map((k) => hit.point[k]! + lift * hit.normal[k]!) as Vec3, [0, 0, 0], facing);
      return;
    }
    const hit = pickBody(w, ray);
    this.select(w, hit ? hit.body : -1);
    if (!hit || w.bodies.isStatic[hit.body]) return;
    this.take(e);
    if (e.shiftKey) {
      throwBody(w, hit.body, ray.dir);
      return;
    }
    this.drag = SpringDrag.start(hit, ray);
    this.canvas!.setPointerCapture(e.pointerId);
    this.canvas!.classList.add('dragging');
  }

  private move(e: PointerEvent): void {
    if (!this.drag) return;
    this.take(e);
    const ray = this.rayAt(e);
    if (ray) this.drag.follow(ray);
  }

  private up(e: PointerEvent): void {
    if (!this.drag) return;
    this.take(e);
    this.drag = null;
    this.canvas!.classList.remove('dragging');
    if (this.canvas!.hasPointerCapture(e.pointerId)) this.canvas!.releasePointerCapture(e.pointerId);
  }
}

/**
 * A turn about +y that points an instance's +x axis (the way the example
 * robots drive) along the ray's horizontal direction, away from the eye.
 */
function facingAway(ray: Ray): [number, number, number, number] {
  const h = Math.atan2(-ray.dir[2], ray.dir[0]) / 2;
  return Number.isFinite(h) ? [0, Math.sin(h), 0, Math.cos(h)] : [0, 0, 0, 1];
}

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3);
}
