/**
 * Soft bodies in World's step (src/soft/coupling.ts, contact.ts): against
 * rigid bodies through the batched query on both backends, rigid points
 * inside soft bodies, soft against soft, the reaction on rigid bodies, the
 * stage "soft" in the profile.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../src/backends.ts';
import type { PenetrationBackend, QueryShape } from '../../src/collision/query.ts';
import type { World } from '../../src/dynamics/world.ts';
import { STAGES, stageOrder } from '../../src/dynamics/profile.ts';
import { stagesBooked } from '../dynamics/helpers.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { createWorld } from '../../src/scene/build.ts';
import { parseSceneText } from '../../src/scene/load.ts';
import { validateScene } from '../../src/scene/validate.ts';
import type { SceneDesc } from '../../src/scene/types.ts';
import { queryShapeIndices, SoftCoupling } from '../../src/soft/coupling.ts';
import { PAIR_PUSH_SPEED, RigidMotion, SoftContacts } from '../../src/soft/contact.ts';
import { SoftStore } from '../../src/soft/store.ts';
import { requireGpuFromEnv } from '../../src/gpu/device.ts';

const backends: Partial<Record<'cpu' | 'gpu', Backend>> = {};
async function backend(kind: 'cpu' | 'gpu'): Promise<Backend> {
  if (kind === 'gpu') await requireGpuFromEnv();
  return (backends[kind] ??= await createBackend(kind));
}
afterAll(() => {
  for (const b of Object.values(backends)) b?.destroy();
});

async function world(scene: SceneDesc, kind: 'cpu' | 'gpu' = 'cpu'): Promise<{ world: World; soft: SoftCoupling }> {
  const b = await backend(kind);
  const w = await createWorld(scene, b.query, { readText: async () => '', bake: b.bake });
  expect(w.soft).toBeInstanceOf(SoftCoupling);
  return { world: w, soft: w.soft as SoftCoupling };
}

function scene(json: Record<string, unknown>): SceneDesc {
  return parseSceneText(JSON.stringify({ format: 'stackfield-scene/1', ...json }), 'coupling.json');
}

/** A soft ball shot down at 20 m/s onto a static slab 2 cm thick (its field 64 cells across a metre). */
function slabScene(): SceneDesc {
  return scene({
    dt: 0.01,
    shapes: {
      floor: { type: 'plane' },
      slab: { type: 'box', size: [1, 0.02, 1], sdf: { cells: 64 } },
      ball: { type: 'sphere', radius: 0.15, segments: [12, 8] },
    },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, position: [0, -1, 0] },
      { name: 'slab', shape: 'slab', static: true },
    ],
    softBodies: [{ name: 'ball', shape: 'ball', position: [0.1, 0.6, -0.05], velocity: [0, -20, 0], construction: { resolution: 5 }, stiffness: 2e5, damping: 0.3 }],
  });
}

