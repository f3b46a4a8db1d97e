import { InputError } from '../errors.ts';

/** A tiny flag parser: `--name value`, `--name=value`, boolean `--flag`, positionals. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], booleanFlags: readonly string[], valueFlags: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (booleanFlags.includes(name)) {
      if (eq >= 0) throw new InputError(`--${name} takes no value`, undefined, 'command line');
      flags.set(name, true);
    } else if (valueFlags.includes(name)) {
      let value: string | undefined;
      if (eq >= 0) value = a.slice(eq + 1);
      else value = argv[++i];
      if (value === undefined || value.startsWith('--')) {
        throw new InputError(`--${name} needs a value`, undefined, 'command line');
      }
      flags.set(name, value);
    } else {
      const known = [...booleanFlags, ...valueFlags].map((f) => `--${f}`).join(', ');
      throw new InputError(`unknown option --${name} (known: ${known})`, undefined, 'command line');
    }
  }
  return { positionals, flags };
}

export function intFlag(args: ParsedArgs, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = args.flags.get(name);
  if (v === undefined) return def;
  const n = Number(v);
  if (v === true || !Number.isInteger(n) || n < min || n > max) {
    throw new InputError(`--${name} expects an integer in [${min}, ${max}], got "${String(v)}"`, undefined, 'command line');
  }
  return n;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}
