/**
 * The example files under examples/ (docs/LIBRARY_FORMAT.md, "Examples"): every
 * scene loads, builds and runs; every library checks; and each robot example
 * does what it is there to show.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { bodyIndex, pos, run } from '../dynamics/helpers.ts';
import { quat, rotate } from '../joints/geometry.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import type { World } from '../../src/dynamics/world.ts';
import { checkFile } from '../../src/cli/check.ts';
import { EXAMPLES, LIBRARY, worldOfFile, writeFiles } from './helpers.ts';

const ROOT = join(EXAMPLES, '..');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []);
}
const files = jsonFiles(ROOT);
const kind = (f: string) => (JSON.parse(readFileSync(f, 'utf8')) as { format?: string }).format;
const scenes = files.filter((f) => kind(f) === 'stackfield-scene/1');
const libraries = files.filter((f) => kind(f) === 'stackfield-library/1');

function allFinite(w: World): boolean {
  const B = w.bodies, n = B.count;
  return [B.pos.subarray(0, 3 * n), B.quat.subarray(0, 4 * n), B.vel.subarray(0, 3 * n), B.angVel.subarray(0, 3 * n)].every((a) => a.every(Number.isFinite));
}

/** The world up vector of a body's own y axis. */
const up = (w: World, name: string) => rotate(quat(w, name), [0, 1, 0]);

describe('every example file', () => {
  it('the examples folder has the robot scenes, the forces scene and the robots library', () => {
    expect(scenes.map((f) => relative(ROOT, f)).sort()).toEqual(
      ['forces/wind.json', 'robots/cart-incline.scene.json', 'robots/cart-rings.scene.json', 'robots/caterpillar.scene.json', 'robots/caterpillars.scene.json', 'robots/inchworm.scene.json'],
    );
    expect(libraries.map((f) => relative(ROOT, f))).toEqual(['robots/robots.library.json']);
  });

  it.each(libraries.map((f) => [relative(ROOT, f), f]))('%s checks whole', async (_, f) => {
    const warnings: string[] = [];
    expect(await checkFile(f, (m) => warnings.push(m))).toMatch(/^library, /);
    expect(warnings).toEqual([]);
  });

  it.each(scenes.map((f) => [relative(ROOT, f), f]))('%s loads, builds and runs 100 steps', async (_, f) => {
    const w = await worldOfFile(f);
    await run(w, 100);
    expect(allFinite(w)).toBe(true);
    expect(w.time).toBeCloseTo(1, 9);
  });
});

