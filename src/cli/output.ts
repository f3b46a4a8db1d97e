/**
 * Where the command line writes, such that output never loses data:
 *
 *  - A file named by --out is written to a temporary file beside it
 *    (`.stackfield-PID-RANDOM.tmp`, same directory, so the same file system) and
 *    renamed over the target only when the command succeeded: a run that fails
 *    half way, or is interrupted, leaves an existing file as it was.
 *  - An --out that is one of the command's inputs (the scene, one of its mesh
 *    files; also through a link) is refused before anything is written.
 *  - A target that is a symbolic link is written through: the file it leads
 *    to is replaced (by a temporary file beside that file) and the link
 *    stays; a dangling link creates the file it names.
 *  - A target that exists and is not a regular file (/dev/null, /dev/full, a
 *    named pipe, /dev/stdout) is written in place: renaming over a device would
 *    replace it. A named pipe that nothing reads keeps the command waiting,
 *    which it says on standard error after a second (util/pipeWait.ts).
 *  - A target that is one of this process's open descriptors (/dev/stdout,
 *    /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written through that
 *    descriptor, where it stands, also when it leads to a regular file (a
 *    shell's `>> log.txt`): what the file held stays, and so does what the
 *    shell writes to it before and after. Another process's descriptor
 *    (/proc/PID/fd/N) that leads to a regular file is refused.
 *  - A regular file that is write-protected (no write bit in its mode, or one
 *    this user may not write) is refused, as a shell's `> FILE` refuses it:
 *    the rename needs only the directory's permission, so it would replace
 *    the file anyway, and with a file of another owner. The bits are read
 *    rather than left to open(), which ignores them for root.
 *  - Every write error (a full disk, a read-only file system, a missing
 *    directory) is an InputError naming the path, so exit code 2 with a
 *    message, never a silent exit.
 *  - Standard output closed by the reader (`stackfield run ... | head -1`) is
 *    not an error: writing stops quietly and the command ends.
 *
 * Messages to standard error go through `say`, which escapes control
 * characters (src/util/echo.ts) and never fails.
 */
import { constants as fsConstants, unlinkSync, write as writeCallback } from 'node:fs';
import type { Stats } from 'node:fs';
import { access, lstat, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../errors.ts';
import { quote, terminalSafe } from '../util/echo.ts';
import { PIPE_WAIT_MS, pipeWaitListener } from '../util/pipeWait.ts';

/** Writes a message line to standard error, escaped (src/util/echo.ts); a closed standard error is ignored. */
export function say(message: string): void {
  try {
    process.stderr.write(`${terminalSafe(message)}\n`);
  } catch {
    // Nowhere left to report to.
  }
}

/** Writes raw text (a progress bar) to standard error; a closed standard error is ignored. */
export function sayRaw(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // as above
  }
}

let stdoutClosed = false;
let stdoutFailed = false;
let streamsGuarded = false;

/**
 * Installs the handlers that make a closed standard output (EPIPE: the
 * reader went away) or standard error end writing instead of throwing an
 * unhandled 'error' event with a stack trace. Called once by main().
 */
export function guardStandardStreams(): void {
  if (streamsGuarded) return;
  streamsGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    stdoutClosed = true;
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') return;
    // Exit code 2 (output that cannot be written), as a file given to --out gets; only a reader
    // that went away (EPIPE) ends the command with 0.
    stdoutFailed = true;
    process.exitCode = 2;
    say(`stackfield: error: cannot write to standard output: ${writeProblem(e)}`);
  });
  process.stderr.on('error', () => {
    // A closed standard error: messages are lost, the command goes on.
  });
}

/** True once a write to standard output failed for a reason other than its reader going away. */
export function stdoutWriteFailed(): boolean {
  return stdoutFailed;
}

/** True once the reader of standard output has gone away. */
export function stdoutIsClosed(): boolean {
  return stdoutClosed;
}

/** "no space left on the device (ENOSPC)" and the like, for a write error. */
export function writeProblem(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    ENOENT: 'the directory does not exist',
    ENOTDIR: 'a part of the path is not a directory',
    EISDIR: 'it is a directory',
    EFBIG: 'the file is too large',
    ELOOP: 'too many symbolic links',
    EIO: 'input/output error',
    ENAMETOOLONG: 'the name is too long',
  };
  if (typeof code === 'string') return `${words[code] ?? (e instanceof Error ? e.message : code)} (${code})`;
  return e instanceof Error ? e.message : String(e);
}

