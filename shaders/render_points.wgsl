// Round screen-space dots: collision samples and SDF grid nodes (per shape,
// instanced by body) and contact points (world space, slot 0 = identity).
struct PointRec {
  pos: vec3f,
  color: u32,
}

struct PointStyle {
  // x: diameter in device pixels; yzw unused.
  size: vec4f,
}

@group(1) @binding(0) var<storage, read> points: array<PointRec>;
@group(1) @binding(1) var<uniform> style: PointStyle;

struct PointOut {
  @builtin(position) clip: vec4f,
  @location(0) corner: vec2f,
  @location(1) color: vec4f,
}

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> PointOut {
  let p = points[vi / 6u];
  // Two triangles per dot: corners (-1,-1) (1,-1) (-1,1) / (-1,1) (1,-1) (1,1).
  let k = vi % 6u;
  var corner = vec2f(-1.0, -1.0);
  if (k == 1u || k == 4u) {
    corner = vec2f(1.0, -1.0);
  } else if (k == 2u || k == 3u) {
    corner = vec2f(-1.0, 1.0);
  } else if (k == 5u) {
    corner = vec2f(1.0, 1.0);
  }
  var clip = frame.viewProj * (instances[ii].model * vec4f(p.pos, 1.0));
  // NDC spans 2 across the viewport, so a d-pixel dot is d / width in NDC each side of centre... times w.
  clip = vec4f(clip.xy + corner * style.size.x * frame.viewport.zw * clip.w, clip.zw);
  var o: PointOut;
  o.clip = clip;
  o.corner = corner;
  o.color = unpack4x8unorm(p.color);
  return o;
}

@fragment
fn fs_main(in: PointOut) -> @location(0) vec4f {
  let r = length(in.corner);
  if (r > 1.0) {
    discard;
  }
  // A darker rim so dots stay visible on a light surface of their own colour.
  let rim = smoothstep(0.6, 1.0, r);
  return vec4f(mix(in.color.rgb, in.color.rgb * 0.35, rim), in.color.a);
}
