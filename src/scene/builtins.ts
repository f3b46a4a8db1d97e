/**
 * The catalogue of built-in scenes: the rigid-body demos (rigidScenes.ts),
 * the joint demos (jointScenes.ts), the mesh piles (meshScenes.ts) and the
 * soft-body scenes (softScenes.ts). Each generator returns plain scene JSON,
 * so built-ins go through the same validation as files and
 * `stackfield run --builtin NAME --dump` prints a file anyone can edit.
 *
 * Shared by the app's scene picker, the CLI (`run`, `bench`) and the tests.
 */
import { quote } from '../util/echo.ts';
import { didYouMean } from '../util/suggest.ts';
import { describeValue } from './reader.ts';
import type { Builtin, BuiltinInfo } from './sceneKit.ts';
import { rigidBuiltins } from './rigidScenes.ts';
import { jointBuiltins } from './jointScenes.ts';
import { meshBuiltins } from './meshScenes.ts';
import { softBuiltins } from './softScenes.ts';

export type { BuiltinInfo, BuiltinParam } from './sceneKit.ts';

const builtins: readonly Builtin[] = [...rigidBuiltins, ...jointBuiltins, ...meshBuiltins, ...softBuiltins];

export function listBuiltins(): BuiltinInfo[] {
  return builtins.map(({ make: _make, ...info }) => ({ ...info, params: info.params.map((p) => ({ ...p })) }));
}

/**
 * The scene JSON of a built-in, an object `loadScene` takes as it is
 * (`loadScene(builtinScene('rings', { rings: 20 }))`) and that can be edited
 * or saved first; unknown names and out-of-range parameters throw RangeError.
 */
export function builtinScene(name: string, params: Record<string, number> = {}): Record<string, unknown> {
  const b = builtins.find((x) => x.name === name);
  if (!b) throw new RangeError(`unknown built-in scene ${quote(name)}${didYouMean(name, builtins.map((x) => x.name))} (available: ${builtins.map((x) => x.name).join(', ')})`);
  const p: Record<string, number> = {};
  for (const d of b.params) {
    const v = params[d.name] ?? d.default;
    const count = d.step !== undefined && d.step >= 1;
    // (A string from plain JavaScript is named as one: "5" had read "got 5". A count takes an integer, as on the command line.)
    // (A slider's value a rounding off a whole number still counts as that number.)
    if (typeof v !== 'number' || !Number.isFinite(v) || v < d.min || v > d.max || (count && Math.abs(v - Math.round(v)) > 1e-9)) {
      throw new RangeError(`parameter ${d.name} of scene "${name}" must be ${count ? 'an integer' : 'a number'} in [${d.min}, ${d.max}], got ${describeValue(v)}`);
    }
    p[d.name] = count ? Math.round(v) : v;
  }
  for (const k of Object.keys(params)) {
    if (!b.params.some((d) => d.name === k)) {
      throw new RangeError(`scene "${name}" has no parameter ${quote(k)}${didYouMean(k, b.params.map((d) => d.name))} (parameters: ${b.params.map((d) => d.name).join(', ') || 'none'})`);
    }
  }
  return b.make(p);
}
