import { describe, expect, it } from 'vitest';
import { defaultCamera } from '../../src/app/camera.ts';
import { frameSignature, MAX_IDLE_MS, RedrawGate, type FrameInputs } from '../../src/app/redrawGate.ts';
import { defaultViews, setSliceBody } from '../../src/app/views.ts';
import { builtinWorld } from '../dynamics/helpers.ts';

describe('drawing on demand', () => {
  it('a paused scene is drawn once, then again for each thing that changes what it shows, and at least every MAX_IDLE_MS', async () => {
    const world = await builtinWorld('tower', { height: 3 });
    const f: FrameInputs = { world, camera: defaultCamera(), views: defaultViews(), selected: -1, width: 800, height: 600 };
    const gate = new RedrawGate();
    let sig = new Float64Array(0) as Float64Array;
    let t = 0;
    // One frame 16 ms on: whether it draws.
    const frame = (): boolean => {
      t += 16;
      sig = frameSignature(f, sig);
      return gate.due(t, sig, false);
    };
    expect(frame()).toBe(true);
    // Nothing changes: no drawing, frame after frame.
    for (let k = 0; k < 10; k++) expect(frame()).toBe(false);

    const changes: [string, () => unknown][] = [
      ['a step', () => world.step()],
      ['the camera turned', () => (f.camera.yaw += 1e-6)],
      ['the camera moved', () => (f.camera.target[1] += 1e-6)],
      ['zoom', () => (f.camera.distance *= 1.001)],
      ['lens shift', () => (f.camera.shiftX += 0.01)],
      ['a view switched on', () => (f.views = { ...f.views, wireframe: true })],
      ['a view given a text value', () => (f.views = { ...f.views, others: 'hide' })],
      ['the slice moved', () => (f.views = { ...f.views, sliceOffset: 0.25 })],
      ['a body chosen', () => ((f.selected = 1), (f.views = setSliceBody(f.views, 1)))],
      ['the canvas resized', () => (f.width = 801)],
      ['a body dragged while paused (no step)', () => (world.bodies.pos[3 * 2]! += 1e-7)],
      ['a body turned while paused', () => (world.bodies.quat[4 * 2 + 1]! += 1e-7)],
      ['a body woken', () => (world.bodies.asleep[2] = world.bodies.asleep[2] ? 0 : 1)],
      ['a state restored', () => world.restoreState({ ...world.saveState(), time: world.time - 0.01, stepCount: world.stepCount - 1 })],
      ['no world', () => (f.world = null)],
      ['a world again', () => (f.world = world)],
    ];
    for (const [what, change] of changes) {
      await change();
      expect(frame(), what).toBe(true);
      expect(frame(), `${what}, the frame after`).toBe(false);
    }
    // What the signature cannot see is told.
    gate.invalidate();
    expect(frame()).toBe(true);
    expect(frame()).toBe(false);
    // A recording takes every frame.
    t += 16;
    expect(gate.due(t, sig, true)).toBe(true);
    // Whatever is missed is drawn within MAX_IDLE_MS.
    let drawnAt = t, waited = 0;
    while (!frame()) waited = t - drawnAt;
    expect(waited).toBeLessThan(MAX_IDLE_MS);
    expect(t - drawnAt).toBeGreaterThanOrEqual(MAX_IDLE_MS);
    drawnAt = t;
    expect(frame()).toBe(false);

    // Playing on while every body sleeps: steps that move nothing draw nothing.
    const B = world.bodies;
    for (let i = 0; i < B.count; i++) if (!B.isStatic[i]) B.asleep[i] = 1;
    expect(frame(), 'the pile fell asleep').toBe(true);
    for (let k = 0; k < 5; k++) {
      await world.step();
      expect(frame(), `a step of the sleeping pile (${world.stepCount})`).toBe(false);
    }
    B.asleep[B.count - 1] = 0;
    expect(frame(), 'a body woke').toBe(true);
    await world.step();
    expect(frame(), 'a step with a body awake').toBe(true);
  });

  it('a world with soft bodies is drawn after every step: they move without the rigid poses telling', async () => {
    const world = await builtinWorld('soft-seesaw');
    const f: FrameInputs = { world, camera: defaultCamera(), views: defaultViews(), selected: -1, width: 800, height: 600 };
    const gate = new RedrawGate();
    let sig = frameSignature(f, new Float64Array(0));
    expect(gate.due(0, sig)).toBe(true);
    const B = world.bodies;
    for (let i = 0; i < B.count; i++) if (!B.isStatic[i]) B.asleep[i] = 1;
    sig = frameSignature(f, sig);
    expect(gate.due(16, sig)).toBe(true);
    await world.step();
    sig = frameSignature(f, sig);
    expect(gate.due(32, sig)).toBe(true);
  });

  it('a signature that reads NaN (a pose gone bad) draws every frame rather than none', () => {
    const gate = new RedrawGate();
    const sig = new Float64Array([1, Number.NaN, 3]);
    expect(gate.due(0, sig)).toBe(true);
    expect(gate.due(16, sig)).toBe(true);
    expect(gate.due(32, new Float64Array([1, 2, 3]))).toBe(true);
    expect(gate.due(48, new Float64Array([1, 2, 3]))).toBe(false);
  });
});
