/**
 * Framing bodies that move: where a hung body can swing is framed from the
 * start (framing.ts reachPoints), the safety net widens the view while
 * bodies head out of it (AutoFrame), and a followed body is kept clear of
 * the overlays (keepBodyClear). The regression: the view was framed on the
 * bodies' start, so a hanging chain swung out of it under the stage chart.
 * Soft bodies count in both, each by its particles' box (the safety net
 * ignored them, so a thrown blob left the screen).
 */
import { describe, expect, it } from 'vitest';
import { defaultCamera, projectPoint, zoom, type OrbitCamera, type Viewport } from '../../src/app/camera.ts';
import { AutoFrame, FAR_RADII, followBody, frameWorld, jointGroup, reachPoints, SOFT_REST_TIME, type FramedRegion } from '../../src/app/framing.ts';
import { worldAabb } from '../../src/app/overlays.ts';
import { softSystemOf } from '../../src/app/sceneRenderer.ts';
import type { World } from '../../src/dynamics/world.ts';
import type { SoftSystem } from '../../src/soft/system.ts';
import { bodyIndex, builtinWorld, FORMAT, run, worldFrom } from '../dynamics/helpers.ts';

/** The app's layout at 1200 x 720: the panel on the right, the stage chart and the numbers taking the left and the top. */
const VIEW: Viewport = { width: 1200, height: 720, insets: { left: 332, top: 180, right: 320, bottom: 60 } };
const FREE = { x0: VIEW.insets.left, x1: VIEW.width - VIEW.insets.right, y0: VIEW.insets.top, y1: VIEW.height - VIEW.insets.bottom };
const at = { x: 0, y: 0, front: false };
const box = new Float64Array(6);

/** The dynamic bodies whose box has a corner outside the free part of the view (names). */
function outside(c: OrbitCamera, w: World): string[] {
  const out: string[] = [];
  for (let i = 0; i < w.bodies.count; i++) {
    const s = w.shapes[w.bodies.shape[i]!]!;
    if (w.bodies.isStatic[i] || s.kind === 'plane') continue;
    worldAabb(s.localBounds, w.bodies.pos, 3 * i, w.bodies.quat, 4 * i, box);
    for (let k = 0; k < 8; k++) {
      projectPoint(c, VIEW, [box[k & 1 ? 3 : 0]!, box[k & 2 ? 4 : 1]!, box[k & 4 ? 5 : 2]!], at);
      if (!at.front || at.x < FREE.x0 || at.x > FREE.x1 || at.y < FREE.y0 || at.y > FREE.y1) {
        out.push(w.bodies.names[i]!);
        break;
      }
    }
  }
  return out;
}

/** A camera framed on the world as the app frames a new scene (main.ts viewAngles, then frameWorld). */
function framed(w: World, region?: FramedRegion): OrbitCamera {
  const c = { ...defaultCamera(), yaw: 0.55, pitch: 0.42 };
  expect(frameWorld(c, w, VIEW, -1, 1.1, region)).toBe(true);
  return c;
}

function newRegion(): FramedRegion {
  return { centre: [0, 0, 0], radius: 0, bottom: 0 };
}

