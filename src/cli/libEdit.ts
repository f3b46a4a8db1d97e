/**
 * `stackfield lib add|remove`: seed 003's database operations on a library
 * file (docs/LIBRARY_FORMAT.md, "Editing a library"). The edited library is
 * checked whole, as `stackfield check` checks it, before anything is
 * written; the file is then replaced in one step (a temporary file beside it,
 * renamed over it), so an error or an interruption leaves the old file as it
 * was.
 */
import type { Stats } from 'node:fs';
import { chmod, lstat, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError, bareMessage } from '../errors.ts';
import { parseArgs } from './args.ts';
import { checkLibraryFile } from './check.ts';
import { descriptorOf, followLinks, say, tempName, writeProtection } from './output.ts';
import { formatJson, parseJsonText } from '../scene/json.ts';
import { LIBRARY_TOP_LEVEL, readSource } from '../scene/library.ts';
import { librarySummary } from '../scene/libraryCheck.ts';
import { addRecord, emptyLibrary, readRecordKind, removeRecord } from '../scene/libraryEdit.ts';
import { checkPathText, describeFsError, kindOfFile, readStandardInput, readTextFile } from '../scene/load.ts';
import type { JsonObject } from '../scene/reader.ts';
import { fileLabel, quote, terminalSafe } from '../util/echo.ts';

export const editHelp = `  stackfield lib add LIBRARY.json KIND NAME VALUE [--force]
  stackfield lib remove LIBRARY.json KIND NAME

KIND is shape, material, body (a body template) or robot. VALUE is the
record as JSON text, @FILE.json to read it from a file, or - for standard
input. "add" creates LIBRARY.json when it does not exist and refuses to
replace a record of the same name unless --force is given. The edited
library is checked as "stackfield check" checks it (its includes, every
reference, mesh and mass) before the file is written; on an error the file
is left as it was. A file named "add" or "remove" is listed as ./add.
`;

/** The record's JSON: inline text, @FILE, or - (standard input). */
async function readValue(arg: string): Promise<unknown> {
  if (arg === '-') {
    return finiteRecord(parseJsonText(await readStandardInput('record'), '<stdin>'), '<stdin>');
  }
  if (arg.startsWith('@')) {
    const file = arg.slice(1);
    if (file === '') throw new InputError('expected @FILE (the record in a JSON file), got "@" alone', undefined, 'command line VALUE');
    return finiteRecord(parseJsonText(await readTextFile(file, 'record file'), file), file);
  }
  return finiteRecord(parseJsonText(arg, '<command line VALUE>'), '<command line VALUE>');
}

/**
 * `value`, unless a number in it overflowed to Infinity when parsed (1e400):
 * written back into the library it would read as null, and the check would
 * name a null the user never wrote.
 */
function finiteRecord(value: unknown, source: string, path = ''): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new InputError(`expected a number, got ${value} (the number is too large for a 64-bit float)`, source, path || undefined);
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) finiteRecord(v, source, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
  }
  return value;
}

/** The library's JSON, or null when the file does not exist. */
async function readLibrary(file: string): Promise<JsonObject | null> {
  try {
    await stat(file);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return null;
    throw new InputError(describeFsError(e, 'library file'), file);
  }
  return readSource(await readTextFile(file, 'library file'), file, undefined, LIBRARY_TOP_LEVEL).json;
}

/** The file an edit replaces, and its stat (null for a file not yet there). */
interface EditTarget {
  path: string;
  st: Stats | null;
}

/**
 * The file an edit of `file` replaces: `file` itself, or, through symbolic
 * links, the file they lead to (the links stay). Refused, before anything is
 * read, as bad input naming `file`: a path that is not a regular file (a
 * named pipe, a device, a directory), a link to an open descriptor
 * (/dev/stdin, /proc/self/fd/N: a process's stream, not a file), a dangling
 * link whose target's folder does not exist, and a path that cannot be
 * looked at. Renaming over any of these would replace what stands there.
 */
