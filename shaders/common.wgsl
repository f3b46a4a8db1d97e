// Shared by every compute pass (prepended by shaderSource(name, true)).
//
// Byte layouts of the structs here are mirrored in src/gpu/layout.ts and
// checked by tests/gpu/layout.test.ts; change both together. Storage arrays
// never hold vec3f (16-byte stride with 4 bytes of hidden padding): points
// and normals travel as vec4f.

// Where one SDF grid lives in the shared value array (SdfGrid of src/sdf/grid.ts).
// Node (i, j, k) sits at origin + cellSize * (i, j, k); its value is
// sdf_values[valueOffset + i + dims.x * (j + dims.y * k)].
struct SdfInfo {
  origin: vec3f,      // offset  0
  cellSize: f32,      // offset 12 (fills origin's padding)
  dims: vec3u,        // offset 16, node counts
  valueOffset: u32,   // offset 28
}                     // size 32

// A rigid transform: p' = rotate(q, p) + t.
struct Pose {
  q: vec4f,           // offset  0, quaternion x, y, z, w
  t: vec4f,           // offset 16, translation x, y, z, (unused)
}                     // size 32

// "Outside the grid": far outside, no normal (OUTSIDE_DISTANCE in grid.ts).
const OUTSIDE_DISTANCE: f32 = 1e30;

// Every SDF value of every shape, one array (SdfInfo.valueOffset selects a grid).
// Binding 0 of group 0 is reserved for it in every shader that includes this
// file: WGSL cannot pass a runtime-sized storage array to a function without
// the unrestricted_pointer_parameters extension, which not every browser has.
// Shaders that never call sample_sdf leave it unused (and out of their layout).
@group(0) @binding(0) var<storage, read> sdf_values: array<f32>;

// Rotates v by the unit quaternion q: v + 2w (u x v) + 2 u x (u x v), u = q.xyz.
fn quat_rotate(q: vec4f, v: vec3f) -> vec3f {
  let t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}

fn pose_apply(pose: Pose, p: vec3f) -> vec3f {
  return quat_rotate(pose.q, p) + pose.t.xyz;
}

// True when p (grid-local) lies in the closed grid box: the cheap cull before
// sampling, identical to the range test inside sample_sdf.
fn in_grid_box(info: SdfInfo, p: vec3f) -> bool {
  let g = (p - info.origin) * (1.0 / info.cellSize);
  let hi = vec3f(info.dims - vec3u(1u));
  return all(g >= vec3f(0.0)) && all(g <= hi);
}

// phi at p (trilinear, docs/ALGORITHM.md 1, eq. 2.1) in .x and the normalised
// interpolated gradient (2.2-2.5) in .yzw. Outside the grid: phi = 1e30 and a
// zero normal. Mirrors sampleSdf in src/sdf/grid.ts operation for operation;
// keep them in step.
// Distance from a cell face, in cells, within which a point counts as on it (CELL_FACE in grid.ts).
const CELL_FACE: f32 = 1e-4;

// The derivative along one axis in the cell whose first node is b (grid.ts edgeBlend).
fn edge_blend(b: u32, along: u32, s1: u32, s2: u32, e1: f32, f1: f32, e2: f32, f2: f32) -> f32 {
  return e2 * (e1 * (sdf_values[b + along] - sdf_values[b]) + f1 * (sdf_values[b + s1 + along] - sdf_values[b + s1])) +
         f2 * (e1 * (sdf_values[b + s2 + along] - sdf_values[b + s2]) + f1 * (sdf_values[b + s2 + s1 + along] - sdf_values[b + s2 + s1]));
}

// phi only, at grid coordinates g (node units) inside [0, dims - 1]: the
// query's extension beyond the grid box (penetration.wgsl). Mirrors
// sdfPhiGrid in src/sdf/grid.ts.
fn sdf_phi_grid(info: SdfInfo, g: vec3f) -> f32 {
  let n = info.dims;
  let c = min(vec3u(floor(g)), n - vec3u(2u));
  let f = g - vec3f(c);
  let e = vec3f(1.0) - f;
  let sy = n.x;
  let sz = n.x * n.y;
  let b = info.valueOffset + c.x + n.x * (c.y + n.y * c.z);
  let c00 = e.x * sdf_values[b] + f.x * sdf_values[b + 1u];
  let c10 = e.x * sdf_values[b + sy] + f.x * sdf_values[b + sy + 1u];
  let c01 = e.x * sdf_values[b + sz] + f.x * sdf_values[b + sz + 1u];
  let c11 = e.x * sdf_values[b + sz + sy] + f.x * sdf_values[b + sz + sy + 1u];
  return e.z * (e.y * c00 + f.y * c10) + f.z * (e.y * c01 + f.y * c11);
}

