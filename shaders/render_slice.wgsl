// A slice through one body's SDF, coloured by phi, with the zero iso-line.
// The quad's corners and the grid come from src/app/render/depthFieldPasses.ts.
struct Slice {
  // Local-frame quad: corner + u * edgeU + v * edgeV, u, v in [0, 1].
  corner: vec4f,
  edgeU: vec4f,
  edgeV: vec4f,
  // xyz grid origin (local), w cell size.
  origin: vec4f,
  // Node counts nx, ny, nz, and the body's instance slot.
  dims: vec4u,
}

@group(1) @binding(0) var<uniform> slice: Slice;
@group(1) @binding(1) var<storage, read> phiValues: array<f32>;

struct SliceOut {
  @builtin(position) clip: vec4f,
  @location(0) local: vec3f,
}

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> SliceOut {
  var uv = array<vec2f, 6>(vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0), vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0));
  let t = uv[vi];
  let local = slice.corner.xyz + t.x * slice.edgeU.xyz + t.y * slice.edgeV.xyz;
  var o: SliceOut;
  o.clip = frame.viewProj * (instances[slice.dims.w].model * vec4f(local, 1.0));
  o.local = local;
  return o;
}

fn node(i: u32, j: u32, k: u32) -> f32 {
  return phiValues[i + slice.dims.x * (j + slice.dims.y * k)];
}

// Trilinear phi, as sampleSdf in src/sdf/grid.ts (clamped to the grid).
fn phi_at(p: vec3f) -> f32 {
  let g = (p - slice.origin.xyz) / slice.origin.w;
  let maxc = vec3f(slice.dims.xyz) - vec3f(2.0);
  let c = clamp(floor(g), vec3f(0.0), maxc);
  let f = clamp(g - c, vec3f(0.0), vec3f(1.0));
  let i = u32(c.x);
  let j = u32(c.y);
  let k = u32(c.z);
  let x00 = mix(node(i, j, k), node(i + 1u, j, k), f.x);
  let x10 = mix(node(i, j + 1u, k), node(i + 1u, j + 1u, k), f.x);
  let x01 = mix(node(i, j, k + 1u), node(i + 1u, j, k + 1u), f.x);
  let x11 = mix(node(i, j + 1u, k + 1u), node(i + 1u, j + 1u, k + 1u), f.x);
  return mix(mix(x00, x10, f.y), mix(x01, x11, f.y), f.z);
}

@fragment
fn fs_main(in: SliceOut) -> @location(0) vec4f {
  let phi = phi_at(in.local);
  let h = slice.origin.w;
  // Diverging map in cells: inside blue, outside amber, pale near the surface.
  let t = clamp(phi / (8.0 * h), -1.0, 1.0);
  let inside = mix(vec3f(0.75, 0.85, 0.95), vec3f(0.05, 0.25, 0.75), -t);
  let outside = mix(vec3f(0.95, 0.88, 0.70), vec3f(0.80, 0.30, 0.05), t);
  var c = select(outside, inside, phi < 0.0);
  // Contour bands every two cells.
  let band = abs(fract(phi / (2.0 * h) + 0.5) - 0.5) / max(fwidth(phi / (2.0 * h)), 1e-6);
  c *= 0.8 + 0.2 * min(band, 1.0);
  // The zero iso-line, 2 pixels wide.
  let iso = 1.0 - smoothstep(1.0, 2.0, abs(phi) / max(fwidth(phi), 1e-6));
  c = mix(c, vec3f(1.0), iso);
  return vec4f(pow(c, vec3f(1.0 / 1.2)), 1.0);
}
