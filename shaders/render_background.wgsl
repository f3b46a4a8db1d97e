// A full-screen triangle with a vertical gradient: dark zenith to the horizon colour the fog uses.
struct BgOut {
  @builtin(position) clip: vec4f,
  @location(0) ndc: vec2f,
}

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> BgOut {
  // (-1,-1), (3,-1), (-1,3): one triangle that covers the screen.
  let x = f32(i32(vi & 1u) * 4 - 1);
  let y = f32(i32(vi >> 1u) * 4 - 1);
  var o: BgOut;
  o.clip = vec4f(x, y, 0.0, 1.0);
  o.ndc = vec2f(x, y);
  return o;
}

@fragment
fn fs_main(in: BgOut) -> @location(0) vec4f {
  let t = clamp(in.ndc.y * 0.5 + 0.5, 0.0, 1.0);
  var c = mix(HORIZON * 1.15, HORIZON * 0.55, t);
  // A faint vignette keeps the eye in the middle.
  let r = length(in.ndc * vec2f(0.8, 1.0));
  c *= 1.0 - 0.25 * smoothstep(0.6, 1.5, r);
  return vec4f(to_display(c), 1.0);
}
