/**
 * The seed's own spring-net construction (seed 001, "Generisanje mreže
 * opruga"), and its 3D use on extruded outlines.
 *
 * In 2D, from a closed outline and a minimum angle:
 *  1. every two consecutive outline points get a spring (the outline);
 *  2. the candidates are all other pairs of points whose segment crosses no
 *     existing spring (and passes through no third point); they may lie inside
 *     the outline or outside it, in a concavity;
 *  3. each candidate's smallest angle is the smallest angle it makes, at either
 *     end, with the springs already there; the candidate whose smallest angle
 *     is the largest is added (wide angles first: those springs tie the middle
 *     of the body together and matter most for its stability);
 *  4. candidates crossing the new spring drop out, and those sharing one of its
 *     ends may see their smallest angle shrink; repeat from 3 until no
 *     candidate is left or the best one's smallest angle is below the minimum.
 * Springs outside the outline are "outer" springs: the seed makes them weaker,
 * because they only supplement the outline and inner springs.
 *
 * The seed asks for a net that is stable, i.e. made of triangles whose
 * smallest angle is as large as possible, like Delaunay triangulation but
 * with more control (the minimum angle decides how much is added, and outer
 * springs can brace a horseshoe's prongs).
 *
 * Cost: O(n^2) candidates, each spring added checks every candidate once, and
 * a planar net has at most 3n - 6 springs, so O(n^3) in all; SEED_MAX_POINTS
 * bounds it (the scene validator says so to the user).
 *
 * In 3D (extrudeSeedModel): the net is built on the polygon of an `extrude`
 * shape, repeated on both faces, and the faces are tied together by a spring
 * from each point to its twin and by both diagonals of every quad that a
 * net spring sweeps between the faces (cross bracing), so the prism cannot
 * shear. The particles are exactly the extruded mesh's vertices, which makes
 * the drawn surface the mesh itself. Two additions keep such a body in its
 * shape, which the seed's net alone does not:
 *  - braces. The rule stops at the minimum angle, and can leave a face
 *    inside the outline with four or more sides: a diagonal of a 3:1
 *    rectangle makes 18.4 degrees with its long sides, so at minAngle 20 the
 *    arms of an L 0.1 m thick and 0.4 m long stay bare rectangles, and so
 *    does a 6:1 plate at any minAngle above 9.5. Such a
 *    face is a linkage (its springs keep their lengths as it shears flat), and
 *    a thin L dropped at minAngle 20 flattened its arms and turned inside out
 *    (volume 1 -> -0.16). The 3D net closes every such face with its remaining
 *    diagonals, widest angle first (buildSeedNet's `brace`), so the inside is
 *    all triangles;
 *  - tetrahedron volumes. Triangles keep their side lengths mirrored, so a
 *    triangle can still fold over its neighbour: braced, a T at minAngle 45 landed
 *    with its bar folded down about its stem (volume 0.25): a thin triangle
 *    there flips over with 2.5 % stretch of one spring. Each of the prisms'
 *    tetrahedra keeps its own volume (SoftModel.tetWeight, forces.ts).
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { SpringKind, type SoftModel } from './model.ts';
import * as det from '../util/detmath.ts';

/** Most outline points the seed construction accepts (the O(n^3) bound above: about 0.1 s at 256). */
export const SEED_MAX_POINTS = 256;

/**
 * Kind of the braces of an extruded net (extrudeSeedModel): shear, like the
 * cross braces, whose work they do within a face. They are the thin
 * diagonals the seed's rule refused, so they take half a net spring's
 * stiffness; at a net spring's full weight the thin shapes of
 * docs/soft-bodies.md rested at the same volumes (within 0.5 %) with the
 * same substep counts.
 */
const BRACE_KIND = SpringKind.Shear;

/**
 * Modulus of each tetrahedron's own volume in an extruded net, as a fraction
 * of the material's modulus (SoftModel.tetWeight). Thin shapes (the L, plates,
 * thin box and T of docs/soft-bodies.md, minAngle 10 to 45) of a soft 20 kPa
 * material, dropped tumbling from up to 5 m, ended folded in 9 of 120 drops
 * at 0.1 and in none at 0.3. The soft-outlines bodies take 8 substeps at 0.1,
 * 9 at 0.3 and 11 at 1 (8 without).
 */
const TET_WEIGHT = 0.3;

