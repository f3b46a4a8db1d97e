/**
 * The contact graph (docs/ALGORITHM.md 4.5, seed 8.2-8.4). An edge u -> v means
 * "u supports v" (the contact normal pushes v up, against gravity). Static
 * bodies are the ground and are left out of the graph. Bodies on a cycle
 * (a ring of leaning dominoes) share a strongly connected component; the
 * components are ordered topologically and each gets the level
 *   level(C) = 0 if nothing dynamic supports C, else 1 + max level of its supporters,
 * so independent stacks share levels and the contact iterations can go
 * level by level, bottom up.
 *
 * SCCs by Tarjan's algorithm, iterative (a 10 000-body pile must not overflow
 * the call stack). Linear in bodies + edges.
 */
import { grown } from '../util/growable.ts';

export class ContactGraph {
  private n = 0;
  private edgeFrom = new Int32Array(64);
  private edgeTo = new Int32Array(64);
  private edgeCount = 0;
  // CSR adjacency
  private adjStart = new Int32Array(1);
  private adj = new Int32Array(0);
  // Tarjan scratch
  private index = new Int32Array(0);
  private low = new Int32Array(0);
  private onStack = new Uint8Array(0);
  private stack = new Int32Array(0);
  private callNode = new Int32Array(0);
  private callEdge = new Int32Array(0);
  /** Component id per node, in reverse topological order of discovery (Tarjan). */
  comp = new Int32Array(0);
  componentCount = 0;
  /** Level per node (see above); -1 for nodes excluded (static). */
  level = new Int32Array(0);
  levelCount = 0;
  // Levels per component and the nodes grouped by component (solve's scratch).
  private compLevel = new Int32Array(0);
  private compStart = new Int32Array(0);
  private compNodes = new Int32Array(0);

  reset(n: number): void {
    this.n = n;
    this.edgeCount = 0;
    if (this.index.length < n) {
      this.index = new Int32Array(n);
      this.low = new Int32Array(n);
      this.onStack = new Uint8Array(n);
      this.stack = new Int32Array(n);
      this.callNode = new Int32Array(n);
      this.callEdge = new Int32Array(n);
      this.comp = new Int32Array(n);
      this.level = new Int32Array(n);
    }
  }

  /** u supports v. */
  addEdge(u: number, v: number): void {
    if (u === v) return;
    if (this.edgeCount === this.edgeFrom.length) {
      this.edgeFrom = grown(this.edgeFrom, 2 * this.edgeCount);
      this.edgeTo = grown(this.edgeTo, 2 * this.edgeCount);
    }
    this.edgeFrom[this.edgeCount] = u;
    this.edgeTo[this.edgeCount++] = v;
  }

  /** Computes components and levels; `excluded[i]` nodes (static bodies) get level -1. */
  solve(excluded?: Uint8Array): void {
    const n = this.n;
    if (this.edgeCount === 0) {
      // No edges (nothing awake touches): every node its own component at
      // level 0, what the search below gives, without its per-node arrays.
      let comps = 0;
      for (let i = 0; i < n; i++) {
        const x = excluded !== undefined && excluded[i] === 1;
        this.level[i] = x ? -1 : 0;
        if (!x) this.comp[i] = comps++;
      }
      this.componentCount = comps;
      this.levelCount = comps > 0 ? 1 : 0;
      return;
    }
    this.buildCsr();
    const { index, low, onStack, stack, callNode, callEdge, comp, adj, adjStart } = this;
    index.fill(-1, 0, n);
    onStack.fill(0, 0, n);
    let counter = 0;
    let sp = 0;
    let ncomp = 0;
    for (let root = 0; root < n; root++) {
      if (index[root] !== -1 || (excluded && excluded[root])) continue;
      let depth = 0;
      callNode[0] = root;
      callEdge[0] = adjStart[root]!;
      index[root] = low[root] = counter++;
      stack[sp++] = root;
      onStack[root] = 1;
      while (depth >= 0) {
        const u = callNode[depth]!;
        const e = callEdge[depth]!;
        if (e < adjStart[u + 1]!) {
          callEdge[depth] = e + 1;
          const v = adj[e]!;
          if (excluded && excluded[v]) continue;
          if (index[v] === -1) {
            index[v] = low[v] = counter++;
            stack[sp++] = v;
            onStack[v] = 1;
            depth++;
            callNode[depth] = v;
            callEdge[depth] = adjStart[v]!;
          } else if (onStack[v]) {
            if (index[v]! < low[u]!) low[u] = index[v]!;
          }
        } else {
          if (low[u] === index[u]) {
            let w: number;
            do {
              w = stack[--sp]!;
              onStack[w] = 0;
              comp[w] = ncomp;
            } while (w !== u);
            ncomp++;
          }
          depth--;
          if (depth >= 0) {
            const p = callNode[depth]!;
            if (low[u]! < low[p]!) low[p] = low[u]!;
          }
        }
      }
    }
    this.componentCount = ncomp;
    // Tarjan emits components in reverse topological order (sinks first), so
    // walking ids from high to low visits supporters before the supported.
    if (this.compLevel.length < ncomp + 1) {
      this.compLevel = new Int32Array(2 * ncomp + 2);
      this.compStart = new Int32Array(2 * ncomp + 2);
    }
    if (this.compNodes.length < n) this.compNodes = new Int32Array(n);
    const compLevel = this.compLevel, compStart = this.compStart, compNodes = this.compNodes;
    compLevel.fill(0, 0, ncomp);
    // The nodes grouped by component (a counting sort, nodes ascending within one).
    compStart.fill(0, 0, ncomp + 1);
    for (let i = 0; i < n; i++) if (!(excluded && excluded[i])) compStart[comp[i]! + 1]++;
    for (let c = 0; c < ncomp; c++) compStart[c + 1] += compStart[c]!;
    for (let i = 0; i < n; i++) if (!(excluded && excluded[i])) compNodes[compStart[comp[i]!]!++] = i;
    for (let c = ncomp; c > 0; c--) compStart[c] = compStart[c - 1]!;
    compStart[0] = 0;
    let maxLevel = -1;
    for (let c = ncomp - 1; c >= 0; c--) {
      const lc = compLevel[c]!;
      if (lc > maxLevel) maxLevel = lc;
      for (let q = compStart[c]!; q < compStart[c + 1]!; q++) {
        const u = compNodes[q]!;
        for (let e = adjStart[u]!; e < adjStart[u + 1]!; e++) {
          const v = adj[e]!;
          if (excluded && excluded[v]) continue;
          const cv = comp[v]!;
          if (cv !== c && compLevel[cv]! < lc + 1) compLevel[cv] = lc + 1;
        }
      }
    }
    for (let i = 0; i < n; i++) this.level[i] = excluded && excluded[i] ? -1 : compLevel[comp[i]!]!;
    this.levelCount = maxLevel + 1;
  }

  private buildCsr(): void {
    const n = this.n;
    const m = this.edgeCount;
    if (this.adjStart.length < n + 1) this.adjStart = new Int32Array(n + 1);
    if (this.adj.length < m) this.adj = new Int32Array(m);
    const start = this.adjStart;
    start.fill(0, 0, n + 1);
    for (let e = 0; e < m; e++) start[this.edgeFrom[e]! + 1]++;
    for (let i = 0; i < n; i++) start[i + 1] += start[i]!;
    const fill = start.slice(0, n);
    for (let e = 0; e < m; e++) this.adj[fill[this.edgeFrom[e]!]!++] = this.edgeTo[e]!;
  }
}
