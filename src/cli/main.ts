/**
 * `stackfield <command>`: run | sdf | bench | check | lib. Exit codes (docs/SCENE_FORMAT.md):
 * 0 success, 1 simulation error, 2 bad input.
 */
import { GpuUnavailableError, InputError, SimulationError } from '../errors.ts';
import { installNodePlatform } from './nodePlatform.ts';

export interface Command {
  summary: string;
  help: string;
  run(argv: string[]): Promise<number>;
}

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run.ts')).runCommand,
  sdf: async () => (await import('./sdf.ts')).sdfCommand,
  bench: async () => (await import('./bench.ts')).benchCommand,
  check: async () => (await import('./check.ts')).checkCommand,
  lib: async () => (await import('./lib.ts')).libCommand,
};

const usage = `stackfield - nonconvex rigid bodies with stacking

Usage: stackfield <command> [options]

Commands:
  run SCENE.json     simulate headlessly, one JSON line per recorded step
  sdf MESH.obj       bake a signed distance field and mass properties
  bench              time SDF bakes, penetration queries and steps per backend
  check FILE.json    validate a scene or library without running it
  lib LIBRARY.json   list a library's shapes, materials, bodies and robots

Run "stackfield <command> --help" for a command's options.
`;

export async function main(argv: string[]): Promise<number> {
  installNodePlatform();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage);
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`stackfield: unknown command "${name}" (expected one of: ${Object.keys(commands).join(', ')})\n`);
    return 2;
  }
  try {
    const cmd = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(cmd.help);
      return 0;
    }
    return await cmd.run(rest);
  } catch (e) {
    return reportError(e);
  }
}

export function reportError(e: unknown): number {
  if (e instanceof InputError) {
    process.stderr.write(`stackfield: error: ${e.message}\n`);
    return 2;
  }
  if (e instanceof GpuUnavailableError) {
    process.stderr.write(`stackfield: error: ${e.message}\n`);
    return 1;
  }
  if (e instanceof SimulationError) {
    process.stderr.write(`stackfield: simulation error: ${e.message}\n`);
    return 1;
  }
  const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
  process.stderr.write(`stackfield: internal error: ${msg}\n`);
  return 1;
}