describe('soft bodies against rigid bodies', () => {
  for (const kind of ['cpu', 'gpu'] as const) {
    it(`never let a particle through a 2 cm static slab at 20 m/s (${kind})`, async () => {
      const { world: w, soft } = await world(slabScene(), kind);
      const sys = soft.system;
      let lowest = Infinity, acted = 0, samples = 0;
      for (let s = 0; s < 60; s++) {
        await w.step();
        acted += soft.stats.active;
        samples += soft.stats.samples;
        for (let i = 0; i < sys.particleCount; i++) lowest = Math.min(lowest, sys.pos[3 * i + 1]!);
      }
      // Every particle stays on the slab's top face (y = 0.01), to f32 rounding of the field.
      expect(lowest).toBeGreaterThan(0.01 - 1e-5);
      // Through the query: the 0.2 m paths of the fall were sampled, and the contacts acted.
      expect(samples).toBeGreaterThan(sys.particleCount * 10);
      expect(acted).toBeGreaterThan(sys.particleCount);
      // And it bounced back up (stiff ball, no restitution: the springs give back part of the energy).
      expect(sys.centroid(0)[1]).toBeGreaterThan(0.3);
    });
  }

  it('the CPU and GPU backends give the same states (a ball bouncing on the slab, 40 steps)', async () => {
    const cpu = await world(slabScene(), 'cpu');
    const gpu = await world(slabScene(), 'gpu');
    for (let s = 0; s < 40; s++) {
      await cpu.world.step();
      await gpu.world.step();
    }
    const a = cpu.soft.system.pos, b = gpu.soft.system.pos;
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    // The twins differ by f32 rounding and the bakes by 1e-4 cell (DESIGN.md 3): a tenth of a millimetre after a bounce.
    expect(worst).toBeLessThan(1e-4);
    expect(cpu.soft.system.centroid(0)[1]).toBeGreaterThan(0.2);
  });

  it('keeps momentum within 0.1 % when a soft ball hits a free rigid box in free space', async () => {
    const s = scene({
      dt: 0.005,
      gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [0.3, 0.3, 0.3], sdf: { cells: 24 } }, ball: { type: 'sphere', radius: 0.15, segments: [16, 10] } },
      bodies: [{ name: 'box', shape: 'box', position: [0.5, 0.05, 0], mass: 6, rotation: { axis: [0, 1, 1], degrees: 20 } }],
      softBodies: [{ name: 'ball', shape: 'ball', position: [0, 0, 0], velocity: [4, 0, 0], mass: 4, construction: { resolution: 5 }, stiffness: 1e5, damping: 0.3 }],
    });
    const { world: w, soft } = await world(s);
    const total = (): number[] => {
      const p = soft.system.momentum();
      const B = w.bodies;
      return [0, 1, 2].map((k) => p[k]! + B.mass[0]! * B.vel[k]!);
    };
    const before = total();
    expect(before[0]).toBeCloseTo(16, 9);
    let touched = false;
    for (let step = 0; step < 120; step++) {
      await w.step();
      touched ||= soft.stats.active > 0;
    }
    expect(touched).toBe(true);
    // The box was hit: it moves on along x with a good part of the momentum.
    expect(w.bodies.vel[0]!).toBeGreaterThan(1);
    const after = total();
    for (let k = 0; k < 3; k++) expect(Math.abs(after[k]! - before[k]!)).toBeLessThan(1e-3 * 16);
  });

  it('a heavy soft ball tips the seesaw and throws the light box; a light one does not', async () => {
    const angles: Record<number, { least: number; lightTop: number }> = {};
    for (const mass of [40, 1]) {
      const { world: w } = await world(validateScene(builtinScene('soft-seesaw', { mass }), 'seesaw'));
      const B = w.bodies, plank = B.names.indexOf('plank'), light = B.names.indexOf('light');
      let least = Infinity, lightTop = -Infinity;
      for (let s = 0; s < 80; s++) {
        await w.step();
        least = Math.min(least, (2 * Math.asin(B.quat[4 * plank + 2]!) * 180) / Math.PI);
        lightTop = Math.max(lightTop, B.pos[3 * light + 1]!);
      }
      angles[mass] = { least, lightTop };
    }
    // The plank starts at +11.3 degrees (left end, with the light box, down); 40 kg on the right end tips it
    // past level to the right end's ground contact (-11.3) and throws the 1 kg box; 1 kg does not tip it.
    expect(angles[40]!.least).toBeLessThan(-10);
    expect(angles[40]!.lightTop).toBeGreaterThan(0.8);
    expect(angles[1]!.least).toBeGreaterThan(5);
    expect(angles[1]!.lightTop).toBeLessThan(0.45);
  });

  it('holds a rigid box on a soft cube: the box sinks in, squashing the cube, and stays on it', async () => {
    const { world: w, soft } = await world(validateScene(builtinScene('soft-volume', { load: 60 }), 'volume'));
    const B = w.bodies;
    for (let s = 0; s < 300; s++) await w.step();
    const sys = soft.system;
    for (const [body, cube] of [['loadOn', 0], ['loadOff', 1]] as const) {
      const i = B.names.indexOf(body);
      const y = B.pos[3 * i + 1]!;
      // Resting on the cube (0.6 m high unloaded), lower than unloaded (0.7), well above the ground.
      expect(y).toBeLessThan(0.69);
      expect(y).toBeGreaterThan(0.35);
      expect(Math.hypot(B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!)).toBeLessThan(0.05);
      // Above the cube's top particles: the box did not pass into it.
      let top = -Infinity;
      const b = sys.bodies[cube]!;
      for (let p = b.particleStart; p < b.particleStart + b.particleCount; p++) top = Math.max(top, sys.pos[3 * p + 1]!);
      expect(y - 0.1).toBeGreaterThan(top - 0.03);
    }
    // Volume preservation holds the loaded cube's volume; without it the cube gives way more.
    const on = sys.volumeOf(0) / sys.bodies[0]!.restVolume, off = sys.volumeOf(1) / sys.bodies[1]!.restVolume;
    expect(on).toBeGreaterThan(0.95);
    expect(off).toBeLessThan(on - 0.03);
  });
});

