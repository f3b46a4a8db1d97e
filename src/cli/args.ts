import { InputError } from '../errors.ts';
import { closestMatch } from '../util/suggest.ts';
import { quote } from '../util/echo.ts';

/** A tiny flag parser: `--name value`, `--name=value`, boolean `--flag`, positionals. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** `--stepz` -> ` (did you mean --steps?)`, or the empty string when no option is close. */
function optionHint(name: string, known: readonly string[]): string {
  const m = closestMatch(name, known);
  return m === undefined ? '' : ` (did you mean --${m}?)`;
}

function unknownOption(written: string, name: string, known: readonly string[]): InputError {
  const hint = optionHint(name, known);
  const list = hint ? '' : ` (options: ${[...known, 'help'].map((f) => `--${f}`).join(', ')})`;
  return new InputError(`unknown option ${quote(written)}${hint}${list}`, undefined, 'command line');
}

/** A number such as -1 or -.5 is a value, not an option. */
const NEGATIVE_NUMBER = /^-\.?\d/;

export function parseArgs(argv: string[], booleanFlags: readonly string[], valueFlags: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const known = [...valueFlags, ...booleanFlags];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || NEGATIVE_NUMBER.test(a)) {
      positionals.push(a);
      continue;
    }
    if (!a.startsWith('--')) {
      // Single-dash options are not used (except -h, handled by main): "-steps" is a typo of "--steps".
      throw unknownOption(a, a.replace(/^-+/, '').split('=')[0]!, known);
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (flags.has(name)) {
      // The last one winning silently hides a mistake (--steps 5 ... --steps 7).
      throw new InputError(`--${name} given twice (give each option once)`, undefined, 'command line');
    }
    // main() answers --help wherever it stands; "--help=1" was called an unknown option, in a list that named --help.
    if (name === 'help') throw new InputError(`--help takes no value (give --help alone)`, undefined, 'command line');
    if (booleanFlags.includes(name)) {
      if (eq >= 0) throw new InputError(`--${name} takes no value`, undefined, 'command line');
      flags.set(name, true);
    } else if (valueFlags.includes(name)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      // "--steps --out x" lost its value to the next option; "--steps=--5" gave one, for the value's check to refuse.
      if (value === undefined || value === '' || (eq < 0 && value.startsWith('--') && value.length > 2)) {
        throw new InputError(`--${name} needs a value${value === '' ? ' (got an empty one)' : ''}`, undefined, 'command line');
      }
      flags.set(name, value);
    } else {
      throw unknownOption(eq < 0 ? a : a.slice(0, eq), name, known);
    }
  }
  return { positionals, flags };
}

export function intFlag(args: ParsedArgs, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = args.flags.get(name);
  if (v === undefined) return def;
  // Decimal digits only: Number() would also read "0x10", "1e3" and " 7 ".
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (v === true || !Number.isInteger(n) || n < min || n > max) {
    throw new InputError(`--${name} expects an integer from ${min} to ${max}, got ${quote(String(v))}`, undefined, 'command line');
  }
  return n;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** A flag that takes one of a few words, with "did you mean" for a near miss. */
export function choiceFlag<T extends string>(args: ParsedArgs, name: string, choices: readonly T[], def: T): T {
  const v = stringFlag(args, name);
  if (v === undefined) return def;
  if ((choices as readonly string[]).includes(v)) return v as T;
  const m = closestMatch(v, choices);
  throw new InputError(
    `--${name} expects ${choices.length > 2 ? `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}` : choices.join(' or ')}, got ${quote(v)}${m === undefined ? '' : ` (did you mean ${m}?)`}`,
    undefined,
    'command line',
  );
}
