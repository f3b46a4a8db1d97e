import { describe, expect, it } from 'vitest';
import type { BackendKind } from '../../src/collision/query.ts';
import { bodyIndex, builtinWorld, FORMAT, inclineScene, pos, queryWorld, run, slideAcceleration, vel, worldFrom } from './helpers.ts';

function incline(deg: number, mu: number, restitution = 0, scheme = 'separated') {
  return inclineScene(deg, mu, restitution, { scheme });
}

describe('friction on an incline', () => {
  it('a box sticks when mu > tan(theta)', async () => {
    const w = await worldFrom(incline(20, 0.6)); // tan 20 deg = 0.364
    const p0 = pos(w, 'box');
    await run(w, 200);
    const p1 = pos(w, 'box');
    expect(Math.hypot(p1[0] - p0[0], p1[1] - p0[1])).toBeLessThan(0.01);
  });

  it('a box slides with a = g (sin theta - mu cos theta) when mu < tan(theta)', async () => {
    const deg = 30, mu = 0.2;
    const th = (deg * Math.PI) / 180;
    const a = await slideAcceleration(await worldFrom(incline(deg, mu)), deg);
    const expected = 9.81 * (Math.sin(th) - mu * Math.cos(th));
    expect(Math.abs(a - expected) / expected).toBeLessThan(0.1);
  });

  it.each(['cpu', 'gpu'] as const)('%s: a block riding on a block slides down with it at g (sin - mu cos) of the floor (shock propagation takes no momentum out)', async (backend) => {
    // 2 kg below (friction 0.2 with the slope), 1 kg on top (0.8 between
    // them: they stick). Shock propagation froze the lower block and stopped
    // the upper one's residual slip on it with the passes' spare friction, so
    // the pair slid at 3.114 m/s^2 (as if the floor's mu were 0.211).
    const th = Math.PI / 6, mu = 0.2, g = 9.81;
    const w = await queryWorld({
      format: FORMAT, dt: 0.01,
      shapes: { floor: { type: 'plane' }, b: { type: 'box', size: [1, 1, 1], sdf: { cells: 16 } }, t: { type: 'box', size: [0.6, 0.6, 0.6], sdf: { cells: 16 } } },
      bodies: [
        { name: 'floor', shape: 'floor', static: true, rotation: { axis: [0, 0, 1], degrees: 30 }, friction: mu },
        { name: 'bot', shape: 'b', rotation: { axis: [0, 0, 1], degrees: 30 }, position: [-0.25, 0.4330127, 0], friction: mu, mass: 2 },
        { name: 'top', shape: 't', rotation: { axis: [0, 0, 1], degrees: 30 }, position: [-0.65, 1.125833, 0], friction: 0.8, mass: 1 },
      ],
    }, backend);
    const along = (name: string): number => { const v = vel(w, name); return -(v[0] * Math.cos(th) + v[1] * Math.sin(th)); };
    await run(w, 50);
    const b0 = along('bot');
    await run(w, 50);
    const a = (along('bot') - b0) / 0.5, theory = g * (Math.sin(th) - mu * Math.cos(th));
    expect(Math.abs(a / theory - 1)).toBeLessThan(0.005);
    // Riding along: the top block moves with the lower one.
    expect(Math.abs(along('top') - along('bot'))).toBeLessThan(0.01);
  });

  it('the elastic box on an incline: the standard scheme bounces, the separated scheme keeps contact', async () => {
    // Seed fig. 14 / 27: restitution 1, friction high enough to hold the box.
    const motion = async (scheme: string) => {
      const w = await worldFrom({ ...incline(20, 1, 1, scheme), sleep: false });
      const th = (20 * Math.PI) / 180;
      const p0 = pos(w, 'box');
      let maxAway = 0;
      let maxSpin = 0;
      await run(w, 300, (ww) => {
        const v = vel(ww, 'box');
        maxAway = Math.max(maxAway, -Math.sin(th) * v[0] + Math.cos(th) * v[1]);
        maxSpin = Math.max(maxSpin, Math.hypot(ww.bodies.angVel[3]!, ww.bodies.angVel[4]!, ww.bodies.angVel[5]!));
      });
      const p1 = pos(w, 'box');
      return { maxAway, maxSpin, moved: Math.hypot(p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]) };
    };
    const standard = await motion('standard');
    const separated = await motion('separated');
    // Standard: every step the box hits the slope at g dt and is thrown back
    // elastically; hopping, it creeps down the slope although friction holds it.
    expect(standard.maxAway).toBeGreaterThan(0.03);
    expect(standard.moved).toBeGreaterThan(0.02);
    // Separated: resting contact, no bounce, no tumbling, no creep.
    expect(separated.maxAway).toBeLessThan(0.01);
    expect(separated.maxSpin).toBeLessThan(0.1);
    expect(separated.moved).toBeLessThan(0.005);
  });

  it('the incline built-in (seed fig. 27): standard = 1 bounces higher every hop, exactly as the discrete step predicts; standard = 0 slides in contact', async () => {
    const th = (20 * Math.PI) / 180, g = 9.81, dt = 0.01, mu = 0.2;
    const gn = g * Math.cos(th);
    // Height of the box's centre above its resting height (half its 0.4 m size), and its normal velocity.
    const normal = (w: Awaited<ReturnType<typeof builtinWorld>>) => {
      const p = pos(w, 'box'), v = vel(w, 'box');
      return { h: -Math.sin(th) * p[0] + Math.cos(th) * p[1] - 0.2, vn: -Math.sin(th) * v[0] + Math.cos(th) * v[1] };
    };
    // Standard: collisions see the velocity the step's gravity gave, so the
    // box collides every time it comes down, and the collision reflects that
    // step's gravity too: each takeoff is g cos dt faster than the last
    // (k g cos dt, k = 2, 3, ...), and a hop at k g cos dt rises
    // k (k + 1) / 2 g cos dt^2 above where it took off from (x += dt v with v
    // falling by g cos dt a step), less one g cos dt^2 where the box came
    // down onto the slope a step early (the contact passes close a gap the
    // step would cross, so the last step of its fall is one shorter).
    const w = await builtinWorld('incline', { standard: 1 });
    let prev = normal(w);
    let launch = 0, k = 0;
    const hops: { k: number; rise: number }[] = [];
    let lowest = Infinity;
    await run(w, 400, (ww) => {
      const now = normal(ww);
      lowest = Math.min(lowest, now.h);
      if (prev.vn < 0 && now.vn > 0) {
        launch = prev.h;
        k = now.vn / (gn * dt);
      } else if (prev.vn > 0 && now.vn <= 0 && k > 0) {
        hops.push({ k, rise: now.h - launch });
      }
      prev = now;
    });
    expect(hops.length).toBeGreaterThanOrEqual(15);
    hops.forEach((hop, i) => {
      expect(Math.abs(hop.k - (hops[0]!.k + i)), `hop ${i}`).toBeLessThan(1e-9);
      const k = Math.round(hop.k);
      const steps = hop.rise / (gn * dt * dt);
      expect(Math.abs(steps - Math.round(steps)), `hop ${i}`).toBeLessThan(1e-6);
      expect(Math.round(steps), `hop ${i}`).toBeGreaterThanOrEqual((k * (k + 1)) / 2 - 1);
      expect(Math.round(steps), `hop ${i}`).toBeLessThanOrEqual((k * (k + 1)) / 2);
    });
    // Visible: the last hops clear the slope by more than a third of the box's size, and it never sinks into it.
    expect(hops.at(-1)!.rise).toBeGreaterThan(0.15);
    expect(lowest).toBeGreaterThan(-1e-4);
    // Separated: after the 1 mm fall onto the slope the box never leaves it
    // (no hop, no normal velocity) and slides at g (sin - mu cos).
    const s = await builtinWorld('incline', { standard: 0 });
    await run(s, 10);
    const h0 = normal(s).h;
    const v0 = Math.hypot(...vel(s, 'box'));
    let worstH = 0, worstVn = 0;
    await run(s, 300, (ww) => {
      const now = normal(ww);
      worstH = Math.max(worstH, Math.abs(now.h - h0));
      worstVn = Math.max(worstVn, Math.abs(now.vn));
    });
    expect(worstH).toBeLessThan(1e-5);
    expect(worstVn).toBeLessThan(1e-6);
    const a = (Math.hypot(...vel(s, 'box')) - v0) / (300 * dt);
    expect(Math.abs(a / (g * (Math.sin(th) - mu * Math.cos(th))) - 1)).toBeLessThan(0.01);
  });
});

