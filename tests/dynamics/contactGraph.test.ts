import { describe, expect, it } from 'vitest';
import { ContactGraph } from '../../src/dynamics/contactGraph.ts';
import { ContactSet } from '../../src/dynamics/contacts.ts';
import { pairSupport } from '../../src/dynamics/levels.ts';

function levels(n: number, edges: [number, number][], statics: number[] = []): number[] {
  const g = new ContactGraph();
  g.reset(n);
  for (const [u, v] of edges) g.addEdge(u, v);
  const ex = new Uint8Array(n);
  for (const s of statics) ex[s] = 1;
  g.solve(ex);
  return Array.from(g.level.subarray(0, n));
}

describe('contact graph levels (strongly connected components)', () => {
  it('a stack: each body one level above its supporter, the ground excluded', () => {
    // 0 = ground (static), 1 on the ground, 2 on 1, 3 on 2.
    expect(levels(4, [[0, 1], [1, 2], [2, 3]], [0])).toEqual([-1, 0, 1, 2]);
  });

  it("the seed's fig. 18 shape: two bodies leaning on each other share a level above their support", () => {
    // 1 on the ground; 2 and 3 both on 1 and leaning on each other (cycle); 4 on both.
    const l = levels(5, [[0, 1], [1, 2], [1, 3], [2, 3], [3, 2], [2, 4], [3, 4]], [0]);
    expect(l).toEqual([-1, 0, 1, 1, 2]);
  });

  it('a ring of dominoes, each leaning on the next, is one level above the ground', () => {
    const n = 30;
    const edges: [number, number][] = [];
    for (let i = 1; i <= n; i++) {
      edges.push([0, i]);
      edges.push([i, (i % n) + 1]);
    }
    const l = levels(n + 1, edges, [0]);
    expect(l[0]).toBe(-1);
    expect(new Set(l.slice(1))).toEqual(new Set([0]));
  });

  it('independent stacks share levels; a body on two stacks goes above the higher one', () => {
    // stack A: 1 <- 2 <- 3 ; stack B: 4 ; body 5 on 3 and 4.
    const l = levels(6, [[0, 1], [1, 2], [2, 3], [0, 4], [3, 5], [4, 5]], [0]);
    expect(l).toEqual([-1, 0, 1, 2, 0, 3]);
  });

  it('with no edges (nothing touches), every dynamic body is level 0 of one level; with only static bodies, no level', () => {
    const g = new ContactGraph();
    g.reset(5);
    g.solve(Uint8Array.from([1, 0, 0, 1, 0]));
    expect(Array.from(g.level.subarray(0, 5))).toEqual([-1, 0, 0, -1, 0]);
    expect(g.levelCount).toBe(1);
    expect(g.componentCount).toBe(3);
    g.reset(2);
    g.solve(Uint8Array.from([1, 1]));
    expect(g.levelCount).toBe(0);
  });

  it('one graph solved again and again, larger and smaller, gives what a fresh graph gives', () => {
    // The solve keeps its scratch between steps: random supports among
    // 10-300 bodies, 20 times, against a new graph each time.
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const g = new ContactGraph();
    for (let t = 0; t < 20; t++) {
      const n = 10 + Math.floor(rnd() * 290);
      const edges: [number, number][] = [];
      for (let e = 0; e < n; e++) edges.push([Math.floor(rnd() * n), Math.floor(rnd() * n)]);
      const ex = new Uint8Array(n);
      for (let i = 0; i < n; i += 7) ex[i] = 1;
      g.reset(n);
      for (const [u, v] of edges) g.addEdge(u, v);
      g.solve(ex);
      const fresh = new ContactGraph();
      fresh.reset(n);
      for (const [u, v] of edges) fresh.addEdge(u, v);
      fresh.solve(ex);
      expect(Array.from(g.level.subarray(0, n))).toEqual(Array.from(fresh.level.subarray(0, n)));
      expect(g.levelCount).toBe(fresh.levelCount);
    }
  });

  it('handles a 100 000-body chain without overflowing the stack', () => {
    const n = 100_000;
    const edges: [number, number][] = [];
    for (let i = 0; i + 1 < n; i++) edges.push([i, i + 1]);
    const l = levels(n, edges);
    expect(l[n - 1]).toBe(n - 1);
  });
});

describe('which body of a pair supports the other (pairSupport)', () => {
  /** Pair 0 of bodies a = 1 and b = 2 with the given points: [owner (body 1), normal out of the other, phi]. */
  function pair(points: [number, [number, number, number], number][]): ContactSet {
    const cs = new ContactSet();
    cs.clear(1);
    cs.open(0);
    for (const [owner, n, phi] of points) cs.push(owner, owner === 1 ? 2 : 1, 0, 0, 0, n[0], n[1], n[2], phi, phi, 0, 1);
    cs.close();
    return cs;
  }

  it('all penetrating points decide, not the deepest alone: a box leaning on another is above it', () => {
    // b rests on a's top face (two of a's samples in b's bottom face: b's
    // normal there points down, so a is pushed down and b up), and b's rim is
    // pressed into a's side (the deepest point, its normal level but for a
    // slight downward tilt: by that point alone, b would hold a up).
    const cs = pair([
      [2, [1, -0.05, 0], -0.02],
      [1, [0, -1, 0], -0.005],
      [1, [0, -1, 0], -0.004],
    ]);
    expect(pairSupport(cs, 0, 2, 0, 1, 0)).toBeCloseTo(-0.05 + 1 + 1, 12);
    expect(pairSupport(cs, 0, 1, 0, 1, 0)).toBeCloseTo(-(-0.05 + 1 + 1), 12);
    // Upside down (gravity up), the same contact makes a the supported one.
    expect(pairSupport(cs, 0, 2, 0, -1, 0)).toBeLessThan(0);
  });

  it('points pushing both ways sum: the larger share wins', () => {
    const cs = pair([
      [2, [0, 1, 0], -0.01],
      [2, [0, 1, 0], -0.01],
      [1, [0, 1, 0], -0.03],
    ]);
    // Two of b's samples are pushed up, one of a's (the deepest) is: b is the supported one.
    expect(pairSupport(cs, 0, 2, 0, 1, 0)).toBeCloseTo(1, 12);
  });

  it('a pair only touching within its band is decided by its deepest point; a pair without points by none', () => {
    const cs = pair([
      [2, [0, -1, 0], 0.003],
      [1, [0, -1, 0], 0.001],
    ]);
    expect(pairSupport(cs, 0, 2, 0, 1, 0)).toBe(1);
    expect(pairSupport(pair([]), 0, 2, 0, 1, 0)).toBeNaN();
  });
});