describe('framing where hung bodies can swing', () => {
  it('a chain that starts level swings for 6 s inside the view framed at its start, with 5 links and with 12 (it swung out under the stage chart)', async () => {
    for (const links of [5, 12]) {
      const w = await builtinWorld('chain', { links });
      const c = framed(w);
      const seen = new Set<string>();
      await run(w, 600, () => {
        for (const n of outside(c, w)) seen.add(n);
      });
      expect([...seen], `${links} links`).toEqual([]);
    }
  }, 60_000);

  it('balls on ropes and a distance joint stay inside the view framed at their start', async () => {
    const w = await builtinWorld('ropes');
    const c = framed(w);
    const seen = new Set<string>();
    await run(w, 400, () => {
      for (const n of outside(c, w)) seen.add(n);
    });
    expect([...seen]).toEqual([]);
  }, 30_000);

  it('the reach is a sphere about the static anchor, the chain\'s length plus a link\'s radius, no higher than the level chain without energy to climb', async () => {
    const w = await builtinWorld('chain', { links: 5 });
    const pts: number[] = [];
    reachPoints(w, pts);
    expect(pts.length).toBe(26 * 3);
    const pivot = [...w.bodies.pos.subarray(3 * bodyIndex(w, 'pivot'), 3 * bodyIndex(w, 'pivot') + 3)];
    const link = w.shapes[w.bodies.shape[bodyIndex(w, 'link0')]!]!.radius;
    // 4.5 links from the pivot to the last link's centre (0.4 m each, the first joint at link0's end).
    const reach = 0.2 + 4 * 0.4 + link;
    let top = -Infinity, low = Infinity, far = 0;
    for (let k = 0; k < pts.length; k += 3) {
      far = Math.max(far, Math.hypot(pts[k]! - pivot[0]!, pts[k + 1]! - pivot[1]!, pts[k + 2]! - pivot[2]!));
      top = Math.max(top, pts[k + 1]!);
      low = Math.min(low, pts[k + 1]!);
    }
    expect(far).toBeCloseTo(reach, 6);
    expect(low).toBeCloseTo(pivot[1]! - reach, 6);
    // At rest and level: no link rises above the chain's top (link0 at the pivot's height, plus its radius).
    expect(top).toBeCloseTo(w.bodies.pos[3 * bodyIndex(w, 'link0') + 1]! + link, 6);
    // A scene without joints to static bodies adds nothing.
    const pile: number[] = [];
    reachPoints(await builtinWorld('jointed-rings', { count: 6 }), pile);
    expect(pile).toEqual([]);
  });
});

