/**
 * Contacts of a mesh body with an analytic plane (a "plane" shape: static,
 * infinite, no distance grid). The distance of a sample is exact, so a plane
 * pair never goes to the penetration query; the walk over samples is the
 * query's (every vertex and face sample, the deepest sample of each edge).
 */
import { itemCount, itemFirst, itemLength } from '../geometry/samples.ts';
import type { StepContext } from './stepContext.ts';

/** Where contacts go: body 1 owns the point, body 2's surface was hit (ALGORITHM.md 5). */
export interface ContactSink {
  pushContact(b1: number, b2: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number): void;
}

/** Samples of body a below the plane of body p, at the predicted poses. */
export function planeContacts(ctx: StepContext, a: number, p: number, out: ContactSink): void {
  const sp = ctx.shapeOf(p);
  const nl = sp.planeNormal!;
  const R = ctx.predRot, P = ctx.predPos;
  const op = 9 * p;
  const nx = R[op]! * nl[0] + R[op + 1]! * nl[1] + R[op + 2]! * nl[2];
  const ny = R[op + 3]! * nl[0] + R[op + 4]! * nl[1] + R[op + 5]! * nl[2];
  const nz = R[op + 6]! * nl[0] + R[op + 7]! * nl[1] + R[op + 8]! * nl[2];
  const d0 = nx * P[3 * p]! + ny * P[3 * p + 1]! + nz * P[3 * p + 2]!;
  const s = ctx.shapeOf(a).samples;
  const pts = s.points;
  const oa = 9 * a;
  const cx = P[3 * a]!, cy = P[3 * a + 1]!, cz = P[3 * a + 2]!;
  // Distance of a local point along the world normal: (R^T n) . l + n . c - d0.
  const lnx = R[oa]! * nx + R[oa + 3]! * ny + R[oa + 6]! * nz;
  const lny = R[oa + 1]! * nx + R[oa + 4]! * ny + R[oa + 7]! * nz;
  const lnz = R[oa + 2]! * nx + R[oa + 5]! * ny + R[oa + 8]! * nz;
  const base = nx * cx + ny * cy + nz * cz - d0;
  const items = itemCount(s);
  for (let item = 0; item < items; item++) {
    const first = itemFirst(s, item), end = first + itemLength(s, item);
    let best = -1;
    let bestPhi = 0;
    for (let si = first; si < end; si++) {
      const phi = base + lnx * pts[4 * si]! + lny * pts[4 * si + 1]! + lnz * pts[4 * si + 2]!;
      if (phi < 0 && (best < 0 || phi < bestPhi)) {
        best = si;
        bestPhi = phi;
      }
    }
    if (best < 0) continue;
    const lx = pts[4 * best]!, ly = pts[4 * best + 1]!, lz = pts[4 * best + 2]!;
    out.pushContact(
      a, p,
      cx + R[oa]! * lx + R[oa + 1]! * ly + R[oa + 2]! * lz,
      cy + R[oa + 3]! * lx + R[oa + 4]! * ly + R[oa + 5]! * lz,
      cz + R[oa + 6]! * lx + R[oa + 7]! * ly + R[oa + 8]! * lz,
      nx, ny, nz, bestPhi,
    );
  }
}
