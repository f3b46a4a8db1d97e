/**
 * Picking (src/app/picking.ts): the ray through a pixel of a known camera, and
 * the body it hits first, against analytic answers.
 */
import { describe, expect, it } from 'vitest';
import { defaultCamera, viewProjection, type OrbitCamera } from '../../src/app/camera.ts';
import { invert4, pickBody, pixelRay, projectPoint, rayBox } from '../../src/app/picking.ts';
import { FORMAT, bodyIndex, worldFrom } from '../dynamics/helpers.ts';

const W = 800, H = 600;

/** Eye at (0, 1, 10) looking along -z at (0, 1, 0), 45 degree vertical field of view. */
function camera(extra: Partial<OrbitCamera> = {}): OrbitCamera {
  return { ...defaultCamera(), target: [0, 1, 0], yaw: 0, pitch: 0, distance: 10, fovY: Math.PI / 4, ...extra };
}
const vp = (c: OrbitCamera) => viewProjection(c, W / H);

async function scene(rotationDegrees = 0) {
  return worldFrom({
    format: FORMAT,
    shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [1, 1, 1], sdf: { cells: 8 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true },
      { name: 'a', shape: 'box', position: [0, 1, 0], rotation: { axis: [0, 1, 0], degrees: rotationDegrees } },
      { name: 'b', shape: 'box', position: [1.5, 1, -2] },
    ],
  });
}

describe('the ray through a pixel', () => {
  it('starts on the near plane and runs along the view direction through the middle of the canvas', () => {
    const ray = pixelRay(vp(camera()), W / 2, H / 2, W, H)!;
    expect(ray.dir[0]).toBeCloseTo(0, 6);
    expect(ray.dir[1]).toBeCloseTo(0, 6);
    expect(ray.dir[2]).toBeCloseTo(-1, 6);
    expect(ray.origin[0]).toBeCloseTo(0, 5);
    expect(ray.origin[1]).toBeCloseTo(1, 5);
    // Near plane at max(0.01, 0.02 distance) = 0.2 m in front of the eye.
    expect(ray.origin[2]).toBeCloseTo(10 - 0.2, 4);
  });

  it('leans by the field of view: a pixel halfway to the right edge is at atan(0.5 tan(fov/2) aspect)', () => {
    const ray = pixelRay(vp(camera()), 0.75 * W, 0.25 * H, W, H)!;
    const t = Math.tan(Math.PI / 8);
    expect(ray.dir[0] / -ray.dir[2]).toBeCloseTo(0.5 * t * (W / H), 6);
    expect(ray.dir[1] / -ray.dir[2]).toBeCloseTo(0.5 * t, 6);
  });

  it('inverts projectPoint, lens shift and a turned camera included', () => {
    const c = camera({ yaw: 0.7, pitch: 0.4 });
    // A lens shift moves clip x and y by a multiple of w: the target lands at NDC (0.3, -0.1).
    const m = Float32Array.from(vp(c));
    for (let col = 0; col < 4; col++) {
      m[4 * col] = m[4 * col]! + 0.3 * m[4 * col + 3]!;
      m[4 * col + 1] = m[4 * col + 1]! - 0.1 * m[4 * col + 3]!;
    }
    for (const p of [[0, 1, 0], [2, 0.5, -1], [-3, 2, 4]] as const) {
      const px = projectPoint(m, p, W, H)!;
      const ray = pixelRay(m, px[0], px[1], W, H)!;
      // Distance from the point to the ray.
      const v = [p[0] - ray.origin[0], p[1] - ray.origin[1], p[2] - ray.origin[2]];
      const along = v[0]! * ray.dir[0] + v[1]! * ray.dir[1] + v[2]! * ray.dir[2];
      const off = Math.hypot(v[0]! - along * ray.dir[0], v[1]! - along * ray.dir[1], v[2]! - along * ray.dir[2]);
      expect(off).toBeLessThan(1e-5);
    }
    // The target sits at the lens shift, not in the middle.
    const t = projectPoint(m, c.target, W, H)!;
    expect(t[0]).toBeCloseTo(((1 + 0.3) / 2) * W, 3);
    expect(t[1]).toBeCloseTo(((1 + 0.1) / 2) * H, 3);
  });

  it('a singular matrix gives no ray; a box the ray misses gives no span', () => {
    expect(invert4(new Float32Array(16))).toBeNull();
    expect(pixelRay(new Float32Array(16), 1, 1, W, H)).toBeNull();
    expect(rayBox([0, 2, 0], [1, 0, 0], [1, -1, -1], [2, 1, 1])).toBeNull();
    expect(rayBox([0, 0, 0], [1, 0, 0], [1, -1, -1], [2, 1, 1])).toEqual([1, 2]);
  });
});

describe('the body under the cursor', () => {
  it('is the nearest one the ray hits: the box in front, at its front face', async () => {
    const w = await scene();
    const hit = pickBody(w, pixelRay(vp(camera()), W / 2, H / 2, W, H)!)!;
    expect(hit.body).toBe(bodyIndex(w, 'a'));
    for (let k = 0; k < 3; k++) expect(hit.point[k]).toBeCloseTo([0, 1, 0.5][k]!, 5);
    for (let k = 0; k < 3; k++) expect(hit.local[k]).toBeCloseTo([0, 0, 0.5][k]!, 5);
    for (let k = 0; k < 3; k++) expect(hit.normal[k]).toBeCloseTo([0, 0, 1][k]!, 9);
    expect(hit.t).toBeCloseTo(10 - 0.5 - 0.2, 4);
  });

  it('the box behind and to the side where it shows, the ground below, nothing above the horizon', async () => {
    const w = await scene();
    const m = vp(camera());
    const at = (p: [number, number, number]) => pickBody(w, pixelRay(m, ...projectPoint(m, p, W, H)!, W, H)!);
    expect(at([1.5, 1.2, -1.5])!.body).toBe(bodyIndex(w, 'b'));
    // Just inside and just beside box a's right edge, at the height of the eye: a, then nothing at all.
    expect(at([0.48, 1, 0.5])!.body).toBe(bodyIndex(w, 'a'));
    expect(at([0.52, 1, 0.5])).toBeNull();
    const ground = at([-2, 0, 1])!;
    expect(ground.body).toBe(bodyIndex(w, 'ground'));
    expect(ground.point[1]).toBeCloseTo(0, 9);
    expect(ground.normal).toEqual([0, 1, 0]);
    expect(pickBody(w, pixelRay(m, W / 2, 2, W, H)!)).toBeNull();
    // Leaving out the boxes, the middle of the view shows nothing: the ray is level with the eye, above the ground.
    expect(pickBody(w, pixelRay(m, W / 2, H / 2, W, H)!, (i) => w.shapes[w.bodies.shape[i]!]!.kind === 'plane')).toBeNull();
  });

  it('a turned body is hit on its turned surface: a cube turned 45 degrees shows its edge at z = sqrt(2) / 2', async () => {
    const w = await scene(45);
    const hit = pickBody(w, pixelRay(vp(camera()), W / 2, H / 2 + 20, W, H)!)!;
    expect(hit.body).toBe(bodyIndex(w, 'a'));
    // The ray dips a little below the middle, so it meets the two front faces near their shared edge.
    expect(hit.point[2]).toBeGreaterThan(0.65);
    expect(hit.point[2]).toBeLessThan(Math.SQRT1_2 + 1e-6);
    // The point lies on the turned cube: |x| + |z| = sqrt(2)/2 on its front faces.
    expect(Math.abs(hit.point[0]) + Math.abs(hit.point[2])).toBeCloseTo(Math.SQRT1_2, 5);
  });
});
