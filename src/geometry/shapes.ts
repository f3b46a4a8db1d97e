/**
 * Procedural meshes for the built-in shapes (docs/SCENE_FORMAT.md "shapes").
 *
 * Every mesh here except planeQuadMesh is closed, manifold and outward
 * (triangles counter-clockwise seen from outside) and centred on the origin of
 * its own frame: the centre, axis or outline origin of the ideal solid is at
 * the origin (the simulator later re-centres on the centre of mass). Invalid parameters throw RangeError; callers that read them
 * from a scene file turn that into an InputError with the JSON path.
 *
 * Solids of revolution (sphere, cylinder, capsule, torus, bone, cup) all go
 * through one lathe: a profile polygon in the (radius, y) half-plane is swept
 * around y in N steps. Between two profile points and two angles the surface
 * is a planar trapezoid (both rims are horizontal chords), so the cross-section
 * at any height is a regular N-gon and the exact mesh volume is
 *   V = (N/2) sin(2 pi / N) * closed-integral of r^2 dy
 * (the continuous solid has pi in place of the prefactor); the tests use this.
 */
import type { TriMesh, Vec3 } from './mesh.ts';
import * as det from '../util/detmath.ts';

// ---------------------------------------------------------------- parameters

function positive(name: string, v: number): void {
  if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${name} must be a finite number > 0, got ${v}`);
}

function intAtLeast(name: string, v: number, min: number): void {
  if (!(Number.isInteger(v) && v >= min)) throw new RangeError(`${name} must be an integer >= ${min}, got ${v}`);
}

/** The most triangles a procedural shape may have (a scene's shapes are held to BUILD_LIMITS, 1e6 by default, long before). */
export const MAX_PROCEDURAL_TRIANGLES = 20_000_000;

/**
 * Refuses a tessellation of about `count` triangles beyond
 * MAX_PROCEDURAL_TRIANGLES, before anything is allocated: called from the
 * library, sphereMesh(1, 20000, 20000) ran for minutes and a cylinder of 1e9
 * bands failed with "Invalid typed array length".
 */
function triangleBudget(what: string, count: number): void {
  if (!(count <= MAX_PROCEDURAL_TRIANGLES)) {
    throw new RangeError(`${what} would have about ${count.toExponential(2).replace('e+', 'e')} triangles, more than the ${MAX_PROCEDURAL_TRIANGLES.toExponential(0).replace('e+', 'e')} a procedural shape may have; use fewer segments`);
  }
}

// ---------------------------------------------------------------------- box

/** Axis-aligned box with full extents `size`: 8 vertices, 12 triangles. */
export function boxMesh(size: Vec3): TriMesh {
  if (!(Array.isArray(size) || ArrayBuffer.isView(size)) || (size as ArrayLike<number>).length !== 3) {
    throw new RangeError(`box size must be [x, y, z], got ${size === null ? 'null' : Array.isArray(size) ? `an array of ${(size as unknown[]).length}` : typeof size}`);
  }
  positive('box size x', size[0]);
  positive('box size y', size[1]);
  positive('box size z', size[2]);
  const hx = size[0] / 2, hy = size[1] / 2, hz = size[2] / 2;
  // Vertex v has x = +hx when bit 0 is set, y = +hy for bit 1, z = +hz for bit 2.
  const positions = new Float64Array(24);
  for (let v = 0; v < 8; v++) {
    positions[v * 3] = v & 1 ? hx : -hx;
    positions[v * 3 + 1] = v & 2 ? hy : -hy;
    positions[v * 3 + 2] = v & 4 ? hz : -hz;
  }
  // Each face as a quad, counter-clockwise seen from outside; split along a-c.
  const quads = [
    [0, 4, 6, 2], // -x
    [1, 3, 7, 5], // +x
    [0, 1, 5, 4], // -y
    [2, 6, 7, 3], // +y
    [0, 2, 3, 1], // -z
    [4, 5, 7, 6], // +z
  ];
  const indices = new Uint32Array(36);
  let o = 0;
  for (const [a, b, c, d] of quads) {
    indices[o++] = a!; indices[o++] = b!; indices[o++] = c!;
    indices[o++] = a!; indices[o++] = c!; indices[o++] = d!;
  }
  return { positions, indices };
}

// ------------------------------------------------------------------- lathe

/**
 * Sweep a profile (r[i], y[i]) around the y axis in `segments` steps.
 * Open profile (`loop` false): the first and last points lie on the axis and
 * become single pole vertices; the others must have r > 0. Loop profile (the
 * torus tube): the polygon closes on itself and every point has r > 0.
 * The profile polygon must run counter-clockwise in the (r, y) plane, which
 * for an open profile means bottom to top: then the surface faces outward.
 */
function lathe(r: ArrayLike<number>, y: ArrayLike<number>, segments: number, loop: boolean): TriMesh {
  const n = r.length;
  const rings = loop ? n : n - 2; // profile points that become a ring of vertices
  const first = loop ? 0 : 1; // profile index of the first ring
  const nv = rings * segments + (loop ? 0 : 2);
  const positions = new Float64Array(nv * 3);
  const ringBase = loop ? 0 : 1; // vertex 0 is the bottom pole for open profiles
  if (!loop) {
    positions[1] = y[0]!;
    positions[(nv - 1) * 3 + 1] = y[n - 1]!;
  }
  const cos = new Float64Array(segments);
  const sin = new Float64Array(segments);
  for (let j = 0; j < segments; j++) {
    const a = (2 * Math.PI * j) / segments;
    cos[j] = det.cos(a);
    sin[j] = det.sin(a);
  }
  for (let k = 0; k < rings; k++) {
    const ri = r[first + k]!, yi = y[first + k]!;
    for (let j = 0; j < segments; j++) {
      const o = (ringBase + k * segments + j) * 3;
      positions[o] = ri * cos[j]!;
      positions[o + 1] = yi;
      positions[o + 2] = ri * sin[j]!;
    }
  }

  const bands = loop ? n : n - 1; // profile segments swept into bands
  const nt = loop ? 2 * bands * segments : 2 * (bands - 2) * segments + 2 * segments;
  const indices = new Uint32Array(nt * 3);
  // Vertex of profile point i at angle step j.
  const vert = (i: number, j: number): number => {
    if (!loop && i === 0) return 0;
    if (!loop && i === n - 1) return nv - 1;
    return ringBase + ((i - first + n) % n) * segments + (j % segments);
  };
  let o = 0;
  for (let i = 0; i < bands; i++) {
    const i1 = (i + 1) % n;
    for (let j = 0; j < segments; j++) {
      // A = (i, j), B = (i, j+1), C = (i+1, j+1), D = (i+1, j). With position
      // (r cos a, y, r sin a), (D - A) x (C - A) ~ up x tangent = outward.
      const A = vert(i, j), B = vert(i, j + 1), C = vert(i1, j + 1), D = vert(i1, j);
      // Next to a pole one of the two triangles collapses (D === C at the top
      // pole, A === B at the bottom pole) and is left out.
      const pole = !loop && (i1 === n - 1 || i === 0);
      if (!pole && (i + j) % 2 === 1) {
        // Every other quad split along the other diagonal (a checkerboard):
        // all along one diagonal, the mesh is chiral, and so are its edge
        // samples, which gave resting contacts a twist.
        indices[o++] = A; indices[o++] = D; indices[o++] = B;
        indices[o++] = D; indices[o++] = C; indices[o++] = B;
        continue;
      }
      if (!(!loop && i1 === n - 1)) {
        indices[o++] = A; indices[o++] = D; indices[o++] = C;
      }
      if (!(!loop && i === 0)) {
        indices[o++] = A; indices[o++] = C; indices[o++] = B;
      }
    }
  }
  if (o !== indices.length) throw new Error(`lathe: wrote ${o / 3} triangles, expected ${nt}`);
  return { positions, indices };
}

/** Orientation sign of the turn a->b->c (twice the signed triangle area). */
function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** Do closed segments p1-p2 and q1-q2 share any point (touching counts)? */
function segmentsMeet(
  p1x: number, p1y: number, p2x: number, p2y: number,
  q1x: number, q1y: number, q2x: number, q2y: number,
): boolean {
  const d1 = orient(q1x, q1y, q2x, q2y, p1x, p1y);
  const d2 = orient(q1x, q1y, q2x, q2y, p2x, p2y);
  const d3 = orient(p1x, p1y, p2x, p2y, q1x, q1y);
  const d4 = orient(p1x, p1y, p2x, p2y, q2x, q2y);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  const on = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean =>
    Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);
  if (d1 === 0 && on(q1x, q1y, q2x, q2y, p1x, p1y)) return true;
  if (d2 === 0 && on(q1x, q1y, q2x, q2y, p2x, p2y)) return true;
  if (d3 === 0 && on(p1x, p1y, p2x, p2y, q1x, q1y)) return true;
  if (d4 === 0 && on(p1x, p1y, p2x, p2y, q2x, q2y)) return true;
  return false;
}

/**
 * Index of the first edge (i, i+1 of the closed polygon) that meets a
 * non-adjacent edge, or -1 when the polygon is simple. O(n^2): profiles and
 * cap outlines have tens of points, not thousands.
 */
function firstCrossing(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  for (let i = 0; i < n; i++) {
    const i1 = (i + 1) % n;
    for (let j = i + 2; j < n; j++) {
      const j1 = (j + 1) % n;
      if (j1 === i) continue; // adjacent through the wrap-around
      if (segmentsMeet(x[i]!, y[i]!, x[i1]!, y[i1]!, x[j]!, y[j]!, x[j1]!, y[j1]!)) return i;
    }
  }
  return -1;
}

function signedArea(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let a = 0;
  const n = x.length;
  for (let i = 0, j = n - 1; i < n; j = i++) a += x[j]! * y[i]! - x[i]! * y[j]!;
  return a / 2;
}

// -------------------------------------------------------------- revolution

/**
 * Surface of revolution about y of a profile of (radius, y) points listed from
 * bottom to top. The first and last points must have radius 0 (they become the
 * two pole vertices, closing the solid); all others radius > 0. The profile
 * together with the axis must form a simple polygon. A profile listed top to
 * bottom is accepted and reversed. Coordinates are used as given (not
 * re-centred), so the profile helpers below produce centred profiles.
 */
export function revolveMesh(profile: [number, number][], segments = 24): TriMesh {
  intAtLeast('revolve segments', segments, 3);
  const n = profile.length;
  if (n < 3) throw new RangeError(`revolve profile needs at least 3 points (axis, rim, axis), got ${n}`);
  triangleBudget('the revolved shape', 2 * segments * n);
  const r = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const pt = profile[i]!;
    r[i] = pt[0];
    y[i] = pt[1];
    if (!Number.isFinite(pt[0]) || !Number.isFinite(pt[1])) {
      throw new RangeError(`revolve profile point ${i} is not finite: [${pt[0]}, ${pt[1]}]`);
    }
  }
  if (r[0] !== 0 || r[n - 1] !== 0) {
    throw new RangeError(
      `revolve profile must start and end on the axis (radius 0) to close the solid; got first radius ${r[0]}, last radius ${r[n - 1]}`,
    );
  }
  for (let i = 1; i < n - 1; i++) {
    if (!(r[i]! > 0)) {
      throw new RangeError(`revolve profile point ${i} has radius ${r[i]}; only the first and last points may lie on the axis, the others need radius > 0`);
    }
  }
  for (let i = 0; i + 1 < n; i++) {
    if (r[i] === r[i + 1] && y[i] === y[i + 1]) throw new RangeError(`revolve profile points ${i} and ${i + 1} coincide`);
  }
  if (y[0] === y[n - 1]) {
    throw new RangeError(`revolve profile starts and ends at the same axis point (y = ${y[0]}); expected a bottom pole and a distinct top pole`);
  }
  // The closed polygon (profile + axis segment back to the start) must be simple.
  const bad = firstCrossing(r, y);
  if (bad >= 0) {
    throw new RangeError(`revolve profile crosses itself or the axis (at its segment ${bad}-${(bad + 1) % n}); expected a simple outline`);
  }
  if (signedArea(r, y) < 0) {
    r.reverse();
    y.reverse();
  }
  return lathe(r, y, segments, false);
}

/** UV sphere: single pole vertices, `rings` bands from top to bottom. */
export function sphereMesh(radius: number, around = 16, rings = 12): TriMesh {
  positive('sphere radius', radius);
  intAtLeast('sphere segments around', around, 3);
  intAtLeast('sphere rings', rings, 2);
  triangleBudget('the sphere', 2 * around * rings);
  const r = new Float64Array(rings + 1);
  const y = new Float64Array(rings + 1);
  for (let k = 0; k <= rings; k++) {
    const a = -Math.PI / 2 + (Math.PI * k) / rings;
    r[k] = radius * det.cos(a);
    y[k] = radius * det.sin(a);
  }
  // Exact poles (cos(pi/2) is 6e-17, not 0) and exact symmetry top/bottom.
  r[0] = 0; r[rings] = 0; y[0] = -radius; y[rings] = radius;
  for (let k = 0; k < rings / 2; k++) {
    r[rings - k] = r[k]!;
    y[rings - k] = -y[k]!;
  }
  if (rings % 2 === 0) y[rings / 2] = 0;
  return lathe(r, y, around, false);
}

/**
 * Cylinder standing along y, centred, caps fanned from a centre vertex.
 * `bands` (default 1) splits the side into that many rows; with 2 bands and 14
 * segments this is the seed's 84-triangle peg. Tall thin cylinders want more
 * bands so that edge samples along the side stay closely spaced.
 */
export function cylinderMesh(radius: number, height: number, segments = 16, bands = 1): TriMesh {
  positive('cylinder radius', radius);
  positive('cylinder height', height);
  intAtLeast('cylinder segments', segments, 3);
  intAtLeast('cylinder bands', bands, 1);
  triangleBudget('the cylinder', 2 * segments * (bands + 2));
  const n = bands + 3;
  const r = new Float64Array(n);
  const y = new Float64Array(n);
  y[0] = -height / 2;
  for (let k = 0; k <= bands; k++) {
    r[k + 1] = radius;
    y[k + 1] = -height / 2 + (height * k) / bands;
  }
  y[bands + 1] = height / 2;
  y[n - 1] = height / 2;
  return lathe(r, y, segments, false);
}

/**
 * Capsule along y: a cylinder with hemispherical ends. `height` is the full
 * length including the caps (>= 2 radius; equal gives a sphere); `rings` bands
 * per hemisphere.
 */
export function capsuleMesh(radius: number, height: number, around = 16, rings = 8): TriMesh {
  positive('capsule radius', radius);
  positive('capsule height', height);
  intAtLeast('capsule segments around', around, 3);
  intAtLeast('capsule rings', rings, 1);
  triangleBudget('the capsule', 2 * around * (2 * rings + 2));
  if (height < 2 * radius) throw new RangeError(`capsule height (${height}) must be at least 2 * radius (${2 * radius})`);
  // With no cylinder part the two equators coincide; keep one, or its band
  // would be a ring of zero-area triangles.
  const straight = height / 2 - radius > 1e-12 * radius;
  const c = straight ? height / 2 - radius : 0; // centre height of the top hemisphere
  const n = 2 * rings + (straight ? 2 : 1);
  const r = new Float64Array(n);
  const y = new Float64Array(n);
  for (let k = 0; k <= rings; k++) {
    const a = (Math.PI / 2) * (k / rings); // 0 at the equator, pi/2 at the pole
    const rr = k === rings ? 0 : radius * det.cos(a);
    const yy = k === rings ? radius : radius * det.sin(a);
    // bottom hemisphere from the pole up, top hemisphere from the equator up
    r[rings - k] = rr;
    y[rings - k] = -c - yy;
    r[n - 1 - rings + k] = rr;
    y[n - 1 - rings + k] = c + yy;
  }
  return lathe(r, y, around, false);
}

/**
 * Torus in the xz plane around the y axis: `around` steps around y, `tube`
 * around the tube; around * tube vertices, 2 * around * tube triangles.
 */
export function torusMesh(majorRadius: number, minorRadius: number, around = 24, tube = 9): TriMesh {
  positive('torus majorRadius', majorRadius);
  positive('torus minorRadius', minorRadius);
  intAtLeast('torus segments around', around, 3);
  intAtLeast('torus tube segments', tube, 3);
  triangleBudget('the torus', 2 * around * tube);
  if (minorRadius >= majorRadius) {
    throw new RangeError(`torus minorRadius (${minorRadius}) must be smaller than majorRadius (${majorRadius}), or the tube self-intersects`);
  }
  const r = new Float64Array(tube);
  const y = new Float64Array(tube);
  for (let k = 0; k < tube; k++) {
    const a = (2 * Math.PI * k) / tube; // counter-clockwise in (r, y)
    r[k] = majorRadius + minorRadius * det.cos(a);
    y[k] = minorRadius * det.sin(a);
  }
  return lathe(r, y, around, true);
}

/**
 * A bone (dumbbell) along y, `length` end to end: a round knob of `radius` at
 * each end joined by a shaft of 0.45 radius. length >= 4 radius.
 */
export function boneProfile(length: number, radius: number): [number, number][] {
  positive('bone length', length);
  positive('bone radius', radius);
  if (length < 4 * radius) throw new RangeError(`bone length (${length}) must be at least 4 * radius (${4 * radius}) so the knobs do not merge`);
  const shaft = 0.45 * radius;
  const steps = 8; // arc points per knob
  // A knob is a circle of `radius` centred `radius` above the bottom; its arc
  // runs from the pole (angle 0) round to where it meets the shaft radius.
  const end = Math.PI - det.asin(shaft / radius);
  const cy = -length / 2 + radius;
  const bottom: [number, number][] = [[0, -length / 2]];
  for (let k = 1; k <= steps; k++) {
    const a = (end * k) / steps;
    bottom.push([radius * det.sin(a), cy - radius * det.cos(a)]);
  }
  // Exactly the shaft radius where the knob meets the shaft (sin(end) may round).
  bottom[steps]![0] = shaft;
  const top = bottom.map(([pr, py]): [number, number] => [pr, -py]).reverse();
  return [...bottom, ...top];
}

/**
 * A cup of outer `radius` and `height` with walls and floor `wall` thick: a
 * nonconvex solid with a cavity open at the top. Up the outside, over the
 * rim, down the inside to the inner floor, then in to the axis. Centred in y.
 */
export function cupProfile(radius: number, height: number, wall: number): [number, number][] {
  positive('cup radius', radius);
  positive('cup height', height);
  positive('cup wall', wall);
  if (wall >= radius) throw new RangeError(`cup wall (${wall}) must be thinner than the radius (${radius})`);
  if (wall >= height) throw new RangeError(`cup wall (${wall}) must be thinner than the height (${height})`);
  const b = -height / 2, t = height / 2, ri = radius - wall;
  return [[0, b], [radius, b], [radius, t], [ri, t], [ri, b + wall], [0, b + wall]];
}

// --------------------------------------------------------------- extrusion

/**
 * Prism: a simple polygon in the xy plane (any winding, normalised to
 * counter-clockwise) extruded along z, centred in z. A repeated closing point
 * and points on a straight line between their neighbours are dropped first
 * (the side walls do not change; they would only give the caps zero-area
 * triangles). Caps are triangulated by ear clipping, so nonconvex outlines
 * work. Vertices: 2n; triangles: 4n - 4.
 */
export function extrudeMesh(polygon: [number, number][], depth: number): TriMesh {
  positive('extrude depth', depth);
  const outline = cleanPolygon(polygon);
  const px = outline.x, py = outline.y;
  const n = px.length;
  const caps = earClip(px, py);

  const positions = new Float64Array(n * 6);
  const hz = depth / 2;
  for (let i = 0; i < n; i++) {
    // bottom ring: vertices 0..n-1 at z = -hz; top ring: n..2n-1 at z = +hz
    positions[i * 3] = px[i]!;
    positions[i * 3 + 1] = py[i]!;
    positions[i * 3 + 2] = -hz;
    positions[(n + i) * 3] = px[i]!;
    positions[(n + i) * 3 + 1] = py[i]!;
    positions[(n + i) * 3 + 2] = hz;
  }
  const indices = new Uint32Array((4 * n - 4) * 3);
  let o = 0;
  for (let t = 0; t < caps.length; t += 3) {
    // top cap faces +z: the counter-clockwise ears as they are
    indices[o++] = n + caps[t]!; indices[o++] = n + caps[t + 1]!; indices[o++] = n + caps[t + 2]!;
    // bottom cap faces -z: reversed
    indices[o++] = caps[t]!; indices[o++] = caps[t + 2]!; indices[o++] = caps[t + 1]!;
  }
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    // Edge i->j of a counter-clockwise outline has the outside on its right;
    // (b_j - b_i) x (t_j - b_i) = e x (depth z) points there.
    indices[o++] = i; indices[o++] = j; indices[o++] = n + j;
    indices[o++] = i; indices[o++] = n + j; indices[o++] = n + i;
  }
  return { positions, indices };
}

/** Validated, counter-clockwise copy of a polygon as coordinate arrays. */
function cleanPolygon(polygon: [number, number][]): { x: Float64Array; y: Float64Array } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < polygon.length; i++) {
    const [x, y] = polygon[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new RangeError(`polygon point ${i} is not finite: [${x}, ${y}]`);
    const m = xs.length;
    if (m > 0 && xs[m - 1] === x && ys[m - 1] === y) continue; // repeated point
    xs.push(x);
    ys.push(y);
  }
  if (xs.length > 1 && xs[0] === xs[xs.length - 1] && ys[0] === ys[ys.length - 1]) {
    xs.pop();
    ys.pop();
  }
  // Drop points lying on the line through their neighbours (repeat: dropping
  // one can make its neighbour collinear). A point where the outline turns
  // back on itself is an error, not a removable point.
  // The tolerance scales with the outline's own extent (about its first
  // point), not its distance from the origin: a 1 m triangle 1e6 m out
  // was all "on one line" against 1e-12 of (1e6)^2.
  let scale = 0;
  for (let i = 0; i < xs.length; i++) scale = Math.max(scale, Math.abs(xs[i]! - xs[0]!), Math.abs(ys[i]! - ys[0]!));
  const eps = 1e-12 * scale * scale;
  for (let changed = true; changed && xs.length >= 3;) {
    changed = false;
    for (let i = 0; i < xs.length && xs.length >= 3; i++) {
      const m = xs.length;
      const h = (i + m - 1) % m, j = (i + 1) % m;
      const cross = orient(xs[h]!, ys[h]!, xs[i]!, ys[i]!, xs[j]!, ys[j]!);
      if (Math.abs(cross) <= eps) {
        const dot = (xs[i]! - xs[h]!) * (xs[j]! - xs[i]!) + (ys[i]! - ys[h]!) * (ys[j]! - ys[i]!);
        if (dot < 0) throw new RangeError(`polygon turns back on itself at point (${xs[i]}, ${ys[i]}); expected a simple polygon`);
        xs.splice(i, 1);
        ys.splice(i, 1);
        changed = true;
        i--;
      }
    }
  }
  if (xs.length < 3) throw new RangeError(`polygon needs at least 3 points not all on one line, got ${polygon.length} points`);
  const x = Float64Array.from(xs);
  const y = Float64Array.from(ys);
  const bad = firstCrossing(x, y);
  if (bad >= 0) throw new RangeError(`polygon edge ${bad}-${(bad + 1) % x.length} crosses or touches another edge; expected a simple polygon`);
  if (signedArea(x, y) < 0) {
    x.reverse();
    y.reverse();
  }
  return { x, y };
}

/**
 * Ear clipping of a simple counter-clockwise polygon: repeatedly cut off a
 * convex corner whose triangle holds no other (reflex) vertex. O(n^2) per ear
 * search at worst, fine for outlines of tens of points. Returns n-2 triangles,
 * counter-clockwise, as vertex index triples.
 */
function earClip(x: Float64Array, y: Float64Array): Uint32Array {
  const n = x.length;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = (i + 1) % n;
    prev[i] = (i + n - 1) % n;
  }
  const out = new Uint32Array((n - 2) * 3);
  let o = 0;
  let remaining = n;
  let i = 0;
  let sinceEar = 0; // vertices examined since the last ear; a full lap without one means trouble
  while (remaining > 3) {
    const a = prev[i]!, c = next[i]!;
    if (isEar(x, y, next, a, i, c)) {
      out[o++] = a; out[o++] = i; out[o++] = c;
      next[a] = c;
      prev[c] = a;
      remaining--;
      sinceEar = 0;
      i = c;
    } else {
      i = c;
      if (++sinceEar > remaining) {
        // Only reachable through rounding on an almost-degenerate outline.
        throw new RangeError('polygon could not be triangulated (nearly self-touching or degenerate outline)');
      }
    }
  }
  out[o++] = prev[i]!; out[o++] = i; out[o++] = next[i]!;
  return out;
}

function isEar(x: Float64Array, y: Float64Array, next: Int32Array, a: number, b: number, c: number): boolean {
  const ax = x[a]!, ay = y[a]!, bx = x[b]!, by = y[b]!, cx = x[c]!, cy = y[c]!;
  if (orient(ax, ay, bx, by, cx, cy) <= 0) return false; // reflex or flat corner
  // No other remaining vertex may lie inside or on the candidate triangle.
  for (let v = next[c]!; v !== a; v = next[v]!) {
    const vx = x[v]!, vy = y[v]!;
    if (vx === ax && vy === ay) continue;
    if (
      orient(ax, ay, bx, by, vx, vy) >= 0 &&
      orient(bx, by, cx, cy, vx, vy) >= 0 &&
      orient(cx, cy, ax, ay, vx, vy) >= 0
    ) {
      return false;
    }
  }
  return true;
}

/**
 * An L-shaped outline, `w` wide and `h` tall with legs `t` thick, centred on
 * its bounding box. Counter-clockwise.
 */
export function lBlockPolygon(w: number, h: number, t: number): [number, number][] {
  positive('L-block width', w);
  positive('L-block height', h);
  positive('L-block thickness', t);
  if (t >= w || t >= h) throw new RangeError(`L-block thickness (${t}) must be smaller than width (${w}) and height (${h})`);
  const ox = w / 2, oy = h / 2;
  return [[0, 0], [w, 0], [w, t], [t, t], [t, h], [0, h]].map(([px, py]): [number, number] => [px! - ox, py! - oy]);
}

/** A star with `points` tips at radius `outer` and notches at `inner`, first tip on +y. Counter-clockwise. */
export function starPolygon(points: number, outer: number, inner: number): [number, number][] {
  intAtLeast('star points', points, 3);
  positive('star outer radius', outer);
  positive('star inner radius', inner);
  if (inner >= outer) throw new RangeError(`star inner radius (${inner}) must be smaller than the outer radius (${outer})`);
  const out: [number, number][] = [];
  for (let k = 0; k < 2 * points; k++) {
    const a = Math.PI / 2 + (Math.PI * k) / points;
    const rad = k % 2 === 0 ? outer : inner;
    out.push([rad * det.cos(a), rad * det.sin(a)]);
  }
  return out;
}

/** A `w` x `h` rectangle centred on the origin (a domino is extrudeMesh(this, depth)). Counter-clockwise. */
export function dominoPolygon(w: number, h: number): [number, number][] {
  positive('domino width', w);
  positive('domino height', h);
  return [[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]];
}

// ------------------------------------------------------------------- plane

/**
 * A flat square of half-size `halfSize` through the origin, facing `normal`
 * (two triangles, counter-clockwise seen from the normal side). Only for
 * drawing an analytic ground plane: it is NOT closed, so it is never
 * validated, baked into an SDF or sampled for collisions.
 */
export function planeQuadMesh(normal: Vec3, halfSize: number): TriMesh {
  positive('plane halfSize', halfSize);
  const len = Math.hypot(normal[0], normal[1], normal[2]);
  if (!(Number.isFinite(len) && len > 0)) throw new RangeError(`plane normal must be a finite non-zero vector, got [${normal.join(', ')}]`);
  const nx = normal[0] / len, ny = normal[1] / len, nz = normal[2] / len;
  // t1 = normalise(n x helper), with a helper axis far from n; t2 = n x t1.
  const [hx, hy, hz] = Math.abs(nx) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  let ux = ny * hz - nz * hy, uy = nz * hx - nx * hz, uz = nx * hy - ny * hx;
  const ul = Math.hypot(ux, uy, uz);
  ux /= ul; uy /= ul; uz /= ul;
  const vx = ny * uz - nz * uy, vy = nz * ux - nx * uz, vz = nx * uy - ny * ux;
  const s = halfSize;
  const positions = new Float64Array(12);
  const corners = [[-1, -1], [1, -1], [1, 1], [-1, 1]];
  for (let k = 0; k < 4; k++) {
    const [a, b] = corners[k]!;
    positions[k * 3] = s * (a! * ux + b! * vx);
    positions[k * 3 + 1] = s * (a! * uy + b! * vy);
    positions[k * 3 + 2] = s * (a! * uz + b! * vz);
  }
  // (v1 - v0) x (v2 - v0) = 4 s^2 t1 x t2 = 4 s^2 n.
  return { positions, indices: Uint32Array.from([0, 1, 2, 0, 2, 3]) };
}
