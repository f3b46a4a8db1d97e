/**
 * Every joint type holds what it constrains through 5 s of a disturbed motion
 * (the second body starts with a velocity and a spin that violate the joint)
 * while the motion it leaves free goes on. No ground: contacts play no part.
 * The quantities are measured here from the body state, not through the
 * solver's own error routine.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, pos, run, worldFrom } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';
import {
  angVel, angleBetween, angleOf, conj, dot, mul, norm, quat, rotate, scale, sub, worldPoint, type Q4, type V3,
} from './geometry.ts';

type Json = Record<string, unknown>;

const ANCHOR_A: V3 = [0.25, 0, 0];
const ANCHOR_B: V3 = [-0.25, 0, 0];
const STEPS = 500; // 5 s at dt = 0.01

function pairScene(joint: Json, baseStatic = true): Json {
  return {
    format: FORMAT,
    dt: 0.01,
    shapes: { box: { type: 'box', size: [0.4, 0.2, 0.3], sdf: { cells: 8 } } },
    bodies: [
      { name: 'base', shape: 'box', static: baseStatic, position: [0, 2, 0] },
      // Moving and spinning against the joint from the first step.
      { name: 'body', shape: 'box', position: [0.5, 2, 0], velocity: [0.3, 0.4, -0.5], angularVelocity: [1.2, -2, 1.5] },
    ],
    joints: [{ bodyA: 'base', bodyB: 'body', ...joint }],
  };
}

/** Relative orientation conj(q_base) q_body. */
const relQuat = (w: World): Q4 => mul(conj(quat(w, 'base')), quat(w, 'body'));
/** Anchor separation (world). */
const gap = (w: World): V3 => sub(worldPoint(w, 'body', ANCHOR_B), worldPoint(w, 'base', ANCHOR_A));
const axisOnA = (w: World, a: V3): V3 => rotate(quat(w, 'base'), scale(a, 1 / norm(a)));
const axisOnB = (w: World, a: V3): V3 => rotate(quat(w, 'body'), scale(a, 1 / norm(a)));

interface Case {
  name: string;
  joint: Json;
  baseStatic?: boolean;
  /** Constrained quantities (m, rad, rad/s), each must stay below its tolerance. */
  held: Record<string, { tol: number; of: (w: World) => number }>;
  /** A free quantity that must change by at least `min` over the run. */
  free: { what: string; min: number; of: (w: World) => number };
}

const LINE_AXIS: V3 = [1, 1, 0];
const offLine = (w: World): number => {
  const d = gap(w), n = axisOnA(w, LINE_AXIS);
  return norm(sub(d, scale(n, dot(d, n))));
};
const alongLine = (w: World): number => dot(gap(w), axisOnA(w, LINE_AXIS));
const relAngle = (w0: Q4) => (w: World): number => angleOf(mul(conj(w0), relQuat(w)));

