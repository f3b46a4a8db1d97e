/**
 * Whom to tell when reading a named pipe waits for a writer. A pipe made with
 * mkfifo and never written to blocks the read, as it does `cat`; the command
 * line says so on standard error instead of sitting there silent. A module of
 * its own, so the command line sets it without loading the scene readers.
 */
let listener: ((path: string) => void) | null = null;

/** Sets (or clears, with null) whom readTextFile tells after PIPE_WAIT_MS on a silent named pipe. */
export function onPipeWait(fn: ((path: string) => void) | null): void {
  listener = fn;
}

/** How long a read of a named pipe waits before it is reported (ms). */
export const PIPE_WAIT_MS = 1000;

/** The listener set by onPipeWait, or null. */
export function pipeWaitListener(): ((path: string) => void) | null {
  return listener;
}
