/**
 * Stage "contactGraph" (docs/ALGORITHM.md 4.5, seed 8.2-8.4): from the contacts at
 * x' = x + h v, an edge from the supporting body to the supported one per
 * touching pair (penetrating, or within the patch band of it; its points'
 * normals together decide which is which, against gravity: pairSupport),
 * joint edges both ways, then levels from the strongly connected
 * components (contactGraph.ts). The pairs are then ordered by level, bottom
 * up, for the contact passes.
 */
import type { ConstraintSystem } from './constraints.ts';
import { ContactGraph } from './contactGraph.ts';
import type { ContactSet } from './contacts.ts';
import type { PairList } from './pairs.ts';
import type { StepContext } from './stepContext.ts';

/**
 * Which way pair k's contact holds a body up: the sum, over the pair's
 * penetrating points, of the upward component (along the unit `up`) of the
 * push each point gives body `b` (> 0: the other body supports b, < 0: b
 * supports it). A pair with no penetrating point but one within its patch
 * band is decided by the deepest of those (a resting stack whose position
 * correction left a hair of gap still supports); NaN when it has no point
 * (no edge).
 *
 * Every point counts, not the deepest alone as before: a box leaning on
 * another, one face on its top and a rim pressed into its side, had its
 * deepest point on the side, with a level normal, and was put below the box
 * it leaned on. Frozen first in shock propagation, it kept tipping onto that
 * box, which, pinned between it and the ground, took the same impulse every
 * sweep and never came to rest (in a heap of 1000 boxes some 100 pairs of
 * every level did so). The seed adds an edge per contact point, so a pair
 * with points both ways joins its bodies in one level; summing instead keeps
 * two boxes side by side, whose rims touch both ways, out of each other's
 * level. Heaps of 64 to 300 boxes at 60 Hz asleep within 15 s: by the
 * deepest point 10 of 15, by the sum 14 of 15; by per-point edges 8 of 9
 * (and later). Ring piles sleep some 7 % later by the sum (docs/DESIGN.md 4).
 */
export function pairSupport(cs: ContactSet, k: number, b: number, ux: number, uy: number, uz: number): number {
  let up = 0;
  const e = cs.end[k]!;
  for (let i = cs.start[k]!; i < e; i++) {
    if (cs.phi[i]! > 0) continue;
    const u = cs.n[3 * i]! * ux + cs.n[3 * i + 1]! * uy + cs.n[3 * i + 2]! * uz;
    // The normal pushes body 1 (the sample's owner) out of body 2.
    up += cs.b1[i] === b ? u : -u;
  }
  if (up !== 0) return up;
  const s = cs.deepest(k, Infinity);
  if (s < 0) return NaN;
  const u = cs.n[3 * s]! * ux + cs.n[3 * s + 1]! * uy + cs.n[3 * s + 2]! * uz;
  return cs.b1[s] === b ? u : -u;
}

export class ContactLevels {
  private readonly graph = new ContactGraph();
  private counts = new Int32Array(0);
  private readonly addJointEdge = (u: number, v: number): void => {
    this.graph.addEdge(u, v);
    this.graph.addEdge(v, u);
  };

  /** Fills ctx.level; returns the number of levels (at least 1). */
  build(ctx: StepContext, pairs: PairList, cs: ContactSet, c: ConstraintSystem | null): number {
    const B = ctx.bodies;
    const n = B.count;
    ctx.levelStamp++;
    if (!ctx.settings.contactGraph) {
      for (let i = 0; i < n; i++) ctx.level[i] = B.isStatic[i] ? -1 : 0;
      return 1;
    }
    const g = ctx.gravity;
    let ux = -g[0], uy = -g[1], uz = -g[2];
    const gl = Math.hypot(ux, uy, uz);
    if (gl > 0) {
      ux /= gl;
      uy /= gl;
      uz /= gl;
    } else {
      uy = 1;
    }
    const graph = this.graph;
    graph.reset(n);
    for (let k = 0; k < pairs.count; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (B.isStatic[a] || B.isStatic[b]) continue;
      const up = pairSupport(cs, k, b, ux, uy, uz);
      if (up >= 0) graph.addEdge(a, b);
      else if (up < 0) graph.addEdge(b, a);
    }
    c?.graphEdges(ctx, this.addJointEdge);
    graph.solve(B.isStatic);
    ctx.level.set(graph.level.subarray(0, n));
    return Math.max(1, graph.levelCount);
  }

  /**
   * Orders the pairs by level into pairs.order (a stable counting sort) and
   * sets pairs.level: a pair's level is its higher body's (0 without a graph).
   */
  sortPairs(ctx: StepContext, pairs: PairList, levels: number): void {
    const n = pairs.count;
    const order = pairs.order;
    const lv = ctx.level;
    const nl = Math.max(1, levels);
    if (this.counts.length < nl + 1) this.counts = new Int32Array(2 * nl + 2);
    const counts = this.counts;
    counts.fill(0, 0, nl + 1);
    const graph = ctx.settings.contactGraph;
    for (let k = 0; k < n; k++) {
      const L = graph ? Math.max(0, lv[pairs.a[k]!]!, lv[pairs.b[k]!]!) : 0;
      pairs.level[k] = Math.min(L, nl - 1);
      counts[pairs.level[k]! + 1]++;
    }
    for (let l = 0; l < nl; l++) counts[l + 1] += counts[l]!;
    for (let k = 0; k < n; k++) order[counts[pairs.level[k]!]!++] = k;
  }
}
