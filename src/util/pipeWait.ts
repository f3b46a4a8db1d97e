/**
 * Whom to tell when a named pipe (or standard input) keeps the command
 * waiting: a read of a pipe made with mkfifo that nothing writes to blocks,
 * as it does `cat`, and so does opening one for writing that nothing reads.
 * The command line says so on standard error instead of sitting there
 * silent. A module of its own, so the command line sets it without loading
 * the scene readers.
 */

/** What waits: `data` to read (from `path`, or standard input when null), or `a reader` of what is to be written to `path`. */
export interface PipeWait {
  waitsFor: 'data' | 'a reader';
  path: string | null;
}

let listener: ((wait: PipeWait) => void) | null = null;

/** Sets (or clears, with null) whom a read or write tells after PIPE_WAIT_MS of waiting on a named pipe. */
export function onPipeWait(fn: ((wait: PipeWait) => void) | null): void {
  listener = fn;
}

/** How long a read or write of a named pipe waits before it is reported (ms). */
export const PIPE_WAIT_MS = 1000;

/** The listener set by onPipeWait, or null. */
export function pipeWaitListener(): ((wait: PipeWait) => void) | null {
  return listener;
}
