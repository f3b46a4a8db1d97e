/**
 * Picking (src/app/picking.ts, with camera.ts's pixel rays): the ray through a
 * pixel of a known camera, and the body it hits first, against analytic answers.
 */
import { describe, expect, it } from 'vitest';
import { applyViewport, defaultCamera, pixelRay as cameraRay, projectPoint as cameraProject, type OrbitCamera, type Viewport } from '../../src/app/camera.ts';
import { pickBody, rayBox, type Ray } from '../../src/app/picking.ts';
import { FORMAT, bodyIndex, worldFrom } from '../dynamics/helpers.ts';

const W = 800, H = 600;
const FULL: Viewport = { width: W, height: H, insets: { left: 0, top: 0, right: 0, bottom: 0 } };

/** Eye at (0, 1, 10) looking along -z at (0, 1, 0), 45 degree vertical field of view. */
function camera(extra: Partial<OrbitCamera> = {}): OrbitCamera {
  return { ...defaultCamera(), target: [0, 1, 0], yaw: 0, pitch: 0, distance: 10, fovY: Math.PI / 4, shiftX: 0, shiftY: 0, ...extra };
}
/** The camera with the viewport it draws: the ray through a pixel, and where a point is drawn. */
type View = { c: OrbitCamera; v: Viewport };
const vp = (c: OrbitCamera, v: Viewport = FULL): View => ({ c, v });
function pixelRay(view: View, px: number, py: number): Ray {
  const o = [0, 0, 0], d = [0, 0, 0];
  cameraRay(view.c, view.v, px, py, o, d);
  return { origin: [o[0]!, o[1]!, o[2]!], dir: [d[0]!, d[1]!, d[2]!] };
}
function projectPoint(view: View, p: readonly number[]): [number, number] {
  const out = { x: 0, y: 0, front: false };
  cameraProject(view.c, view.v, p, out);
  return [out.x, out.y];
}

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
  it('starts at the eye and runs along the view direction through the middle of the canvas', () => {
    const ray = pixelRay(vp(camera()), W / 2, H / 2);
    expect(ray.dir[0]).toBeCloseTo(0, 12);
    expect(ray.dir[1]).toBeCloseTo(0, 12);
    expect(ray.dir[2]).toBeCloseTo(-1, 12);
    // From the eye.
    for (let k = 0; k < 3; k++) expect(ray.origin[k]).toBeCloseTo([0, 1, 10][k]!, 12);
  });

  it('leans by the field of view: a pixel halfway to the right edge is at atan(0.5 tan(fov/2) aspect)', () => {
    const ray = pixelRay(vp(camera()), 0.75 * W, 0.25 * H);
    const t = Math.tan(Math.PI / 8);
    expect(ray.dir[0] / -ray.dir[2]).toBeCloseTo(0.5 * t * (W / H), 12);
    expect(ray.dir[1] / -ray.dir[2]).toBeCloseTo(0.5 * t, 12);
  });

  it('inverts projectPoint, lens shift and a turned camera included', () => {
    // A panel over the right 300 pixels and a bar over the bottom 100: the lens shift puts the target in the middle of the rest.
    const v: Viewport = { width: W, height: H, insets: { left: 0, top: 0, right: 300, bottom: 100 } };
    const c = camera({ yaw: 0.7, pitch: 0.4 });
    applyViewport(c, v);
    for (const p of [[0, 1, 0], [2, 0.5, -1], [-3, 2, 4]] as const) {
      const px = projectPoint(vp(c, v), p);
      const ray = pixelRay(vp(c, v), px[0], px[1]);
      // Distance from the point to the ray.
      const d = [p[0] - ray.origin[0], p[1] - ray.origin[1], p[2] - ray.origin[2]];
      const along = d[0]! * ray.dir[0] + d[1]! * ray.dir[1] + d[2]! * ray.dir[2];
      const off = Math.hypot(d[0]! - along * ray.dir[0], d[1]! - along * ray.dir[1], d[2]! - along * ray.dir[2]);
      // projectPoint goes through the renderer's float32 view-projection.
      expect(off).toBeLessThan(1e-6);
    }
    const t = projectPoint(vp(c, v), c.target);
    expect(t[0]).toBeCloseTo((W - 300) / 2, 3);
    expect(t[1]).toBeCloseTo((H - 100) / 2, 3);
  });

  it('a box the ray misses gives no span; one it crosses gives entry and exit', () => {
    expect(rayBox([0, 2, 0], [1, 0, 0], [1, -1, -1], [2, 1, 1])).toBeNull();
    expect(rayBox([0, 0, 0], [1, 0, 0], [1, -1, -1], [2, 1, 1])).toEqual([1, 2]);
  });
});

describe('the body under the cursor', () => {
  it('is the nearest one the ray hits: the box in front, at its front face', async () => {
    const w = await scene();
    const hit = pickBody(w, pixelRay(vp(camera()), W / 2, H / 2))!;
    expect(hit.body).toBe(bodyIndex(w, 'a'));
    for (let k = 0; k < 3; k++) expect(hit.point[k]).toBeCloseTo([0, 1, 0.5][k]!, 5);
    for (let k = 0; k < 3; k++) expect(hit.local[k]).toBeCloseTo([0, 0, 0.5][k]!, 5);
    for (let k = 0; k < 3; k++) expect(hit.normal[k]).toBeCloseTo([0, 0, 1][k]!, 9);
    expect(hit.t).toBeCloseTo(10 - 0.5, 9);
  });

  it('the box behind and to the side where it shows, the ground below, nothing above the horizon', async () => {
    const w = await scene();
    const m = vp(camera());
    const at = (p: [number, number, number]) => pickBody(w, pixelRay(m, ...projectPoint(m, p)));
    expect(at([1.5, 1.2, -1.5])!.body).toBe(bodyIndex(w, 'b'));
    // Just inside and just beside box a's right edge, at the height of the eye: a, then nothing at all.
    expect(at([0.48, 1, 0.5])!.body).toBe(bodyIndex(w, 'a'));
    expect(at([0.52, 1, 0.5])).toBeNull();
    const ground = at([-2, 0, 1])!;
    expect(ground.body).toBe(bodyIndex(w, 'ground'));
    expect(ground.point[1]).toBeCloseTo(0, 9);
    expect(ground.normal).toEqual([0, 1, 0]);
    expect(pickBody(w, pixelRay(m, W / 2, 2))).toBeNull();
    // Leaving out the boxes, the middle of the view shows nothing: the ray is level with the eye, above the ground.
    expect(pickBody(w, pixelRay(m, W / 2, H / 2), (i) => w.shapes[w.bodies.shape[i]!]!.kind === 'plane')).toBeNull();
  });

  it('a turned body is hit on its turned surface: a cube turned 45 degrees shows its edge at z = sqrt(2) / 2', async () => {
    const w = await scene(45);
    const hit = pickBody(w, pixelRay(vp(camera()), W / 2, H / 2 + 20))!;
    expect(hit.body).toBe(bodyIndex(w, 'a'));
    // The ray dips a little below the middle, so it meets the two front faces near their shared edge.
    expect(hit.point[2]).toBeGreaterThan(0.65);
    expect(hit.point[2]).toBeLessThan(Math.SQRT1_2 + 1e-6);
    // The point lies on the turned cube: |x| + |z| = sqrt(2)/2 on its front faces.
    expect(Math.abs(hit.point[0]) + Math.abs(hit.point[2])).toBeCloseTo(Math.SQRT1_2, 5);
  });
});
