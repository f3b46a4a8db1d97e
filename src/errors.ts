/**
 * Errors that carry where they come from. Every user-facing failure (bad file,
 * bad mesh, bad scene, missing GPU) is one of these, so the CLI can map it to
 * an exit code and the app can show it in the page instead of crashing.
 */

/** Bad input: a file, a JSON path or a line, and what was expected. CLI exit code 2. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    message: string,
    /** File name (or "<scene>" for in-memory input). */
    readonly file?: string,
    /** JSON path like `bodies[3].mass`, or `line 12`. */
    readonly where?: string,
  ) {
    super([file, where].filter(Boolean).join(': ') + (file || where ? ': ' : '') + message);
  }
}

/** The message of an InputError without its "file: where: " prefix. */
export function bareMessage(e: InputError): string {
  const prefix = [e.file, e.where].filter(Boolean).join(': ');
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