function writeError(target: string, e: unknown, flag: string): InputError {
  return new InputError(`cannot write ${quote(target, 200)}: ${writeProblem(e)}`, undefined, flag);
}

/**
 * Refuses an output path that is one of the inputs: the same resolved path,
 * or (when it exists) the same file through a link. `inputs` pairs each
 * input path with what it is ("the scene file", "the mesh file of shapes.x").
 */
export async function refuseInputAsOutput(target: string, inputs: readonly { path: string; what: string }[], flag: string): Promise<void> {
  const t = resolve(target);
  const ts = await stat(t).catch(() => null);
  for (const input of inputs) {
    const i = resolve(input.path);
    let same = i === t;
    if (!same && ts) {
      const is = await stat(i).catch(() => null);
      same = is !== null && is.dev === ts.dev && is.ino === ts.ino && ts.isFile();
    }
    if (same) {
      throw new InputError(
        `${quote(target, 200)} is ${input.what}; writing there would overwrite the input (choose another file)`,
        undefined,
        flag,
      );
    }
  }
}

/**
 * Why the existing regular file `path` (its stat `st`) may not be replaced,
 * or null when it may: no write bit for anyone (`chmod 444`; root's open()
 * would ignore the bits, a shell's redirect refuses such a file for everyone
 * but root, and replacing it by a rename would defeat it for everyone), or
 * this user may not write it (access W_OK).
 */