describe('the safety net (AutoFrame)', () => {
  /** A tower of 3 boxes framed as a new scene, with the safety net armed. */
  async function tower(): Promise<{ w: World; c: OrbitCamera; auto: AutoFrame; region: FramedRegion; top: number }> {
    const w = await builtinWorld('tower', { height: 3 });
    const region = newRegion();
    const c = framed(w, region);
    const auto = new AutoFrame();
    auto.arm(w, region);
    return { w, c, auto, region, top: w.bodies.count - 1 };
  }

  it('a body heading out of the view widens it smoothly, never zooming in, until the body has room around it', async () => {
    const { w, c, auto, top } = await tower();
    // In view: nothing moves.
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    const d0 = c.distance;
    // The top box pushed 4 m sideways: out of the view.
    w.bodies.pos[3 * top] = w.bodies.pos[3 * top]! + 4;
    expect(outside(c, w)).toEqual([w.bodies.names[top]]);
    let last = c.distance;
    const first = { target: [...c.target], distance: 0 };
    for (let f = 0; f < 180; f++) {
      auto.update(c, w, VIEW, 1 / 60);
      if (f === 0) first.distance = c.distance;
      expect(c.distance).toBeGreaterThanOrEqual(last);
      last = c.distance;
    }
    // A glide: the first frame went a small part of the way.
    expect(first.distance - d0).toBeLessThan(0.2 * (c.distance - d0));
    expect(c.distance).toBeGreaterThan(d0);
    expect(outside(c, w)).toEqual([]);
    expect(auto.gliding).toBe(false);
  });

  it('a body thrown 1 km away, or fallen far below the world, is let go: the view does not follow it', async () => {
    for (const where of [[1000, 0.25, 0], [0, -40, 0]]) {
      const { w, c, auto, region, top } = await tower();
      const before = { target: [...c.target], distance: c.distance };
      for (let k = 0; k < 3; k++) w.bodies.pos[3 * top + k] = where[k]!;
      expect(Math.hypot(where[0]! - region.centre[0], where[1]! - region.centre[1]) > FAR_RADII * region.radius || where[1]! < region.bottom - region.radius).toBe(true);
      for (let f = 0; f < 60; f++) auto.update(c, w, VIEW, 1 / 60);
      expect({ target: [...c.target], distance: c.distance }).toEqual(before);
    }
  });

  it('once the user moves the camera it is theirs; resume takes the safety net up again', async () => {
    const { w, c, auto, top } = await tower();
    zoom(c, -200);
    auto.stop();
    const d = c.distance;
    w.bodies.pos[3 * top] = w.bodies.pos[3 * top]! + 4;
    for (let f = 0; f < 30; f++) expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    expect(c.distance).toBe(d);
    auto.resume();
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(true);
    expect(c.distance).toBeGreaterThan(d);
  });

  it('rings come to rest on their pegs: the view glides in on the heap, once, keeping every ring inside (the column they fell from stayed framed)', async () => {
    const w = await builtinWorld('rings', { rings: 60 });
    const region = newRegion();
    const c = framed(w, region);
    const d0 = c.distance;
    const auto = new AutoFrame();
    auto.arm(w, region);
    let steps = 0;
    const resting = (): boolean => w.bodies.asleep.subarray(0, w.bodies.count).every((a, i) => a === 1 || w.bodies.isStatic[i] === 1);
    while (steps < 1000 && !resting()) {
      auto.update(c, w, VIEW, 1 / 60);
      await w.step();
      steps++;
    }
    expect(steps).toBeLessThan(1000);
    // Falling, the view never zoomed in.
    expect(c.distance).toBeGreaterThanOrEqual(d0);
    const d1 = c.distance;
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(true);
    // A glide: the first frame went a small part of the way.
    const first = d1 - c.distance;
    for (let f = 0; f < 240 && auto.update(c, w, VIEW, 1 / 60); f++);
    expect(auto.gliding).toBe(false);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(0.2 * (d1 - c.distance));
    expect(c.distance).toBeLessThan(0.8 * d0);
    expect(outside(c, w)).toEqual([]);
    // Where a new scene of the heap as it lies would be framed.
    const fresh = framed(w);
    expect(c.distance).toBeCloseTo(fresh.distance, 9);
    c.target.forEach((x, k) => expect(x).toBeCloseTo(fresh.target[k]!, 9));
    // Once: nothing more while it rests.
    const after = { target: [...c.target], distance: c.distance };
    for (let f = 0; f < 30; f++) expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    expect({ target: [...c.target], distance: c.distance }).toEqual(after);
  }, 60_000);

  it('a scene framed at rest is left as it is when it rests', async () => {
    const { w, c, auto } = await tower();
    const before = { target: [...c.target], distance: c.distance };
    w.bodies.asleep.fill(1);
    for (let f = 0; f < 30; f++) expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    expect({ target: [...c.target], distance: c.distance }).toEqual(before);
  });

  it('a body that comes to rest while the view widens after it is given its room all the same (a thrown box fell asleep out of the view, the glide stopped halfway)', async () => {
    const { w, c, auto, top } = await tower();
    w.bodies.pos[3 * top] = w.bodies.pos[3 * top]! + 4;
    for (let f = 0; f < 3; f++) expect(auto.update(c, w, VIEW, 1 / 60)).toBe(true);
    expect(outside(c, w)).toEqual([w.bodies.names[top]]);
    w.bodies.asleep.fill(1);
    let last = c.distance;
    for (let f = 0; f < 240 && auto.update(c, w, VIEW, 1 / 60); f++) {
      expect(c.distance).toBeGreaterThanOrEqual(last);
      last = c.distance;
    }
    expect(auto.gliding).toBe(false);
    expect(outside(c, w)).toEqual([]);
  });

  it('sleeping bodies are not followed out', async () => {
    const { w, c, auto, top } = await tower();
    const d = c.distance;
    w.bodies.pos[3 * top] = w.bodies.pos[3 * top]! + 4;
    w.bodies.asleep[top] = 1;
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    expect(c.distance).toBe(d);
  });
});

