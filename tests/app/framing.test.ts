import { describe, expect, it } from 'vitest';
import { applyViewport, defaultCamera, followPoint, pixelRay, projectPoint, type Viewport } from '../../src/app/camera.ts';
import { frameWorld, pickBody, softBounds } from '../../src/app/framing.ts';
import { worldAabb } from '../../src/app/overlays.ts';
import { listBuiltins } from '../../src/scene/builtins.ts';
import { builtinWorld } from '../dynamics/helpers.ts';

/** The app's layout at 1280 x 720: the panel on the right, the help line above, the transport bar below. */
const VIEW: Viewport = { width: 1280, height: 720, insets: { left: 0, top: 40, right: 330, bottom: 72 } };

const at = { x: 0, y: 0, front: false };

describe('framing', () => {
  it('every built-in at its defaults is framed: each body inside the free part of a 1280 x 720 view, the scene not a speck', async () => {
    const box = new Float64Array(6);
    const free = { x0: VIEW.insets.left, x1: VIEW.width - VIEW.insets.right, y0: VIEW.insets.top, y1: VIEW.height - VIEW.insets.bottom };
    for (const info of listBuiltins()) {
      const w = await builtinWorld(info.name);
      const c = defaultCamera();
      expect(frameWorld(c, w, VIEW), info.name).toBe(true);
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      // Every rigid body's box, then the soft bodies' box (id -1).
      for (let i = 0; i <= w.bodies.count; i++) {
        if (i === w.bodies.count) {
          if (!softBounds(w, box)) continue;
        } else {
          const s = w.shapes[w.bodies.shape[i]!]!;
          if (s.kind === 'plane') continue;
          worldAabb(s.localBounds, w.bodies.pos, 3 * i, w.bodies.quat, 4 * i, box);
        }
        for (let k = 0; k < 8; k++) {
          projectPoint(c, VIEW, [box[k & 1 ? 3 : 0]!, box[k & 2 ? 4 : 1]!, box[k & 4 ? 5 : 2]!], at);
          expect(at.front, `${info.name} body ${i}`).toBe(true);
          // Inside up to float32 matrix rounding.
          expect(at.x, `${info.name} body ${i}`).toBeGreaterThanOrEqual(free.x0 - 0.5);
          expect(at.x, `${info.name} body ${i}`).toBeLessThanOrEqual(free.x1 + 0.5);
          expect(at.y, `${info.name} body ${i}`).toBeGreaterThanOrEqual(free.y0 - 0.5);
          expect(at.y, `${info.name} body ${i}`).toBeLessThanOrEqual(free.y1 + 0.5);
          x0 = Math.min(x0, at.x); x1 = Math.max(x1, at.x); y0 = Math.min(y0, at.y); y1 = Math.max(y1, at.y);
        }
      }
      // Not a speck: the bodies span a good part of the free width or height. (The framed box has
      // room around the bodies, a body's size and a sixth of its own each side, and the ground
      // under it, so a lone door on a hinge fills about a third.)
      const fill = Math.max((x1 - x0) / (free.x1 - free.x0), (y1 - y0) / (free.y1 - free.y0));
      expect(fill, info.name).toBeGreaterThan(0.25);
    }
  }, 120_000);

  it('the lens shift puts the target in the middle of the free part', () => {
    const c = defaultCamera();
    applyViewport(c, VIEW);
    projectPoint(c, VIEW, c.target, at);
    expect(at.x).toBeCloseTo((VIEW.width - VIEW.insets.right) / 2, 2);
    expect(at.y).toBeCloseTo(VIEW.insets.top + (VIEW.height - VIEW.insets.top - VIEW.insets.bottom) / 2, 2);
  });

  it('a pixel\'s ray passes through what is drawn at that pixel', () => {
    const c = { ...defaultCamera(), target: [1, 2, -3] as [number, number, number], yaw: -0.7, pitch: 0.3, distance: 9 };
    applyViewport(c, VIEW);
    const o = new Float64Array(3);
    const d = new Float64Array(3);
    for (const p of [[1, 2, -3], [3, 0.5, -1], [-2, 4, -6]]) {
      projectPoint(c, VIEW, p, at);
      pixelRay(c, VIEW, at.x, at.y, o, d);
      // Distance from p to the ray.
      const r = [p[0]! - o[0]!, p[1]! - o[1]!, p[2]! - o[2]!];
      const t = r[0]! * d[0]! + r[1]! * d[1]! + r[2]! * d[2]!;
      const off = Math.hypot(r[0]! - t * d[0]!, r[1]! - t * d[1]!, r[2]! - t * d[2]!);
      expect(off).toBeLessThan(1e-5 * t);
      expect(Math.hypot(d[0]!, d[1]!, d[2]!)).toBeCloseTo(1, 12);
    }
  });

  it('picking finds the body whose surface the ray meets first, through the hole of a ring it finds what is behind', async () => {
    const w = await builtinWorld('tower', { height: 3 });
    // Boxes 1 m x 0.5 m x 1 m at x = z = 0; a ray along -z at the height of box k hits box k.
    for (let k = 0; k < 3; k++) {
      const y = w.bodies.pos[3 * (k + 1) + 1]!;
      expect(pickBody(w, Float64Array.of(0.2, y, 10), Float64Array.of(0, 0, -1))).toBe(k + 1);
    }
    // Above the tower, and the ground plane, are not bodies one can pick.
    expect(pickBody(w, Float64Array.of(0, 5, 10), Float64Array.of(0, 0, -1))).toBe(-1);
    expect(pickBody(w, Float64Array.of(3, 1, 3), Float64Array.of(0, -1, 0))).toBe(-1);
    // From above, the top box is first.
    expect(pickBody(w, Float64Array.of(0.1, 10, 0.1), Float64Array.of(0, -1, 0))).toBe(3);
    const rings = await builtinWorld('rings', { rings: 1 });
    const ring = rings.bodies.count - 1;
    const p = [rings.bodies.pos[3 * ring]!, rings.bodies.pos[3 * ring + 1]!, rings.bodies.pos[3 * ring + 2]!];
    // Straight down through the middle of the (tilted) ring: its hole, so not the ring.
    expect(pickBody(rings, Float64Array.of(p[0]!, p[1]! + 5, p[2]!), Float64Array.of(0, -1, 0))).not.toBe(ring);
    // Down through its rim (0.4 m out... the seed ring's mean radius) hits it.
    const hits = [0, 1, 2, 3].filter((k) => {
      const a = (k * Math.PI) / 2;
      return pickBody(rings, Float64Array.of(p[0]! + 0.3 * Math.cos(a), p[1]! + 5, p[2]! + 0.3 * Math.sin(a)), Float64Array.of(0, -1, 0)) === ring;
    });
    expect(hits.length).toBeGreaterThan(0);
  });

  it('following glides towards the point with the given time constant', () => {
    const c = defaultCamera();
    c.target = [0, 0, 0];
    followPoint(c, [1, 2, 3], 0.15, 0.15);
    expect(c.target[0]).toBeCloseTo(1 - Math.exp(-1), 12);
    expect(c.target[2]).toBeCloseTo(3 * (1 - Math.exp(-1)), 12);
    for (let k = 0; k < 100; k++) followPoint(c, [1, 2, 3], 0.1, 0.15);
    expect(c.target[1]).toBeCloseTo(2, 9);
  });
});
