// Analytic planes: a large quad with a metre grid that fades with distance.
struct GroundOut {
  @builtin(position) clip: vec4f,
  @location(0) world: vec3f,
  @location(1) local: vec3f,
  @location(2) localNormal: vec3f,
  @location(3) normal: vec3f,
}

@vertex
fn vs_main(@location(0) pos: vec3f, @location(1) nrm: vec3f, @builtin(instance_index) ii: u32) -> GroundOut {
  let inst = instances[ii];
  let w = inst.model * vec4f(pos, 1.0);
  var o: GroundOut;
  o.clip = frame.viewProj * w;
  o.world = w.xyz;
  o.local = pos;
  o.localNormal = nrm;
  o.normal = (inst.model * vec4f(nrm, 0.0)).xyz;
  return o;
}

// Anti-aliased grid lines of the given spacing: 1 on a line, 0 between.
fn grid_line(uv: vec2f, spacing: f32, width: f32) -> f32 {
  let g = uv / spacing;
  let fw = max(fwidth(g), vec2f(1e-5));
  let d = abs(fract(g - 0.5) - 0.5) / fw;
  let line = 1.0 - min(min(d.x, d.y) / width, 1.0);
  // Fade out where lines would be thinner than a pixel apart (moire).
  let density = max(fw.x, fw.y);
  return line * (1.0 - smoothstep(0.15, 0.5, density));
}

@fragment
fn fs_main(in: GroundOut) -> @location(0) vec4f {
  // Two in-plane axes from the plane's normal (branch-free orthonormal basis, Duff et al. 2017).
  let n = normalize(in.localNormal);
  let s = select(-1.0, 1.0, n.z >= 0.0);
  let a = -1.0 / (s + n.z);
  let b = n.x * n.y * a;
  let t1 = vec3f(1.0 + s * n.x * n.x * a, s * b, -s * n.x);
  let t2 = vec3f(b, s + n.y * n.y * a, -n.y);
  let uv = vec2f(dot(in.local, t1), dot(in.local, t2));

  let wn = normalize(in.normal);
  var base = vec3f(0.028, 0.030, 0.034);
  var c = shade(base, wn, in.world);
  let minor = grid_line(uv, 1.0, 1.0);
  let major = grid_line(uv, 5.0, 1.4);
  c = mix(c, vec3f(0.05, 0.056, 0.066), 0.8 * minor);
  c = mix(c, vec3f(0.10, 0.11, 0.13), 0.9 * major);
  // The ground fades out around the camera target, so its edge never shows
  // and it melts into the background instead of meeting it at a hard horizon.
  let r = distance(in.world, frame.focus.xyz);
  let fade = 1.0 - smoothstep(0.35 * frame.focus.w, frame.focus.w, r);
  return vec4f(to_display(c), fade);
}