/**
 * A box w wide and h tall on a slope with friction enough to hold it tips
 * over its downhill edge once the slope passes atan(w / h): the resultant of
 * weight and support then passes outside its foot. For 0.5 x 1 m, 26.57
 * degrees. The box stands on a thick slab (a box shape) at 60 Hz, where the
 * face's torque and its friction are one coupled impulse (applyFlatStick).
 */
function tallBoxOnSlope(deg: number, contactPose: 'predicted' | 'current' = 'predicted') {
  const th = (deg * Math.PI) / 180;
  const h = 0.1 + 0.5 + 1e-4;
  return {
    format: FORMAT, dt: 1 / 60, sleep: false, solver: { contactPose },
    shapes: { slab: { type: 'box', size: [4, 0.2, 1.5], sdf: { cells: 64 } }, tall: { type: 'box', size: [0.5, 1, 0.5], sdf: { cells: 24 } } },
    bodies: [
      { name: 'slab', shape: 'slab', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, friction: 0.8, restitution: 0 },
      { name: 'tall', shape: 'tall', position: [-Math.sin(th) * h, Math.cos(th) * h, 0], rotation: { axis: [0, 0, 1], degrees: deg }, friction: 0.8, restitution: 0 },
    ],
  };
}

/** The tall box's tilt off the slope (degrees, positive downhill) after 3 s on a `deg` slope. */
async function tiltAfter(deg: number, backend: BackendKind, contactPose: 'predicted' | 'current' = 'predicted'): Promise<number> {
  const w = await queryWorld(tallBoxOnSlope(deg, contactPose), backend);
  await run(w, 180);
  const q = w.bodies.quat;
  return (2 * Math.atan2(q[6]!, q[7]!) * 180) / Math.PI - deg;
}

