// Signed distance field bake (docs/ALGORITHM.md 1, seed ch. 3), GPU twin of
// bakeSdfCpu (src/sdf/bake.ts); host side in src/gpu/sdfBakePass.ts.
//
// One thread per grid node. Not every triangle: the host orders the
// triangles along a Morton curve, so that each tile of BAKE_TILE consecutive
// triangles is a compact piece of the surface, and appends a bounding
// sphere and a surface point per tile and a bounding sphere per triangle
// (tiledTriangleTable, src/gpu/sdfBakePass.ts). A node first takes the
// nearest of the tiles' surface points as an upper bound of its distance,
// then skips every tile, and every triangle, whose sphere lies beyond that
// bound or beyond its closest triangle so far. A skipped triangle could
// neither have been the closest nor tied with it (CULL_MARGIN keeps f32
// rounding on the safe side), so the field is the brute force's; a node
// near a 3 674-triangle bunny, or a 5 760-triangle sphere, tests 37 and 63
// triangles on average (32 cells). No workgroup memory and no barriers:
// each node reads what it tests (with the culling, streaming every tile
// through workgroup memory saved nothing on SwiftShader).

// Distance: exact point-triangle distance with the 7-region (Voronoi)
// classification of the closest feature (Ericson, Real-Time Collision
// Detection 5.1.5), computed with the node at the origin, i.e. on
// (vertex - node), so f32 keeps its precision far from the world origin.
// Sign: outside iff dot(node - closest, pseudonormal(feature)) > 0, with the
// angle-weighted pseudonormals of packTriangleTable (Baerentzen & Aanaes 2002).
//
// Ties: several triangles can own (nearly) the same closest point, e.g. the
// shared edge or vertex of neighbours. Correctly classified they carry the
// same pseudonormal, but rounding can put the point in a neighbouring region
// of one of them (face instead of edge, edge instead of vertex), whose
// pseudonormal may give the wrong sign. Among candidates within a relative
// TIE_EPS of the best squared distance (a few dozen f32 ulps) the distance
// is the smallest, and the sign comes from the one whose pseudonormal is most
// nearly parallel to (node - closest), the largest |cos|: the correct
// feature's pseudonormal is never perpendicular to the offset, a
// misclassified one can be.

override WORKGROUP_SIZE: u32 = 64u;

// Triangle table: TRIANGLE_VEC4S vec4f per triangle, see packTriangleTable.
const TRIANGLE_VEC4S: u32 = 10u;
// Table slot of each feature's pseudonormal; also the feature code.
const FEATURE_FACE: u32 = 3u;
const FEATURE_EDGE_AB: u32 = 4u;
const FEATURE_EDGE_BC: u32 = 5u;
const FEATURE_EDGE_CA: u32 = 6u;
const FEATURE_VERT_A: u32 = 7u;
const FEATURE_VERT_B: u32 = 8u;
const FEATURE_VERT_C: u32 = 9u;

// Relative tolerance on squared distances below which two triangles tie.
const TIE_EPS: f32 = 4e-6;
// A tile or triangle is skipped only when its sphere's gap to the node,
// squared, exceeds the bound squared by this relative margin (far above
// TIE_EPS and the f32 error of the distances compared), the gap shrunk by
// CULL_ULPS of the node's coordinates (the rounding of its position far from
// the origin); the host grows the spheres' radii the same way.
const CULL_MARGIN: f32 = 1e-4;
const CULL_ULPS: f32 = 1e-6;
// Triangles per tile, and vec4s per tile after the triangles: (centre,
// radius), (surface point, 0); then one vec4 per triangle, (centre, radius).
const BAKE_TILE: u32 = 64u;
const TILE_BOUND_VEC4S: u32 = 2u;

struct BakeParams {
  grid: SdfInfo,         // offset  0 (valueOffset unused)
  triangleCount: u32,    // offset 32
  firstNode: u32,        // offset 36: linear index of this dispatch's first node
  nodeCount: u32,        // offset 40: nodes in this dispatch
  pad0: u32,             // offset 44
}                        // size 48

// binding 0 is sdf_values (common.wgsl), unused here.
@group(0) @binding(1) var<storage, read> triangles: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> values: array<f32>; // this dispatch's nodes only
@group(0) @binding(3) var<uniform> params: BakeParams;

struct Closest {
  point: vec3f,          // closest point, relative to the node
  feature: u32,          // FEATURE_* code
}

