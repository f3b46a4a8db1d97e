/**
 * `stackfield lib FILE [--json]`: what a library holds (docs/LIBRARY_FORMAT.md):
 * its shapes, materials, body templates (shape, mass) and robots (parts,
 * joints, motors, mass, degrees of freedom; each joint's and motor's name,
 * kind, axis, target and torque), and those of the files it includes. Given a scene, it lists the libraries the scene includes.
 *
 * The listing is of checked definitions: the file goes through the same
 * checks as `stackfield check`, and masses come from the shapes' exact mesh
 * integrals (ALGORITHM.md 2) times the density the layers give each body.
 */
import type { Command } from './command.ts';
import { parseArgs } from './args.ts';
import { InputError } from '../errors.ts';
import { fmtValue, type ShapeMass } from '../scene/shapeBuild.ts';
import { DOF_REMOVED, EITHER_TOP_LEVEL, readSource, type Namespace, type SourceFile } from '../scene/library.ts';
import { checkName } from '../scene/instances.ts';
import { readTextFile } from '../scene/load.ts';
import type { SceneDesc } from '../scene/types.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { checkLibraryFile } from './check.ts';
import { editHelp, runEdit } from './libEdit.ts';
import { say } from './output.ts';
import { ECHO_MAX, escapeControls, quote, terminalSafe } from '../util/echo.ts';

const help = `stackfield lib - list what a library holds

Usage:
  stackfield lib LIBRARY.json [--json]
  stackfield lib SCENE.json [--json]      the libraries a scene includes
${editHelp}
Per file: shapes (type), materials (their values), body templates (shape,
mass in kg, static) and robots (parts, joints, motors, total mass of the
dynamic parts, degrees of freedom: 6 per dynamic part less what each joint
removes), then each robot's joints (type, parts, axis in part A's shape frame)
and motors (kind, what they drive, target speed or program, torque ramp and
limit, window) by the names an instance's overrides and world.motor() use.
Joints have no limits: a hinge turns and a slider slides freely. The file is
checked first, as "stackfield check" does.

Options:
  --json    print one JSON object instead of text
`;

export interface RobotListing {
  name: string;
  description?: string;
  parts: number;
  joints: number;
  motors: number;
  /** kg, the dynamic parts. */
  mass: number;
  /** 6 per dynamic part, less what every joint removes (a count: redundant joints are not detected). */
  dof: number;
  /** The joints by name, as an instance's joint `instance/NAME` (the names motors and scene joints use). */
  jointList: JointListing[];
  /** The motors by name: the keys of an instance's `motors` overrides. */
  motorList: MotorListing[];
}

/** A robot's joint: its type, the parts it joins, its axes in A's shape frame where the type has them. */
export interface JointListing {
  name: string;
  type: string;
  bodyA: string;
  bodyB: string;
  /** Degrees of freedom it removes. */
  removes: number;
  /** axisA where the type takes it (line, plane, axis, angle, hinge, slider), normalised; null otherwise. */
  axisA: Vec3 | null;
  /** plane: the second in-plane axis. */
  axis2A?: Vec3;
}

/** A robot's motor: what it drives, its target, its torque ramp and window. */
export interface MotorListing {
  name: string;
  /** "body" (a couple on one part), "hinge" (rad/s) or "slider" (m/s). */
  kind: 'body' | 'hinge' | 'slider';
  /** The joint a joint motor drives, else "". */
  joint: string;
  /** The part a body motor turns, else "". */
  body: string;
  /** Body motors: the unit axis and its frame ("world": the robot's frame as placed). */
  axis?: Vec3;
  frame?: 'world' | 'body';
  /** A constant target speed, or null for a program. */
  speed: number | null;
  /** A program's segments and whether it repeats (0 for a constant speed). */
  programSegments: number;
  repeat: boolean;
  /** N m (N for a slider). */
  startTorque: number;
  torqueIncrement: number;
  maxTorque: number;
  /** Seconds: the window the motor is on in. */
  from: number;
  until: number | null;
}

/** The joint types that take axisA (docs/SCENE_FORMAT.md "joints"). */
const AXIS_TYPES = new Set(['line', 'plane', 'axis', 'angle', 'hinge', 'slider']);

function unit(v: readonly number[]): Vec3 {
  const l = Math.hypot(v[0]!, v[1]!, v[2]!);
  return [v[0]! / l, v[1]! / l, v[2]! / l];
}

