/**
 * Command-line settings shared by the contact-stage scripts
 * (contact-stages.ts, shot-energy.ts): `--name value` arguments, and the
 * accumulated stage's knobs and the collision passes set from them, for
 * comparison against the defaults.
 */
import type { World } from '../src/dynamics/world.ts';

/** The value after `--name` on the command line, or `def`. */
export function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}

/** Each knob's flag and the AccumulatedSolver field it sets. */
const KNOBS = {
  substeps: 'substeps', pseudo: 'pseudoIters', every: 'pseudoEvery', local: 'localSweeps', shock: 'shockSweeps', 'pseudo-shock': 'pseudoShockScale', 'column-levels': 'columnLevels', 'column-share': 'columnShare',
} as const;

/** Sets the knobs given (--substeps --pseudo --every --local --shock --pseudo-shock --column-levels --column-share), --collision and --warm-energy 0|1 on `w`. */
export function applyStageArgs(w: World): void {
  if (arg('collision', '')) w.solver = { ...w.solver, collisionIterations: Number(arg('collision', '')) };
  if (arg('warm-energy', '')) w.accumulated.warmEnergy = arg('warm-energy', '') === '1';
  for (const [flag, field] of Object.entries(KNOBS)) if (arg(flag, '')) w.accumulated[field] = Number(arg(flag, ''));
}

/** The knobs given on the command line, by flag (for a results file). */
export function stageArgs(): Record<string, number> {
  return Object.fromEntries([...Object.keys(KNOBS), 'collision', 'warm-energy'].filter((k) => arg(k, '')).map((k) => [k, Number(arg(k, ''))]));
}