function cases(rel0: Q4): Case[] {
  const rotationFrom0 = relAngle(rel0);
  const zAxis: V3 = [0, 0, 1];
  return [
    {
      name: 'ball',
      joint: { type: 'ball', anchorA: ANCHOR_A, anchorB: ANCHOR_B },
      held: { 'anchor gap (m)': { tol: 1e-4, of: (w) => norm(gap(w)) } },
      free: { what: 'relative rotation (rad)', min: 0.3, of: rotationFrom0 },
    },
    {
      name: 'line',
      joint: { type: 'line', anchorA: ANCHOR_A, anchorB: ANCHOR_B, axisA: LINE_AXIS },
      held: { 'distance off the line (m)': { tol: 1e-4, of: offLine } },
      free: { what: 'position along the line (m)', min: 0.05, of: alongLine },
    },
    {
      name: 'plane',
      joint: { type: 'plane', anchorA: ANCHOR_A, anchorB: ANCHOR_B, axisA: [1, 0, 0], axis2A: [0, 0, 1] },
      held: { 'distance off the plane (m)': { tol: 1e-4, of: (w) => Math.abs(dot(gap(w), axisOnA(w, [0, 1, 0]))) } },
      free: { what: 'position in the plane (m)', min: 0.05, of: (w) => dot(gap(w), axisOnA(w, [1, 0, 1])) },
    },
    {
      name: 'lockRotation',
      joint: { type: 'lockRotation' },
      held: { 'relative rotation (rad)': { tol: 1e-4, of: rotationFrom0 } },
      free: { what: 'height (m)', min: 1, of: (w) => pos(w, 'body')[1] },
    },
    {
      name: 'axis',
      joint: { type: 'axis', axisA: zAxis, axisB: zAxis },
      held: { 'angle between the axes (rad)': { tol: 1e-4, of: (w) => angleBetween(axisOnA(w, zAxis), axisOnB(w, zAxis)) } },
      free: { what: 'rotation about the axis (rad)', min: 0.3, of: rotationFrom0 },
    },
    {
      name: 'angle',
      joint: { type: 'angle', axisA: [1, 0, 0], axisB: [0, 1, 0] },
      held: { 'change of the angle (rad)': { tol: 1e-4, of: (w) => Math.abs(angleBetween(axisOnA(w, [1, 0, 0]), axisOnB(w, [0, 1, 0])) - angleBetween([1, 0, 0], rotate(rel0, [0, 1, 0]))) } },
      free: { what: 'relative rotation (rad)', min: 0.3, of: rotationFrom0 },
    },
    {
      name: 'hinge',
      joint: { type: 'hinge', anchorA: ANCHOR_A, anchorB: ANCHOR_B, axisA: zAxis, axisB: zAxis },
      held: {
        'anchor gap (m)': { tol: 1e-4, of: (w) => norm(gap(w)) },
        'angle between the axes (rad)': { tol: 1e-4, of: (w) => angleBetween(axisOnA(w, zAxis), axisOnB(w, zAxis)) },
        'relative angular velocity off the axis (rad/s)': {
          tol: 1e-3,
          of: (w) => {
            const wr = sub(angVel(w, 'body'), angVel(w, 'base'));
            const a = axisOnA(w, zAxis);
            return norm(sub(wr, scale(a, dot(wr, a))));
          },
        },
      },
      free: { what: 'rotation about the axis (rad)', min: 0.3, of: rotationFrom0 },
    },
    {
      name: 'slider',
      joint: { type: 'slider', anchorA: ANCHOR_A, anchorB: ANCHOR_B, axisA: LINE_AXIS },
      held: {
        'distance off the line (m)': { tol: 1e-4, of: offLine },
        'relative rotation (rad)': { tol: 1e-4, of: rotationFrom0 },
      },
      free: { what: 'position along the line (m)', min: 0.05, of: alongLine },
    },
    {
      name: 'fixed',
      joint: { type: 'fixed', anchorA: ANCHOR_A, anchorB: ANCHOR_B },
      baseStatic: false,
      held: {
        'anchor gap (m)': { tol: 1e-4, of: (w) => norm(gap(w)) },
        'relative rotation (rad)': { tol: 1e-4, of: rotationFrom0 },
      },
      // The pair moves as one body: it turns (and falls) together.
      free: { what: 'rotation of the pair (rad)', min: 0.3, of: (w) => angleOf(quat(w, 'base')) },
    },
  ];
}

describe('each joint type holds its constrained quantities and leaves the others free', () => {
  // Both bodies start unrotated.
  const rel0: Q4 = [0, 0, 0, 1];
  for (const c of cases(rel0)) {
    it(`${c.name}: held within tolerance for 5 s of a disturbed motion, free motion goes on`, async () => {
      const w = await worldFrom(pairScene({ ...c.joint }, c.baseStatic ?? true));
      const worst: Record<string, number> = {};
      for (const k of Object.keys(c.held)) worst[k] = 0;
      const f0 = c.free.of(w);
      let freeRange = 0;
      await run(w, STEPS, (ww) => {
        for (const [k, h] of Object.entries(c.held)) worst[k] = Math.max(worst[k]!, h.of(ww));
        freeRange = Math.max(freeRange, Math.abs(c.free.of(ww) - f0));
      });
      for (const [k, h] of Object.entries(c.held)) expect(worst[k], k).toBeLessThan(h.tol);
      expect(freeRange, c.free.what).toBeGreaterThan(c.free.min);
    });
  }
});

