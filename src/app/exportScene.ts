/**
 * The current moment as a scene file: the scene JSON the world was built
 * from, with every dynamic body's position, orientation and velocities set
 * to its current state, the solver settings changed in the panel, and the
 * motors' time windows moved so that the file's t = 0 is now. `stackfield
 * run` and the app load it like any scene (docs/SCENE_FORMAT.md).
 *
 * What a scene file cannot say starts afresh: time (the file starts at 0),
 * sleep (every body starts awake), contact caches, a motor's torque ramp, and
 * soft bodies (written as the scene has them: a scene cannot hold a deformed
 * body, so they start again from their scene pose).
 * Joints that hold an initial relative orientation (lockRotation, angle,
 * slider, fixed) take the current one, which the joint has kept up to its
 * error.
 */
import { rotateByQuat } from '../dynamics/math.ts';
import type { World } from '../dynamics/world.ts';
import type { SolverOverrides } from './simulation.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/**
 * @param source the scene JSON the world was built from (not modified)
 * @param world the world built from it, at the moment to export
 * @param overrides solver settings and dt changed in the panel
 */
export function exportSceneState(source: unknown, world: World, overrides: SolverOverrides = {}): JsonObject {
  const scene = structuredClone(source) as JsonObject;
  const B = world.bodies;
  const bodies = Array.isArray(scene['bodies']) ? (scene['bodies'] as JsonObject[]) : [];
  if (bodies.length !== B.count) {
    throw new RangeError(`the scene has ${bodies.length} bodies and the world ${B.count}: they do not belong together`);
  }
  bodies.forEach((body, i) => {
    if (B.isStatic[i]) return;
    const s = world.shapes[B.shape[i]!]!;
    const q = [B.quat[4 * i]!, B.quat[4 * i + 1]!, B.quat[4 * i + 2]!, B.quat[4 * i + 3]!];
    // The state is the centre of mass; `position` places the shape's own origin: p - R(q) com.
    const c = [0, 0, 0];
    rotateByQuat(q, 0, s.comOffset[0], s.comOffset[1], s.comOffset[2], c);
    body['position'] = [B.pos[3 * i]! - c[0]!, B.pos[3 * i + 1]! - c[1]!, B.pos[3 * i + 2]! - c[2]!];
    delete body['rotation'];
    body['orientation'] = q;
    body['velocity'] = [B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!];
    body['angularVelocity'] = [B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!];
  });
  // Motor windows are in scene time: move them so the file starts now; a motor whose window is over goes.
  const t = world.time;
  if (Array.isArray(scene['motors']) && t > 0) {
    scene['motors'] = (scene['motors'] as JsonObject[]).flatMap((m) => {
      const moved = motorFromNow(m, t, world.dt);
      return moved ? [moved] : [];
    });
  }
  const { dt, ...solver } = overrides;
  if (Object.keys(solver).length > 0) scene['solver'] = { ...((scene['solver'] as JsonObject | undefined) ?? {}), ...(solver as JsonObject) };
  if (dt !== undefined) scene['dt'] = dt;
  return scene;
}

/** A file name for the export: the scene's name and the time, e.g. "rings-t2.35s.json". */
export function exportFileName(scene: string, time: number): string {
  const base = scene.replace(/\.json$/i, '').replace(/[^\w.-]+/g, '_') || 'stackfield';
  return `${base}-t${time.toFixed(2)}s.json`;
}

/** A segment of a motor program (docs/SCENE_FORMAT.md "motors"). */
type Segment = { speed: number; duration: number };

/**
 * A motor as it reads from time t on: its window moved back by t (in seconds,
 * or in steps of dt for `fromStep` / `untilStep`), and a program that had
 * started turned to where it was, so it goes on in the same phase; null when
 * nothing of it is left (its window or a one-off program is over).
 */
function motorFromNow(m: JsonObject, t: number, dt: number): JsonObject | null {
  const steps = Math.round(t / dt);
  const num = (k: string): number | null => (typeof m[k] === 'number' ? (m[k] as number) : null);
  const from = num('fromStep') !== null ? num('fromStep')! * dt : (num('from') ?? 0);
  const until = num('untilStep') !== null ? num('untilStep')! * dt : num('until');
  if (until !== null && until - t <= 0) return null;
  const out: JsonObject = { ...m };
  if (num('fromStep') !== null) out['fromStep'] = Math.max(0, num('fromStep')! - steps);
  else if (from > 0 || 'from' in m) out['from'] = Math.max(0, from - t);
  if (num('untilStep') !== null) out['untilStep'] = num('untilStep')! - steps;
  else if (until !== null) out['until'] = until - t;
  const program = m['program'];
  const elapsed = t - from;
  if (Array.isArray(program) && program.length > 0 && elapsed > 0) {
    const segs = program as Segment[];
    const total = segs.reduce((a, g) => a + g.duration, 0);
    const repeat = m['repeat'] === true;
    if (!repeat && elapsed >= total) return null;
    let phase = repeat ? elapsed - Math.floor(elapsed / total) * total : elapsed;
    let k = 0;
    while (k < segs.length - 1 && phase >= segs[k]!.duration) phase -= segs[k++]!.duration;
    const cur = segs[k]!;
    const rest: Segment[] = [{ speed: cur.speed, duration: cur.duration - phase }, ...segs.slice(k + 1)];
    // A repeated program keeps its period: the part already run comes back at the end of the turn.
    if (repeat) rest.push(...segs.slice(0, k), ...(phase > 0 ? [{ speed: cur.speed, duration: phase }] : []));
    out['program'] = rest.filter((g) => g.duration > 0) as unknown as Json;
  }
  return out;
}
