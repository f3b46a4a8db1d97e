/**
 * The soft stage's view of the step (StepHook). A hook never receives
 * World: it gets StepHookInput, the step context's bodies, shapes and
 * settings plus the two world services it calls (the query backend, and
 * bodyEdited for the rigid bodies it pushed). World hands it a HookInput.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { PenetrationBackend } from '../collision/query.ts';
import type { BodyStore } from './bodies.ts';
import type { SolverSettings } from './settings.ts';
import type { RigidShape } from './shape.ts';
import type { StepContext } from './stepContext.ts';

/** What a StepHook sees of the world during its stage (and at construction). */
export interface StepHookInput {
  readonly bodies: BodyStore;
  readonly shapes: readonly RigidShape[];
  /** Seconds per step. */
  readonly dt: number;
  readonly gravity: Vec3;
  readonly solver: SolverSettings;
  /** Steps taken before this one. */
  readonly stepCount: number;
  /** The penetration-query backend. */
  readonly backend: PenetrationBackend;
  /** Body i was pushed by the hook: it wakes and its cached contacts are dropped (World.bodyEdited). */
  bodyEdited(i: number): void;
}

/**
 * Something World steps at one point of every step, timed as stage "soft":
 * the soft bodies (src/soft/coupling.ts). It runs after the velocity update
 * and before the contacts (in both schemes), and may change bodies'
 * velocities, which the contact phase then sees like gravity's.
 */
export interface StepHook {
  step(input: StepHookInput): Promise<void>;
  /** Its own state, kept in WorldState by World.saveState and put back by restoreState. */
  saveState(): unknown;
  restoreState(state: unknown): void;
  /** Bodies it simulates (they never sleep), for monitors. */
  readonly bodyCount: number;
  /** Their kinetic energy (J), for monitors. */
  kineticEnergy(): number;
}

/** The StepHookInput World passes: its step context, plus the backend and step count World sets before the stage. */
export class HookInput implements StepHookInput {
  stepCount = 0;
  constructor(
    private readonly ctx: StepContext,
    public backend: PenetrationBackend,
    private readonly edited: (i: number) => void,
  ) {}

  get bodies(): BodyStore {
    return this.ctx.bodies;
  }
  get shapes(): readonly RigidShape[] {
    return this.ctx.shapes;
  }
  get dt(): number {
    return this.ctx.dt;
  }
  get gravity(): Vec3 {
    return this.ctx.gravity;
  }
  get solver(): SolverSettings {
    return this.ctx.settings;
  }
  bodyEdited(i: number): void {
    this.edited(i);
  }
}
