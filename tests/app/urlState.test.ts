import { describe, expect, it } from 'vitest';
import { checkSceneParams, formatAppUrl, parseAppUrl, sceneParams, unknownSceneNote } from '../../src/app/urlState.ts';
import { builtinScene as builtinScenes, listBuiltins } from '../../src/scene/builtins.ts';
import { parseBenchQuery } from '../../src/app/benchParams.ts';
import { DEFAULT_BENCH_STEPS } from '../../src/bench/harness.ts';
import { InputError } from '../../src/errors.ts';

describe('app URL', () => {
  it('reads the scene, its numeric parameters, the backend and the views', () => {
    const s = parseAppUrl('?scene=rings&rings=60&backend=gpu&views=contacts&junk=abc');
    expect(s).toEqual({
      scene: 'rings', params: { rings: 60 }, texts: { junk: 'abc' }, backend: 'gpu', views: 'contacts', file: null,
      unreadable: [],
    });
  });

  it('ignores a backend that is neither cpu nor gpu, and says so', () => {
    const s = parseAppUrl('?backend=cuda&pegs=');
    expect(s.backend).toBeNull();
    expect(s.texts).toEqual({ pegs: '' });
    expect(s.unreadable).toEqual(['backend="cuda" is not a backend (cpu or gpu); ignored.']);
  });

  it('says of a parameter that is not a number that the scene does not have it, or what it uses instead', () => {
    const specs = [{ name: 'count', default: 30, min: 1, max: 500, step: 1, description: '' }];
    const { params, texts } = parseAppUrl('?scene=pile&foo=bar&gravity=banana&count=lots');
    expect(checkSceneParams(specs, params, 'Pile', texts)).toEqual({
      params: { count: 30 },
      notes: ['count="lots" is not a number; Pile uses count=30.', 'Pile has no parameter "foo", "gravity" (its parameters are count); ignored.'],
    });
  });

  it('round-trips through formatAppUrl', () => {
    const s = parseAppUrl('?scene=tower&height=12&backend=cpu');
    expect(formatAppUrl(s)).toBe('?scene=tower&height=12&backend=cpu');
    expect(parseAppUrl(formatAppUrl(s))).toEqual(s);
  });

  it('a scene file replaces the scene and its parameters in the link', () => {
    expect(formatAppUrl({ scene: 'rings', params: { rings: 3 }, backend: 'gpu', views: null, file: 'my scene.json' })).toBe(
      '?file=my+scene.json&backend=gpu',
    );
  });

  it('scene parameters are clamped, snapped to their step and defaulted', () => {
    const specs = [
      { name: 'rings', default: 60, min: 1, max: 2000, step: 1 },
      { name: 'rolling', default: 0.02, min: 0, max: 1, step: 0.005 },
      { name: 'h', default: 2, min: 1, max: 3 },
    ];
    expect(sceneParams(specs, { rings: 1e6, rolling: 0.0212, extra: 5 })).toEqual({ rings: 2000, rolling: 0.02, h: 2 });
    expect(sceneParams(specs, { rings: 12.6, h: -4 })).toEqual({ rings: 13, rolling: 0.02, h: 1 });
  });

  it('says which values of the link were not used as written, and what was used instead', () => {
    const specs = [
      { name: 'rings', default: 60, min: 1, max: 2000, step: 1 },
      { name: 'rolling', default: 0.02, min: 0, max: 1, step: 0.005 },
    ];
    const r = checkSceneParams(specs, { rings: 1e9, rolling: 0.0212, pegs: 4 }, 'Rings onto pegs');
    expect(r.params).toEqual({ rings: 2000, rolling: 0.02 });
    expect(r.notes).toEqual([
      'rings=1000000000 is outside 1 … 2000; Rings onto pegs uses rings=2000.',
      'rolling=0.0212 is not a multiple of its step 0.005 from 0; Rings onto pegs uses rolling=0.02.',
      'Rings onto pegs has no parameter "pegs" (its parameters are rings, rolling); ignored.',
    ]);
    // Values used as written, and defaults, need no word.
    expect(checkSceneParams(specs, { rings: 12, rolling: 0.5 }).notes).toEqual([]);
    expect(checkSceneParams(specs, {}).notes).toEqual([]);
    expect(checkSceneParams([], { x: 1 }, 'Toppling plank').notes).toEqual(['Toppling plank has no parameter "x" (it has no parameters); ignored.']);
  });

  it('a link parameter named "__proto__" is a name like any other: kept, then noted as unknown', () => {
    const { params } = parseAppUrl('?scene=rings&__proto__=3&rings=12');
    expect(Object.keys(params)).toEqual(['__proto__', 'rings']);
    const specs = [{ name: 'rings', default: 60, min: 1, max: 2000, step: 1 }];
    expect(checkSceneParams(specs, params, 'Rings onto pegs').notes).toEqual(['Rings onto pegs has no parameter "__proto__" (its parameters are rings); ignored.']);
  });
});

