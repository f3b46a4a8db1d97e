import { describe, expect, it } from 'vitest';
import { ContactGraph } from '../../src/dynamics/contactGraph.ts';

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

  it('handles a 100 000-body chain without overflowing the stack', () => {
    const n = 100_000;
    const edges: [number, number][] = [];
    for (let i = 0; i + 1 < n; i++) edges.push([i, i + 1]);
    const l = levels(n, edges);
    expect(l[n - 1]).toBe(n - 1);
  });
});
