/**
 * The panel's "Motors" folder: a speed and a max-torque slider for each motor
 * of the chosen body's robot (robots.ts), through the public handle
 * world.motor(name) (src/dynamics/motorHandle.ts). Moving a speed slider
 * replaces that motor's program by the constant speed (setSpeed); "all"
 * sets every motor of the robot at once; "program" gives the motors back
 * their scene program, "off" turns them off. The folder is hidden in a
 * world without motors.
 *
 * While a motor follows its program, its speed slider shows the program's
 * current target (refresh, a few times a second). The changes go out
 * through callbacks: main.ts applies them between steps.
 */
import type { BindingApi } from '@tweakpane/core';
import type { FolderApi, Pane } from 'tweakpane';
import type { MotorKind } from '../dynamics/motorHandle.ts';
import type { World } from '../dynamics/world.ts';
import { displayName } from '../util/echo.ts';
import { robotBodies, robotMotors } from './robots.ts';

export interface MotorCallbacks {
  setSpeed(name: string, speed: number): void;
  setMaxTorque(name: string, maxTorque: number): void;
  useProgram(names: readonly string[]): void;
  off(names: readonly string[]): void;
}

/** What a motor's sliders show and span. */
export interface MotorRow {
  name: string;
  /** The name without the robot's prefix ("cart/fl" -> "fl"). */
  label: string;
  kind: MotorKind;
  /** The target speed now (0 while the motor is off). */
  speed: number;
  maxTorque: number;
  /** The speed slider spans -speedMax .. speedMax, the torque slider 0 .. torqueMax. */
  speedMax: number;
  torqueMax: number;
}

/** rad/s for body motors and hinges, m/s for sliders. */
export function speedUnit(kind: MotorKind): string {
  return kind === 'slider' ? 'm/s' : 'rad/s';
}

/**
 * The smallest of 1, 2, 5 times a power of ten that is at least `x` (and
 * at least `floor`), so a slider's end is a round number.
 */
