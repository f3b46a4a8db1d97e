/**
 * Union-find over 0..n-1 with path halving: merges keep the lower index as
 * the root, so a cluster's root is its first member (repair.ts keeps the
 * lowest vertex of a welded cluster; solid.ts names patches by their first triangle).
 * Also the soft bodies' lattice merge and spring-graph pieces (soft/lattice.ts, soft/model.ts)
 * and the accumulated contact stage's islands for its warm start (dynamics/accumulatedSolver.ts).
 */
export class DisjointSets {
  private readonly parent: Int32Array;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }

  /** Makes i a set of its own again (a structure reused step after step resets only the elements it uses). */
  reset(i: number): void {
    this.parent[i] = i;
  }

  find(i: number): number {
    const p = this.parent;
    while (p[i] !== i) {
      p[i] = p[p[i]!]!;
      i = p[i]!;
    }
    return i;
  }

  /** Joins the sets of a and b; false when they were one already. */
  union(a: number, b: number): boolean {
    const ra = this.find(a), rb = this.find(b);
    if (ra === rb) return false;
    this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
    return true;
  }
}