// Closest point to the origin (the node) of the triangle with corner a,
// edges ab, ac, uu = ab.ab, uv = ab.ac, vv = ac.ac and unit normal nrm, and
// its feature. Ericson's six dot products reduce to two that depend on the
// node (d1, d2); the other four follow from the per-triangle constants
// (d3 = d1 - uu, d4 = d2 - uv, d5 = d1 - uv, d6 = d2 - vv), the same
// rewriting as src/sdf/pointTriangle.ts.
fn closest_on_triangle(a: vec3f, ab: vec3f, ac: vec3f, uu: f32, uv: f32, vv: f32, nrm: vec3f) -> Closest {
  // ap = p - a = -a with the node at the origin.
  let d1 = -dot(ab, a);
  let d2 = -dot(ac, a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return Closest(a, FEATURE_VERT_A);
  }
  let d3 = d1 - uu;
  let d4 = d2 - uv;
  if (d3 >= 0.0 && d4 <= d3) {
    return Closest(a + ab, FEATURE_VERT_B);
  }
  let vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    return Closest(a + (d1 / uu) * ab, FEATURE_EDGE_AB);
  }
  let d5 = d1 - uv;
  let d6 = d2 - vv;
  if (d6 >= 0.0 && d5 <= d6) {
    return Closest(a + ac, FEATURE_VERT_C);
  }
  let vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    return Closest(a + (d2 / vv) * ac, FEATURE_EDGE_CA);
  }
  let va = d3 * d6 - d5 * d4;
  let e43 = d4 - d3;
  let e56 = d5 - d6;
  if (va <= 0.0 && e43 >= 0.0 && e56 >= 0.0) {
    return Closest(a + ab + (e43 / (e43 + e56)) * (ac - ab), FEATURE_EDGE_BC);
  }
  // Face interior: the closest point is the node's projection onto the plane.
  // Not a + v ab + w ac: the barycentrics come from differences of products
  // of large dot products, and their f32 error moves the point along the
  // plane, which for a node on the surface is the whole distance (1e-5 of a
  // 4 m long triangle). The projection's error is only that of the normal.
  if (!(va + vb + vc > 0.0) || !(dot(nrm, nrm) > 0.0)) {
    // Degenerate (zero-area) triangle not caught above: its closest vertex is as good as any.
    return Closest(a, FEATURE_VERT_A);
  }
  return Closest(dot(a, nrm) * nrm, FEATURE_FACE);
}

// |cos| of the angle between the feature's pseudonormal and the offset
// `closest` (node to closest point): how clearly this feature signs the node.
fn sign_confidence(tri: u32, feature: u32, closest: vec3f) -> f32 {
  let n = triangles[tri * TRIANGLE_VEC4S + feature].xyz;
  let nn = dot(n, n) * dot(closest, closest);
  if (!(nn > 0.0)) {
    return 0.0;
  }
  return abs(dot(closest, n)) * inverseSqrt(nn);
}

// Whether a sphere (centre, radius) lies farther from the node at `pos` than
// sqrt(limit2), by CULL_MARGIN and `slack` (see CULL_MARGIN).
fn beyond(sphere: vec4f, pos: vec3f, slack: f32, limit2: f32) -> bool {
  let gap = length(sphere.xyz - pos) - sphere.w - slack;
  return gap > 0.0 && gap * gap > limit2 * (1.0 + CULL_MARGIN);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let local = gid.x;
  if (local >= params.nodeCount) {
    return;
  }
  let node = params.firstNode + local;
  let nx = params.grid.dims.x;
  let ny = params.grid.dims.y;
  let ijk = vec3u(node % nx, (node / nx) % ny, node / (nx * ny));
  let pos = params.grid.origin + params.grid.cellSize * vec3f(ijk);
  let slack = CULL_ULPS * max(abs(pos.x), max(abs(pos.y), abs(pos.z)));

  let n = params.triangleCount;
  let tileCount = (n + BAKE_TILE - 1u) / BAKE_TILE;
  let tileBounds = n * TRIANGLE_VEC4S;
  let triangleSpheres = tileBounds + TILE_BOUND_VEC4S * tileCount;

  // An upper bound of the node's distance: the nearest of the tiles' surface points.
  var bound2 = 3.0e38;
  for (var k = 0u; k < tileCount; k++) {
    let r = triangles[tileBounds + TILE_BOUND_VEC4S * k + 1u].xyz - pos;
    bound2 = min(bound2, dot(r, r));
  }

  var best2 = 3.0e38;
  var bestTri = 0u;
  var bestFeature = FEATURE_FACE;
  var bestPoint = vec3f(0.0);
  var bestConf = -1.0;

  for (var k = 0u; k < tileCount; k++) {
    // Past the bound (or the closest so far), no triangle of the tile can be the closest.
    if (beyond(triangles[tileBounds + TILE_BOUND_VEC4S * k], pos, slack, min(bound2, best2))) {
      continue;
    }
    let last = min(n, (k + 1u) * BAKE_TILE);
    for (var t = k * BAKE_TILE; t < last; t++) {
      if (beyond(triangles[triangleSpheres + t], pos, slack, min(bound2, best2))) {
        continue;
      }
      let o = t * TRIANGLE_VEC4S;
      let a = triangles[o].xyz;
      let ab = triangles[o + 1u].xyz - a;
      let ac = triangles[o + 2u].xyz - a;
      let cl = closest_on_triangle(a - pos, ab, ac, dot(ab, ab), dot(ab, ac), dot(ac, ac), triangles[o + FEATURE_FACE].xyz);
      let d2 = dot(cl.point, cl.point);
      let tol = TIE_EPS * best2;
      if (d2 < best2 - tol) {
        best2 = d2;
        bestTri = t;
        bestFeature = cl.feature;
        bestPoint = cl.point;
        bestConf = -1.0; // computed lazily, only if a tie shows up
      } else if (d2 <= best2 + tol) {
        // A tie: the distance is the smaller one whoever signs it.
        best2 = min(best2, d2);
        if (bestConf < 0.0) {
          bestConf = sign_confidence(bestTri, bestFeature, bestPoint);
        }
        let conf = sign_confidence(t, cl.feature, cl.point);
        if (conf > bestConf) {
          bestTri = t;
          bestFeature = cl.feature;
          bestPoint = cl.point;
          bestConf = conf;
        }
      }
    }
  }

  let pn = triangles[bestTri * TRIANGLE_VEC4S + bestFeature].xyz;
  // node - closest = -bestPoint; outside iff its dot with the pseudonormal is positive.
  let outside = dot(-bestPoint, pn) > 0.0;
  let d = sqrt(best2);
  values[local] = select(-d, d, outside);
}
