/**
 * Scenes whose numbers are valid but whose derived quantities are not (issue
 * 14, item 1), procedural shapes at extreme scales (item 8), shapes no body
 * uses (item 8) and self-intersecting meshes (item 6), through createWorld
 * and through the real `stackfield run` (exit code, message, no stack trace,
 * no control character).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { createBackend } from '../../src/backends.ts';
import { createWorld, forEachSphereOverlap } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { BIN } from '../cli/cliHelpers.ts';
import { scratchDir } from '../scratchDir.ts';

const CUBE = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 1 1 0', 'v 0 0 1', 'v 1 0 1', 'v 0 1 1', 'v 1 1 1', 'f 1 5 7 3', 'f 2 4 8 6', 'f 1 2 6 5', 'f 3 7 8 4', 'f 1 3 4 2', 'f 5 6 8 7'];
/** The same cube again, moved by (0.5, 0.5, 0.5): a self-intersecting pair. */
const CUBES = [...CUBE, ...CUBE.slice(0, 8).map((l) => 'v ' + l.slice(2).split(' ').map((x) => Number(x) + 0.5).join(' ')), ...CUBE.slice(8).map((l) => 'f ' + l.slice(2).split(' ').map((x) => Number(x) + 8).join(' '))];

type Json = Record<string, unknown>;

function scene(shape: Json, body: Json = {}, extraShapes: Json = {}): Json {
  return {
    format: 'stackfield-scene/1',
    shapes: { floor: { type: 'plane' }, s: { sdf: { cells: 16 }, ...shape }, ...extraShapes },
    bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'thing', shape: 's', position: [0, 2, 0], ...body }],
  };
}

/** createWorld on scene JSON, meshes read from `files`; the warnings it gave. */
async function build(json: Json, files: Record<string, string> = {}): Promise<{ warnings: string[] }> {
  const desc = validateScene(json, 'scene.json', '/scenes');
  const b = await createBackend('cpu');
  const warnings: string[] = [];
  try {
    await createWorld(desc, b.query, {
      readText: async (p) => {
        const name = p.replace('/scenes/', '');
        if (name === 'locked.obj') throw Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
        if (!(name in files)) throw new Error(`ENOENT: no such file '${p}'`);
        return files[name]!;
      },
      warn: (m) => warnings.push(m),
    });
  } finally {
    b.destroy();
  }
  return { warnings };
}