describe('what each robot example shows', () => {
  it('five caterpillars, five motor programs: five different walks', async () => {
    const w = await worldOfFile(join(EXAMPLES, 'caterpillars.scene.json'));
    const x = (r: string) => pos(w, `${r}/h1`)[0];
    await run(w, 100);
    // The seed-style motor waits for step 100.
    expect(Math.abs(x('seed'))).toBeLessThan(1e-3);
    await run(w, 500);
    const at6 = Object.fromEntries(['steady', 'stop-go', 'sprinter', 'reverse', 'seed'].map((r) => [r, x(r)]));
    expect(at6['steady']).toBeGreaterThan(1.5);
    // Pausing a third of the time, it trails the steady one.
    expect(at6['stop-go']).toBeLessThan(0.8 * at6['steady']!);
    expect(at6['stop-go']).toBeGreaterThan(0.3);
    // Three seconds forward, three back.
    expect(Math.abs(at6['reverse']!)).toBeLessThan(0.5 * at6['steady']!);
    expect(at6['seed']).toBeGreaterThan(0.5);
    // Every one stays in its lane, the right way up overall.
    for (const r of Object.keys(at6)) expect(up(w, `${r}/h2`)[1]).toBeGreaterThan(0.5);
  });

  it('the inchworm advances by its two joint motors (over 1 m in 10 s) and stays upright', async () => {
    const w = await worldOfFile(join(EXAMPLES, 'inchworm.scene.json'));
    const mean = () => (pos(w, 'worm/tail')[0] + pos(w, 'worm/body')[0] + pos(w, 'worm/head')[0]) / 3;
    const x0 = mean();
    let lowest = 1;
    const work = [0, 0];
    await run(w, 1000, (ww) => {
      lowest = Math.min(lowest, ...['tail', 'body', 'head'].map((p) => up(ww, `worm/${p}`)[1]));
      const applied = jointsOf(ww)!.motors.applied;
      for (let m = 0; m < 2; m++) work[m] += Math.abs(applied[m]!) * ww.dt;
    });
    expect(mean() - x0).toBeGreaterThan(1);
    expect(lowest).toBeGreaterThan(0.5);
    // Both joints worked (N m s of torque over the run), neither sat idle.
    expect(Math.min(...work)).toBeGreaterThan(5);
  });

  it('the cart drives over the pile of rings and on, the right way up', async () => {
    const w = await worldOfFile(join(EXAMPLES, 'cart-rings.scene.json'));
    let highest = 0, tilt = 1;
    const rings0 = w.bodies.names.filter((n) => n.startsWith('ring')).map((n) => pos(w, n));
    await run(w, 600, (ww) => {
      highest = Math.max(highest, pos(ww, 'cart/chassis')[1]);
      tilt = Math.min(tilt, up(ww, 'cart/chassis')[1]);
    });
    // From x = -1.5 past the pile (x 0.5 .. 1.7) at about the wheels' 1 m/s.
    expect(pos(w, 'cart/chassis')[0]).toBeGreaterThan(3);
    // It climbed over the rings (the chassis rose) and never tipped over.
    expect(highest).toBeGreaterThan(0.3);
    expect(tilt).toBeGreaterThan(0.7);
    expect(up(w, 'cart/chassis')[1]).toBeGreaterThan(0.98);
    const moved = w.bodies.names.filter((n) => n.startsWith('ring')).map((n, k) => Math.hypot(pos(w, n)[0] - rings0[k]![0], pos(w, n)[2] - rings0[k]![2]));
    expect(moved.every((d) => d < 1)).toBe(true);
  });

  /** The incline example with every wheel's maxTorque set. */
  async function inclineCart(maxTorque: number | undefined): Promise<World> {
    if (maxTorque === undefined) return worldOfFile(join(EXAMPLES, 'cart-incline.scene.json'));
    const scene = JSON.parse(readFileSync(join(EXAMPLES, 'cart-incline.scene.json'), 'utf8'));
    scene.include = [LIBRARY];
    for (const m of Object.values(scene.robots[0].motors) as { maxTorque: number }[]) m.maxTorque = maxTorque;
    return worldOfFile(join(writeFiles({ 'scene.json': scene }), 'scene.json'));
  }

  it('the weak cart fails to climb the 20 degree incline; the threshold is m g sin(20) r / 4 per wheel', async () => {
    const weak = await inclineCart(undefined);
    const B = weak.bodies;
    const mass = ['chassis', 'fl', 'fr', 'rl', 'rr'].reduce((m, p) => m + B.mass[bodyIndex(weak, `cart/${p}`)]!, 0);
    const threshold = (mass * 9.81 * Math.sin((20 * Math.PI) / 180) * 0.25) / 4;
    expect(jointsOf(weak)!.motors.maxTorque[0]).toBeLessThan(threshold);
    let highest = 0;
    await run(weak, 800, (ww) => (highest = Math.max(highest, pos(ww, 'cart/chassis')[1])));
    // It rolls onto the foot of the ramp and stays there.
    expect(highest).toBeLessThan(0.6);
    expect(pos(weak, 'cart/chassis')[0]).toBeLessThan(0.6);
    // Just above the threshold the same cart climbs; just below it does not.
    const above = await inclineCart(1.25 * threshold);
    const below = await inclineCart(0.8 * threshold);
    await run(above, 600);
    await run(below, 600);
    expect(pos(above, 'cart/chassis')[1]).toBeGreaterThan(1);
    expect(pos(below, 'cart/chassis')[1]).toBeLessThan(0.6);
  });
});
