/**
 * The last few hundred states of the world, for stepping back: a ring of
 * body states (position, orientation, velocities, sleep flag, time, step
 * count) in preallocated arrays, one slot written after every step, so
 * recording allocates nothing. World.restoreState puts a slot back.
 *
 * A world with soft bodies (World.soft) also has its step hook's state kept
 * per slot (StepHook.saveState: the particles' positions and velocities, and
 * what rested on what), so stepping back moves the soft bodies back with the
 * rigid ones; that state is a copy per step, counted in the byte budget.
 *
 * The ring holds at most `maxStates` states and at most `maxBytes` of them
 * (2000 rings are 2 101 bodies, 220 kB a state: 64 MB hold about 290).
 */
import type { World, WorldState } from '../dynamics/world.ts';

export interface TimelineLimits {
  maxStates: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: TimelineLimits = { maxStates: 600, maxBytes: 64 * 1024 * 1024 };

/** Bytes one state of n bodies takes (plus `extraBytes` of a step hook's state). */
export function stateBytes(n: number, extraBytes = 0): number {
  return n * (13 * 8 + 1) + 16 + extraBytes;
}

/** Bytes of a step hook's saved state: its typed arrays, and 8 per other value. */
export function savedStateBytes(state: unknown): number {
  if (ArrayBuffer.isView(state)) return state.byteLength;
  if (Array.isArray(state)) return state.reduce((sum: number, x) => sum + savedStateBytes(x), 0);
  if (state !== null && typeof state === 'object') return Object.values(state).reduce((sum: number, x) => sum + savedStateBytes(x), 0);
  return 8;
}

export class StateTimeline {
  readonly capacity: number;
  private readonly n: number;
  private readonly pos: Float64Array;
  private readonly quat: Float64Array;
  private readonly vel: Float64Array;
  private readonly angVel: Float64Array;
  private readonly asleep: Uint8Array;
  private readonly time: Float64Array;
  private readonly steps: Float64Array;
  /** The world's collision shuffle state per state (WorldState.rng). */
  private readonly rng: Float64Array;
  /** Per slot: the step hook's state (the soft bodies'), when the world has one. */
  private readonly hook: unknown[];
  /** Ring slot of the oldest state. */
  private first = 0;
  /** States held. */
  count = 0;

  /** `hookBytes`: bytes of the world's step hook state per step (savedStateBytes), 0 without one. */
  constructor(bodyCount: number, limits: TimelineLimits = DEFAULT_LIMITS, hookBytes = 0) {
    const n = bodyCount;
    this.n = n;
    this.capacity = Math.max(2, Math.min(limits.maxStates, Math.floor(limits.maxBytes / stateBytes(n, hookBytes))));
    const c = this.capacity;
    this.pos = new Float64Array(3 * n * c);
    this.quat = new Float64Array(4 * n * c);
    this.vel = new Float64Array(3 * n * c);
    this.angVel = new Float64Array(3 * n * c);
    this.asleep = new Uint8Array(n * c);
    this.time = new Float64Array(c);
    this.steps = new Float64Array(c);
    this.rng = new Float64Array(c);
    this.hook = new Array<unknown>(c);
  }

  /** Appends the world's state; when full, the oldest state makes room. */
  record(world: World): void {
    const B = world.bodies;
    const n = this.n;
    if (B.count !== n) throw new RangeError(`the timeline holds ${n} bodies, the world has ${B.count}`);
    let slot: number;
    if (this.count < this.capacity) slot = (this.first + this.count++) % this.capacity;
    else {
      slot = this.first;
      this.first = (this.first + 1) % this.capacity;
    }
    this.pos.set(B.pos.subarray(0, 3 * n), 3 * n * slot);
    this.quat.set(B.quat.subarray(0, 4 * n), 4 * n * slot);
    this.vel.set(B.vel.subarray(0, 3 * n), 3 * n * slot);
    this.angVel.set(B.angVel.subarray(0, 3 * n), 3 * n * slot);
    this.asleep.set(B.asleep.subarray(0, n), n * slot);
    this.time[slot] = world.time;
    this.steps[slot] = world.stepCount;
    this.rng[slot] = world.shuffleState;
    this.hook[slot] = world.soft?.saveState();
  }

  private slot(i: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) throw new RangeError(`state ${i} is not in the timeline (0 .. ${this.count - 1})`);
    return (this.first + i) % this.capacity;
  }

  /** Step count of state i (0 the oldest, count - 1 the newest). */
  stepOf(i: number): number {
    return this.steps[this.slot(i)]!;
  }

  timeOf(i: number): number {
    return this.time[this.slot(i)]!;
  }

  /** The index of the state recorded at step `step`, or -1. */
  indexOfStep(step: number): number {
    for (let i = 0; i < this.count; i++) if (this.stepOf(i) === step) return i;
    return -1;
  }

  /** State i as a WorldState viewing the ring (valid until the next record). */
  state(i: number): WorldState {
    const s = this.slot(i);
    const n = this.n;
    return {
      time: this.time[s]!,
      stepCount: this.steps[s]!,
      pos: this.pos.subarray(3 * n * s, 3 * n * (s + 1)),
      quat: this.quat.subarray(4 * n * s, 4 * n * (s + 1)),
      vel: this.vel.subarray(3 * n * s, 3 * n * (s + 1)),
      angVel: this.angVel.subarray(3 * n * s, 3 * n * (s + 1)),
      asleep: this.asleep.subarray(n * s, n * (s + 1)),
      rng: this.rng[s]!,
      ...(this.hook[s] !== undefined ? { soft: this.hook[s] } : {}),
    };
  }

  /** Drops every state after i: stepping on from an earlier state starts a new history. */
  truncateAfter(i: number): void {
    this.slot(i);
    this.count = i + 1;
  }

  clear(): void {
    this.first = 0;
    this.count = 0;
    this.hook.fill(undefined);
  }
}