export async function writeProtection(path: string, st: Stats): Promise<string | null> {
  const mode = `mode ${(st.mode & 0o777).toString(8).padStart(3, '0')}`;
  if ((st.mode & 0o222) === 0) return `the file is not writable (read-only, ${mode}; chmod u+w makes it writable)`;
  try {
    await access(path, fsConstants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return `the file is not writable by this user (${mode}, permission denied)`;
    if (code === 'EROFS') return 'the file is not writable: read-only file system (EROFS)';
  }
  return null;
}

/**
 * The name of a temporary file beside an output: short, whatever the
 * output's own name (a legal 255-byte name plus a suffix would not be), and
 * hidden; the process id and a random part keep two writers apart.
 */
export function tempName(): string {
  return `.stackfield-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`;
}

/** Links followed at most, like the system's own limit (ELOOP past it). */
const MAX_LINKS = 40;

/**
 * The path a write to `target` lands on: `target` itself, or, while it is a
 * symbolic link, what the link names (relative to the link's directory),
 * also when that does not exist yet (a dangling link creates its target).
 */
export async function followLinks(target: string): Promise<string> {
  let p = target;
  for (let i = 0; i < MAX_LINKS; i++) {
    const st = await lstat(p).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (!st?.isSymbolicLink()) return p;
    p = resolve(dirname(p), await readlink(p));
  }
  throw Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' });
}

/**
 * The open descriptor `target` names, or null: a symbolic link on the way
 * from `target` to a file that stands in a process's descriptor directory
 * (/proc/PID/fd, /proc/PID/task/TID/fd; /dev/fd and /proc/self lead there).
 * Such a link is not a file to replace: it names a file some process holds
 * open, at that process's offset and with its flags (a shell's `>>`).
 */
export async function descriptorOf(target: string): Promise<{ pid: number; fd: number } | null> {
  let p = target;
  for (let i = 0; i < MAX_LINKS; i++) {
    const st = await lstat(p).catch(() => null);
    if (!st?.isSymbolicLink()) return null;
    const dir = await realpath(dirname(p)).catch(() => null);
    const m = dir === null ? null : /^\/proc\/(\d+)(?:\/task\/\d+)?\/fd$/.exec(dir);
    if (m && /^\d+$/.test(basename(p))) return { pid: Number(m[1]), fd: Number(basename(p)) };
    p = resolve(dirname(p), await readlink(p));
  }
  return null;
}

/** What OutputFile writes to: an opened file, or a descriptor this process already holds. */
interface Sink {
  write(data: string | Uint8Array): Promise<unknown>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

function fileSink(handle: FileHandle): Sink {
  return {
    write: (data) => (typeof data === 'string' ? handle.write(data) : handle.write(data)),
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
}

/** Writes to descriptor `fd` as it is (its offset, its append flag); never closes it. */
function descriptorSink(fd: number): Sink {
  const writeAll = async (bytes: Uint8Array): Promise<void> => {
    for (let off = 0; off < bytes.length; ) {
      off += await new Promise<number>((res, rej) => writeCallback(fd, bytes, off, bytes.length - off, null, (e, n) => (e ? rej(e) : res(n))));
    }
  };
  return {
    write: (data) => writeAll(typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
    sync: async () => {},
    close: async () => {},
  };
}

/** Temporary files not yet renamed or removed (to the files they would replace, whether those exist), deleted if the process is interrupted. */
const pendingTemps = new Map<string, { target: string; existed: boolean }>();
let interruptHandlers = false;

function removePendingTemps(): void {
  for (const p of pendingTemps.keys()) {
    try {
      unlinkSync(p);
    } catch {
      // already gone
    }
  }
  pendingTemps.clear();
}

function installInterruptHandlers(): void {
  if (interruptHandlers) return;
  interruptHandlers = true;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.once(signal, () => {
      // Said on standard error, which a user watching the run sees: the output was not half-written.
      let first = true;
      for (const { target, existed } of pendingTemps.values()) {
        // (Below a progress line, not over it.)
        if (first && process.stderr.isTTY) process.stderr.write('\n');
        first = false;
        process.stderr.write(`stackfield: interrupted (${signal}): nothing was written to ${quote(target, 200)}${existed ? ', which keeps what it held' : ''}\n`);
      }
      removePendingTemps();
      process.exit(code);
    });
  }
}

/** A file being written: text is buffered and written in large chunks; `commit` makes it the target, `abort` removes it. */
export class OutputFile {
  private parts: string[] = [];
  private buffered = 0;
  private done = false;

  private constructor(
    /** The path the user named. */
    readonly target: string,
    private readonly handle: Sink,
    /** The temporary file renamed over the target on commit, or null when writing in place. */
    private readonly temp: string | null,
    private readonly flag: string,
    /** The file the temporary file replaces: the target, or what its symbolic links lead to. */
    private readonly destination: string = target,
  ) {}

  /**
   * Opens `target` for writing after checking it is not one of `inputs`.
   * `flag` names the option in messages (--out).
   */
  static async open(target: string, inputs: readonly { path: string; what: string }[], flag = '--out'): Promise<OutputFile> {
    if (target === '') throw new InputError('expected a file name, got an empty string', undefined, flag);
    // Many commands read "-" as standard output; here it was a file named "-" in the working directory.
    if (target === '-') throw new InputError('expected a file name, got "-" (standard output is where run writes without --out; or give /dev/stdout)', undefined, flag);
    await refuseInputAsOutput(target, inputs, flag);
    const st = await stat(target).catch(() => null);
    if (st?.isDirectory()) throw new InputError(`cannot write ${quote(target, 200)}: it is a directory`, undefined, flag);
    const descriptor = st?.isFile() ? await descriptorOf(target).catch(() => null) : null;
    if (descriptor !== null) {
      // One of this process's descriptors (see the file comment): written through as it is.
      if (descriptor.pid === process.pid) return new OutputFile(target, descriptorSink(descriptor.fd), null, flag);
      throw new InputError(
        `cannot write ${quote(target, 200)}: it is descriptor ${descriptor.fd} of another process (PID ${descriptor.pid}), open on a regular file; replacing that file would lose what it held (name the file itself)`,
        undefined,
        flag,
      );
    }
    if (st && !st.isFile()) {
      // A device or pipe: write in place (see the file comment). Opening a
      // named pipe waits for a reader, as a shell's `> PIPE` does: said once
      // it has waited a while, as a read that waits for data is.
      const tell = st.isFIFO() ? pipeWaitListener() : null;
      const timer = tell ? setTimeout(() => tell({ waitsFor: 'a reader', path: target }), PIPE_WAIT_MS) : null;
      try {
        return new OutputFile(target, fileSink(await open(target, fsConstants.O_WRONLY | fsConstants.O_TRUNC)), null, flag);
      } catch (e) {
        throw writeError(target, e, flag);
      } finally {
        if (timer) clearTimeout(timer);
      }
    }
    // Through a symbolic link: replace the file it points to (renaming over the link would replace the link).
    let real: string;
    try {
      real = await followLinks(target);
    } catch (e) {
      throw writeError(target, e, flag);
    }
    const temp = join(dirname(real), tempName());
    // Registered before the file exists: an interruption at any point from
    // here on removes it (a signal before the handlers would leave it behind).
    installInterruptHandlers();
    pendingTemps.set(temp, { target, existed: st !== null });
    let handle: FileHandle;
    try {
      handle = await open(temp, 'wx', st ? st.mode & 0o777 : 0o666);
    } catch (e) {
      pendingTemps.delete(temp);
      const code = (e as NodeJS.ErrnoException).code;
      // The directory refuses a new file (the target itself may be writable: the rename needs the directory).
      if (code === 'EACCES' || code === 'EPERM') {
        throw new InputError(
          `cannot write ${quote(target, 200)}: the folder ${quote(dirname(real), 200)} does not let this user create a file (${code}, permission denied), and the output is written there first and then renamed over the target`,
          undefined,
          flag,
        );
      }
      // ENOENT in a directory that exists (/proc): the file system takes no new files there.
      if (code === 'ENOENT' && (await stat(dirname(real)).catch(() => null))?.isDirectory()) {
        throw new InputError(
          `cannot write ${quote(target, 200)}: the file system does not allow a new file in ${quote(dirname(real), 200)} (ENOENT), where the output is written first and then renamed over the target`,
          undefined,
          flag,
        );
      }
      throw writeError(target, e, flag);
    }
    // The file the rename would replace (st followed the links to it), once
    // the directory has taken the new file: where it takes none (/proc),
    // that is what stands in the way, and chmod would not help.
    const locked = st ? await writeProtection(real, st) : null;
    if (locked !== null) {
      await handle.close().catch(() => {});
      await unlink(temp).catch(() => {});
      pendingTemps.delete(temp);
      throw new InputError(`cannot write ${quote(target, 200)}: ${locked}; nothing was written (choose another file)`, undefined, flag);
    }
    return new OutputFile(target, fileSink(handle), temp, flag, real);
  }

  async write(text: string): Promise<void> {
    this.parts.push(text);
    this.buffered += text.length;
    if (this.buffered >= 1 << 16) await this.flush();
  }

  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.flush();
    try {
      await this.handle.write(bytes);
    } catch (e) {
      throw writeError(this.target, e, this.flag);
    }
  }

  private async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.buffered = 0;
    try {
      await this.handle.write(chunk);
    } catch (e) {
      throw writeError(this.target, e, this.flag);
    }
  }

  /** Writes what is buffered, flushes it to the disk and puts the file in place of the target. */
  async commit(): Promise<void> {
    if (this.done) return;
    try {
      await this.flush();
      // A full disk can surface only when the data reaches it.
      if (this.temp !== null) await this.handle.sync();
    } catch (e) {
      await this.abort();
      throw e instanceof InputError ? e : writeError(this.target, e, this.flag);
    }
    this.done = true;
    try {
      await this.handle.close();
      if (this.temp !== null) await rename(this.temp, this.destination);
    } catch (e) {
      if (this.temp !== null) await unlink(this.temp).catch(() => undefined);
      throw writeError(this.target, e, this.flag);
    } finally {
      if (this.temp !== null) pendingTemps.delete(this.temp);
    }
  }

  /** Discards what was written; the target stays as it was. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    if (this.temp !== null) {
      await unlink(this.temp).catch(() => undefined);
      pendingTemps.delete(this.temp);
    }
  }
}

/** Writes a whole document to `target` through OutputFile (temporary file, rename). */
export async function writeOutputFile(target: string, data: string | Uint8Array, inputs: readonly { path: string; what: string }[], flag = '--out'): Promise<void> {
  const f = await OutputFile.open(target, inputs, flag);
  try {
    if (typeof data === 'string') await f.write(data);
    else await f.writeBytes(data);
    await f.commit();
  } catch (e) {
    await f.abort();
    throw e;
  }
}

/**
 * Text lines to standard output or an OutputFile: `write` resolves once the
 * line may be followed by another (standard output's back-pressure), and
 * `closed` turns true when standard output's reader has gone away.
 */
export class LineSink {
  constructor(private readonly file: OutputFile | null) {}

  get closed(): boolean {
    return this.file === null && stdoutClosed;
  }

  async write(line: string): Promise<void> {
    if (this.file) return this.file.write(`${line}\n`);
    if (stdoutClosed) return;
    await new Promise<void>((res) => {
      // The callback runs once the line is handed to the system, or with the error (EPIPE) that closed the stream.
      process.stdout.write(`${line}\n`, () => res());
    });
  }

  async commit(): Promise<void> {
    await this.file?.commit();
  }

  async abort(): Promise<void> {
    await this.file?.abort();
  }
}
