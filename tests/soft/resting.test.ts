/**
 * Soft bodies on the ground: volume preservation, static planes (no
 * tunnelling, friction), pins.
 */
import { describe, expect, it } from 'vitest';
import { buildScene, lowestY, softScene } from './helpers.ts';

function cubeOnGround(preserveVolume: boolean) {
  return softScene({
    shapes: { cube: { type: 'box', size: [0.5, 0.5, 0.5] } },
    // Soft enough to sag visibly under its own weight (rho g H / E = 0.5 at the bottom).
    softBodies: [{ name: 'jelly', shape: 'cube', position: [0, 0.25, 0], stiffness: 1e4, damping: 0.5, construction: { resolution: 6 }, preserveVolume }],
  });
}

describe('volume preservation', () => {
  it('keeps a soft cube resting 5 s on a plane at >= 95 % of its volume', async () => {
    const { system } = await buildScene(cubeOnGround(true));
    let least = 1;
    for (let s = 0; s < 500; s++) {
      system.step(0.01);
      least = Math.min(least, system.volumeOf(0) / system.bodies[0]!.restVolume);
    }
    expect(least).toBeGreaterThanOrEqual(0.95);
    // It does rest: the sag has settled.
    const before = system.centroid(0)[1];
    for (let s = 0; s < 20; s++) system.step(0.01);
    expect(Math.abs(system.centroid(0)[1] - before)).toBeLessThan(1e-3);
  });

  it('is what holds the volume: without it the same cube loses more than 5 %', async () => {
    const { system } = await buildScene(cubeOnGround(false));
    for (let s = 0; s < 300; s++) system.step(0.01);
    expect(system.volumeOf(0) / system.bodies[0]!.restVolume).toBeLessThan(0.95);
  });
});

describe('a soft ball dropped straight down', () => {
  it('comes to rest within 5 cm of where it fell (radius 0.2 m), not rolled off along a lattice diagonal', async () => {
    // Its lattice was not mirror-symmetric (docs/soft-bodies.md, step 3): it
    // rolled 0.19 m off along x = z and was still rocking at 10 s.
    const { system } = await buildScene(softScene({
      shapes: { ball: { type: 'sphere', radius: 0.2 } },
      softBodies: [{ name: 'ball', shape: 'ball', position: [0, 0.7, 0], stiffness: 3e4, construction: { method: 'lattice', resolution: 5 } }],
    }));
    for (let s = 0; s < 1000; s++) system.step(0.01);
    const c = system.centroid(0);
    expect(Math.hypot(c[0], c[2])).toBeLessThan(0.05);
    for (let s = 0; s < 20; s++) system.step(0.01);
    const d = system.centroid(0);
    // Settled: its centre moves less than 2.5 cm/s (it rocks a little on its soft springs, undamped).
    expect(Math.hypot(d[0] - c[0], d[1] - c[1], d[2] - c[2])).toBeLessThan(5e-3);
  });
});

describe('static planes', () => {
  it('never let a particle through, at 20 m/s onto a tilted plane', async () => {
    const tilt = (20 * Math.PI) / 180;
    const n = [Math.sin(tilt), Math.cos(tilt), 0];
    const scene = softScene(
      {
        shapes: { ball: { type: 'sphere', radius: 0.2, segments: [12, 8] } },
        softBodies: [{ name: 'ball', shape: 'ball', position: [0, 0.6, 0], velocity: [0, -20, 0], construction: { resolution: 5 }, stiffness: 2e5 }],
      },
      { bodies: [{ name: 'slope', shape: 'floor', static: true, rotation: { axis: [0, 0, -1], degrees: 20 } }] },
    );
    const { system, planes } = await buildScene(scene);
    let contacts = 0;
    for (let s = 0; s < 100; s++) {
      system.step(0.005);
      for (let i = 0; i < system.particleCount; i++) {
        const d = n[0]! * system.pos[3 * i]! + n[1]! * system.pos[3 * i + 1]! + n[2]! * system.pos[3 * i + 2]!;
        expect(d).toBeGreaterThanOrEqual(-1e-12);
      }
      contacts += planes.contacts;
    }
    expect(planes.planes.length).toBe(1);
    expect(contacts).toBeGreaterThan(0);
  });

  it('hold a resting body up and let friction stop it sliding; without friction it slides on', async () => {
    const run = async (friction: number) => {
      const scene = softScene(
        {
          shapes: { cube: { type: 'box', size: [0.3, 0.3, 0.3] } },
          softBodies: [{ name: 'puck', shape: 'cube', position: [0, 0.15, 0], velocity: [2, 0, 0], friction, construction: { resolution: 3 }, damping: 0.5 }],
        },
        { bodies: [{ name: 'ground', shape: 'floor', static: true, friction: 0 }] },
      );
      const { system } = await buildScene(scene);
      for (let s = 0; s < 200; s++) system.step(0.01);
      return { x: system.centroid(0)[0], vx: system.momentum(0)[0] / system.bodies[0]!.mass, low: lowestY(system.pos) };
    };
    const sticky = await run(0.8);
    const slick = await run(0);
    // mu = 0.8: stops within v^2 / (2 mu g) = 0.25 m (a little more while the contact settles).
    expect(Math.abs(sticky.vx)).toBeLessThan(1e-3);
    expect(sticky.x).toBeLessThan(0.4);
    // mu = 0: nothing takes its speed (dampers act inside the body only).
    expect(slick.vx).toBeCloseTo(2, 2);
    expect(Math.min(sticky.low, slick.low)).toBeGreaterThanOrEqual(0);
  });
});

describe('pins', () => {
  it('hold particles at their rigid body, which carries the soft body\'s whole weight', async () => {
    const scene = softScene(
      {
        shapes: { bar: { type: 'box', size: [1, 0.1, 0.1] }, cube: { type: 'box', size: [0.4, 0.4, 0.4] } },
        softBodies: [
          {
            name: 'hanging',
            shape: 'cube',
            position: [0, 1.8, 0],
            mass: 20,
            damping: 0.5,
            construction: { resolution: 4 },
            // The anchor is the bar's underside centre; the radius takes the middle of the cube's top face.
            pins: [{ body: 'bar', anchor: [0, -0.05, 0], radius: 0.11 }],
          },
        ],
      },
      { bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'bar', shape: 'bar', static: true, position: [0, 2.05, 0] }] },
    );
    const { system } = await buildScene(scene);
    const pinned = [...system.pinParticle];
    // Particles within 0.11 m of (0, 2, 0) at 0.1 m spacing: the top face's centre, its 4 neighbours on the face
    // and the one beneath it.
    expect(pinned.length).toBe(6);
    const start = pinned.map((p) => [...system.pos.subarray(3 * p, 3 * p + 3)]);
    for (let s = 0; s < 300; s++) system.step(0.01);
    pinned.forEach((p, k) => {
      for (let c = 0; c < 3; c++) expect(system.pos[3 * p + c]).toBe(start[k]![c]);
    });
    // At rest the pins pass the weight on: sum of pin impulses over a step = M g dt (downward).
    const total = [0, 0, 0];
    for (let k = 0; k < pinned.length; k++) for (let c = 0; c < 3; c++) total[c] += system.pinImpulse[3 * k + c]!;
    expect(total[1]! / (20 * -9.81 * 0.01)).toBeCloseTo(1, 2);
    expect(Math.abs(total[0]!) + Math.abs(total[2]!)).toBeLessThan(1e-3 * 20 * 9.81 * 0.01);
    // And the body hangs below the bar.
    expect(system.centroid(0)[1]).toBeLessThan(1.8);
  });
});