describe('following a body', () => {
  it('a followed robot is kept whole inside the free view, even where the glide lags it (its front plates walked to the panel)', async () => {
    const w = await builtinWorld('caterpillar');
    const i = bodyIndex(w, 'plate0');
    expect(jointGroup(w, i).map((k) => w.bodies.names[k])).toEqual(['plate0', 'plate1', 'plate2']);
    const c = framed(w);
    const d = c.distance;
    // The robot 2.5 m to the right of where the camera looks (a lagging glide): out under the panel...
    for (const k of jointGroup(w, i)) {
      w.bodies.pos[3 * k] = w.bodies.pos[3 * k]! + 2.5 * Math.cos(c.yaw);
      w.bodies.pos[3 * k + 2] = w.bodies.pos[3 * k + 2]! - 2.5 * Math.sin(c.yaw);
    }
    expect(outside(c, w).length).toBeGreaterThan(0);
    // ...and back inside after one frame, at the same distance.
    followBody(c, w, VIEW, i, 1 / 60);
    expect(outside(c, w)).toEqual([]);
    expect(c.distance).toBe(d);
    // The glide then centres the group's middle, not plate0's.
    for (let f = 0; f < 200; f++) followBody(c, w, VIEW, i, 1 / 60);
    const x = [0, 1, 2].map((k) => w.bodies.pos[3 * bodyIndex(w, `plate${k}`)]!);
    expect(c.target[0]).not.toBeCloseTo(x[0]!, 2);
    expect(c.target[0]).toBeGreaterThan(Math.min(...x));
    expect(c.target[0]).toBeLessThan(Math.max(...x));
  });

  it('a lone followed body is kept inside the free view too; a static one is a group of one', async () => {
    const w = await builtinWorld('tower', { height: 3 });
    const top = w.bodies.count - 1;
    const c = framed(w);
    w.bodies.pos[3 * top] = w.bodies.pos[3 * top]! + 4;
    expect(outside(c, w)).toEqual([w.bodies.names[top]]);
    followBody(c, w, VIEW, top, 1 / 60);
    expect(outside(c, w)).not.toContain(w.bodies.names[top]);
    const chain = await builtinWorld('chain');
    expect(jointGroup(chain, bodyIndex(chain, 'pivot'))).toEqual([bodyIndex(chain, 'pivot')]);
    expect(jointGroup(chain, bodyIndex(chain, 'link2')).length).toBe(5);
  });
});

