/**
 * `stackfield <command>`: run | sdf | bench | check | lib. Exit codes
 * (docs/SCENE_FORMAT.md): 0 success, 1 simulation or GPU error, 2 bad input
 * (files, options, output that cannot be written). Every message goes to
 * standard error through `say` (control characters escaped); no stack trace
 * reaches the user except for an internal error, which is a bug.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GpuUnavailableError, InputError, SimulationError, WorkerError } from '../errors.ts';
import { closestMatch } from '../util/suggest.ts';
import { quote } from '../util/echo.ts';
import { onPipeWait } from '../util/pipeWait.ts';
import { installNodePlatform, PACKAGE_ROOT } from './nodePlatform.ts';
import { guardStandardStreams, say, stdoutWriteFailed } from './output.ts';
import type { Command } from './command.ts';


const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run.ts')).runCommand,
  sdf: async () => (await import('./sdf.ts')).sdfCommand,
  bench: async () => (await import('./bench.ts')).benchCommand,
  check: async () => (await import('./check.ts')).checkCommand,
  lib: async () => (await import('./lib.ts')).libCommand,
};

/** The command named `name`, if there is one (own keys only: "constructor" or "__proto__" is no command). */
function commandNamed(name: string): (() => Promise<Command>) | undefined {
  return Object.hasOwn(commands, name) ? commands[name] : undefined;
}

const usage = `stackfield - nonconvex rigid bodies with stacking

Usage: stackfield <command> [options]

Commands:
  run SCENE.json     simulate headlessly, one JSON line per recorded step
  sdf MESH.obj       bake a signed distance field and mass properties
  bench              time SDF bakes, penetration queries and steps per backend
  check FILE.json    validate a scene or library without running it
  lib LIBRARY.json   list a library's shapes, materials, bodies and robots
  lib add/remove     add or remove a library record (lib --help)

Options:
  --version          print the version and exit
  --help             this text; "stackfield <command> --help" for a command's options

Exit codes: 0 success, 1 simulation or GPU error, 2 bad input.
`;

/** The package's version, from its package.json (the same file in a checkout and in an installed package). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

export async function main(argv: string[]): Promise<number> {
  guardStandardStreams();
  const code = await command(argv);
  // Output that could not be written (a full disk) is bad output, whatever the command made of it;
  // a write that fails after this return sets the exit code itself (guardStandardStreams).
  return stdoutWriteFailed() ? Math.max(code, 2) : code;
}

async function command(argv: string[]): Promise<number> {
  try {
    installNodePlatform();
    onPipeWait(({ waitsFor, path }) => {
      const on = path === null ? 'standard input' : `the named pipe ${quote(path, 200)}`;
      say(`stackfield: waiting for ${waitsFor} on ${on}: nothing has ${waitsFor === 'data' ? 'written to it' : 'opened it for reading'} yet (Ctrl-C stops)`);
    });
    const [name, ...rest] = argv;
    if (name === '') throw new InputError('expected a command, got an empty argument ("")', undefined, 'command line');
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      // "stackfield help run": that command's help.
      const topic = rest.length === 1 ? commandNamed(rest[0]!) : undefined;
      if (topic) {
        process.stdout.write((await topic()).help);
        return 0;
      }
      if (rest.length > 0) throw new InputError(`${name} takes no arguments or one command name, got ${rest.map((a) => quote(a)).join(' ')}`, undefined, 'command line');
      if (name) {
        process.stdout.write(usage);
        return 0;
      }
      // No command at all: the usage, then the error, both on standard error (exit 2, as for any bad input).
      process.stderr.write(usage);
      say(`stackfield: error: no command given; expected one of: ${Object.keys(commands).join(', ')} (or --help, --version)`);
      return 2;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      if (rest.length > 0) throw new InputError(`${name} takes no arguments, got ${rest.map((a) => quote(a)).join(' ')}`, undefined, 'command line');
      process.stdout.write(`stackfield ${packageVersion()}\n`);
      return 0;
    }
    const load = commandNamed(name);
    if (!load) {
      const names = Object.keys(commands);
      const options = ['help', 'version'];
      const m = name.startsWith('-') ? closestMatch(name.replace(/^-+/, ''), options) : closestMatch(name, names);
      const hint = m === undefined ? '' : name.startsWith('-') ? ` (did you mean --${m}?)` : ` (did you mean "${m}"?)`;
      say(`stackfield: error: unknown ${name.startsWith('-') ? 'option' : 'command'} ${quote(name)}${hint}; expected one of: ${names.join(', ')} (or --help, --version)`);
      return 2;
    }
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
    say(`stackfield: error: ${e.message}`);
    return 2;
  }
  if (e instanceof GpuUnavailableError) {
    say(`stackfield: error: ${e.message}`);
    return 1;
  }
  if (e instanceof WorkerError) {
    say(`stackfield: error: ${e.message} (--threads 1 runs the queries without workers)`);
    return 1;
  }
  if (e instanceof SimulationError) {
    say(`stackfield: simulation error: ${e.message}`);
    return 1;
  }
  // Out of memory is the user's scene or options, not a bug: say so without a trace.
  if (e instanceof RangeError && /allocation failed|Array buffer allocation|Invalid typed array length|Invalid array length/i.test(e.message)) {
    say(`stackfield: error: out of memory (${e.message}); the scene or the options ask for more than this machine has`);
    return 2;
  }
  const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
  say(`stackfield: internal error (a bug; please report it with the command and its input): ${msg}`);
  return 1;
}