export function niceCeil(x: number, floor: number): number {
  const v = Math.max(floor, Math.abs(x));
  if (!Number.isFinite(v) || v <= 0) return floor;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

/**
 * The rows for the motors `names` of a world: the speed slider reaches twice
 * the fastest speed of the motor's program (at least 10 rad/s or 2 m/s), the
 * torque slider twice its limit (at least 1), each rounded up to 1, 2 or 5
 * times a power of ten, so the scene's own values sit in the middle.
 */
export function motorRows(world: World, names: readonly string[], prefix = ''): MotorRow[] {
  const set = world.constraints?.motors;
  if (!set) return [];
  return names.map((name) => {
    const h = world.motor(name);
    const m = h.index;
    let fastest = 0;
    for (let s = set.segStart[m]!; s < set.segStart[m + 1]!; s++) fastest = Math.max(fastest, Math.abs(set.segSpeed[s]!));
    const target = h.target;
    const speedMax = niceCeil(2 * Math.max(fastest, Number.isFinite(target) ? Math.abs(target) : 0), h.kind === 'slider' ? 2 : 10);
    return {
      name,
      label: prefix && name.startsWith(prefix) ? name.slice(prefix.length) : name,
      kind: h.kind,
      speed: Number.isFinite(target) ? target : 0,
      maxTorque: h.maxTorque,
      speedMax,
      torqueMax: niceCeil(2 * h.maxTorque, 1),
    };
  });
}

/** "cart/" for a robot whose bodies are all "cart/..." (a library instance), else "". */
export function robotPrefix(names: readonly string[]): string {
  const first = names[0];
  const cut = first ? first.lastIndexOf('/') : -1;
  if (!first || cut < 0) return '';
  const p = first.slice(0, cut + 1);
  return names.every((n) => n.startsWith(p)) ? p : '';
}

export class MotorPanel {
  private readonly folder: FolderApi;
  private readonly note: HTMLElement;
  private inner: FolderApi[] = [];
  private bindings: { row: MotorRow; values: { speed: number; maxTorque: number }; speed: BindingApi }[] = [];
  private shown = '';
  private world: World | null = null;
  private quiet = false;

  constructor(pane: Pane, private readonly cb: MotorCallbacks, index?: number) {
    this.folder = pane.addFolder({ title: 'Motors', expanded: true, ...(index !== undefined ? { index } : {}) });
    this.note = document.createElement('div');
    this.note.className = 'panel-note motor-note';
    contentOf(this.folder).append(this.note);
    this.folder.hidden = true;
  }

  get element(): HTMLElement {
    return this.folder.element;
  }

  /**
   * The motors of body `body`'s robot in `world` (rebuilt when the list
   * changes: a new world, another robot chosen); hidden when the world has
   * no motors, a line saying how to get sliders when the chosen body has none.
   */
  show(world: World | null, body: number): void {
    const all = world?.motorNames() ?? [];
    const names = world && body >= 0 ? robotMotors(world, body) : [];
    const key = `${all.length}|${names.join('\n')}`;
    if (world && world === this.world && key === this.shown) {
      this.refresh(world);
      return;
    }
    this.shown = key;
    this.world = world;
    for (const f of this.inner) f.dispose();
    this.inner = [];
    this.bindings = [];
    this.folder.hidden = all.length === 0;
    if (!world || all.length === 0) return;
    const robot = robotBodies(world, body).map((i) => world.bodies.names[i]!);
    const prefix = robotPrefix(robot);
    const rows = motorRows(world, names, prefix);
    this.note.textContent = rows.length > 0 ? unitsNote(rows) : `click a robot in the view (or choose its body under Camera) to drive its motors: ${all.length} in this scene`;
    if (rows.length === 0) return;
    this.quiet = true;
    try {
      // One folder per robot, named after it (a library instance, or its first body).
      const f = this.folder.addFolder({ title: displayName(prefix ? prefix.slice(0, -1) : robot[0]!, 40), expanded: true });
      this.inner.push(f);
      if (rows.length > 1) {
        // The speed they share, if they do.
        const all = { speed: rows.every((r) => r.speed === rows[0]!.speed) ? rows[0]!.speed : 0 };
        const max = Math.max(...rows.map((r) => r.speedMax));
        const b = f.addBinding(all, 'speed', { label: 'all', min: -max, max, step: max / 200 });
        b.element.title = 'the same speed for every motor of this robot';
        b.on('change', (ev) => {
          if (this.quiet) return;
          for (const r of this.bindings) {
            r.values.speed = Math.max(-r.row.speedMax, Math.min(r.row.speedMax, clean(ev.value as number)));
            this.cb.setSpeed(r.row.name, r.values.speed);
          }
          this.quiet = true;
          for (const r of this.bindings) r.speed.refresh();
          this.quiet = false;
        });
      }
      for (const row of rows) {
        const values = { speed: row.speed, maxTorque: row.maxTorque };
        const label = displayName(row.label, 14);
        const speed = f.addBinding(values, 'speed', { label, min: -row.speedMax, max: row.speedMax, step: row.speedMax / 200 });
        speed.element.title = `${row.name}: target speed (${speedUnit(row.kind)}, signed along its axis); replaces its program`;
        speed.element.dataset['motor'] = row.name;
        speed.on('change', (ev) => {
          if (!this.quiet) this.cb.setSpeed(row.name, clean(ev.value as number));
        });
        const torque = f.addBinding(values, 'maxTorque', { label: `${label} max`, min: 0, max: row.torqueMax, step: row.torqueMax / 200 });
        torque.element.title = `${row.name}: the most ${row.kind === 'slider' ? 'force (N)' : 'torque (N m)'} it gives`;
        torque.element.dataset['motorTorque'] = row.name;
        torque.on('change', (ev) => {
          if (!this.quiet) this.cb.setMaxTorque(row.name, clean(ev.value as number));
        });
        this.bindings.push({ row, values, speed });
      }
      const names = rows.map((r) => r.name);
      f.addButton({ title: 'program', label: 'scene' }).on('click', () => {
        this.cb.useProgram(names);
      });
      f.addButton({ title: 'off', label: 'motors' }).on('click', () => {
        this.cb.off(names);
        // Off applies nothing: the speed sliders say 0 until a speed or the program is chosen.
        this.quiet = true;
        for (const b of this.bindings) {
          b.values.speed = 0;
          b.speed.refresh();
        }
        this.quiet = false;
      });
    } finally {
      this.quiet = false;
    }
  }

  /** The speed sliders of motors that follow their program show its target now. */
  refresh(world: World): void {
    if (this.bindings.length === 0 || !world.constraints?.motors) return;
    this.quiet = true;
    try {
      for (const b of this.bindings) {
        const h = world.motor(b.row.name);
        if (h.manual) continue;
        const t = h.target;
        const v = Number.isFinite(t) ? Math.max(-b.row.speedMax, Math.min(b.row.speedMax, t)) : 0;
        if (v !== b.values.speed) {
          b.values.speed = v;
          b.speed.refresh();
        }
      }
    } finally {
      this.quiet = false;
    }
  }
}

/** The line under the sliders: their units, and what a speed slider does. */
export function unitsNote(rows: readonly MotorRow[]): string {
  const turn = rows.some((r) => r.kind !== 'slider');
  const slide = rows.some((r) => r.kind === 'slider');
  const units = turn && slide ? 'speeds in rad/s (slider joints: m/s), max in N m (N)' : turn ? 'speeds in rad/s, max in N m' : 'speeds in m/s, max in N';
  return `${units}. A speed slider replaces the motor's program by that speed; "program" gives it back.`;
}

/** A slider's value without the float noise of its step (50 x 0.05 is 2.5000000000000004). */
export function clean(v: number): number {
  return Number(v.toPrecision(10));
}

function contentOf(folder: FolderApi): HTMLElement {
  return (folder.element.querySelector(':scope > .tp-fldv_c') as HTMLElement | null) ?? folder.element;
}