describe('soft against soft', () => {
  it('a blob dropped on a soft pad rests on it without passing into it, both keeping their volume', async () => {
    const s = scene({
      dt: 0.01,
      shapes: { floor: { type: 'plane' }, blob: { type: 'sphere', radius: 0.2, segments: [16, 12] }, pad: { type: 'box', size: [0.8, 0.3, 0.8] } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }],
      softMaterials: { jelly: { stiffness: 20000, damping: 0.5, preserveVolume: true } },
      softBodies: [
        { name: 'lower', shape: 'pad', material: 'jelly', position: [0, 0.15, 0], construction: { resolution: 8 } },
        { name: 'upper', shape: 'blob', material: 'jelly', position: [0.03, 1, 0.02], construction: { resolution: 6 } },
      ],
    });
    const { world: w, soft } = await world(s);
    const sys = soft.system;
    let pairs = 0;
    for (let step = 0; step < 250; step++) {
      await w.step();
      pairs = Math.max(pairs, soft.stats.pairs);
    }
    expect(pairs).toBeGreaterThan(0);
    const lower = sys.centroid(0), upper = sys.centroid(1);
    // Stacked: the blob's centre about its radius plus the pad's half height (0.35 m, less the squash) above the pad's.
    expect(upper[1] - lower[1]).toBeGreaterThan(0.28);
    expect(Math.hypot(upper[0] - lower[0], upper[2] - lower[2])).toBeLessThan(0.2);
    for (let b = 0; b < 2; b++) expect(sys.volumeOf(b) / sys.bodies[b]!.restVolume).toBeGreaterThan(0.93);
    // No particle of one is deep inside the other's hull: each upper particle is above every lower particle
    // near it horizontally, give or take a lattice spacing.
    const L = sys.bodies[0]!, U = sys.bodies[1]!;
    let lowestUpper = Infinity;
    for (let p = U.particleStart; p < U.particleStart + U.particleCount; p++) lowestUpper = Math.min(lowestUpper, sys.pos[3 * p + 1]!);
    let topLower = -Infinity;
    for (let p = L.particleStart; p < L.particleStart + L.particleCount; p++) topLower = Math.max(topLower, sys.pos[3 * p + 1]!);
    expect(lowestUpper).toBeGreaterThan(topLower - 0.5 * L.model.spacing);
  });

  it('pushes a soft particle pair apart at most PAIR_PUSH_SPEED h in a substep; a shallow overlap at once', () => {
    const pair = (gap: number): Float64Array => {
      const sys = new SoftStore();
      sys.particleCount = 2;
      sys.pos = Float64Array.of(0, 0, 0, gap, 0, 0);
      sys.vel = new Float64Array(6);
      sys.mass = Float64Array.of(1, 1);
      sys.invMass = Float64Array.of(1, 1);
      const contacts = new SoftContacts(new RigidMotion());
      contacts.clear(0);
      contacts.addPair(1, 0, 0.25, 0.5, 0);
      contacts.resolve(sys, sys.pos.slice(), 1e-3, 1);
      return sys.pos;
    };
    // 0.25 m deep: 3 m/s x 1 ms = 3 mm apart, 1.5 mm each (uncapped, the whole 0.25 m at once).
    const deep = pair(1e-9);
    expect(deep[3]! - deep[0]!).toBeCloseTo(1e-9 + PAIR_PUSH_SPEED * 1e-3, 12);
    expect(deep[0]! + deep[3]!).toBeCloseTo(1e-9, 12);
    // 1 mm deep: apart to the sum of the radii in the one substep.
    const shallow = pair(0.249);
    expect(shallow[3]! - shallow[0]!).toBeCloseTo(0.25, 12);
  });

  it('two soft boxes started one inside the other: a warning names both, and contact does not blow them up', async () => {
    const warnings: string[] = [];
    const b = await backend('cpu');
    const s = scene({
      dt: 0.01,
      shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 8 } } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }],
      softBodies: [
        { name: 's1', shape: 'box', position: [0, 1, 0], construction: { resolution: 2 } },
        { name: 's2', shape: 'box', position: [0, 1, 0], construction: { resolution: 2 } },
      ],
    });
    const w = await createWorld(s, b.query, { readText: async () => '', bake: b.bake, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([
      'coupling.json: softBodies[1] ("s2") starts exactly where softBodies[0] ("s1") is, with the same shape and orientation: ' +
        'each lies inside the other, and contact can only push their particles apart one by one, in no particular direction, so they tangle; move one',
    ]);
    const sys = (w.soft as SoftCoupling).system;
    const e0 = sys.energy().total;
    let most = e0;
    for (let step = 0; step < 50; step++) {
      await w.step();
      most = Math.max(most, sys.energy().total);
    }
    // They tangle, but the pairs' push, held to PAIR_PUSH_SPEED, adds little (measured: at most 1.88 times the
    // start, 2.5 kJ); pushed apart a whole spacing in a substep, 13.9 times, 34 kJ in the third step.
    expect(most).toBeLessThan(2.5 * e0);
  });

  it('warns of a soft body that starts exactly where a rigid body of its shape is, and of none a hair away', async () => {
    const warnings: string[] = [];
    const b = await backend('cpu');
    const s = scene({
      dt: 0.01,
      shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 8 } } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'crate', shape: 'box', position: [2, 1, 0] }],
      softBodies: [
        { name: 'jelly', shape: 'box', position: [2, 1, 0], construction: { resolution: 2 } },
        { name: 'near', shape: 'box', position: [0, 1, 1e-6], construction: { resolution: 2 } },
        { name: 'other', shape: 'box', position: [0, 1, 0], construction: { resolution: 2 } },
      ],
    });
    await createWorld(s, b.query, { readText: async () => '', bake: b.bake, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([
      'coupling.json: softBodies[0] ("jelly") starts exactly where bodies[1] ("crate") is, with the same shape and orientation: ' +
        'its particles lie on and inside the rigid body, and all are pushed out of it at once; move one',
    ]);
  });
});