export interface SeedNet {
  /** Spring end points, two outline indices per spring: the n outline springs (i, i + 1 mod n) first, then the added ones in the order they were added. */
  springs: Uint32Array;
  /** 1 for a spring outside the outline (always 0 for the outline itself). */
  outer: Uint8Array;
  /** Number of outline points (= outline springs). */
  outlineCount: number;
  /** Per added spring (braces too), its smallest angle (radians) with the springs present when it was added. */
  addedAngle: Float64Array;
  /**
   * Springs from this index on are braces (buildSeedNet's `brace`): added
   * after the seed's rule stopped, inside the outline, so that no face there
   * is left with more than three sides. Equal to the spring count without.
   */
  braceStart: number;
}

/** Twice the signed area of triangle abc (> 0 counter-clockwise). */
function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** Angle (radians, 0..pi) at a between the rays a->b and a->c. */
export function angleAt(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const ux = bx - ax, uy = by - ay, vx = cx - ax, vy = cy - ay;
  return det.atan2(Math.abs(ux * vy - uy * vx), ux * vx + uy * vy);
}

/**
 * Segment geometry over one point set, with a tolerance scaled to its extent
 * so that collinear points count as touching despite rounding.
 */
export class Segments2d {
  readonly eps: number;
  constructor(
    readonly x: Float64Array,
    readonly y: Float64Array,
  ) {
    let scale = 0;
    for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]!), Math.abs(y[i]!));
    this.eps = 1e-10 * scale * scale;
  }

  private orient(a: number, b: number, c: number): number {
    const { x, y } = this;
    return orient(x[a]!, y[a]!, x[b]!, y[b]!, x[c]!, y[c]!);
  }

  /** Point p lies on the closed segment ab (within the tolerance). */
  onSegment(a: number, b: number, p: number): boolean {
    const { x, y } = this;
    if (Math.abs(this.orient(a, b, p)) > this.eps) return false;
    const dx = x[b]! - x[a]!, dy = y[b]! - y[a]!;
    const t = (x[p]! - x[a]!) * dx + (y[p]! - y[a]!) * dy;
    return t >= 0 && t <= dx * dx + dy * dy;
  }

  /**
   * Segments ab and cd cross or touch anywhere other than at a shared end
   * point. Two segments sharing an end point only meet there unless they
   * overlap, which makes their angle zero (the angle rule excludes that).
   */
  cross(a: number, b: number, c: number, d: number): boolean {
    if (a === c || a === d || b === c || b === d) return false;
    const e = this.eps;
    const o1 = this.orient(a, b, c), o2 = this.orient(a, b, d);
    const o3 = this.orient(c, d, a), o4 = this.orient(c, d, b);
    if (((o1 > e && o2 < -e) || (o1 < -e && o2 > e)) && ((o3 > e && o4 < -e) || (o3 < -e && o4 > e))) return true;
    return this.onSegment(a, b, c) || this.onSegment(a, b, d) || this.onSegment(c, d, a) || this.onSegment(c, d, b);
  }

  /** The midpoint of ab lies inside the closed outline 0..n-1 (even-odd rule). */
  midpointInside(a: number, b: number, n: number): boolean {
    const { x, y } = this;
    const px = 0.5 * (x[a]! + x[b]!), py = 0.5 * (y[a]! + y[b]!);
    let inside = false;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const yi = y[i]!, yj = y[j]!;
      if (yi > py !== yj > py && px < ((x[j]! - x[i]!) * (py - yi)) / (yj - yi) + x[i]!) inside = !inside;
    }
    return inside;
  }
}

/**
 * The seed's net on a simple closed outline (either orientation; points
 * x[i], y[i]) with the given minimum angle in radians (file comment). With
 * `brace`, the faces inside the outline that the rule left with more than
 * three sides are then closed with their diagonals (the braces, after
 * braceStart), so that the inside is all triangles; the seed's own net is
 * the springs before braceStart either way.
 */