describe('soft bodies in the framing (they were left out of AutoFrame: a thrown blob left the screen)', () => {
  /** The soft bodies with a particle outside the free part of the view (names). */
  function softOutside(c: OrbitCamera, w: World): string[] {
    const sys = softSystemOf(w)!;
    const out: string[] = [];
    for (const body of sys.bodies) {
      for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
        projectPoint(c, VIEW, sys.pos.subarray(3 * i, 3 * i + 3), at);
        if (!at.front || at.x < FREE.x0 || at.x > FREE.x1 || at.y < FREE.y0 || at.y > FREE.y1) {
          out.push(body.name);
          break;
        }
      }
    }
    return out;
  }

  /** Moves soft body `name`'s particles by d and gives them velocity v. */
  function shove(sys: SoftSystem, name: string, d: readonly number[], v: readonly number[]): void {
    const body = sys.bodies.find((b) => b.name === name)!;
    for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
      for (let k = 0; k < 3; k++) {
        sys.pos[3 * i + k] = sys.pos[3 * i + k]! + d[k]!;
        sys.vel[3 * i + k] = v[k]!;
      }
    }
  }

  /** A floor, rigid boxes and soft blobs (0.2 m spheres, a coarse lattice) at the given places, with the given velocities. */
  function scene(boxes: readonly number[][], blobs: readonly { at: number[]; velocity?: number[] }[]): Promise<World> {
    return worldFrom({
      format: FORMAT,
      dt: 0.01,
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [0.4, 0.4, 0.4] }, ball: { type: 'sphere', radius: 0.2, segments: [16, 10] } },
      bodies: [{ name: 'ground', shape: 'floor', static: true, friction: 0.6 }, ...boxes.map((p, k) => ({ name: `box${k}`, shape: 'box', position: p }))],
      softBodies: blobs.map((b, k) => ({
        name: `blob${k}`, shape: 'ball', stiffness: 15000, damping: 0.5, construction: { resolution: 4 }, position: b.at, velocity: b.velocity ?? [0, 0, 0],
      })),
    });
  }

  it('the initial frame holds a soft body placed away from the rigid ones', async () => {
    const w = await scene([[0, 0.2, 0]], [{ at: [3, 1.5, -1] }]);
    const c = framed(w);
    expect(outside(c, w)).toEqual([]);
    expect(softOutside(c, w)).toEqual([]);
  });

  it('soft bodies are framed as rigid bodies of their size are: two blobs 6 m apart are two small bodies, not one 6 m body', async () => {
    const soft = framed(await scene([], [{ at: [-3, 0.2, 0] }, { at: [3, 0.2, 0] }]));
    const rigid = framed(await worldFrom({
      format: FORMAT,
      dt: 0.01,
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, ball: { type: 'sphere', radius: 0.2, segments: [16, 10] } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'a', shape: 'ball', position: [-3, 0.2, 0] }, { name: 'b', shape: 'ball', position: [3, 0.2, 0] }],
    }));
    // One box around both padded the view by 3.2 m each side (a half again as far out).
    expect(soft.distance / rigid.distance).toBeGreaterThan(0.95);
    expect(soft.distance / rigid.distance).toBeLessThan(1.05);
  });

  it('a blob thrown out of the view widens it, smoothly and never zooming in, keeping its middle inside, until the blob has room around it', async () => {
    const w = await scene([[0, 0.2, 0]], [{ at: [0.6, 0.25, 0] }]);
    const region = newRegion();
    const c = framed(w, region);
    const auto = new AutoFrame();
    auto.arm(w, region);
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(false);
    const d0 = c.distance;
    // Thrown up and to the right of the view: it flies about 1.5 m and rolls on, out of the first view by far.
    const sys = softSystemOf(w)!;
    shove(sys, 'blob0', [0, 0, 0], [2.5 * Math.cos(c.yaw), 3, -2.5 * Math.sin(c.yaw)]);
    let last = c.distance;
    const middle = [0, 0, 0];
    await run(w, 200, () => {
      auto.update(c, w, VIEW, w.dt);
      expect(c.distance).toBeGreaterThanOrEqual(last);
      last = c.distance;
      // The glide lags the blob by a little (its edge pokes out at the top of the throw), never by its middle.
      middle.fill(0);
      for (let i = 0; i < sys.particleCount; i++) for (let k = 0; k < 3; k++) middle[k] = middle[k]! + sys.pos[3 * i + k]! / sys.particleCount;
      projectPoint(c, VIEW, middle, at);
      expect(at.front && at.x > FREE.x0 && at.x < FREE.x1 && at.y > FREE.y0 && at.y < FREE.y1, `t ${w.time.toFixed(2)} s`).toBe(true);
    });
    expect(c.distance).toBeGreaterThan(1.5 * d0);
    for (let f = 0; f < 120; f++) auto.update(c, w, VIEW, 1 / 60);
    expect(softOutside(c, w)).toEqual([]);
    expect(outside(c, w)).toEqual([]);
    expect(auto.gliding).toBe(false);
  }, 30_000);

  it('a soft body at rest counts as asleep: not followed out of the view, until it moves again', async () => {
    const w = await scene([[0, 0.2, 0]], [{ at: [0.8, 0.2, 0] }]);
    const region = newRegion();
    const c = framed(w, region);
    const auto = new AutoFrame();
    auto.arm(w, region);
    const sys = softSystemOf(w)!;
    // It settles on the floor (rocking for 2.5 s; the rigid box falls asleep at once) while the safety net looks on.
    await run(w, 400, () => auto.update(c, w, VIEW, w.dt));
    expect(w.time).toBeGreaterThan(SOFT_REST_TIME);
    const d = c.distance;
    // Carried 4 m sideways at rest: left where it is, out of the view.
    shove(sys, 'blob0', [4 * Math.cos(c.yaw), 0, -4 * Math.sin(c.yaw)], [0, 0, 0]);
    expect(softOutside(c, w)).toEqual(['blob0']);
    await run(w, 20, () => expect(auto.update(c, w, VIEW, w.dt)).toBe(false));
    expect(c.distance).toBe(d);
    // Pushed, it wakes at once and the view widens to it.
    shove(sys, 'blob0', [0, 0, 0], [0, 1, 0]);
    expect(auto.update(c, w, VIEW, 1 / 60)).toBe(true);
    for (let f = 0; f < 180; f++) auto.update(c, w, VIEW, 1 / 60);
    expect(c.distance).toBeGreaterThan(d);
    expect(softOutside(c, w)).toEqual([]);
  }, 30_000);
});
