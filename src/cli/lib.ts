/**
 * `stackfield lib FILE [--json]`: what a library holds (docs/LIBRARY_FORMAT.md):
 * its shapes, materials, body templates (shape, mass) and robots (parts,
 * joints, motors, mass, degrees of freedom), and those of the files it
 * includes. Given a scene, it lists the libraries the scene includes.
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
import { checkLibraryFile } from './check.ts';
import { say } from './output.ts';
import { ECHO_MAX, escapeControls, quote, terminalSafe } from '../util/echo.ts';

const help = `stackfield lib - list what a library holds

Usage:
  stackfield lib LIBRARY.json [--json]
  stackfield lib SCENE.json [--json]      the libraries a scene includes

Per file: shapes (type), materials (their values), body templates (shape,
mass in kg, static) and robots (parts, joints, motors, total mass of the
dynamic parts, degrees of freedom: 6 per dynamic part less what each joint
removes). The file is checked first, as "stackfield check" does.

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
      return { name: d.name, ...(description ? { description } : {}), parts: r.parts.length, joints: r.joints.length, motors: r.motors.length, mass: total, dof: Math.max(0, 6 * dynamic - removed) };
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

export function formatListing(list: FileListing[]): string {
  let out = '';
  for (const f of list) {
    out += `${shown(f.file)} (${f.kind}${f.includes.length ? `; includes ${f.includes.map(shown).join(', ')}` : ''})\n`;
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
    }
    if (!f.shapes.length && !f.materials.length && !f.bodies.length && !f.robots.length) out += '  (no definitions)\n';
  }
  return out;
}

export const libCommand: Command = {
  summary: 'list the shapes, materials, bodies and robots of a library',
  help,
  async run(argv) {
    const args = parseArgs(argv, ['json'], []);
    if (args.positionals.length !== 1) throw new InputError(`expected one library or scene file, got ${args.positionals.length}`, undefined, 'command line');
    const list = await listLibrary(args.positionals[0]!, (m) => say(`stackfield: warning: ${m}`));
    process.stdout.write(args.flags.has('json') ? terminalSafe(JSON.stringify({ files: list }, null, 2), Infinity) + '\n' : formatListing(list));
    return 0;
  },
};