async function refused(json: Json, files: Record<string, string> = {}): Promise<InputError> {
  try {
    await build(json, files);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected the scene to be refused');
}

describe('derived quantities must be finite and in range (item 1)', () => {
  it('a mass of 1e-300 kg is bad input naming the body and the value', async () => {
    const e = await refused(scene({ type: 'box', size: [1, 1, 1] }, { mass: 1e-300 }));
    expect(e.where).toBe('bodies[1] ("thing")');
    expect(e.message).toBe('scene.json: bodies[1] ("thing"): mass 1e-300 kg (from "mass") is outside the range the solver computes with (1e-100 to 1e100 kg)');
  });

  it('a density of 1e308 kg/m^3 is bad input naming the body, the density and the mass it gives', async () => {
    const e = await refused(scene({ type: 'box', size: [2, 2, 2] }, { density: 1e308 }));
    expect(e.where).toBe('bodies[1] ("thing")');
    expect(e.message).toContain('mass Infinity kg (from "density" 1e308 kg/m^3 x volume 8 m^3)');
  });

  it('a valid mesh 1e-30 m across is bad input naming the shape, the file and its size', async () => {
    const tiny = CUBE.map((l) => (l.startsWith('v ') ? 'v ' + l.slice(2).split(' ').map((x) => Number(x) * 1e-30).join(' ') : l)).join('\n');
    const e = await refused(scene({ type: 'mesh', path: 'tiny.obj' }), { 'tiny.obj': tiny });
    expect(e.where).toBe('shapes.s.path');
    expect(e.message).toBe(
      'scene.json: shapes.s.path: tiny.obj: the shape is 1.73e-30 across (bounding-box diagonal); expected a size between 1e-20 and 1e20, so that its volume and inertia stay within the range the solver computes with (1e-100 to 1e100)',
    );
  });

  it('a box, cylinder, capsule or torus thinner than 1e-7 of its size is bad input at the key and value that make it so', async () => {
    // Built, such a mesh was refused as degenerate triangles or as no volume, naming neither.
    const cases: [Json, string, string][] = [
      [{ type: 'box', size: [1e-30, 1, 1] }, 'shapes.s.size', 'the box is 1e-30 x 1 x 1 m, its shortest side 1e-30 of its longest; expected every side at least 1e-7 of the longest'],
      [{ type: 'torus', majorRadius: 1, minorRadius: 1e-12 }, 'shapes.s.minorRadius', 'minorRadius 1e-12 m is 1e-12 of majorRadius 1 m; expected at least 1e-7 of it'],
      [{ type: 'cylinder', radius: 1e-9, height: 2 }, 'shapes.s.radius', "the cylinder's radius is 5e-10 of its height (radius 1e-9 m, height 2 m); expected at least 1e-7 of it"],
    ];
    for (const [shape, where, message] of cases) {
      const e = await refused(scene(shape));
      expect(e.where).toBe(where);
      expect(e.message).toBe(`scene.json: ${where}: ${message}`);
    }
    // Within the bound they build: a capsule that is nearly a ball, a box 1e-6 of its size thin, a thin ring and rod.
    for (const shape of [{ type: 'capsule', radius: 1, height: 2 + 1e-9, segments: [8, 4] }, { type: 'box', size: [1e-6, 1, 1], sdf: { cells: 16 } }, { type: 'torus', majorRadius: 1, minorRadius: 0.01 }, { type: 'cylinder', radius: 0.01, height: 2 }]) {
      expect((await build(scene(shape))).warnings.every((w) => !w.includes('error'))).toBe(true);
    }
  });

  it('a mass that leaves the inertia out of range is bad input naming the principal moments', async () => {
    // 1e-95 kg is in range, but its moments for a 1 mm box are ~1e-102 kg m^2.
    const e = await refused(scene({ type: 'box', size: [1e-3, 1e-3, 1e-3] }, { mass: 1e-95 }));
    expect(e.message).toContain('principal moments of inertia 1.67e-102, 1.67e-102, 1.67e-102 kg m^2 (from "mass")');
  });

  it('ordinary small and large bodies build: a 1 mm box of 1e-6 kg and a 100 m box of 1e9 kg', async () => {
    await expect(build(scene({ type: 'box', size: [1e-3, 1e-3, 1e-3] }, { mass: 1e-6 }))).resolves.toEqual({ warnings: [] });
    await expect(build(scene({ type: 'box', size: [100, 100, 100] }, { density: 1000, position: [0, 52, 0] }))).resolves.toEqual({ warnings: [] });
  });
});

describe('procedural shapes at any sane scale (item 8)', () => {
  it.each([
    ['huge', [1e12, 2e12, 3e12], []],
    // At the default dt gravity moves it a billion times its size in a step (warnThinForStep); nothing else is said.
    ['tiny', [1e-12, 2e-12, 3e-12], [/^scene\.json: bodies\[1\] \("thing"\): the shape "s" is 1e-12 m thick, less than gravity moves a body in one step/]],
  ])('a %s box builds with no warning but the step\'s', async (_, size, expected) => {
    // Placed at its own scale: a 1e-12 m box 2 m up is refused, since doubles there are coarser than its SDF cell (src/scene/precision.ts).
    // (The huge one then lies mostly under the floor, which warnIntoPlanes says; that warning is not this test's.)
    const warnings = (await build(scene({ type: 'box', size }, { density: 1, position: [0, Math.min(2, 2 * size[1]!), 0] }))).warnings.filter((w) => !w.includes('into the plane'));
    expect(warnings).toHaveLength(expected.length);
    expected.forEach((re, k) => expect(warnings[k]).toMatch(re));
  });

  it('a tiny box far from the origin (for its size) is refused: doubles there are coarser than a thousandth of its SDF cell', async () => {
    const e = await refused(scene({ type: 'box', size: [1e-12, 2e-12, 3e-12] }, { density: 1 }));
    expect(e.where).toBe('bodies[1].position');
    expect(e.message).toContain('expected coordinates within 1 m of the origin for this body (its SDF cell is 1.88e-13 m)');
  });

  it('a box 1e5 times longer than wide builds; its grid is refined as far as the node budget allows, and the warnings say so', async () => {
    const { warnings } = await build(scene({ type: 'box', size: [1e5, 1, 1] }, { density: 1 }));
    expect(warnings[0]).toMatch(/^scene\.json: shapes\.s: its thinnest extent \(1 m\) spans 1\.6e-4 cells of its SDF \("sdf": \{"cells": 16\}\), too few to catch a body passing into it; baked with \d+ cells instead \((\d+) nodes, about .+\); a floor is cheaper as a plane$/);
    const nodes = Number(/\((\d+) nodes/.exec(warnings[0]!)![1]);
    expect(nodes).toBeLessThanOrEqual(4_000_000);
    expect(nodes).toBeGreaterThan(3_000_000);
    // 4 M nodes leave about one cell across it: whether a node falls inside is said as before.
    for (const w of warnings.slice(1)) expect(w).toContain('no SDF grid node lies inside the shape');
    expect(warnings.length).toBeLessThanOrEqual(2);
  });

  it('a truly degenerate box is refused as such, naming the shape, its size and the limit', async () => {
    const e = await refused(scene({ type: 'box', size: [1, 1e-9, 1] }));
    expect(e.where).toBe('shapes.s.size');
    expect(e.message).toBe('scene.json: shapes.s.size: the box is 1 x 1e-9 x 1 m, its shortest side 1e-9 of its longest; expected every side at least 1e-7 of the longest');
    // A mesh that thin is refused by its extents.
    const flat = CUBE.map((l) => (l.startsWith('v ') ? 'v ' + l.slice(2).split(' ').map((x, k) => (k === 1 ? Number(x) * 1e-9 : Number(x))).join(' ') : l)).join('\n');
    const m = await refused(scene({ type: 'mesh', path: 'flat.obj' }), { 'flat.obj': flat });
    expect(m.where).toBe('shapes.s.path');
    expect(m.message).toMatch(/^scene\.json: shapes\.s\.path: flat\.obj: the shape is degenerate: too thin for its size \(.*extents 1 x 1e-9 x 1: .*\); expected a solid at least 1e-7 of its size thick$/);
  });

  it.each([
    ['16 cells (given)', { cells: 16 }, 0.08],
    ['the default 48 cells', undefined, 0.24],
  ] as const)('a thin slab whose SDF at %s would have no node inside gets a finer grid, says so, and a box dropped on it rests on it', async (_, sdf, across) => {
    // A 10 x 0.05 x 10 m floor made of a box: at 16 or 48 cells along 10 m no
    // grid node lies inside it, so nothing caught a body passing into it and
    // the box fell through.
    const json: Json = {
      format: 'stackfield-scene/1', dt: 1 / 60,
      shapes: { slab: { type: 'box', size: [10, 0.05, 10], ...(sdf ? { sdf } : {}) }, cube: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 16 } } },
      bodies: [{ name: 'slab', shape: 'slab', static: true, position: [0, -0.025, 0] }, { name: 'cube', shape: 'cube', position: [0.7, 0.6, -1.3] }],
    };
    const desc = validateScene(json, 'scene.json', '/scenes');
    const b = await createBackend('cpu');
    const warnings: string[] = [];
    try {
      const w = await createWorld(desc, b.query, { readText: async () => '', warn: (m) => warnings.push(m) });
      expect(warnings).toEqual([
        `scene.json: shapes.slab: its thinnest extent (0.05 m) spans ${across} cells of its SDF ("sdf": {"cells": ${sdf?.cells ?? 48}}), too few to catch a body passing into it; ` +
          'baked with 600 cells instead (2928200 nodes, about 0.9 s); a floor is cheaper as a plane',
      ]);
      for (let s = 0; s < 90; s++) await w.step();
      // Resting on the slab's top (y = 0) within a hundredth of its size.
      expect(w.bodies.pos[4]).toBeCloseTo(0.1, 3);
    } finally {
      b.destroy();
    }
  });
});