export function buildSeedNet(x: Float64Array, y: Float64Array, minAngle: number, brace = false): SeedNet {
  const n = x.length;
  if (n < 3 || y.length !== n) throw new RangeError(`an outline needs at least 3 points with x and y each, got ${n}`);
  if (n > SEED_MAX_POINTS) throw new RangeError(`the seed construction takes at most ${SEED_MAX_POINTS} outline points, got ${n}`);
  if (!(minAngle > 0 && minAngle < Math.PI / 2)) throw new RangeError(`minimum angle must be in (0, pi/2) radians, got ${minAngle}`);
  const g = new Segments2d(x, y);

  const springs: number[] = [];
  const outer: number[] = [];
  const addedAngle: number[] = [];
  /** Other end of every spring at each point. */
  const neighbours: number[][] = Array.from({ length: n }, () => []);
  const addSpring = (a: number, b: number, isOuter: boolean): void => {
    springs.push(a, b);
    outer.push(isOuter ? 1 : 0);
    neighbours[a]!.push(b);
    neighbours[b]!.push(a);
  };
  for (let i = 0; i < n; i++) addSpring(i, (i + 1) % n, false);

  // Candidates: pairs that are not outline springs, cross no outline spring and pass through no other point.
  const candA: number[] = [];
  const candB: number[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 2; b < n; b++) {
      if (a === 0 && b === n - 1) continue;
      let ok = true;
      for (let e = 0; e < n && ok; e++) if (g.cross(a, b, e, (e + 1) % n)) ok = false;
      for (let p = 0; p < n && ok; p++) if (p !== a && p !== b && g.onSegment(a, b, p)) ok = false;
      if (ok) {
        candA.push(a);
        candB.push(b);
      }
    }
  }
  const count = candA.length;
  const alive = new Uint8Array(count).fill(1);
  const smallest = new Float64Array(count);
  /** Smallest angle of candidate c with the springs now at its ends. */
  const smallestAngle = (c: number): number => {
    const a = candA[c]!, b = candB[c]!;
    let m = Math.PI;
    for (const o of neighbours[a]!) m = Math.min(m, angleAt(x[a]!, y[a]!, x[b]!, y[b]!, x[o]!, y[o]!));
    for (const o of neighbours[b]!) m = Math.min(m, angleAt(x[b]!, y[b]!, x[a]!, y[a]!, x[o]!, y[o]!));
    return m;
  };
  for (let c = 0; c < count; c++) smallest[c] = smallestAngle(c);

  /** Adds candidate `best` and drops or updates the candidates it affects (steps 3 and 4). */
  const addCandidate = (best: number, isOuter: boolean): void => {
    const a = candA[best]!, b = candB[best]!;
    alive[best] = 0;
    addSpring(a, b, isOuter);
    addedAngle.push(smallest[best]!);
    for (let c = 0; c < count; c++) {
      if (!alive[c]) continue;
      const ca = candA[c]!, cb = candB[c]!;
      if (g.cross(a, b, ca, cb)) {
        alive[c] = 0;
        continue;
      }
      // Only an end shared with the new spring gains an angle.
      if (ca === a || ca === b) smallest[c] = Math.min(smallest[c]!, angleAt(x[ca]!, y[ca]!, x[cb]!, y[cb]!, x[ca === a ? b : a]!, y[ca === a ? b : a]!));
      if (cb === a || cb === b) smallest[c] = Math.min(smallest[c]!, angleAt(x[cb]!, y[cb]!, x[ca]!, y[ca]!, x[cb === a ? b : a]!, y[cb === a ? b : a]!));
    }
  };
  /** The alive candidate with the largest smallest angle among those `allowed`, or -1. */
  const widest = (allowed: (c: number) => boolean): number => {
    let best = -1;
    for (let c = 0; c < count; c++) if (alive[c] && (best < 0 || smallest[c]! > smallest[best]!) && allowed(c)) best = c;
    return best;
  };

  for (;;) {
    const best = widest(() => true);
    if (best < 0 || smallest[best]! < minAngle) break;
    addCandidate(best, !g.midpointInside(candA[best]!, candB[best]!, n));
  }
  const seedCount = springs.length / 2;
  if (brace) {
    // What the rule left inside the outline is a polygon face of four or more springs, a linkage
    // that folds flat (file comment); its alive candidates are its diagonals. Closing every such
    // face with them, widest first as above, leaves only triangles inside. A candidate crossing no
    // outline spring and passing through no point lies wholly inside or wholly outside, so its
    // midpoint says which.
    const inside = new Uint8Array(count);
    for (let c = 0; c < count; c++) if (alive[c]) inside[c] = g.midpointInside(candA[c]!, candB[c]!, n) ? 1 : 0;
    for (;;) {
      const best = widest((c) => inside[c] === 1);
      if (best < 0) break;
      addCandidate(best, false);
    }
  }
  return {
    springs: Uint32Array.from(springs),
    outer: Uint8Array.from(outer),
    outlineCount: n,
    addedAngle: Float64Array.from(addedAngle),
    braceStart: seedCount,
  };
}