/** The joints and motors of the robot placed as instance `inst` in a checked scene, names without the `inst/` prefix. */
function robotParts(scene: SceneDesc | undefined, inst: string): { jointList: JointListing[]; motorList: MotorListing[] } {
  if (!scene) return { jointList: [], motorList: [] };
  const prefix = `${inst}/`;
  const own = (name: string) => name.startsWith(prefix);
  const bare = (name: string) => (own(name) ? name.slice(prefix.length) : name);
  const joints = scene.joints.filter((j) => own(j.name));
  const jointList = joints.map((j): JointListing => ({
    name: bare(j.name),
    type: j.type,
    bodyA: bare(j.bodyA),
    bodyB: bare(j.bodyB),
    removes: DOF_REMOVED[j.type] ?? 0,
    axisA: AXIS_TYPES.has(j.type) ? unit(j.axisA) : null,
    ...(j.type === 'plane' ? { axis2A: unit(j.axis2A) } : {}),
  }));
  const motorList = scene.motors.filter((m) => own(m.name)).map((m): MotorListing => {
    const joint = m.joint ? joints.find((j) => j.name === m.joint) : undefined;
    const constant = m.program.length === 1 && m.program[0]!.duration === Infinity;
    return {
      name: bare(m.name),
      kind: m.joint ? (joint?.type === 'slider' ? 'slider' : 'hinge') : 'body',
      joint: m.joint ? bare(m.joint) : '',
      body: m.joint ? '' : bare(m.body),
      ...(m.joint ? {} : { axis: [...m.axis] as Vec3, frame: m.frame }),
      speed: constant ? m.program[0]!.speed : null,
      programSegments: constant ? 0 : m.program.length,
      repeat: m.repeat,
      startTorque: m.startTorque,
      torqueIncrement: m.torqueIncrement,
      maxTorque: m.maxTorque,
      from: m.from,
      until: Number.isFinite(m.until) ? m.until : null,
    };
  });
  return { jointList, motorList };
}

export interface FileListing {
  file: string;
  kind: 'scene' | 'library';
  includes: string[];
  shapes: { name: string; type: string }[];
  materials: ({ name: string } & Record<string, number | string>)[];
  bodies: { name: string; shape: string; static: boolean; mass: number | null }[];
  robots: RobotListing[];
}

/** A body's mass from its validated description and its shape's mass properties (null: static or a plane). */
function massOf(b: SceneDesc['bodies'][number], s: ShapeMass | null | undefined): number | null {
  if (b.static || !s) return null;
  return b.mass ?? (b.density ?? 1000) * s.volume;
}

/** The listing of every file FILE reads (the root first). */
export async function listLibrary(file: string, warn: (m: string) => void): Promise<FileListing[]> {
  const root = readSource(await readTextFile(file, 'file'), file, undefined, EITHER_TOP_LEVEL);
  const lib = await checkLibraryFile(root, warn);
  return lib.files.map((f) => listFile(f, lib.ns, lib.robots, lib.scenes.get(f.file)));
}

function listFile(
  f: SourceFile,
  ns: Namespace,
  robots: Awaited<ReturnType<typeof checkLibraryFile>>['robots'],
  checked: { scene: SceneDesc; shapes: Map<string, ShapeMass | null> } | undefined,
): FileListing {
  const own = <T>(kind: keyof Namespace['defs'], map: (d: { name: string; value: Record<string, unknown> }) => T): T[] =>
    [...ns.defs[kind].values()].filter((d) => d.source === f).map(map);
  const body = (name: string) => checked?.scene.bodies.find((b) => b.name === name);
  const mass = (name: string): number | null => {
    const b = body(name);
    return b ? massOf(b, checked!.shapes.get(b.shape)) : null;
  };
  return {
    file: f.file,
    kind: f.kind,
    includes: f.includes,
    shapes: own('shape', (d) => ({ name: d.name, type: String(d.value['type']) })),
    materials: own('material', (d) => ({ name: d.name, ...ns.materials.get(d.name) })),
    bodies: own('body template', (d) => {
      const b = body(checkName.template(d.name));
      return { name: d.name, shape: b?.shape ?? '', static: b?.static ?? false, mass: mass(checkName.template(d.name)) };
    }),
    robots: own('robot', (d) => {
      const r = robots.get(d.name)!;
      const inst = checkName.robot(d.name);
      let total = 0;
      let dynamic = 0;
      for (const p of r.parts) {
        const m = mass(`${inst}/${p.alias}`);
        if (m !== null) {
          total += m;
          dynamic++;
        }
      }
      const removed = r.joints.reduce((sum, j) => sum + (DOF_REMOVED[j.type] ?? 0), 0);
      const description = typeof d.value['description'] === 'string' ? d.value['description'] : undefined;
      return {
        name: d.name,
        ...(description ? { description } : {}),
        parts: r.parts.length,
        joints: r.joints.length,
        motors: r.motors.length,
        mass: total,
        dof: Math.max(0, 6 * dynamic - removed),
        ...robotParts(checked?.scene, inst),
      };
    }),
  };
}

/** A name as it is safe to print: unsafe characters escaped, and a long one cut and quoted (src/util/echo.ts). */
function shown(s: string, max = ECHO_MAX): string {
  return s.length <= max ? escapeControls(s) : quote(s, max);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => '    ' + r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd()).join('\n') + '\n';
}