export async function editTarget(file: string): Promise<EditTarget> {
  const cannot = (why: string) => new InputError(`cannot write the library: ${why}`, file);
  let path: string;
  let st: Stats | null;
  try {
    checkPathText(file, 'library file');
    const descriptor = await descriptorOf(file);
    if (descriptor !== null) {
      const stream = ['standard input', 'standard output', 'standard error'][descriptor.fd];
      const which = descriptor.pid === process.pid ? `this process's descriptor ${descriptor.fd}${stream ? ` (${stream})` : ''}` : `descriptor ${descriptor.fd} of process ${descriptor.pid}`;
      throw cannot(`it leads to ${which}, an open stream, not to a library file; name the file itself`);
    }
    path = await followLinks(file);
    st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw cannot(describeFsError(e, 'library file').replace(/^cannot read the library file:? ?/, ''));
  }
  if (st === null) {
    // A dangling link creates the file it names, in a folder that must exist.
    if (path !== file && !(await stat(dirname(path)).catch(() => null))?.isDirectory()) {
      throw cannot(`it is a symbolic link to ${quote(path, 200)}, whose folder does not exist`);
    }
    return { path, st };
  }
  if (!st.isFile()) {
    const via = path === file ? '' : ` (the symbolic link leads to ${quote(path, 200)})`;
    throw cannot(`it is ${kindOfFile(st)}${via}, not a regular file; only a library file is edited (replaced whole)`);
  }
  return { path, st };
}

/**
 * Writes `text` to `file` through a temporary file beside the file it
 * replaces and a rename (the target of a link is replaced, the link kept);
 * editTarget says what may be replaced.
 */
export async function replaceFile(file: string, text: string): Promise<void> {
  const { path: target, st } = await editTarget(file);
  // A write-protected library is refused as --out refuses one (output.ts): the rename would replace it.
  const locked = st ? await writeProtection(target, st) : null;
  if (locked !== null) throw new InputError(`cannot write the library: ${locked}; the file is unchanged`, file);
  const tmp = join(dirname(target), tempName());
  try {
    await writeFile(tmp, text, { encoding: 'utf8', flag: 'wx' });
    if (st) await chmod(tmp, st.mode & 0o7777);
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    // The library's folder missing (ENOENT on the temporary file): say so, not "library file not found".
    const code = (e as { code?: unknown } | null)?.code;
    const why = code === 'ENOENT' ? `its folder ${quote(dirname(file), 200)} does not exist`
      : code === 'EACCES' || code === 'EPERM' ? `its folder ${quote(dirname(file), 200)} does not let this user create a file (${code}, permission denied), and the library is written there first and then renamed over the file`
      : code === 'ENOTDIR' ? `a part of its folder ${quote(dirname(file), 200)} is not a folder` : describeFsError(e, 'library file').replace(/^cannot read the library file:? ?/, '');
    throw new InputError(`cannot write the library: ${why}`, file);
  }
}

/** `lib add ...` / `lib remove ...`: argv without the leading "add" or "remove". */
export async function runEdit(op: 'add' | 'remove', argv: string[]): Promise<number> {
  const args = parseArgs(argv, op === 'add' ? ['force'] : [], []);
  const want = op === 'add' ? 4 : 3;
  const p = args.positionals;
  if (p.length !== want) {
    const usage = op === 'add' ? 'LIBRARY.json KIND NAME VALUE' : 'LIBRARY.json KIND NAME';
    throw new InputError(`"lib ${op}" expects ${usage}, got ${p.length} argument${p.length === 1 ? '' : 's'}`, undefined, 'command line');
  }
  const [file, kindWord, name] = p as [string, string, string];
  const kind = readRecordKind(kindWord);
  // A path that may not be replaced (a named pipe, a link to standard input) is refused before it is read.
  await editTarget(file);
  const old = await readLibrary(file);
  let next: JsonObject;
  if (op === 'add') {
    const value = await readValue(p[3]!);
    next = addRecord(old ?? emptyLibrary(), kind, name, value, file, args.flags.has('force'));
  } else {
    if (old === null) throw new InputError('library file not found', file);
    next = removeRecord(old, kind, name, file);
  }
  const text = formatJson(next) + '\n';
  // The edited library is checked under the file's own name, so errors name it and includes resolve beside it.
  const root = readSource(text, file, undefined, LIBRARY_TOP_LEVEL);
  let lib: Awaited<ReturnType<typeof checkLibraryFile>>;
  try {
    lib = await checkLibraryFile(root, (m) => say(`stackfield: warning: ${m}`));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const what = `${op === 'add' ? 'adding' : 'removing'} ${kind} ${quote(name)}`;
    throw new InputError(`${bareMessage(e)} (after ${what}; ${old === null ? 'nothing was written' : 'the file is unchanged'})`, e.file, e.where);
  }
  await replaceFile(file, text);
  const did = op === 'remove' ? 'removed' : old === null ? 'created, added' : 'added';
  process.stdout.write(`${fileLabel(file)}: ${did} ${kind} ${terminalSafe(quote(name))}: ok: ${librarySummary(lib, root)}\n`);
  return 0;
}


