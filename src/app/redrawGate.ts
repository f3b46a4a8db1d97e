/**
 * Drawing on demand. The render loop runs every animation frame (following,
 * framing and the overlays need it), but the scene is drawn again only when
 * something it shows changed: a step, a state restored from the timeline, a
 * body moved or placed while paused, the camera, the views, the selection,
 * the canvas size or a new renderer or world. A paused app then costs
 * little: on a software adapter (SwiftShader, 1200 x 720) drawing every
 * frame kept 1.8 of 2 cores busy with nothing moving; with the gate 0.26,
 * most of it the one drawing every MAX_IDLE_MS. (A frame there costs about
 * 140 ms of CPU time; a real GPU draws it in well under a millisecond, but
 * would still draw 60 unchanged frames a second.)
 *
 * What changed is told two ways. `invalidate()` for what the gate cannot
 * see (a new world or renderer, the highlight, a resize); and a signature,
 * a few numbers that sum up what the renderer reads (frameSignature), compared
 * with the last drawn one. Anything neither catches is still drawn within
 * MAX_IDLE_MS.
 */
import type { OrbitCamera } from './camera.ts';
import type { ViewState } from './views.ts';

/** The longest the scene goes undrawn, whatever the signature says (ms). */
export const MAX_IDLE_MS = 2000;

/** What a frame draws, as the signature sees it. */
export interface FrameInputs {
  /** The world drawn (null: none). */
  world: {
    readonly stepCount: number;
    readonly time: number;
    readonly bodies: { readonly count: number; readonly pos: Float64Array; readonly quat: Float64Array; readonly asleep: Uint8Array; readonly isStatic: Uint8Array };
    /** Soft bodies (World.soft): they move without the rigid poses telling. */
    readonly soft?: unknown;
  } | null;
  camera: OrbitCamera;
  views: ViewState;
  /** The chosen body (-1 none). */
  selected: number;
  /** The drawing buffer's size in device pixels. */
  width: number;
  height: number;
}

/** Numbers in a frame signature before the views' fields. */
const FIXED = 20;

/**
 * The signature of a frame, written into `out` when it has the right length
 * (else into a new array, returned: keep it for the next frame). The
 * bodies' poses and sleep flags enter as weighted sums, so a body dragged
 * or placed while paused changes it without a step. The step and time enter
 * only while a body is awake or the world has soft bodies: a pile asleep
 * while the app plays on is not drawn again step after step.
 */
export function frameSignature(f: FrameInputs, out: Float64Array): Float64Array {
  const keys = Object.keys(f.views) as (keyof ViewState)[];
  const n = FIXED + keys.length;
  const s = out.length === n ? out : new Float64Array(n);
  const c = f.camera;
  s[0] = c.target[0]; s[1] = c.target[1]; s[2] = c.target[2];
  s[3] = c.yaw; s[4] = c.pitch; s[5] = c.distance; s[6] = c.fovY; s[7] = c.shiftX; s[8] = c.shiftY;
  s[9] = f.selected; s[10] = f.width; s[11] = f.height;
  const w = f.world;
  if (w) {
    const B = w.bodies;
    let a = 0, b = 0, z = 0, awake = w.soft ? 1 : 0;
    for (let i = 0; i < B.count; i++) {
      const k = i + 1;
      a += k * (B.pos[3 * i]! + 2 * B.pos[3 * i + 1]! + 3 * B.pos[3 * i + 2]!);
      b += k * (B.quat[4 * i]! + 2 * B.quat[4 * i + 1]! + 3 * B.quat[4 * i + 2]! + 4 * B.quat[4 * i + 3]!);
      z += k * B.asleep[i]!;
      if (!B.isStatic[i] && !B.asleep[i]) awake = 1;
    }
    s[12] = 1; s[13] = awake ? w.stepCount : 0; s[14] = awake ? w.time : 0; s[15] = B.count; s[16] = a; s[17] = b; s[18] = z;
  } else {
    for (let k = 12; k < 19; k++) s[k] = 0;
  }
  s[19] = keys.length;
  for (let k = 0; k < keys.length; k++) s[FIXED + k] = viewNumber(f.views[keys[k]!]);
  return s;
}

/** A view field as a number: booleans 0 / 1, numbers as they are, strings by a hash of their text. */
function viewNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const t = String(v);
  let h = 0;
  for (let i = 0; i < t.length; i++) h = (Math.imul(h, 31) + t.charCodeAt(i)) | 0;
  return h;
}

/** Whether each frame must be drawn (see the file comment). */
export class RedrawGate {
  private last = new Float64Array(0);
  private dirty = true;
  private drawnAt = -Infinity;

  constructor(private readonly maxIdleMs = MAX_IDLE_MS) {}

  /** The next frame draws, whatever its signature. */
  invalidate(): void {
    this.dirty = true;
  }

  /**
   * True when the frame at time `now` (ms) must be drawn: invalidated, a
   * signature other than the last drawn one (NaN included), `always` (a
   * recording takes every frame), or maxIdleMs since the last drawing. A
   * true answer counts as drawn: the caller draws.
   */
  due(now: number, signature: Float64Array, always = false): boolean {
    let draw = always || this.dirty || now - this.drawnAt >= this.maxIdleMs || signature.length !== this.last.length;
    if (!draw) {
      for (let k = 0; k < signature.length; k++) {
        // (!== is true for NaN against NaN: such a frame is drawn, never skipped.)
        if (signature[k] !== this.last[k]) {
          draw = true;
          break;
        }
      }
    }
    if (!draw) return false;
    if (this.last.length !== signature.length) this.last = new Float64Array(signature.length);
    this.last.set(signature);
    this.dirty = false;
    this.drawnAt = now;
    return true;
  }
}
