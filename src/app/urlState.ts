/**
 * The page URL as the record of what is shown, so a link reproduces it:
 * `?scene=rings&rings=60&backend=gpu&views=contacts`. Every query key that is
 * not one of the reserved ones is a numeric parameter of the built-in scene.
 * Pure functions over URLSearchParams so tests need no browser.
 */
import { define } from '../scene/reader.ts';
import { quote } from '../util/echo.ts';
import { didYouMean } from '../util/suggest.ts';
import type { BackendKind } from '../collision/query.ts';

export interface ParamSpec {
  name: string;
  default: number;
  min: number;
  max: number;
  step?: number;
}

export interface AppUrlState {
  /** Built-in scene name; null when the URL names none. */
  scene: string | null;
  /** Raw numeric scene parameters found in the URL (not yet checked against a scene). */
  params: Record<string, number>;
  /** The other scene parameters, whose values are not numbers (checkSceneParams says what is done with each). */
  texts: Record<string, string>;
  backend: BackendKind | null;
  /** The `views` parameter as written (see views.ts), or null. */
  views: string | null;
  /** Name of a scene file the user opened (informative: a link cannot carry the file). */
  file: string | null;
  /** A sentence for each value of the link that could not be read (an unknown backend): ignored. (A scene parameter that is not a number is in texts.) */
  unreadable: string[];
}

const RESERVED = new Set(['scene', 'backend', 'views', 'file']);

export function parseAppUrl(search: string): AppUrlState {
  const q = new URLSearchParams(search);
  const params: Record<string, number> = {};
  const texts: Record<string, string> = {};
  const unreadable: string[] = [];
  for (const [k, v] of q) {
    if (RESERVED.has(k)) continue;
    const x = Number(v);
    // define, not assignment: ?__proto__=1 is a parameter name like any other.
    if (v.trim() !== '' && Number.isFinite(x)) define(params, k, x);
    else define(texts, k, v);
  }
  const b = q.get('backend');
  if (b !== null && b !== 'cpu' && b !== 'gpu') unreadable.push(`backend=${JSON.stringify(b)} is not a backend (cpu or gpu); ignored.`);
  return {
    scene: q.get('scene') || null,
    params,
    texts,
    backend: b === 'cpu' || b === 'gpu' ? b : null,
    views: q.get('views'),
    file: q.get('file') || null,
    unreadable,
  };
}

export function formatAppUrl(s: Omit<AppUrlState, 'unreadable' | 'texts'>): string {
  const q = new URLSearchParams();
  if (s.file) q.set('file', s.file);
  else if (s.scene) q.set('scene', s.scene);
  if (!s.file) for (const [k, v] of Object.entries(s.params)) q.set(k, String(v));
  if (s.backend) q.set('backend', s.backend);
  if (s.views) q.set('views', s.views);
  const str = q.toString();
  return str ? `?${str}` : '';
}

/**
 * A scene's parameters from the URL: each declared parameter takes the URL's
 * value clamped to [min, max] and snapped to `step` (when given), or its
 * default; undeclared keys are dropped.
 */
export function sceneParams(specs: readonly ParamSpec[], raw: Record<string, number>): Record<string, number> {
  return checkSceneParams(specs, raw).params;
}

/**
 * sceneParams, and a sentence for every value of the link that was not used
 * as written (out of range, off its step, or not a parameter of the scene),
 * so the app can say what it built instead of quietly building something else.
 */
export function checkSceneParams(
  specs: readonly ParamSpec[],
  raw: Record<string, number>,
  scene = 'this scene',
  texts: Record<string, string> = {},
): { params: Record<string, number>; notes: string[] } {
  const params: Record<string, number> = {};
  const notes: string[] = [];
  for (const p of specs) {
    const given = raw[p.name];
    let v = given === undefined || !Number.isFinite(given) ? p.default : given;
    // Snap to the step; toPrecision drops the float noise of min + k * step (0.1 + 2 * 0.05).
    if (p.step && p.step > 0) v = Number((p.min + Math.round((v - p.min) / p.step) * p.step).toPrecision(12));
    const clamped = Math.min(p.max, Math.max(p.min, v));
    params[p.name] = clamped;
    if (given === undefined && Object.hasOwn(texts, p.name)) {
      notes.push(`${p.name}=${JSON.stringify(texts[p.name])} is not a number; ${scene} uses ${p.name}=${clamped}.`);
      continue;
    }
    if (given === undefined || clamped === given) continue;
    if (given < p.min || given > p.max) {
      notes.push(`${p.name}=${given} is outside ${p.min} … ${p.max}; ${scene} uses ${p.name}=${clamped}.`);
    } else {
      notes.push(`${p.name}=${given} is not a multiple of its step ${p.step} from ${p.min}; ${scene} uses ${p.name}=${clamped}.`);
    }
  }
  // Every key the scene does not have, whatever its value (?gravity=banana too).
  const unknown = [...Object.keys(raw), ...Object.keys(texts)].filter((k) => !specs.some((p) => p.name === k));
  if (unknown.length > 0) {
    const has = specs.length > 0 ? `its parameters are ${specs.map((p) => p.name).join(', ')}` : 'it has no parameters';
    notes.push(`${scene} has no parameter ${unknown.map((k) => `"${k}"`).join(', ')} (${has}); ignored.`);
  }
  return { params, notes };
}

/**
 * What the app says when the link names a built-in scene that does not
 * exist: the closest name, as the command line suggests it (`?scene=ring`:
 * did you mean "rings"?), and the scene shown instead. The panel's scene
 * list names them all, so the notice stays short.
 */
export function unknownSceneNote(asked: string, builtins: readonly string[], shown: string | undefined): string {
  const guess = didYouMean(asked, builtins);
  const instead = shown === undefined ? 'there are none to show' : `showing ${quote(shown)}`;
  return `There is no built-in scene ${quote(asked, 60)}${guess}; ${instead}${builtins.length > 0 ? ' (Scene → scene lists them all)' : ''}.`;
}
