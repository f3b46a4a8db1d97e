/**
 * Dragging, throwing and placing (src/app/drag.ts, src/app/placing.ts) on a
 * world in Node; the same through the page, end to end: tests/e2e/picking.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SpringDrag, THROW_SPEED, throwBody } from '../../src/app/drag.ts';
import { pickBody, type Ray } from '../../src/app/picking.ts';
import { AppLibrary } from '../../src/app/placing.ts';
import { exportSceneState } from '../../src/app/exportScene.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { FORMAT, bodyIndex, pos, run, worldFrom } from '../dynamics/helpers.ts';
import { LIBRARY } from '../robots/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';

const tower = (n: number) => ({
  format: FORMAT,
  shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 10 } } },
  bodies: [{ name: 'ground', shape: 'floor', static: true }, ...Array.from({ length: n }, (_, i) => ({ name: `box${i}`, shape: 'box', position: [0, 0.25 + 0.5 * i + 0.001, 0], restitution: 0 }))],
});

/** A ray straight down onto (x, z) from 10 m up. */
const down = (x: number, z: number): Ray => ({ origin: [x, 10, z], dir: [0, -1, 0] });

async function dragFor(w: World, drag: SpringDrag, steps: number): Promise<void> {
  for (let s = 0; s < steps; s++) {
    drag.apply(w, w.dt);
    await w.step();
  }
}

describe('dragging with the spring', () => {
  it('lifts a box by the point it was grabbed and holds that point at the cursor', async () => {
    const w = await worldFrom(tower(1));
    const hit = pickBody(w, down(0.1, 0.05))!;
    expect(hit.body).toBe(bodyIndex(w, 'box0'));
    expect(hit.point[1]).toBeCloseTo(0.5, 2);
    // The drag plane faces up (the ray came from above): move the target by a ray from the side.
    const drag = SpringDrag.start(hit, { origin: [0.1, 10, 0.05], dir: [0, -1, 0] });
    drag.follow({ origin: [0.4, 10, 0.05], dir: [0, -1, 0] });
    expect(drag.target[0]).toBeCloseTo(0.4, 12);
    expect(drag.target[1]).toBeCloseTo(hit.point[1], 12);
    // Lift: a target 1 m higher, set directly.
    drag.target[1] += 1;
    await dragFor(w, drag, 300);
    const a = drag.anchor(w);
    for (let k = 0; k < 3; k++) expect(Math.abs(a[k]! - drag.target[k]!)).toBeLessThan(0.01);
    // It hangs from the grab point: the centre of mass below it, and at rest.
    const c = pos(w, 'box0');
    expect(Math.hypot(c[0] - a[0], c[2] - a[2])).toBeLessThan(0.01);
    expect(Math.hypot(...Array.from(w.bodies.vel.subarray(3, 6)))).toBeLessThan(0.01);
  });

  it('wakes a sleeping body, which then moves', async () => {
    const w = await worldFrom(tower(2));
    await run(w, 150);
    const i = bodyIndex(w, 'box1');
    expect(w.bodies.asleep[i]).toBe(1);
    const before = pos(w, 'box1');
    const hit = pickBody(w, down(0, 0))!;
    expect(hit.body).toBe(i);
    const drag = SpringDrag.start(hit, down(0, 0));
    drag.target[0] += 0.5;
    drag.target[1] += 0.3;
    await dragFor(w, drag, 60);
    expect(w.bodies.asleep[i]).toBe(0);
    expect(pos(w, 'box1')[0] - before[0]).toBeGreaterThan(0.4);
  });

  it('a shift-click throw sends the body along the ray at the throw speed', async () => {
    const w = await worldFrom(tower(1));
    await run(w, 150);
    const i = bodyIndex(w, 'box0');
    throwBody(w, i, [0.6, 0.8, 0]);
    expect(w.bodies.asleep[i]).toBe(0);
    expect(Array.from(w.bodies.vel.subarray(3 * i, 3 * i + 3))).toEqual([0.6 * THROW_SPEED, 0.8 * THROW_SPEED, 0]);
    await run(w, 10);
    expect(pos(w, 'box0')[0]).toBeGreaterThan(0.4);
  });
});

