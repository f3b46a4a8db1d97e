/**
 * The panel's "Soft bodies" folder (shown only when the scene has some):
 * stiffness and damping of every soft body, the soft integrator and its
 * substeps. Changes apply to the running system at once (SoftSystem.
 * setMaterial and its settings), between or during steps alike: a step
 * reads them only when its soft stage begins its substeps.
 *
 * Stiffness is set as a factor of the scene's own values (each body keeps
 * its own modulus times the factor), so bodies of different materials stay
 * different; a factor that needs more substeps than softSolver.maxSubsteps
 * raises it, since the panel's range is meant to stay usable, not to stop
 * the run.
 */
import type { FolderApi, Pane } from 'tweakpane';
import type { BindingApi } from '@tweakpane/core';
import type { SoftIntegratorName } from '../scene/types.ts';
import type { SoftSystem } from '../soft/system.ts';

export interface SoftControls {
  /** Multiplies every body's modulus as the scene gave it. */
  stiffness: number;
  /** Damping ratio of every body's springs (fraction of critical). */
  damping: number;
  integrator: SoftIntegratorName;
  substeps: number;
}

/** Substeps the panel offers at most (a minimum for semiImplicit, exact for the others). */
const MAX_PANEL_SUBSTEPS = 64;

export class SoftPanel {
  private readonly folder: FolderApi;
  private readonly controls: SoftControls = { stiffness: 1, damping: 0.1, integrator: 'semiImplicit', substeps: 1 };
  private readonly bindings: BindingApi[] = [];
  private system: SoftSystem | null = null;
  /** The moduli the scene gave each body. */
  private base: number[] = [];
  private quiet = false;

  constructor(pane: Pane, index?: number) {
    this.folder = pane.addFolder({ title: 'Soft bodies', expanded: true, ...(index !== undefined ? { index } : {}) });
    const add = (b: BindingApi) => {
      b.on('change', () => {
        if (!this.quiet) this.apply();
      });
      this.bindings.push(b);
    };
    add(this.folder.addBinding(this.controls, 'stiffness', { label: 'stiffness x', min: 0.1, max: 10, step: 0.05 }));
    add(this.folder.addBinding(this.controls, 'damping', { min: 0, max: 2, step: 0.01 }));
    add(this.folder.addBinding(this.controls, 'integrator', { options: { 'semi-implicit': 'semiImplicit', 'explicit Euler': 'euler', RK2: 'rk2', RK4: 'rk4' } }));
    add(this.folder.addBinding(this.controls, 'substeps', { min: 1, max: MAX_PANEL_SUBSTEPS, step: 1 }));
    this.folder.hidden = true;
  }

  /** The soft bodies of a new world (null: none, the folder hides). */
  show(system: SoftSystem | null): void {
    this.system = system && system.bodies.length > 0 ? system : null;
    this.folder.hidden = this.system === null;
    if (!this.system) return;
    const sys = this.system;
    this.base = sys.bodies.map((b) => b.stiffness);
    this.quiet = true;
    this.controls.stiffness = 1;
    this.controls.damping = sys.bodies[0]!.damping;
    this.controls.integrator = sys.settings.integrator;
    this.controls.substeps = Math.min(MAX_PANEL_SUBSTEPS, sys.settings.substeps);
    for (const b of this.bindings) b.refresh();
    this.quiet = false;
  }

  /** Stiffness, damping, integrator and substeps to every soft body (file comment). */
  private apply(): void {
    const sys = this.system;
    if (!sys) return;
    const c = this.controls;
    sys.bodies.forEach((_, b) => sys.setMaterial(b, this.base[b]! * c.stiffness, c.damping));
    sys.settings.integrator = c.integrator;
    sys.settings.substeps = c.substeps;
    sys.settings.maxSubsteps = Math.max(sys.settings.maxSubsteps, c.substeps);
    if (c.integrator === 'semiImplicit') sys.settings.maxSubsteps = Math.max(sys.settings.maxSubsteps, sys.substepsFor(this.dt));
  }

  /** The world's step length, for the substep bound (set by main.ts with the world). */
  dt = 0.01;
}