describe('the soft stage in World', () => {
  it('is timed as stage "soft", and the stages still add up to the step', async () => {
    const { world: w } = await world(slabScene());
    let total = 0, sum = 0, softMs = 0;
    for (let s = 0; s < 20; s++) {
      await w.step();
      total += w.profile.totalMs;
      for (const st of STAGES) sum += w.profile.ms[st];
      softMs += w.profile.ms.soft;
    }
    expect(softMs).toBeGreaterThan(0);
    expect(sum).toBeLessThanOrEqual(total * 1.0001);
    expect(sum).toBeGreaterThan(0.95 * total);
  });

  it('books "soft" in the declared stage order, after the velocity update and before the contact query, every step', async () => {
    const { world: w } = await world(slabScene());
    const declared = stageOrder(w.solver.scheme, w.solver.contactSolver);
    for (const booked of await stagesBooked(w, 10)) {
      expect(booked).toContain('soft');
      expect(booked).toEqual(declared.filter((st) => booked.includes(st)));
    }
  });

  it('saves and restores the soft bodies with the world, so a run can go on from a saved step', async () => {
    const { world: w, soft } = await world(validateScene(builtinScene('soft-seesaw', {}), 'seesaw'));
    for (let s = 0; s < 45; s++) await w.step();
    const saved = w.saveState();
    const at = soft.system.pos.slice();
    for (let s = 0; s < 10; s++) await w.step();
    const first = soft.system.centroid(0);
    w.restoreState(saved);
    expect(soft.system.time).toBeCloseTo(0.45, 12);
    expect([...soft.system.pos]).toEqual([...at]);
    for (let s = 0; s < 10; s++) await w.step();
    // The ball, landed on the plank at about step 40, goes on exactly as before: the restored state
    // rewinds the collision phase's pair shuffle too (the plank's two impacts, with the ball and with
    // its pivot, depend on their order), and here the contact caches it drops change no figure.
    const again = soft.system.centroid(0);
    expect([...again]).toEqual([...first]);
  });

  it('finds the rest shapes where the narrow phase uploaded them (the shapes with a field, in order)', async () => {
    const seen: QueryShape[][] = [];
    const b = await backend('cpu');
    const spy: PenetrationBackend = {
      kind: 'cpu',
      counters: b.query.counters,
      setShapes: (s) => {
        seen.push([...s]);
        b.query.setShapes(s);
      },
      setSampleSet: (k, p, n) => b.query.setSampleSet(k, p, n),
      query: (batch) => b.query.query(batch),
      destroy: () => {},
    };
    const s = validateScene(builtinScene('soft-seesaw', {}), 'seesaw');
    const w = await createWorld(s, spy, { readText: async () => '', bake: b.bake });
    const soft = w.soft as SoftCoupling;
    const index = queryShapeIndices(w.shapes);
    const uploaded = seen.at(-1)!;
    // The ball's rest shape is a world shape no rigid body uses, and the query knows it by that index.
    const rest = soft.restShape[0]!;
    expect(w.shapes[rest]!.name).toBe('ball');
    expect(uploaded[index[rest]!]!.sdf).toBe(w.shapes[rest]!.sdf);
    for (let k = 0; k < w.shapes.length; k++) if (index[k]! >= 0) expect(uploaded[index[k]!]!.samples).toBe(w.shapes[k]!.samples);
  });
});

