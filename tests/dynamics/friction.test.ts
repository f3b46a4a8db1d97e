import { describe, expect, it } from 'vitest';
import { inclineScene, pos, run, slideAcceleration, vel, worldFrom } from './helpers.ts';

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
});
