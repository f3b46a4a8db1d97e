import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followedRobotBody, robotBodies, robotMotors } from '../../src/app/robots.ts';
import { clean, motorRows, niceCeil, robotPrefix, speedUnit, unitsNote } from '../../src/app/motorPanel.ts';
import { builtinWorld, bodyIndex } from '../dynamics/helpers.ts';
import { EXAMPLES, worldOfFile } from '../robots/helpers.ts';

const names = (w: { bodies: { names: string[] } }, list: number[]) => list.map((i) => w.bodies.names[i]);

describe('robots in the app (follow on open, the motor panel)', () => {
  it('a library robot is its jointed parts; its motors are the wheels; the scene opens following its chassis', async () => {
    const w = await worldOfFile(join(EXAMPLES, 'caterpillars.scene.json'));
    const robots = [...new Set(w.bodies.names.filter((n) => n.includes('/')).map((n) => n.slice(0, n.lastIndexOf('/'))))];
    expect(robots.length).toBeGreaterThanOrEqual(2);
    for (const r of robots) {
      const parts = w.bodies.names.map((n, i) => (n.startsWith(`${r}/`) ? i : -1)).filter((i) => i >= 0);
      // From any of its parts, the robot is exactly its parts (not the ground, not the other robots).
      for (const p of parts) expect(robotBodies(w, p)).toEqual(parts);
      expect(robotMotors(w, parts[parts.length - 1]!)).toEqual(w.motorNames().filter((m) => m.startsWith(`${r}/`)));
    }
    // The first motor's robot, from its first part.
    const first = w.motorNames()[0]!;
    const root = w.bodies.names.findIndex((n) => n.startsWith(first.slice(0, first.lastIndexOf('/') + 1)));
    expect(followedRobotBody(w)).toBe(root);
  });

  it('the cart of cart-rings: chassis first, four wheel motors; a ring and the ground have none', async () => {
    const w = await worldOfFile(join(EXAMPLES, 'cart-rings.scene.json'));
    const chassis = bodyIndex(w, 'cart/chassis');
    expect(followedRobotBody(w)).toBe(chassis);
    expect(names(w, robotBodies(w, bodyIndex(w, 'cart/rl')))).toEqual(['cart/chassis', 'cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
    expect(robotMotors(w, chassis)).toEqual(['cart/fl', 'cart/fr', 'cart/rl', 'cart/rr']);
    expect(robotBodies(w, bodyIndex(w, 'ring3'))).toEqual([bodyIndex(w, 'ring3')]);
    expect(robotMotors(w, bodyIndex(w, 'ring3'))).toEqual([]);
    expect(robotBodies(w, bodyIndex(w, 'ground'))).toEqual([]);
    expect(robotBodies(w, -1)).toEqual([]);
    expect(robotBodies(w, w.bodies.count)).toEqual([]);
    // The sliders: hinge motors in rad/s, spanning twice the program's 4 rad/s (rounded up: 10), torque twice 40 N m (100).
    const rows = motorRows(w, robotMotors(w, chassis), robotPrefix(names(w, robotBodies(w, chassis)) as string[]));
    expect(rows.map((r) => r.label)).toEqual(['fl', 'fr', 'rl', 'rr']);
    expect(rows[0]).toEqual({ name: 'cart/fl', label: 'fl', kind: 'hinge', speed: -4, maxTorque: 40, speedMax: 10, torqueMax: 100 });
    expect(speedUnit('hinge')).toBe('rad/s');
    // A speed set through the handle is what the row shows next.
    w.motor('cart/fl').setSpeed(7.5).setMaxTorque(55);
    const again = motorRows(w, ['cart/fl'])[0]!;
    expect(again).toMatchObject({ label: 'cart/fl', speed: 7.5, maxTorque: 55, speedMax: 20, torqueMax: 200 });
    w.motor('cart/fl').off();
    expect(motorRows(w, ['cart/fl'])[0]!.speed).toBe(0);
  });

  it("the built-in caterpillar: the plates joined by hinges are one robot, the body motor on plate0 is its motor; a chain's static pivot joins nothing", async () => {
    const w = await builtinWorld('caterpillar');
    const plates = ['plate0', 'plate1', 'plate2'].map((n) => bodyIndex(w, n));
    expect(robotBodies(w, plates[2]!)).toEqual(plates);
    expect(robotMotors(w, plates[2]!)).toEqual(w.motorNames());
    expect(w.motorNames()).toHaveLength(1);
    expect(followedRobotBody(w)).toBe(plates[0]);
    const [row] = motorRows(w, w.motorNames());
    expect(row).toMatchObject({ kind: 'body', speed: 4, maxTorque: 60, speedMax: 10, torqueMax: 200 });

    const chain = await builtinWorld('chain', { links: 3 });
    const links = ['link0', 'link1', 'link2'].map((n) => bodyIndex(chain, n));
    expect(robotBodies(chain, links[1]!)).toEqual(links);
    expect(robotBodies(chain, bodyIndex(chain, 'pivot'))).toEqual([]);
    // No motors: nothing to follow, no sliders.
    expect(followedRobotBody(chain)).toBe(-1);
    expect(robotMotors(chain, links[0]!)).toEqual([]);
    const tower = await builtinWorld('tower', { height: 2 });
    expect(followedRobotBody(tower)).toBe(-1);
  });

  it('slider ends are 1, 2 or 5 times a power of ten, at least the floor', () => {
    expect([niceCeil(8, 10), niceCeil(10, 10), niceCeil(10.5, 1), niceCeil(21, 1), niceCeil(80, 1), niceCeil(0.3, 0.1), niceCeil(0, 2), niceCeil(NaN, 2)]).toEqual([
      10, 10, 20, 50, 100, 0.5, 2, 2,
    ]);
    expect(robotPrefix(['cart/chassis', 'cart/fl'])).toBe('cart/');
    expect(robotPrefix(['a/x', 'b/y'])).toBe('');
    expect(robotPrefix(['plate0', 'plate1'])).toBe('');
    expect(robotPrefix([])).toBe('');
    // A slider at 7 steps of 0.05 sends 0.35, not 0.35000000000000003.
    expect(7 * 0.05).not.toBe(0.35);
    expect(clean(7 * 0.05)).toBe(0.35);
    expect(clean(-3 * 0.1)).toBe(-0.3);
    expect(clean(-4)).toBe(-4);
    const row = { name: 'a', label: 'a', speed: 0, maxTorque: 1, speedMax: 10, torqueMax: 2 };
    expect(unitsNote([{ ...row, kind: 'hinge' }])).toMatch(/^speeds in rad\/s, max in N m\. /);
    expect(unitsNote([{ ...row, kind: 'slider' }])).toMatch(/^speeds in m\/s, max in N\. /);
    expect(unitsNote([{ ...row, kind: 'body' }, { ...row, kind: 'slider' }])).toMatch(/^speeds in rad\/s \(slider joints: m\/s\), max in N m \(N\)\. /);
  });
});