describe('placing a library instance into a running scene', () => {
  it('adds the robot, named instance/alias, and keeps every other body where and how it was', async () => {
    const lib = new AppLibrary();
    lib.add(new Map([['robots.library.json', readFileSync(LIBRARY, 'utf8')]]));
    expect(lib.items().map((i) => `${i.kind} ${i.name}`)).toEqual([
      'robot cart', 'robot caterpillar', 'robot inchworm', 'body chassis', 'body ground', 'body plate', 'body segment', 'body wheel',
    ]);
    const flat = builtinScene('caterpillar', {}) as Record<string, unknown>;
    const w = await worldFrom(flat);
    await run(w, 50);
    const cart = lib.items().find((i) => i.name === 'cart')!;
    const { scene, instance } = lib.placeInto(exportSceneState(flat, w), cart, [2, 0, 1], [0, 0, 0]);
    expect(instance).toBe('cart-1');
    const w2 = await worldFrom(scene);
    expect(w2.bodies.names).toEqual([...w.bodies.names, 'cart-1/chassis', 'cart-1/fl', 'cart-1/fr', 'cart-1/rl', 'cart-1/rr']);
    for (const name of w.bodies.names) {
      for (let k = 0; k < 3; k++) expect(pos(w2, name)[k]).toBeCloseTo(pos(w, name)[k]!, 12);
    }
    const i = bodyIndex(w, 'plate0');
    for (let k = 0; k < 3; k++) expect(w2.bodies.angVel[3 * i + k]).toBeCloseTo(w.bodies.angVel[3 * i + k]!, 12);
    expect(pos(w2, 'cart-1/chassis')).toEqual([2, 0.25, 1]);
    // Placing again takes the next free name; a template places one body.
    const plate = lib.items().find((it) => it.name === 'plate')!;
    const again = lib.placeInto(exportSceneState(scene, w2), plate, [0, 1, 3], [0, -1, 0]);
    expect(again.instance).toBe('plate-1');
    const s3 = validateScene(again.scene, '<placed>');
    expect(s3.bodies.at(-1)).toMatchObject({ name: 'plate-1', shape: 'plate', position: [0, 1, 3], velocity: [0, -1, 0], density: 500 });
    expect(s3.motors.map((m) => m.name)).toEqual(['motor0', 'cart-1/fl', 'cart-1/fr', 'cart-1/rl', 'cart-1/rr']);
  });

  it('a library that includes a file not opened with it is refused, naming the include', () => {
    const lib = new AppLibrary();
    const text = JSON.stringify({ format: 'stackfield-library/1', include: ['base.json'] });
    expect(() => lib.add(new Map([['extra.json', text]]))).toThrow(/extra\.json: include\[0\]: the included file "base\.json" was not opened with it/);
    expect(lib.size).toBe(0);
  });
});

describe('the force tool (mouse pull "force")', () => {
  it('pulls with F = k m g0 (target - grab point) at the grab point for one step, drawn as an arrow of the forces view', async () => {
    const { FORCE_TOOL_WEIGHTS_PER_M } = await import('../../src/app/drag.ts');
    const json = tower(1) as Record<string, unknown>;
    json['gravity'] = [0, 0, 0];
    json['bodies'] = [(json['bodies'] as unknown[])[1]];
    const w = await worldFrom(json);
    const hit = pickBody(w, down(0.1, 0.05))!;
    const drag = SpringDrag.start(hit, down(0.1, 0.05), 'force');
    drag.follow(down(0.6, 0.05)); // the target 0.5 m along +x in the drag plane
    const i = bodyIndex(w, 'box0'), m = w.bodies.mass[i]!;
    const p = drag.anchor(w);
    drag.apply(w, w.dt);
    await w.step();
    const f = FORCE_TOOL_WEIGHTS_PER_M * m * 9.81 * 0.5;
    // Free flight: v = F dt / m exactly, along +x only; the arm r x F turns the box about z and y.
    expect(w.bodies.vel[3 * i]).toBeCloseTo((f * w.dt) / m, 12);
    expect(w.bodies.vel[3 * i + 1]).toBeCloseTo(0, 12);
    expect(Math.hypot(w.bodies.angVel[3 * i]!, w.bodies.angVel[3 * i + 1]!, w.bodies.angVel[3 * i + 2]!)).toBeGreaterThan(0);
    // The arrow: at the grab point, the force's vector.
    const a = w.forces.arrows;
    expect(w.forces.arrowCount).toBe(1);
    for (let k = 0; k < 3; k++) expect(a[k]).toBeCloseTo(p[k]!, 12);
    expect(a[3]).toBeCloseTo(f, 9);
    expect(a[4]).toBeCloseTo(0, 9);
    expect(a[5]).toBeCloseTo(0, 9);
  });
});
