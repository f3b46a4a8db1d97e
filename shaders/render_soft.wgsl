// Soft bodies (src/app/softPass.ts): the skinned surface, already in world
// space with a normal and colour per vertex (src/app/softGeometry.ts), lit like
// the rigid bodies, and its planar shadow. render_common.wgsl is joined in front.
struct SoftOut {
  @builtin(position) clip: vec4f,
  @location(0) world: vec3f,
  @location(1) normal: vec3f,
  @location(2) color: vec4f,
}

@vertex
fn vs_surface(@location(0) pos: vec3f, @location(1) nrm: vec3f, @location(2) color: vec4f) -> SoftOut {
  var o: SoftOut;
  o.clip = frame.viewProj * vec4f(pos, 1.0);
  o.world = pos;
  o.normal = nrm;
  o.color = color;
  return o;
}

@fragment
fn fs_surface(in: SoftOut) -> @location(0) vec4f {
  // Both faces lit from the viewer's side: a squashed body may show its inside for a moment.
  var n = normalize(in.normal);
  if (dot(n, frame.eye.xyz - in.world) < 0.0) {
    n = -n;
  }
  var c = shade(in.color.rgb, n, in.world);
  c = apply_fog(c, in.world);
  return vec4f(to_display(c), 1.0);
}

@vertex
fn vs_shadow(@location(0) pos: vec3f) -> @builtin(position) vec4f {
  return frame.viewProj * (frame.shadowProj * vec4f(pos, 1.0));
}

@fragment
fn fs_shadow() -> @location(0) vec4f {
  return vec4f(0.0, 0.0, 0.0, frame.fog.z);
}