const vec = (v: readonly number[]): string => `[${v.map(fmtValue).join(', ')}]`;

/** A motor's torque: "max 40 N m", or its ramp "5 +1/step, max 40 N m" (N for a slider). */
function torqueText(m: MotorListing): string {
  const unit = m.kind === 'slider' ? 'N' : 'N m';
  return m.torqueIncrement > 0 ? `${fmtValue(m.startTorque)} +${fmtValue(m.torqueIncrement)}/step, max ${fmtValue(m.maxTorque)} ${unit}` : `max ${fmtValue(m.maxTorque)} ${unit}`;
}

function targetText(m: MotorListing): string {
  const unit = m.kind === 'slider' ? 'm/s' : 'rad/s';
  const target = m.speed !== null ? `${fmtValue(m.speed)} ${unit}` : `program, ${m.programSegments} segment${m.programSegments === 1 ? '' : 's'}${m.repeat ? ', repeated' : ''}`;
  const window = m.from > 0 || m.until !== null ? `; from ${fmtValue(m.from)} s${m.until !== null ? ` until ${fmtValue(m.until)} s` : ''}` : '';
  return target + window;
}

/** One robot's joints and motors by name: what its instances' overrides and `instance/NAME` refer to. */
function robotDetails(r: RobotListing): string {
  if (!r.jointList.length && !r.motorList.length) return '';
  let out = `  robot ${shown(r.name)}:\n`;
  if (r.jointList.length) {
    out += '   joints (axes in part A\'s shape frame):\n';
    out += table([
      ['name', 'type', 'parts (A -> B)', 'axis', 'DOF removed'],
      ...r.jointList.map((j) => [shown(j.name), j.type, `${shown(j.bodyA)} -> ${shown(j.bodyB)}`, j.axisA ? vec(j.axisA) + (j.axis2A ? `, ${vec(j.axis2A)}` : '') : '-', String(j.removes)]),
    ]);
  }
  if (r.motorList.length) {
    out += `   motors (world.motor("INSTANCE/NAME"); override as robots[i].motors.NAME):\n`;
    out += table([
      ['name', 'kind', 'drives', 'target', 'torque'],
      ...r.motorList.map((m) => [
        shown(m.name),
        m.kind,
        m.kind === 'body' ? `part ${shown(m.body)} about ${vec(m.axis!)} (${m.frame} frame)` : `joint ${shown(m.joint)}`,
        targetText(m),
        torqueText(m),
      ]),
    ]);
  }
  return out;
}

export function formatListing(list: FileListing[]): string {
  let out = '';
  for (const f of list) {
    out += `${shown(f.file)} (${f.kind}${f.includes.length ? `; includes ${f.includes.map((i) => shown(i)).join(', ')}` : ''})\n`;
    if (f.shapes.length) out += `  shapes: ${f.shapes.map((s) => `${shown(s.name)} (${shown(s.type)})`).join(', ')}\n`;
    if (f.materials.length) {
      out += `  materials: ${f.materials.map(({ name, ...v }) => `${shown(name)} (${Object.entries(v).map(([k, x]) => `${k} ${x}`).join(', ')})`).join('; ')}\n`;
    }
    if (f.bodies.length) {
      out += '  body templates:\n';
      out += table([['name', 'shape', 'mass'], ...f.bodies.map((b) => [shown(b.name), shown(b.shape), b.static ? 'static' : b.mass === null ? '-' : `${fmtValue(b.mass)} kg`])]);
    }
    if (f.robots.length) {
      out += '  robots:\n';
      out += table([
        ['name', 'parts', 'joints', 'motors', 'mass', 'DOF', 'description'],
        ...f.robots.map((r) => [shown(r.name), String(r.parts), String(r.joints), String(r.motors), `${fmtValue(r.mass)} kg`, String(r.dof), shown(r.description ?? '', 200)]),
      ]);
      for (const r of f.robots) out += robotDetails(r);
    }
    if (!f.shapes.length && !f.materials.length && !f.bodies.length && !f.robots.length) out += '  (no definitions)\n';
  }
  return out;
}

export const libCommand: Command = {
  summary: 'list, add or remove the shapes, materials, bodies and robots of a library',
  help,
  async run(argv) {
    if (argv[0] === 'add' || argv[0] === 'remove') return runEdit(argv[0], argv.slice(1));
    const args = parseArgs(argv, ['json'], []);
    if (args.positionals.length !== 1) throw new InputError(`expected one library or scene file, got ${args.positionals.length}`, undefined, 'command line');
    const list = await listLibrary(args.positionals[0]!, (m) => say(`stackfield: warning: ${m}`));
    process.stdout.write(args.flags.has('json') ? terminalSafe(JSON.stringify({ files: list }, null, 2), Infinity) + '\n' : formatListing(list));
    return 0;
  },
};
