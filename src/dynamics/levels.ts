/**
 * Stage "contactGraph" (docs/ALGORITHM.md 4.5, seed 8.2-8.4): from the contacts at
 * x' = x + h v, an edge from the supporting body to the supported one per
 * touching pair (penetrating, or within the patch band of it) (the deepest point's normal decides which is which, against
 * gravity), joint edges both ways, then levels from the strongly connected
 * components (contactGraph.ts). The pairs are then ordered by level, bottom
 * up, for the contact passes.
 */
import type { ConstraintSystem } from './constraints.ts';
import { ContactGraph } from './contactGraph.ts';
import type { ContactSet } from './contacts.ts';
import type { PairList } from './pairs.ts';
import type { StepContext } from './stepContext.ts';

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
      // Touching counts, not only penetrating: a resting stack whose position
      // correction left a hair of gap between two boxes still supports.
      const s = cs.deepest(k, Infinity);
      if (s < 0) continue;
      // The deepest point's normal decides who supports whom.
      const b1 = cs.b1[s]!, b2 = cs.b2[s]!;
      const up = cs.n[3 * s]! * ux + cs.n[3 * s + 1]! * uy + cs.n[3 * s + 2]! * uz;
      if (B.isStatic[b1] || B.isStatic[b2]) continue;
      if (up >= 0) graph.addEdge(b2, b1);
      else graph.addEdge(b1, b2);
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