/**
 * A soft model from an extruded outline (extrudeMesh's vertex layout: the
 * outline at the back face is vertices 0..n-1, its twin at the front face
 * n..2n-1, caps triangulated among them). `mesh` is that mesh in the frame the
 * body is simulated in (re-centred on the centre of mass).
 */
export function extrudeSeedModel(mesh: TriMesh, minAngle: number): SoftModel {
  const nv = mesh.positions.length / 3;
  const n = nv / 2;
  if (!Number.isInteger(n) || n < 3) throw new RangeError(`expected an extruded mesh (2n vertices), got ${nv} vertices`);
  const P = mesh.positions;
  const x = new Float64Array(n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = P[3 * i]!;
    y[i] = P[3 * i + 1]!;
  }
  const net = buildSeedNet(x, y, minAngle, true);
  const ns = net.springs.length / 2;

  const springs: number[] = [];
  const kind: number[] = [];
  const outer: number[] = [];
  const add = (a: number, b: number, k: SpringKind, o: number): void => {
    springs.push(Math.min(a, b), Math.max(a, b));
    kind.push(k);
    outer.push(o);
  };
  for (let s = 0; s < ns; s++) {
    const a = net.springs[2 * s]!, b = net.springs[2 * s + 1]!, o = net.outer[s]!;
    const face = s < net.braceStart ? SpringKind.Structural : BRACE_KIND;
    add(a, b, face, o); // back face
    add(n + a, n + b, face, o); // front face
    add(a, n + b, SpringKind.Shear, o); // the two diagonals of the quad the spring sweeps
    add(b, n + a, SpringKind.Shear, o);
  }
  for (let i = 0; i < n; i++) add(i, n + i, SpringKind.Structural, 0);

  // Mass: each cap triangle's area, a third to each corner, on both faces (the prism's volume split evenly).
  // Each cap triangle and its twin also bound a prism, split into three tetrahedra.
  const massShare = new Float64Array(nv);
  const I = mesh.indices;
  const tets: number[] = [];
  let total = 0;
  for (let t = 0; t < I.length; t += 3) {
    let a = I[t]!, b = I[t + 1]!, c = I[t + 2]!;
    if (a >= n || b >= n || c >= n) continue; // back cap only; the front cap is its twin
    const signed = orient(x[a]!, y[a]!, x[b]!, y[b]!, x[c]!, y[c]!);
    // Counter-clockwise seen from the front, so that the tetrahedra below come out positive.
    if (signed < 0) [b, c] = [c, b];
    const area = 0.5 * Math.abs(signed);
    for (const v of [a, b, c]) {
      massShare[v] += area / 3;
      massShare[n + v] += area / 3;
    }
    total += 2 * area;
    tets.push(a, b, c, n + a, b, c, n + a, n + b, c, n + a, n + b, n + c);
  }
  for (let i = 0; i < nv; i++) massShare[i] /= total;

  const skinIndex = new Uint32Array(4 * nv);
  const skinWeight = new Float64Array(4 * nv);
  for (let v = 0; v < nv; v++) {
    skinIndex[4 * v] = v;
    skinWeight[4 * v] = 1;
  }
  let perimeter = 0;
  for (let i = 0; i < n; i++) perimeter += Math.hypot(x[(i + 1) % n]! - x[i]!, y[(i + 1) % n]! - y[i]!);
  return {
    rest: Float64Array.from(P),
    massShare,
    springs: Uint32Array.from(springs),
    kind: Uint8Array.from(kind),
    outer: Uint8Array.from(outer),
    surface: { positions: Float64Array.from(P), indices: Uint32Array.from(I) },
    skinIndex,
    skinWeight,
    tets: Uint32Array.from(tets),
    tetWeight: TET_WEIGHT,
    spacing: perimeter / n,
    outlines: [Uint32Array.from({ length: n }, (_, i) => i), Uint32Array.from({ length: n }, (_, i) => n + i)],
  };
}