fn sample_sdf(info: SdfInfo, p: vec3f) -> vec4f {
  let g = (p - info.origin) * (1.0 / info.cellSize);
  let n = info.dims;
  // The negated form also rejects NaN, as in grid.ts.
  if (!(all(g >= vec3f(0.0)) && all(g <= vec3f(n - vec3u(1u))))) {
    return vec4f(OUTSIDE_DISTANCE, 0.0, 0.0, 0.0);
  }
  // Cell index (2.6), clamped so points on the far face use the last cell.
  let c = min(vec3u(floor(g)), n - vec3u(2u));
  let f = g - vec3f(c);
  let e = vec3f(1.0) - f;
  let sy = n.x;
  let sz = n.x * n.y;
  let b = info.valueOffset + c.x + n.x * (c.y + n.y * c.z);
  let d000 = sdf_values[b];
  let d100 = sdf_values[b + 1u];
  let d010 = sdf_values[b + sy];
  let d110 = sdf_values[b + sy + 1u];
  let d001 = sdf_values[b + sz];
  let d101 = sdf_values[b + sz + 1u];
  let d011 = sdf_values[b + sz + sy];
  let d111 = sdf_values[b + sz + sy + 1u];
  let phi = e.z * (e.y * (e.x * d000 + f.x * d100) + f.y * (e.x * d010 + f.x * d110)) +
            f.z * (e.y * (e.x * d001 + f.x * d101) + f.y * (e.x * d011 + f.x * d111));
  // x-derivative: bilinear (y, z) blend of the four x-edge differences; same for y, z.
  var dx = e.z * (e.y * (d100 - d000) + f.y * (d110 - d010)) + f.z * (e.y * (d101 - d001) + f.y * (d111 - d011));
  var dy = e.z * (e.x * (d010 - d000) + f.x * (d110 - d100)) + f.z * (e.x * (d011 - d001) + f.x * (d111 - d101));
  var dz = e.y * (e.x * (d001 - d000) + f.x * (d101 - d100)) + f.y * (e.x * (d011 - d010) + f.x * (d111 - d110));
  // On a cell face the derivative across it is the mean of the two cells'
  // (grid.ts sampleSdf says why); the same test as the CPU twin.
  if (f.x < CELL_FACE && c.x > 0u) {
    dx = 0.5 * (dx + edge_blend(b - 1u, 1u, sy, sz, e.y, f.y, e.z, f.z));
  } else if (f.x > 1.0 - CELL_FACE && c.x < n.x - 2u) {
    dx = 0.5 * (dx + edge_blend(b + 1u, 1u, sy, sz, e.y, f.y, e.z, f.z));
  }
  if (f.y < CELL_FACE && c.y > 0u) {
    dy = 0.5 * (dy + edge_blend(b - sy, sy, 1u, sz, e.x, f.x, e.z, f.z));
  } else if (f.y > 1.0 - CELL_FACE && c.y < n.y - 2u) {
    dy = 0.5 * (dy + edge_blend(b + sy, sy, 1u, sz, e.x, f.x, e.z, f.z));
  }
  if (f.z < CELL_FACE && c.z > 0u) {
    dz = 0.5 * (dz + edge_blend(b - sz, sz, 1u, sy, e.x, f.x, e.y, f.y));
  } else if (f.z > 1.0 - CELL_FACE && c.z < n.z - 2u) {
    dz = 0.5 * (dz + edge_blend(b + sz, sz, 1u, sy, e.x, f.x, e.y, f.y));
  }
  let grad = vec3f(dx, dy, dz);
  let len = length(grad);
  var normal = vec3f(0.0, 1.0, 0.0);
  if (len > 0.0) {
    normal = grad / len;
  }
  return vec4f(phi, normal);
}
