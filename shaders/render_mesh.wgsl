// Lit bodies (instanced per shape) and their planar shadows.
struct MeshOut {
  @builtin(position) clip: vec4f,
  @location(0) world: vec3f,
  @location(1) normal: vec3f,
  @location(2) color: vec4f,
}

@vertex
fn vs_main(@location(0) pos: vec3f, @location(1) nrm: vec3f, @builtin(instance_index) ii: u32) -> MeshOut {
  let inst = instances[ii];
  let w = inst.model * vec4f(pos, 1.0);
  var o: MeshOut;
  o.clip = frame.viewProj * w;
  o.world = w.xyz;
  // Rigid transform: the rotation part turns normals as it turns positions.
  o.normal = (inst.model * vec4f(nrm, 0.0)).xyz;
  o.color = inst.color;
  return o;
}

@fragment
fn fs_main(in: MeshOut) -> @location(0) vec4f {
  if (!draws_solid(in.color)) {
    discard;
  }
  let n = normalize(in.normal);
  var c = shade(in.color.rgb, n, in.world);
  c = apply_fog(c, in.world);
  return vec4f(to_display(c), 1.0);
}

// Planar shadow: every body flattened onto the shadow plane along the light.
// The stencil lets each ground pixel darken once however many bodies overlap.
@vertex
fn vs_shadow(@location(0) pos: vec3f, @builtin(instance_index) ii: u32) -> @builtin(position) vec4f {
  // Faded and hidden bodies cast none: past the far plane, clipped.
  if (!draws_wire(instances[ii].color)) {
    return vec4f(0.0, 0.0, 2.0, 1.0);
  }
  let w = instances[ii].model * vec4f(pos, 1.0);
  return frame.viewProj * (frame.shadowProj * w);
}

@fragment
fn fs_shadow() -> @location(0) vec4f {
  // Blend: dst * (1 - a).
  return vec4f(0.0, 0.0, 0.0, frame.fog.z);
}
