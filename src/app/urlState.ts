/**
 * The page URL as the record of what is shown, so a link reproduces it:
 * `?scene=rings&rings=60&backend=gpu&views=contacts`. Every query key that is
 * not one of the reserved ones is a numeric parameter of the built-in scene.
 * Pure functions over URLSearchParams so tests need no browser.
 */
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
  backend: BackendKind | null;
  /** The `views` parameter as written (see views.ts), or null. */
  views: string | null;
  /** Name of a scene file the user opened (informative: a link cannot carry the file). */
  file: string | null;
}

const RESERVED = new Set(['scene', 'backend', 'views', 'file']);

export function parseAppUrl(search: string): AppUrlState {
  const q = new URLSearchParams(search);
  const params: Record<string, number> = {};
  for (const [k, v] of q) {
    if (RESERVED.has(k)) continue;
    const x = Number(v);
    if (v.trim() !== '' && Number.isFinite(x)) params[k] = x;
  }
  const b = q.get('backend');
  return {
    scene: q.get('scene') || null,
    params,
    backend: b === 'cpu' || b === 'gpu' ? b : null,
    views: q.get('views'),
    file: q.get('file') || null,
  };
}

export function formatAppUrl(s: AppUrlState): string {
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
  const out: Record<string, number> = {};
  for (const p of specs) {
    let v = raw[p.name];
    if (v === undefined || !Number.isFinite(v)) v = p.default;
    // Snap to the step; toPrecision drops the float noise of min + k * step (0.1 + 2 * 0.05).
    if (p.step && p.step > 0) v = Number((p.min + Math.round((v - p.min) / p.step) * p.step).toPrecision(12));
    v = Math.min(p.max, Math.max(p.min, v));
    out[p.name] = v;
  }
  return out;
}