describe('joined bodies', () => {
  it('do not collide unless the joint says collide: true', async () => {
    const scene = (collide: boolean) => ({
      format: FORMAT,
      gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 8 } } },
      bodies: [
        { name: 'base', shape: 'box', static: true, position: [0, 0, 0] },
        // 5 cm from the base, moving into it at 2 m/s.
        { name: 'body', shape: 'box', position: [0.45, 0, 0], velocity: [-2, 0, 0], restitution: 0 },
        { name: 'other', shape: 'box', position: [3, 0, 0] },
      ],
      joints: [{ type: 'lockRotation', bodyA: 'base', bodyB: 'body', collide }],
    });
    const through = await worldFrom(scene(false));
    expect(through.constraints?.ignoresPair(0, 1)).toBe(true);
    expect(through.constraints?.ignoresPair(1, 2)).toBe(false);
    await run(through, 10);
    expect(pos(through, 'body')[0]).toBeCloseTo(0.25, 9);
    const hit = await worldFrom(scene(true));
    expect(hit.constraints?.ignoresPair(0, 1)).toBe(false);
    await run(hit, 10);
    expect(pos(hit, 'body')[0]).toBeGreaterThan(0.39);
  });

  it('share a contact-graph level', async () => {
    const w = await worldFrom({
      format: FORMAT,
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 8 } } },
      bodies: [
        { name: 'ground', shape: 'floor', static: true },
        { name: 'bottom', shape: 'box', position: [0, 0.2, 0] },
        { name: 'top', shape: 'box', position: [0, 0.599, 0] },
        { name: 'side', shape: 'box', position: [1, 0.599, 0] },
      ],
      // "side" floats, joined to "top", which rests on "bottom".
      joints: [{ type: 'ball', bodyA: 'top', bodyB: 'side', anchorA: [0.5, 0, 0], anchorB: [-0.5, 0, 0] }],
    });
    await run(w, 20);
    const L = (n: string) => w.level[w.bodies.names.indexOf(n)]!;
    expect(L('bottom')).toBe(0);
    expect(L('top')).toBe(1);
    expect(L('side')).toBe(L('top'));
  });

  it('anchors are read in the shape\'s own frame, not the centre-of-mass frame', async () => {
    // A right-triangle prism: its centre of mass is at (1/3, 1/3) of its own frame,
    // so an anchor at the shape's origin (a corner) differs from the centre.
    const w = await worldFrom({
      format: FORMAT,
      shapes: {
        wedge: { type: 'extrude', polygon: [[0, 0], [0.6, 0], [0, 0.6]], depth: 0.2, sdf: { cells: 12 } },
        pin: { type: 'box', size: [0.05, 0.05, 0.05], sdf: { cells: 8 } },
      },
      bodies: [
        { name: 'pin', shape: 'pin', static: true, position: [0, 2, 0] },
        { name: 'wedge', shape: 'wedge', position: [0, 2, 0], angularVelocity: [0, 0, 2] },
      ],
      joints: [{ type: 'ball', bodyA: 'pin', bodyB: 'wedge', anchorA: [0, 0, 0], anchorB: [0, 0, 0] }],
    });
    const com = w.shapes[w.bodies.shape[1]!]!.comOffset;
    expect(Math.hypot(com[0], com[1])).toBeGreaterThan(0.2);
    const c0 = pos(w, 'wedge');
    let worst = 0;
    let swing = 0;
    await run(w, 200, (ww) => {
      worst = Math.max(worst, norm(sub(worldPoint(ww, 'wedge', [0, 0, 0]), [0, 2, 0])));
      swing = Math.max(swing, norm(sub(pos(ww, 'wedge'), c0)));
    });
    expect(worst).toBeLessThan(1e-4);
    // It swung: the centre of mass went round the pin.
    expect(swing).toBeGreaterThan(0.3);
  });
});
