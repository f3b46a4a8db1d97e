/**
 * Scenes with textbook answers (issue "Physics a physicist would sign"), as
 * scene JSON so they go through the same validation as files. Each builder
 * says what the analytic answer is; the tests next to it compare.
 */
import { FORMAT } from '../dynamics/helpers.ts';

type Json = Record<string, unknown>;

const G = 9.81;

/** A free box (no gravity, nothing else) spinning with body-frame angular velocity w (identity orientation). */
export function freeBox(size: [number, number, number], w: [number, number, number]): Json {
  return {
    format: FORMAT, dt: 0.01, gravity: [0, 0, 0],
    shapes: { box: { type: 'box', size, sdf: { cells: 16 } } },
    bodies: [{ name: 'box', shape: 'box', position: [0, 0, 0], angularVelocity: w, density: 1000 }],
  };
}

/**
 * A static plane tilted by `deg` about z (downhill toward -x) and a body of
 * `shape` resting on it at distance `lift` from the plane (centre height over
 * the slope), at rest. Downhill unit vector: (-cos, -sin, 0).
 */
export function onIncline(deg: number, mu: number, shape: Json, lift: number, dt = 0.005, extra: Json = {}): Json {
  const th = (deg * Math.PI) / 180;
  return {
    format: FORMAT, dt,
    shapes: { slope: { type: 'plane', normal: [0, 1, 0] }, body: shape },
    bodies: [
      { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, friction: mu, restitution: 0 },
      { name: 'body', shape: 'body', position: [-Math.sin(th) * lift, Math.cos(th) * lift, 0], rotation: { axis: [0, 0, 1], degrees: deg }, friction: mu, restitution: 0, ...extra },
    ],
  };
}

/** (5/7) g sin(theta): a solid sphere rolling without slipping. */
export const sphereRollAccel = (deg: number) => (5 / 7) * G * Math.sin((deg * Math.PI) / 180);
/** (2/3) g sin(theta): a solid cylinder rolling without slipping. */
export const cylinderRollAccel = (deg: number) => (2 / 3) * G * Math.sin((deg * Math.PI) / 180);

/** A ball of radius r on level ground, sliding at v0 along +x without spin. */
export function slidingBall(r: number, v0: number, mu: number): Json {
  return {
    format: FORMAT, dt: 0.002,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, ball: { type: 'sphere', radius: r, segments: [48, 32], sdf: { cells: 32 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: mu, restitution: 0 },
      { name: 'ball', shape: 'ball', position: [0, r, 0], velocity: [v0, 0, 0], friction: mu, restitution: 0 },
    ],
  };
}

/**
 * A ball of radius r rolling along +x at v without slipping (omega_z = -v/r),
 * its lowest point h above a level floor: it lands still rolling.
 */
export function rollingDrop(r: number, v: number, h: number, dt: number): Json {
  return {
    format: FORMAT, dt,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, ball: { type: 'sphere', radius: r, segments: [48, 32], sdf: { cells: 32 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 },
      { name: 'ball', shape: 'ball', position: [0, r + h, 0], velocity: [v, 0, 0], angularVelocity: [0, 0, -v / r], friction: 0.5, restitution: 0 },
    ],
  };
}

/** Two equal boxes face on face along x, no gravity, A moving at v toward B at rest; restitution e. */
export function boxPair(v: number, e: number, gap = 0.01): Json {
  const s = 0.4;
  return {
    format: FORMAT, dt: 0.01, gravity: [0, 0, 0],
    shapes: { box: { type: 'box', size: [s, s, s], sdf: { cells: 24 } } },
    bodies: [
      { name: 'a', shape: 'box', position: [-(s + gap) / 2, 0, 0], velocity: [v, 0, 0], restitution: e, friction: 0.5 },
      { name: 'b', shape: 'box', position: [(s + gap) / 2, 0, 0], restitution: e, friction: 0.5 },
    ],
  };
}

/** n boxes of edge `size` stacked perfectly on the ground plane, `gap` apart, friction 0.5. */
export function tower(n: number, size: number, dt: number, gap = 0.001, extra: Json = {}): Json {
  const bodies: Json[] = [{ name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 }];
  for (let i = 0; i < n; i++) {
    bodies.push({ name: `box${i}`, shape: 'box', position: [0, size / 2 + i * (size + gap) + gap / 2, 0], friction: 0.5, restitution: 0, density: 500 });
  }
  return {
    format: FORMAT, dt, ...extra,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [size, size, size], sdf: { cells: 24 } } },
    bodies,
  };
}