describe('tipping on a slope (both backends)', () => {
  for (const backend of ['cpu', 'gpu'] as const) {
    it(`${backend}: a 0.5 x 1 m box stands upright 1 degree below atan(1/2) and tips over 1 degree above`, async () => {
      const critical = (Math.atan(0.5) * 180) / Math.PI;
      // Standing: square on its face (the alternation of torque and friction
      // left it leaning 0.7 degrees downhill, on the way to tipping early).
      expect(Math.abs(await tiltAfter(critical - 1, backend))).toBeLessThan(0.05);
      expect(await tiltAfter(critical + 1, backend)).toBeGreaterThan(60);
    });
  }
  it('cpu, contacts at the current pose: the same box stands 1 degree below and tips 1 degree above', async () => {
    // A face taken where it touches now is pushed where it presses at the
    // prediction (its downhill side once it tips), not at its middle: with
    // the middle, it stood 1 degree above the critical slope too.
    const critical = (Math.atan(0.5) * 180) / Math.PI;
    expect(Math.abs(await tiltAfter(critical - 1, 'cpu', 'current'))).toBeLessThan(0.05);
    expect(await tiltAfter(critical + 1, 'cpu', 'current')).toBeGreaterThan(60);
  });
});

describe('friction against a spin about the contact normal', () => {
  it.each(['cpu', 'gpu'] as const)('%s: a 1 m box spinning flat on the floor is braked by at most mu m g times half its face diagonal', async (backend) => {
    // A 10 kg cube of 1 m spinning at 5 rad/s about the vertical, mu 0.5.
    // Coulomb friction under a uniformly pressed square brakes it with
    // mu m g 0.383 m = 18.8 N m; no pressure distribution can exceed mu m g
    // times the corner's distance, 0.707 m (34.7 N m), the bound the patch
    // holds (docs/ALGORITHM.md 5: half the extent's diagonal). The extent
    // was measured along the patch's principal directions, which for a
    // square may be its diagonals: 1.41 m, so the box was braked with
    // 49.05 N m, mu m g times 1 m.
    const w = await queryWorld({
      format: FORMAT, dt: 0.01, sleep: false,
      shapes: { floor: { type: 'plane' }, b: { type: 'box', size: [1, 1, 1] } },
      bodies: [
        { name: 'floor', shape: 'floor', static: true, friction: 0.5 },
        { name: 'box', shape: 'b', mass: 10, position: [0, 0.5, 0], angularVelocity: [0, 5, 0], friction: 0.5 },
      ],
    }, backend);
    const i = bodyIndex(w, 'box');
    await run(w, 2);
    const w0 = w.bodies.angVel[3 * i + 1]!;
    await run(w, 10);
    const w1 = w.bodies.angVel[3 * i + 1]!;
    const torque = ((w0 - w1) / 0.1) * (10 / 6);
    const bound = 0.5 * 10 * 9.81 * Math.SQRT1_2;
    expect(torque).toBeGreaterThan(0.5 * 10 * 9.81 * 0.38);
    expect(torque).toBeLessThan(bound * 1.001);
  });
});
