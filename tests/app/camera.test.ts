import { describe, expect, it } from 'vitest';
import { vec3, vec4 } from 'wgpu-matrix';
import {
  cameraEye,
  defaultCamera,
  frameBox,
  MAX_DISTANCE,
  MAX_PITCH,
  MIN_DISTANCE,
  orbit,
  pan,
  projectionMatrix,
  viewMatrix,
  viewProjection,
  walk,
  zoom,
  type OrbitCamera,
} from '../../src/app/camera.ts';

function cam(over: Partial<OrbitCamera> = {}): OrbitCamera {
  return { ...defaultCamera(), target: [1, 2, 3], yaw: 0.3, pitch: 0.4, distance: 7, ...over };
}

/** Screen pixel (x right, y down) of a world point. */
function toPixel(c: OrbitCamera, p: number[], w: number, h: number): [number, number] {
  const m = viewProjection(c, w / h);
  const clip = vec4.transformMat4([p[0]!, p[1]!, p[2]!, 1], m);
  return [(0.5 + (0.5 * clip[0]!) / clip[3]!) * w, (0.5 - (0.5 * clip[1]!) / clip[3]!) * h];
}

describe('orbit camera', () => {
  it('puts the eye at the distance from the target, above it for positive pitch', () => {
    const c = cam();
    const e = cameraEye(c);
    expect(vec3.distance(e, c.target)).toBeCloseTo(7, 5);
    expect(e[1]! - c.target[1]).toBeCloseTo(7 * Math.sin(0.4), 5);
  });

  it('view matrix maps the target onto the -z axis at the distance', () => {
    const c = cam();
    const t = vec3.transformMat4(c.target, viewMatrix(c));
    // Float32 matrices (wgpu-matrix): about 7 significant digits.
    expect(t[0]).toBeCloseTo(0, 5);
    expect(t[1]).toBeCloseTo(0, 5);
    expect(t[2]).toBeCloseTo(-7, 5);
  });

  it('projects the target to the centre of the screen with depth inside 0..1', () => {
    const c = cam();
    const clip = vec4.transformMat4([...c.target, 1], viewProjection(c, 1.5));
    expect(clip[0]! / clip[3]!).toBeCloseTo(0, 6);
    expect(clip[1]! / clip[3]!).toBeCloseTo(0, 6);
    const z = clip[2]! / clip[3]!;
    expect(z).toBeGreaterThan(0);
    expect(z).toBeLessThan(1);
  });

  it('keeps the aspect ratio: a unit step right and up covers the same pixels', () => {
    const c = cam({ yaw: 0, pitch: 0 });
    const [cx, cy] = toPixel(c, c.target, 1600, 800);
    const [rx] = toPixel(c, [c.target[0] + 0.1, c.target[1], c.target[2]], 1600, 800);
    const [, uy] = toPixel(c, [c.target[0], c.target[1] + 0.1, c.target[2]], 1600, 800);
    expect(rx - cx).toBeCloseTo(cy - uy, 3);
    expect(projectionMatrix(c, 2)[0]).toBeCloseTo(projectionMatrix(c, 1)[0]! / 2, 5);
  });

  it('orbit clamps the pitch short of the poles and wraps the yaw', () => {
    const c = cam();
    orbit(c, 0, 1e6);
    expect(c.pitch).toBe(MAX_PITCH);
    orbit(c, 0, -1e7);
    expect(c.pitch).toBe(-MAX_PITCH);
    orbit(c, 1e5, 0);
    expect(c.yaw).toBeGreaterThan(-Math.PI - 1e-12);
    expect(c.yaw).toBeLessThanOrEqual(Math.PI);
    // The view stays well defined at the clamped pitch.
    expect(viewMatrix(c).every(Number.isFinite)).toBe(true);
  });

  it('dragging right moves the eye to the left of the view', () => {
    const c = cam();
    const before = cameraEye(c, vec3.create());
    const right = [Math.cos(c.yaw), 0, -Math.sin(c.yaw)];
    orbit(c, 20, 0);
    const after = cameraEye(c, vec3.create());
    expect(vec3.dot(vec3.subtract(after, before), right)).toBeLessThan(0);
  });

  it('zoom is exponential and clamped: opposite wheel deltas cancel', () => {
    const c = cam();
    zoom(c, 300);
    expect(c.distance).toBeGreaterThan(7);
    zoom(c, -300);
    expect(c.distance).toBeCloseTo(7, 10);
    zoom(c, 1e9);
    expect(c.distance).toBe(MAX_DISTANCE);
    zoom(c, -1e9);
    expect(c.distance).toBe(MIN_DISTANCE);
  });

  it('pan moves the point under the cursor with the cursor', () => {
    const w = 1000, h = 700;
    const c = cam();
    const p = [...c.target];
    const [x0, y0] = toPixel(c, p, w, h);
    pan(c, 40, -25, h);
    const [x1, y1] = toPixel(c, p, w, h);
    expect(x1 - x0).toBeCloseTo(40, 3);
    expect(y1 - y0).toBeCloseTo(-25, 3);
  });

  it('walk moves the target horizontally, forward away from the eye', () => {
    const c = cam();
    const e = cameraEye(c, vec3.create());
    const d0 = Math.hypot(c.target[0] - e[0]!, c.target[2] - e[2]!);
    const y = c.target[1];
    walk(c, 1, 0);
    expect(c.target[1]).toBe(y);
    expect(Math.hypot(c.target[0] - e[0]!, c.target[2] - e[2]!)).toBeCloseTo(d0 + 1, 10);
  });

  it('frameBox fits every corner of the box on screen, and one corner touches the margin', () => {
    const c = cam();
    const min = [-3, 0, -1], max = [5, 4, 2];
    for (const aspect of [0.5, 1, 2.5]) {
      frameBox(c, min, max, { width: 600 * aspect, height: 600, insets: { left: 0, top: 0, right: 0, bottom: 0 } }, 1.1);
      expect(c.target).toEqual([1, 2, 0.5]);
      const m = viewProjection(c, aspect);
      let most = 0;
      for (let k = 0; k < 8; k++) {
        const p = [k & 1 ? max[0]! : min[0]!, k & 2 ? max[1]! : min[1]!, k & 4 ? max[2]! : min[2]!, 1];
        const clip = vec4.transformMat4(p, m);
        most = Math.max(most, Math.abs(clip[0]! / clip[3]!), Math.abs(clip[1]! / clip[3]!));
      }
      // The nearest distance that fits: the outermost corner sits at 1 / margin of the half-screen.
      expect(most).toBeCloseTo(1 / 1.1, 5);
    }
  });
});
