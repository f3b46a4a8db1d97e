import { describe, expect, it } from 'vitest';
import { vec3, vec4 } from 'wgpu-matrix';
import {
  cameraEye,
  defaultCamera,
  fitPan,
  frameBox,
  GROUND_CLEARANCE,
  MAX_DISTANCE,
  MAX_PITCH,
  MIN_DISTANCE,
  orbit,
  pan,
  panBy,
  panToFit,
  pointsFit,
  projectPoint,
  projectionMatrix,
  viewMatrix,
  viewProjection,
  walk,
  widenToFit,
  zoom,
  type OrbitCamera,
  type Viewport,
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

  it('orbit does not take the eye under a level floor, and lets a pitch already lower rise', () => {
    const c = cam();
    c.target = [0, 1, 0];
    c.distance = 12;
    orbit(c, 0, -1e6, undefined, 0);
    const eye = cameraEye(c);
    expect(eye[1]).toBeGreaterThan(0);
    expect(eye[1]).toBeCloseTo(GROUND_CLEARANCE * c.distance, 6);
    // Without a floor, as far as the pole.
    orbit(c, 0, -1e6);
    expect(c.pitch).toBe(-MAX_PITCH);
    // Already under it (zoomed there, or the floor is new): tilting down is free, further up is not forced.
    const low = c.pitch;
    orbit(c, 0, 10, undefined, 0);
    expect(c.pitch).toBeGreaterThan(low);
    expect(cameraEye(c)[1]).toBeLessThan(0);
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

describe('widening and panning to fit (the safety net and the followed body, framing.ts)', () => {
  /** A 1200 x 720 canvas with a panel on the right and overlays at the top and bottom. */
  const V: Viewport = { width: 1200, height: 720, insets: { left: 332, top: 180, right: 320, bottom: 60 } };
  const free = { x0: 332, x1: 880, y0: 180, y1: 660 };
  const at = { x: 0, y: 0, front: false };
  /** The world points drawn at the corners of the free part, at the target's depth. */
  function shownCorners(c: OrbitCamera): number[][] {
    const right = [Math.cos(c.yaw), 0, -Math.sin(c.yaw)];
    const up = [-Math.sin(c.pitch) * Math.sin(c.yaw), Math.cos(c.pitch), -Math.sin(c.pitch) * Math.cos(c.yaw)];
    const t = Math.tan(c.fovY / 2) * c.distance;
    const hx = (t * (V.width / V.height) * (free.x1 - free.x0)) / V.width, hy = (t * (free.y1 - free.y0)) / V.height;
    return [-1, 1].flatMap((sx) => [-1, 1].map((sy) => [0, 1, 2].map((k) => c.target[k]! + sx * hx * right[k]! + sy * hy * up[k]!)));
  }

  it('widenToFit keeps all that was shown, fits the new points with their margin, and never comes closer', () => {
    const c = cam();
    const before = shownCorners(c);
    const d0 = c.distance;
    // Far right and a little behind the target.
    const pts = [c.target[0] + 9, c.target[1], c.target[2] - 2, c.target[0] - 1, c.target[1] + 1, c.target[2]];
    expect(pointsFit(c, V, pts, 1.2)).toBe(false);
    const goal = widenToFit(c, V, pts, 1.2, { across: 0, up: 0, distance: 0 });
    panBy(c, goal.across, goal.up);
    c.distance = goal.distance;
    expect(c.distance).toBeGreaterThan(d0);
    expect(pointsFit(c, V, pts, 1.2 * 0.999)).toBe(true);
    // The nearest such view: a little closer and they no longer fit (within the bisection's thousandth).
    c.distance = goal.distance * 0.99;
    expect(pointsFit(c, V, pts, 1.2) && pointsFit(c, V, before.flat(), 1)).toBe(false);
    c.distance = goal.distance;
    for (const p of before) {
      projectPoint(c, V, p, at);
      expect(at.x).toBeGreaterThanOrEqual(free.x0 - 0.5);
      expect(at.x).toBeLessThanOrEqual(free.x1 + 0.5);
      expect(at.y).toBeGreaterThanOrEqual(free.y0 - 0.5);
      expect(at.y).toBeLessThanOrEqual(free.y1 + 0.5);
    }
    // Points already in view: the goal is the view itself.
    const same = widenToFit(c, V, [...c.target], 1.2, { across: 1, up: 1, distance: 0 });
    expect(same).toEqual({ across: 0, up: 0, distance: c.distance });
  });

  it('panToFit pans as little as brings the points inside the margin, or centres what cannot fit', () => {
    const c = cam();
    const d = c.distance;
    const p = [c.target[0] + 6 * Math.cos(c.yaw), c.target[1], c.target[2] - 6 * Math.sin(c.yaw)];
    expect(panToFit(c, V, p, 1.25)).toBe(true);
    expect(c.distance).toBe(d);
    // On the margin's edge: 1 / 1.25 of the way from the middle of the free part to its right side.
    projectPoint(c, V, p, at);
    const mid = 0.5 * (free.x0 + free.x1);
    expect((at.x - mid) / (free.x1 - mid)).toBeCloseTo(1 / 1.25, 4);
    expect(panToFit(c, V, p, 1.25)).toBe(false);
    // Two points farther apart than the view is wide: no pan fits both, and they are centred.
    const wide = [...p, c.target[0] - 40 * Math.cos(c.yaw), c.target[1], c.target[2] + 40 * Math.sin(c.yaw)];
    expect(fitPan(c, V, wide, 1.25, { across: 0, up: 0 })).toBe(false);
    expect(panToFit(c, V, wide, 1.25)).toBe(true);
    const xs = [0, 3].map((k) => {
      projectPoint(c, V, wide.slice(k, k + 3), at);
      return at.x;
    });
    expect(0.5 * (xs[0]! + xs[1]!)).toBeCloseTo(mid, 0);
  });
});