describe('a sleeping rigid body a soft body lands on', () => {
  // A 50 kg block asleep on the floor when a 108 kg soft cube lands on it
  // from 2.2 m. The soft stage wakes the block and pushes it down; its
  // pair with the floor (left out while it slept) must be found again before
  // the contact phase, or nothing holds it for a whole step and it sank
  // 31 mm into the floor (with sleep off: 0 mm).
  for (const sleep of [true, false]) {
    it(`is held by the floor on landing (sleep ${sleep})`, async () => {
      const { world: w } = await world(
        scene({
          dt: 0.01,
          sleep,
          shapes: { floor: { type: 'plane' }, cube: { type: 'box', size: [0.6, 0.6, 0.6] }, blk: { type: 'box', size: [1.5, 0.5, 1.5] } },
          bodies: [
            { name: 'ground', shape: 'floor', static: true },
            { name: 'block', shape: 'blk', position: [0, 0.25, 0], mass: 50 },
          ],
          softMaterials: { m: { stiffness: 1e5, damping: 0.5, density: 500 } },
          softBodies: [{ name: 'jelly', shape: 'cube', material: 'm', position: [0.1, 3.0, 0], construction: { resolution: 6 } }],
        }),
      );
      let lowest = Infinity, asleepBefore = false;
      for (let i = 0; i < 100; i++) {
        asleepBefore ||= w.bodies.asleep[1] === 1;
        await w.step();
        lowest = Math.min(lowest, w.bodies.pos[4]!);
      }
      if (sleep) expect(asleepBefore).toBe(true);
      expect(0.25 - lowest).toBeLessThan(0.002);
    });
  }
});
