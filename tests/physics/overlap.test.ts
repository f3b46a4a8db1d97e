/**
 * Bodies that start interpenetrated (issue "Physics a physicist would sign",
 * item 7): thin-walled cups, L-blocks and rings placed up to 6 cm into each
 * other come apart within 1.5 s, without being thrown: the correction moves
 * positions (split impulse), so no body ever gets fast. On both backends.
 */
import { describe, expect, it } from 'vitest';
import { queryWorld, run } from '../dynamics/helpers.ts';
import { CUP, LBLOCK, RING, overlapping } from './scenes.ts';

const CASES = [
  ['two cups side by side, walls 6 cm into each other', overlapping(CUP, { position: [0, 0.121, 0] }, { position: [0.26, 0.121, 0] })],
  ['a cup 6 cm down inside an equal cup (walls crossing)', overlapping(CUP, { position: [0, 0.121, 0] }, { position: [0, 0.181, 0] })],
  ['two L-blocks crossed 6 cm into each other', overlapping(LBLOCK, { position: [0, 0.001, 0] }, { position: [0.06, 0.001, 0.09] })],
  ['two rings whose tubes cross by 5 cm', overlapping(RING, { position: [0, 0.071, 0] }, { position: [0.25, 0.071, 0], rotation: { axis: [1, 0, 0], degrees: 10 } })],
] as const;

describe.each(['cpu', 'gpu'] as const)('interpenetrated starts (%s)', (backend) => {
  it.each(CASES)('%s: apart within 1.5 s, nothing thrown, never asleep while still crossed', async (_, scene) => {
    const w = await queryWorld(scene, backend);
    let fastest = 0;
    let wasAsleep = 0, depthAtSleep = 0;
    await run(w, 150, (ww) => {
      for (let i = 1; i < ww.bodies.count; i++) {
        fastest = Math.max(fastest, Math.hypot(ww.bodies.vel[3 * i]!, ww.bodies.vel[3 * i + 1]!, ww.bodies.vel[3 * i + 2]!));
      }
      // The correction moves positions, not velocities: a pair being pushed
      // apart is slow but not still, and must not fall asleep crossed (a
      // sleeping pair has no contacts, so its depth would read 0 from then
      // on). The step a body falls asleep still reports its contacts.
      if (ww.profile.asleep > wasAsleep) depthAtSleep = Math.max(depthAtSleep, ww.deepestPenetration());
      wasAsleep = ww.profile.asleep;
    });
    await w.step();
    // Apart: what is left is the resting contacts' depth (under a millimetre).
    expect(w.deepestPenetration()).toBeLessThan(1e-3);
    expect(depthAtSleep).toBeLessThan(1e-3);
    // Not ejected: no body ever faster than a short drop gives (0.5 m/s).
    expect(fastest).toBeLessThan(0.5);
    // Both still on the ground, near where they started.
    for (let i = 1; i < w.bodies.count; i++) expect(w.bodies.pos[3 * i + 1]!).toBeLessThan(0.5);
  });
});
