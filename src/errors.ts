/**
 * Errors that carry where they come from. Every user-facing failure (bad file,
 * bad mesh, bad scene, missing GPU) is one of these, so the CLI can map it to
 * an exit code and the app can show it in the page instead of crashing.
 */
import { fileLabel } from './util/echo.ts';

/**
 * "file: where" of an InputError's message; the file name with its control
 * characters (line breaks too) escaped, since it is whatever the user or a
 * scene named (src/util/echo.ts fileLabel).
 */
function prefixOf(file: string | undefined, where: string | undefined): string {
  return [file === undefined ? file : fileLabel(file), where].filter(Boolean).join(': ');
}

/** Bad input: a file, a JSON path or a line, and what was expected. CLI exit code 2. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    message: string,
    /** File name (or "<scene>" for in-memory input), as given: the message escapes it. */
    readonly file?: string,
    /** JSON path like `bodies[3].mass`, or `line 12`. */
    readonly where?: string,
  ) {
    const prefix = prefixOf(file, where);
    super(prefix ? `${prefix}: ${message}` : message);
  }
}

/** The message of an InputError without its "file: where: " prefix. */
export function bareMessage(e: InputError): string {
  const prefix = prefixOf(e.file, e.where);
  return prefix && e.message.startsWith(`${prefix}: `) ? e.message.slice(prefix.length + 2) : e.message;
}

/** The simulation could not go on (NaN in the state, device lost). CLI exit code 1. */
export class SimulationError extends Error {
  override name = 'SimulationError';
}

/** WebGPU is missing or failed; the message says what to do instead. */
export class GpuUnavailableError extends Error {
  override name = 'GpuUnavailableError';
}

/**
 * A query worker thread asked for (`threads` above 1) did not start, so the
 * queries would run on fewer threads than asked; the message says why. CLI
 * exit code 1.
 */
export class WorkerError extends Error {
  override name = 'WorkerError';
}
