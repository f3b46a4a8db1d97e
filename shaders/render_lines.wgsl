// Lines: world-space overlays (AABBs, contact normals) and instanced wireframes.
struct LineOut {
  @builtin(position) clip: vec4f,
  @location(0) color: vec4f,
}

// World-space lines with a colour per vertex (src/app/overlays.ts VertexList).
@vertex
fn vs_world(@location(0) pos: vec3f, @location(1) color: vec4f) -> LineOut {
  var o: LineOut;
  o.clip = frame.viewProj * vec4f(pos, 1.0);
  o.color = color;
  return o;
}

// Mesh edges of every body of one shape; the colour is the body's, lightened.
@vertex
fn vs_wire(@location(0) pos: vec3f, @builtin(instance_index) ii: u32) -> LineOut {
  let inst = instances[ii];
  var o: LineOut;
  o.clip = frame.viewProj * (inst.model * vec4f(pos, 1.0));
  let c = to_display(inst.color.rgb * 1.3 + vec3f(0.08));
  o.color = vec4f(c, select(select(0.0, 0.16, draws_faded(inst.color)), 0.9, draws_wire(inst.color)));
  return o;
}

@fragment
fn fs_main(in: LineOut) -> @location(0) vec4f {
  if (in.color.a < 0.01) {
    discard;
  }
  return in.color;
}
