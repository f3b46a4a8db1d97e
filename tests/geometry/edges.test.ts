/**
 * meshEdges (src/geometry/edges.ts): the undirected edges of a mesh in the
 * order they first appear, and each triangle side's edge, as a map keyed by
 * the vertex pair defines them; fans around a vertex of high degree (past
 * the bucket scan) included.
 */
import { describe, expect, it } from 'vitest';
import { meshEdges } from '../../src/geometry/edges.ts';

/** The definition: a map from (lo, hi) to the next id, side by side. */
function byMap(idx: Uint32Array): { edges: number[]; edgeOf: number[]; first: number[] } {
  const ids = new Map<string, number>();
  const edges: number[] = [], edgeOf: number[] = [], first: number[] = [];
  for (let h = 0; h < idx.length; h++) {
    const t = h - (h % 3);
    const a = idx[h]!, b = idx[t + ((h - t + 1) % 3)]!;
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    let id = ids.get(key);
    first.push(id === undefined ? 1 : 0);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
      edges.push(Math.min(a, b), Math.max(a, b));
    }
    edgeOf.push(id);
  }
  return { edges, edgeOf, first };
}

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => ((a = (Math.imul(a, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('meshEdges', () => {
  it('numbers edges in the order they first appear and gives every side its edge, as a map by vertex pair does', () => {
    const r = random(3);
    const cases: [Uint32Array, number][] = [[new Uint32Array(0), 0], [new Uint32Array([0, 1, 2]), 3]];
    // Random soups over few vertices: sides repeat often, in both directions.
    for (const nv of [4, 10, 50]) {
      const idx = new Uint32Array(3 * 300);
      for (let i = 0; i < idx.length; i++) idx[i] = Math.floor(r() * nv);
      cases.push([idx, nv]);
    }
    // A closed fan of 500 triangles around vertex 0 (a bucket of 1 000 sides), apex and base.
    const K = 500, fan: number[] = [];
    for (let j = 0; j < K; j++) fan.push(0, 2 + ((j + 1) % K), 2 + j, 1, 2 + j, 2 + ((j + 1) % K));
    cases.push([Uint32Array.from(fan), K + 2]);
    for (const [idx, nv] of cases) {
      const got = meshEdges(idx, nv), want = byMap(idx);
      expect(Array.from(got.edges)).toEqual(want.edges);
      expect(Array.from(got.edgeOf)).toEqual(want.edgeOf);
      expect(Array.from(got.first)).toEqual(want.first);
    }
  });
});