describe('every shape of the scene is loaded (item 8)', () => {
  it('a shape no body uses, whose mesh file is missing, is reported at its path', async () => {
    const e = await refused(scene({ type: 'box', size: [1, 1, 1] }, {}, { spare: { type: 'mesh', path: 'gone.obj' } }));
    expect(e.where).toBe('shapes.spare.path');
    expect(e.message).toContain('"/scenes/gone.obj": cannot read the mesh file');
  });

  it('a mesh file that cannot be read for want of permission says so in words, not as the system call', async () => {
    const e = await refused(scene({ type: 'mesh', path: 'locked.obj' }));
    expect(e.message).toBe('scene.json: shapes.s.path: "/scenes/locked.obj": cannot read the mesh file (permission denied)');
  });

  it('a shape no body uses, whose mesh is open, is reported like a used one', async () => {
    const open = CUBE.slice(0, -2).join('\n');
    const e = await refused(scene({ type: 'box', size: [1, 1, 1] }, {}, { spare: { type: 'mesh', path: 'open.obj' } }), { 'open.obj': open });
    expect(e.message).toMatch(/^scene\.json: shapes\.spare\.path: open\.obj: edge \d+-\d+: mesh is not closed/);
  });

  it('a dynamic body whose centre of mass starts behind a static plane is named in a warning, by its centre of mass and not its origin', async () => {
    const behind = (position: number[], extra: Json = {}, mesh = false): Json => {
      const j = scene(mesh ? { type: 'mesh', path: 'cube.obj' } : { type: 'box', size: [1, 1, 1] }, { position }) as { bodies: Json[]; shapes: Json };
      Object.assign(j.shapes, { wall: { type: 'plane', normal: [-1, 0, 0] } });
      j.bodies.push({ name: 'wall', shape: 'wall', static: true, position: [3, 0, 0], ...extra });
      return j;
    };
    const warned = async (j: Json) => (await build(j, { 'cube.obj': CUBE.join('\n') })).warnings.filter((w) => w.includes('behind the plane'));
    expect(await warned(behind([0, -5, 0]))).toEqual([
      'scene.json: bodies[1] ("thing") starts with its centre of mass 5 m behind the plane of bodies[0] ("ground"): ' +
        "a plane pushes a body out of it only slowly, so it may stay inside; move it to the plane's front",
    ]);
    // Half sunk but its centre in front: nothing said. The wall (normal -x, through x = 3) faces the body.
    expect(await warned(behind([0, 0.2, 0]))).toEqual([]);
    // Turned to face the other way (normal +x), the wall has the body 3 m behind it.
    expect(await warned(behind([0, 2, 0], { rotation: { axis: [0, 1, 0], degrees: 180 } }))).toEqual([
      expect.stringContaining('bodies[1] ("thing") starts with its centre of mass 3 m behind the plane of bodies[2] ("wall")'),
    ]);
    // The unit cube's mesh has its origin at a corner: its centre of mass is 0.5 m above its position.
    expect(await warned(behind([0, -0.3, 0], {}, true))).toEqual([]);
    expect((await warned(behind([0, -0.7, 0], {}, true)))[0]).toContain('centre of mass 0.2 m behind the plane of bodies[0] ("ground")');
  });

  it('a dynamic body that starts with part of it more than a cell into a static plane, its centre in front, is named in a warning', async () => {
    const into = async (y: number) => (await build(scene({ type: 'box', size: [1, 1, 1] }, { position: [0, y, 0] }))).warnings.filter((w) => w.includes('into the plane'));
    expect(await into(0.2)).toEqual([
      'scene.json: bodies[1] ("thing") starts 0.3 m into the plane of bodies[0] ("ground"): the contacts lift it out over the first steps, ' +
        'and its energy grows by the lift; start it on the plane or above',
    ]);
    // Resting on it, or sunk by less than a cell (1/32 m here): nothing said.
    expect(await into(0.5)).toEqual([]);
    expect(await into(0.49)).toEqual([]);
    // Its centre behind the plane: the other warning says so, this one does not.
    expect(await into(-1)).toEqual([]);
  });

  it('a body that starts exactly where another of the same shape is (same orientation) is named in a warning', async () => {
    // Their samples lie on each other's surfaces (phi = 0), never inside:
    // the pair is never seen to overlap and never comes apart.
    const twin = (dx: number): Json => {
      const j = scene({ type: 'box', size: [1, 1, 1] }) as { bodies: Json[] };
      j.bodies.push({ name: 'twin', shape: 's', position: [dx, 2, 0] });
      return j;
    };
    expect((await build(twin(0))).warnings).toEqual([
      'scene.json: bodies[2] ("twin") starts exactly where bodies[1] ("thing") is, with the same shape and orientation: ' +
        "each lies on the other's surface, not inside it, so they never come apart; move one",
    ]);
    // Many at one spot: ten named, the rest counted (100 bodies gave 99 lines).
    const crowd = scene({ type: 'box', size: [1, 1, 1] }) as { bodies: Json[] };
    for (let k = 0; k < 30; k++) crowd.bodies.push({ name: `c${k}`, shape: 's', position: [0, 2, 0] });
    const told = (await build(crowd)).warnings.filter((w) => w.includes('exactly where'));
    expect(told).toHaveLength(11);
    expect(told[10]).toBe('scene.json: 20 more bodies start exactly where another body is, with the same shape and orientation');
  });

  it('bodies that start deep inside each other (each centre inside the other) are named in a warning; a shallow overlap is not', async () => {
    // Surface samples a hair or a third of a cube deep tell no way out: two
    // equal cubes so placed are pushed together, not apart.
    const pair = (dx: number, joint: Json | null = null): Json => {
      const j = scene({ type: 'box', size: [1, 1, 1] }) as { bodies: Json[]; joints?: Json[] };
      j.bodies.push({ name: 'twin', shape: 's', position: [dx, 2, 0] });
      if (joint) j.joints = [{ name: 'j', type: 'ball', bodyA: 'thing', bodyB: 'twin', anchorA: [0.15, 0, 0], anchorB: [-0.15, 0, 0], ...joint }];
      return j;
    };
    for (const dx of [1e-6, 0.3]) {
      const { warnings } = await build(pair(dx));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^scene\.json: bodies\[2\] \("twin"\) starts deep inside bodies\[1\] \("thing"\): each one's centre of mass lies inside the other \((0\.[0-9]+) m and \1 m deep\); .*move one out$/);
    }
    // The depths are those of the centres: 0.5 - dx.
    expect((await build(pair(0.3))).warnings[0]).toContain('(0.2 m and 0.2 m deep)');
    // A shallow overlap (centres outside each other), bodies apart, and a joined pair are not.
    expect((await build(pair(0.7))).warnings).toEqual([]);
    expect((await build(pair(1.5))).warnings).toEqual([]);
    expect((await build(pair(0.3, {}))).warnings.filter((w) => w.includes('deep inside'))).toEqual([]);
    // Unless the joint lets them collide.
    expect((await build(pair(0.3, { collide: true }))).warnings.filter((w) => w.includes('deep inside'))).toHaveLength(1);
  });

  it('two rings linked like a chain (each centre on the other\'s tube, solids apart) get no warning; a ring through a cube does', async () => {
    const ring = { type: 'torus', majorRadius: 0.5, minorRadius: 0.1, segments: [24, 8], sdf: { cells: 48 } };
    const linked = scene(ring) as { bodies: Json[] };
    linked.bodies.push({ name: 'twin', shape: 's', position: [0.5, 2, 0], rotation: { axis: [1, 0, 0], degrees: 90 } });
    expect((await build(linked)).warnings).toEqual([]);
    // The cube's centre on the ring's tube, the ring's centre inside the cube, the tube through the cube.
    const through = scene(ring, {}, { cube: { type: 'box', size: [1.2, 1.2, 1.2] } }) as { bodies: Json[] };
    through.bodies.push({ name: 'cube', shape: 'cube', position: [0.5, 2, 0] });
    const told = (await build(through)).warnings;
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('bodies[2] ("cube") starts deep inside bodies[1] ("thing")');
  });

  it('the deep-overlap check finds the same overlapping pairs as all pairs would, in order, with sizes 1 to 40 times apart', async () => {
    // 300 small, 30 middling and 3 large boxes at random (a fixed sequence),
    // many overlapping; candidates come from a hash grid, large bodies
    // against all.
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const bodies: Json[] = [{ name: 'ground', shape: 'floor', static: true }];
    const sizes = [...Array(300).fill('small'), ...Array(30).fill('mid'), ...Array(3).fill('large')] as string[];
    sizes.forEach((s, i) => bodies.push({ name: `b${i}`, shape: s, position: [rnd() * 12 - 6, rnd() * 12, rnd() * 12 - 6], static: s === 'large' }));
    const json = {
      format: 'stackfield-scene/1',
      shapes: { floor: { type: 'plane' }, small: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 8 } }, mid: { type: 'box', size: [1.2, 1.2, 1.2], sdf: { cells: 8 } }, large: { type: 'box', size: [8, 2, 8], sdf: { cells: 8 } } },
      bodies,
    };
    const world = await createWorld(validateScene(json, 'scene.json'), (await createBackend('cpu')).query, { readText: async () => '', warn: () => {} });
    const B = world.bodies, r = (i: number): number => world.shapes[B.shape[i]!]!.radius;
    const all: [number, number][] = [];
    for (let a = 0; a < B.count; a++) {
      for (let b = a + 1; b < B.count; b++) {
        if (!world.shapes[B.shape[a]!]!.sdf || !world.shapes[B.shape[b]!]!.sdf) continue;
        if (Math.hypot(B.pos[3 * a]! - B.pos[3 * b]!, B.pos[3 * a + 1]! - B.pos[3 * b + 1]!, B.pos[3 * a + 2]! - B.pos[3 * b + 2]!) <= r(a) + r(b)) all.push([a, b]);
      }
    }
    const got: [number, number][] = [];
    forEachSphereOverlap(world, (a, b) => (got.push([a, b]), true));
    expect(all.length).toBeGreaterThan(100);
    expect(got).toEqual(all);
    // The visit can stop the search.
    let seen = 0;
    forEachSphereOverlap(world, () => ++seen < 5);
    expect(seen).toBe(5);
  });

  it('bodies thinner than gravity moves one in a step are named once per shape, with the dt that holds them, which does', async () => {
    const S = 1e-4;
    const stack = (dt: number): Json => ({
      format: 'stackfield-scene/1', dt,
      shapes: { floor: { type: 'plane' }, s: { type: 'box', size: [S, S, S] } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'low', shape: 's', position: [0, S / 2, 0] }, { name: 'up', shape: 's', position: [0, 1.6 * S, 0] }],
    });
    expect((await build(stack(0.01))).warnings).toEqual([
      'scene.json: bodies[1] ("low") and 1 other body of this shape: the shape "s" is 1e-4 m thick, less than gravity moves a body in one step ' +
        '(|g| dt^2 = 9.81e-4 m at "dt" 0.01 s): it will not rest on anything; a "dt" up to 0.00319 s holds it',
    ]);
    expect((await build(stack(0.003))).warnings).toEqual([]);
    // At that dt the two cubes come to rest on each other (at dt 0.01 they flew apart spinning at 250 rad/s).
    const b = await createBackend('cpu');
    const w = await createWorld(validateScene(stack(0.003), 'scene.json'), b.query, { readText: async () => '' });
    for (let k = 0; k < 333; k++) await w.step();
    const up = w.bodies.names.indexOf('up');
    expect(w.bodies.pos[3 * up + 1]! / (1.5 * S)).toBeCloseTo(1, 3);
    expect(Math.hypot(w.bodies.pos[3 * up]!, w.bodies.pos[3 * up + 2]!)).toBeLessThan(1e-3 * S);
  });

  it('a valid shape no body uses is loaded and named in a warning', async () => {
    const { warnings } = await build(scene({ type: 'box', size: [1, 1, 1] }, {}, { spare: { type: 'sphere', radius: 1 } }));
    expect(warnings).toEqual(['scene.json: shapes.spare: no body uses this shape']);
  });
});

