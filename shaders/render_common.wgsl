// Shared by every render_*.wgsl pass (joined in front of each by src/app/render/context.ts).
// The host's layouts of these structs are in src/app/render/layout.ts, checked against them by
// tests/gpu/renderLayout.test.ts.

// Per frame, 208 bytes:
//   viewProj   mat4x4f   0..64   world -> clip
//   shadowProj mat4x4f  64..128  world -> world point projected on the shadow plane along the light
//   eye        vec4f   128..144  xyz eye position, w unused
//   lightDir   vec4f   144..160  xyz unit vector towards the light
//   viewport   vec4f   160..176  width, height, 1/width, 1/height (device pixels)
//   fog        vec4f   176..192  x fog start, y fog end (metres from the eye), z shadow strength, w unused
//   focus      vec4f   192..208  xyz camera target, the focus of the ground fade, w ground fade radius
struct Frame {
  viewProj: mat4x4f,
  shadowProj: mat4x4f,
  eye: vec4f,
  lightDir: vec4f,
  viewport: vec4f,
  fog: vec4f,
  focus: vec4f,
}

// Per body, 80 bytes (model 0..64, color 64..80): the rigid transform and the colour. Slot 0 is the identity, for geometry already in
// world space. The colour's alpha says how the body is drawn (layout.ts INSTANCE_ALPHA):
// 1 solid, 0.5 as its wireframe only, 0.15 as faint edges without a shadow, 0 not at all.
struct Instance {
  model: mat4x4f,
  color: vec4f,
}

fn draws_solid(color: vec4f) -> bool {
  return color.a > 0.75;
}

fn draws_wire(color: vec4f) -> bool {
  return color.a > 0.25;
}

fn draws_faded(color: vec4f) -> bool {
  return color.a > 0.05 && color.a <= 0.25;
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> instances: array<Instance>;

// The colour the far ground fades into; the background's horizon uses it too.
const HORIZON = vec3f(0.012, 0.014, 0.019);
const ZENITH = vec3f(0.003, 0.0035, 0.005);

// Soft studio lighting: a warm key light, a cool sky / dark ground hemisphere
// fill, a faint rim so silhouettes read against the dark background.
fn shade(base: vec3f, n: vec3f, world: vec3f) -> vec3f {
  let v = normalize(frame.eye.xyz - world);
  let l = frame.lightDir.xyz;
  let ndl = max(dot(n, l), 0.0);
  // Wrapped diffuse: light reaches a little past the terminator, softer than Lambert.
  let wrap = max((dot(n, l) + 0.3) / 1.3, 0.0);
  let hemi = mix(vec3f(0.025, 0.022, 0.02), vec3f(0.16, 0.18, 0.23), 0.5 + 0.5 * n.y);
  let h = normalize(l + v);
  let spec = pow(max(dot(n, h), 0.0), 64.0) * 0.3 * ndl;
  let rim = pow(1.0 - max(dot(n, v), 0.0), 4.0) * 0.08;
  return base * (hemi + vec3f(1.0, 0.94, 0.86) * (0.85 * wrap)) + vec3f(spec) + rim * vec3f(0.45, 0.55, 0.75);
}

fn apply_fog(c: vec3f, world: vec3f) -> vec3f {
  let d = distance(frame.eye.xyz, world);
  let t = smoothstep(frame.fog.x, frame.fog.y, d);
  return mix(c, HORIZON, t);
}

// Linear to display: a gentle filmic shoulder, then gamma 2.2 (the canvas is not an sRGB format).
fn to_display(c: vec3f) -> vec3f {
  let m = c / (1.0 + 0.35 * c);
  return pow(clamp(m, vec3f(0.0), vec3f(1.0)), vec3f(1.0 / 2.2));
}
