/**
 * The pair list's merge (pairs.ts): rebuilding the list keeps what each
 * surviving pair carried. The collision phase's stamp (impactStep) must
 * survive a rebuild within the step, when sleeping bodies wake and the pairs
 * are found again, or the accumulated stage would bounce a pair the phase
 * already bounced.
 */
import { describe, expect, it } from 'vitest';
import { PairList } from '../../src/dynamics/pairs.ts';

describe('PairList', () => {
  it('keeps a surviving pair\'s collision stamp through a rebuild, and starts new pairs at -1', () => {
    const p = new PairList();
    p.begin(4);
    p.add(0, 1, 0);
    p.add(1, 2, 0);
    p.add(2, 3, 0);
    expect([...p.impactStep.subarray(0, 3)]).toEqual([-1, -1, -1]);
    p.impactStep[1] = 7;
    p.impactStep[2] = 6;
    // Found again: (0, 1) and (2, 3) survive, (1, 2) is gone, (0, 3) is new.
    p.begin(4);
    p.add(0, 1, 0);
    p.add(0, 3, 0);
    p.add(2, 3, 0);
    expect(p.count).toBe(3);
    expect([...p.impactStep.subarray(0, 3)]).toEqual([-1, -1, 6]);
    // Many pairs: the columns grow and the stamps still follow their pairs.
    p.begin(200);
    for (let a = 0; a < 100; a++) p.add(a, a + 1, 0);
    for (let k = 0; k < 100; k++) p.impactStep[k] = 1000 + k;
    p.begin(200);
    for (let a = 0; a < 100; a += 2) p.add(a, a + 1, 0);
    expect(p.count).toBe(50);
    for (let k = 0; k < 50; k++) expect(p.impactStep[k]).toBe(1000 + 2 * k);
  });
});