describe('the command line', () => {
  const dir = scratchDir('stackfield-derived-');
  writeFileSync(join(dir, 'cubes.obj'), CUBES.join('\n') + '\n');
  const run = (json: Json) => {
    const file = join(dir, `s${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(json));
    // Progress lines held back (they start after a second, which a loaded machine can take):
    // standard error then holds the warnings alone, which these tests count.
    return spawnSync(process.execPath, [BIN, 'run', file, '--steps', '50', '--every', '50', '--summary', 'none'], {
      encoding: 'utf8', timeout: 120_000, env: { ...process.env, STACKFIELD_PROGRESS_AFTER_MS: '600000' },
    });
  };
  const clean = (text: string) => {
    expect(text).not.toMatch(/\n\s+at /); // no stack trace
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  };

  it('exits with 2 for a 1e-300 kg body, naming it, with no stack trace', () => {
    const r = run(scene({ type: 'box', size: [1, 1, 1] }, { mass: 1e-300 }));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('bodies[1] ("thing"): mass 1e-300 kg');
    clean(r.stderr);
  });

  it('welds an unwelded export and fills a missing triangle, saying what it did, and the cube rests at its half height', () => {
    // Every quad with its own four vertices, and one quad split into two triangles with one left out.
    const verts = CUBE.slice(0, 8);
    const lines: string[] = [];
    let n = 0;
    for (const f of CUBE.slice(8)) {
      const ids = f.slice(2).split(' ').map(Number);
      for (const v of ids) lines.push(verts[v - 1]!);
      const k = [n + 1, n + 2, n + 3, n + 4];
      lines.push(n === 0 ? `f ${k[0]} ${k[1]} ${k[2]}` : `f ${k.join(' ')}`);
      n += 4;
    }
    writeFileSync(join(dir, 'export.obj'), lines.join('\n') + '\n');
    const r = run(scene({ type: 'mesh', path: 'export.obj', scale: 0.5 }, { position: [0, 0.01, 0] }));
    expect(r.status, r.stderr).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/shapes\.s\.path: export\.obj: 1 vertex used by no face was dropped$/); // the split quad's fourth corner
    expect(warnings[1]).toMatch(/shapes\.s\.path: export\.obj: 15 duplicate vertices on open seams were welded/);
    expect(warnings[2]).toMatch(/shapes\.s\.path: export\.obj: the mesh was open; 1 hole was filled \(3 edges at/);
    clean(r.stderr);
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(last.bodies[1].p[1]).toBeCloseTo(0.25, 2);
  });

  it('simulates a self-intersecting mesh as the union it encloses, saying so once', () => {
    const r = run(scene({ type: 'mesh', path: 'cubes.obj' }, { position: [0, 0.01, 0] }));
    expect(r.status, r.stderr).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/shapes\.s: the mesh intersects itself: \d+ pairs of triangles cross, e\.g\. triangle \d+ \(line \d+\) and triangle \d+ \(line \d+\) at .*volume 1\.875 \(the surface integral of the raw mesh gives 2\)/);
    clean(r.stderr);
    // The union's centre of mass is 0.75 above its lowest face, where it comes to rest.
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(last.bodies[1].p[1]).toBeCloseTo(0.75, 2);
  });
});