describe('an unknown scene in the link', () => {
  const builtins = listBuiltins().map((b) => b.name);

  it('is answered as the command line answers it: the closest built-in, and what is shown instead', () => {
    // The CLI's own answer to the same mistake (builtinScene throws it).
    expect(() => builtinScenes('ring')).toThrow('unknown built-in scene "ring" (did you mean "rings"?)');
    expect(unknownSceneNote('ring', builtins, 'tower')).toBe('There is no built-in scene "ring" (did you mean "rings"?); showing "tower" (Scene → scene lists them all).');
    expect(unknownSceneNote('towr', builtins, 'tower')).toContain('(did you mean "tower"?)');
    // Nothing close: no guess.
    expect(unknownSceneNote('zzzzzz', builtins, 'tower')).toBe('There is no built-in scene "zzzzzz"; showing "tower" (Scene → scene lists them all).');
    // A long or odd name is echoed quoted, escaped and cut.
    expect(unknownSceneNote(`${'x'.repeat(100)}"`, builtins, 'tower')).toContain('..." (101 characters)');
    expect(unknownSceneNote('ring', [], undefined)).toBe('There is no built-in scene "ring"; there are none to show.');
  });

  it('on the bench page, the same suggestion in the error', () => {
    expect(() => parseBenchQuery('?scene=ring', listBuiltins())).toThrow(/^bench\.html.*unknown scene "ring" \(did you mean "rings"\?\) \(built-in scenes: /);
  });
});

describe('bench page query', () => {
  const scenes = [
    { name: 'rings', params: [{ name: 'rings', default: 60, min: 1, max: 2000, step: 1 }], count: 'rings' },
    { name: 'tower', params: [{ name: 'height', default: 20, min: 1, max: 200, step: 1 }], count: 'height' },
    // The seesaw's one parameter is a mass, not a count: "bodies" must not set it.
    { name: 'seesaw', params: [{ name: 'heavy', default: 20, min: 1, max: 100, step: 1 }] },
  ];

  it('by default measures long enough that the default scene is timed landing, not only falling', () => {
    const opts = parseBenchQuery('', listBuiltins());
    expect([opts.scene, opts.steps, opts.warmup]).toEqual(['rings', DEFAULT_BENCH_STEPS, undefined]);
    // The highest ring's free fall to the floor ends inside the measured steps (50 steps, the old
    // default, ended at 0.55 s, before any ring touched anything).
    const scene = builtinScenes('rings') as { dt: number; bodies: { position?: number[] }[] };
    const top = Math.max(...scene.bodies.map((b) => b.position?.[1] ?? 0));
    const warmup = Math.min(20, Math.max(2, Math.floor(DEFAULT_BENCH_STEPS / 10)));
    expect(Math.sqrt((2 * top) / 9.81)).toBeLessThan(0.5 * (warmup + DEFAULT_BENCH_STEPS) * scene.dt);
  });

  it('maps "bodies" to the parameter the scene declares as its count, and refuses it for a scene without one', () => {
    expect(() => parseBenchQuery('?scene=seesaw&bodies=50', scenes)).toThrow(/no body-count parameter/);
    expect(parseBenchQuery('?scene=rings&bodies=500&steps=200&backends=cpu,gpu', scenes)).toEqual({
      scene: 'rings',
      params: { rings: 500 },
      steps: 200,
      warmup: undefined,
      warmCode: 0,
      backends: ['cpu', 'gpu'],
      threads: 1,
    });
    expect(parseBenchQuery('?scene=rings&warmcode=300', scenes).warmCode).toBe(300);
    expect(parseBenchQuery('?scene=rings&threads=4', scenes).threads).toBe(4);
    expect(parseBenchQuery('?scene=tower&bodies=7&backends=gpu&warmup=0', scenes)).toMatchObject({
      params: { height: 7 },
      backends: ['gpu'],
      warmup: 0,
    });
  });

  it('rejects unknown scenes, parameters, backends and out-of-range values with the key', () => {
    const bad = (q: string, where: string) => {
      let err: unknown;
      try {
        parseBenchQuery(q, scenes);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).where).toBe(where);
    };
    bad('?scene=nope', 'scene');
    bad('?scene=rings&size=3', 'size');
    bad('?scene=rings&backends=cpu,tpu', 'backends');
    bad('?scene=rings&rings=0', 'rings');
    bad('?scene=rings&steps=2.5', 'steps');
    bad('?scene=rings&warmcode=-1', 'warmcode');
    bad('?scene=rings&threads=0', 'threads');
  });
});
