/**
 * bench.html's query string -> benchmark options, as a pure function so it is
 * unit-tested: `?scene=rings&bodies=500&steps=200&backends=cpu,gpu` (and
 * `warmup`, `warmcode`, `threads`: the CLI's --warmup, --warm-code and
 * --threads; the page's CPU queries run on one thread unless `threads` asks
 * for the worker pool).
 *
 * `bodies` is the size knob the CLI also has (`--bodies N`): when the scene
 * has no parameter of that name it sets the parameter the scene declares as
 * its body count (the ring count of "rings", the box count of "tower"...), and
 * a scene that declares none refuses it. Every other numeric key must
 * be a parameter of the scene; values are checked against its range so a bad
 * link fails with a message instead of running something else.
 */
import type { BackendKind } from '../collision/query.ts';
import { InputError } from '../errors.ts';
import { quote } from '../util/echo.ts';
import { didYouMean } from '../util/suggest.ts';
import type { ParamSpec } from './urlState.ts';
import { DEFAULT_BENCH_STEPS } from '../bench/harness.ts';

export interface BenchPageOptions {
  scene: string;
  params: Record<string, number>;
  steps: number;
  warmup: number | undefined;
  /** Steps on a discarded copy first (BenchOptions.warmCode). */
  warmCode: number;
  backends: BackendKind[];
  /** Threads for the CPU queries (1: the main thread alone). */
  threads: number;
}

const RESERVED = new Set(['scene', 'steps', 'warmup', 'warmcode', 'threads', 'backends', 'backend']);
const WHERE = 'bench.html';

export function parseBenchQuery(
  search: string,
  scenes: readonly { name: string; params: readonly ParamSpec[]; count?: string }[],
): BenchPageOptions {
  const q = new URLSearchParams(search);
  const scene = q.get('scene') ?? 'rings';
  const info = scenes.find((s) => s.name === scene);
  if (!info) {
    const names = scenes.map((s) => s.name);
    throw new InputError(`unknown scene ${quote(scene, 60)}${didYouMean(scene, names)} (built-in scenes: ${names.join(', ')})`, WHERE, 'scene');
  }
  const steps = intParam(q, 'steps', DEFAULT_BENCH_STEPS, 1, 100_000);
  const warmupRaw = q.get('warmup');
  const warmup = warmupRaw === null ? undefined : intParam(q, 'warmup', 0, 0, 10_000);
  const warmCode = intParam(q, 'warmcode', 0, 0, 10_000);
  const threads = intParam(q, 'threads', 1, 1, 256);
  const list = (q.get('backends') ?? q.get('backend') ?? 'cpu,gpu').split(',').map((s) => s.trim()).filter(Boolean);
  const backends: BackendKind[] = [];
  for (const b of list) {
    if (b !== 'cpu' && b !== 'gpu') throw new InputError(`expected "cpu" or "gpu", got "${b}"`, WHERE, 'backends');
    if (!backends.includes(b)) backends.push(b);
  }
  if (backends.length === 0) throw new InputError('expected at least one backend (cpu, gpu)', WHERE, 'backends');

  const params: Record<string, number> = {};
  for (const [k, v] of q) {
    if (RESERVED.has(k)) continue;
    let name = k;
    if (k === 'bodies' && !info.params.some((p) => p.name === 'bodies')) {
      // The parameter the scene declares as its body count (src/scene/builtins.ts), never simply the first.
      if (info.count === undefined) throw new InputError(`scene "${scene}" has no body-count parameter, so "bodies" cannot be set (parameters: ${info.params.map((p) => p.name).join(', ') || 'none'})`, WHERE, k);
      name = info.count;
    }
    const spec = info.params.find((p) => p.name === name);
    if (!spec) {
      throw new InputError(
        `scene "${scene}" has no parameter "${k}" (parameters: ${info.params.map((p) => p.name).join(', ') || 'none'})`,
        WHERE,
        k,
      );
    }
    const x = Number(v);
    if (v.trim() === '' || !Number.isFinite(x) || x < spec.min || x > spec.max) {
      throw new InputError(`expected a number in [${spec.min}, ${spec.max}], got "${v}"`, WHERE, k);
    }
    params[name] = x;
  }
  return { scene, params, steps, warmup, warmCode, backends, threads };
}

function intParam(q: URLSearchParams, key: string, def: number, min: number, max: number): number {
  const v = q.get(key);
  if (v === null) return def;
  const x = Number(v);
  if (!Number.isInteger(x) || x < min || x > max) {
    throw new InputError(`expected an integer in [${min}, ${max}], got "${v}"`, WHERE, key);
  }
  return x;
}