/** Two boxes stacked: the lower one `bottomMass`, the upper `topMass` (100:1 stacks). */
export function massRatioStack(bottomMass: number, topMass: number): Json {
  const s = 0.5;
  return {
    format: FORMAT, dt: 0.01,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [s, s, s], sdf: { cells: 24 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 },
      { name: 'bottom', shape: 'box', position: [0, s / 2 + 0.0005, 0], mass: bottomMass, friction: 0.5, restitution: 0 },
      { name: 'top', shape: 'box', position: [0, 1.5 * s + 0.0015, 0], mass: topMass, friction: 0.5, restitution: 0 },
    ],
  };
}

/**
 * A 5 cm box shot at speed v along -y at a 2 cm static slab whose top face is
 * at y = 0; `phase` in [0, 1) shifts the start so the box meets the slab at a
 * different point of its step.
 */
export function bullet(v: number, phase: number, extra: Json = {}): Json {
  const dt = 0.01;
  return {
    format: FORMAT, dt, gravity: [0, 0, 0],
    shapes: { slab: { type: 'box', size: [0.5, 0.02, 0.5], sdf: { cells: 64 } }, box: { type: 'box', size: [0.05, 0.05, 0.05], sdf: { cells: 16 } } },
    bodies: [
      { name: 'slab', shape: 'slab', static: true, position: [0, -0.01, 0], restitution: 0.2, friction: 0.5 },
      { name: 'box', shape: 'box', position: [0.05, 0.3 + phase * v * dt, -0.03], velocity: [0, -v, 0], restitution: 0.2, friction: 0.5, ...extra },
    ],
  };
}

/** The pile's nonconvex shapes (src/scene/builtins.ts), for the overlap scenes. */
export const CUP = { type: 'revolve', profile: [[0, -0.12], [0.15, -0.12], [0.16, 0.12], [0.12, 0.12], [0.115, -0.08], [0, -0.08]], segments: 16, sdf: { cells: 40 } };
export const LBLOCK = { type: 'extrude', polygon: [[0, 0], [0.4, 0], [0.4, 0.12], [0.12, 0.12], [0.12, 0.3], [0, 0.3]], depth: 0.15, sdf: { cells: 32 } };
export const RING = { type: 'torus', majorRadius: 0.3, minorRadius: 0.07, segments: [12, 9], sdf: { cells: 32 } };

/**
 * Two bodies of `shape` placed interpenetrating by about `overlap` m (the
 * second one moved toward the first along `dir` from touching), resting on
 * the ground, no velocity.
 */
export function overlapping(shape: Json, placeA: Json, placeB: Json): Json {
  return {
    format: FORMAT, dt: 0.01,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, body: shape },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 },
      { name: 'a', shape: 'body', friction: 0.5, restitution: 0, density: 700, ...placeA },
      { name: 'b', shape: 'body', friction: 0.5, restitution: 0, density: 700, ...placeB },
    ],
  };
}

/**
 * The seed's billiards (fig. 30): a cue ball sliding at v0 without spin into
 * a row of `n` touching balls, ball-ball restitution 1, friction 0.2 and
 * rolling friction `rolling` everywhere. With n = 0, the cue alone.
 */
export function billiards(v0: number, n: number, rolling: number): Json {
  const r = 0.1;
  const ball = { restitution: 1, friction: 0.2, rollingFriction: rolling };
  const bodies: Json[] = [{ name: 'ground', shape: 'floor', static: true, restitution: 0.3, friction: 0.2, rollingFriction: rolling }];
  bodies.push({ name: 'cue', shape: 'ball', position: [-1.5, r, 0], velocity: [v0, 0, 0], ...ball });
  for (let i = 0; i < n; i++) bodies.push({ name: `ball${i}`, shape: 'ball', position: [i * 2 * r, r, 0], ...ball });
  return {
    format: FORMAT, dt: 0.005, sleep: false,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, ball: { type: 'sphere', radius: r, segments: [36, 24], sdf: { cells: 32 } } },
    bodies,
  };
}

/**
 * A ball (r 0.1 m) dropped from 1 m above a floor (its lowest point), ball and
 * floor of restitution e: each apex should be e^2 of the last (the pair
 * takes the smaller of its bodies' restitutions).
 */
export function droppedBall(e: number, dt: number, r = 0.1): Json {
  return {
    format: FORMAT, dt, sleep: false,
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, ball: { type: 'sphere', radius: r, segments: [32, 24], sdf: { cells: 24 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, restitution: e, friction: 0.5 },
      { name: 'ball', shape: 'ball', position: [0, 1 + r, 0], restitution: e, friction: 0.5 },
    ],
  };
}
