/**
 * Progress on standard error for work that takes more than a second (a world
 * build with a large bake, a long run). On a terminal one line is redrawn in
 * place at most ten times a second; when standard error is a file or a pipe
 * (a CI log) a plain line is written at most every few seconds, so the log
 * says what the command is doing without filling up. Nothing at all is shown
 * for work that ends within the first second.
 *
 * Steps that report nothing while they run (a big mesh parsed, checked and
 * analysed, each in one synchronous piece) are named through step(): on a
 * terminal only, drawn as soon as they start when the work is expected to
 * outlast the first second, so the line is not blank until the first
 * percentage; a log gets update()'s lines alone, as before.
 */
import { terminalSafe } from '../util/echo.ts';
import { sayRaw } from './output.ts';

/**
 * Nothing is shown before a task has run this long (ms). The environment
 * variable STACKFIELD_PROGRESS_AFTER_MS sets another delay (the tests use 0
 * to see progress lines from a short run).
 */
export const PROGRESS_AFTER_MS = 1000;

function progressDelay(): number {
  const v = Number(process.env['STACKFIELD_PROGRESS_AFTER_MS']);
  return process.env['STACKFIELD_PROGRESS_AFTER_MS'] !== undefined && Number.isFinite(v) && v >= 0 ? v : PROGRESS_AFTER_MS;
}
const TTY_INTERVAL_MS = 100;
const LOG_INTERVAL_MS = 5000;

export class Progress {
  private readonly tty: boolean;
  private readonly delay = progressDelay();
  private start = performance.now();
  private last = -Infinity;
  /** Characters of the line drawn in place, to be cleared. */
  private drawn = 0;

  constructor(private readonly enabled: boolean) {
    this.tty = process.stderr.isTTY === true;
  }

  /** Starts timing a new task (its first second shows nothing). */
  restart(): void {
    this.start = performance.now();
    this.last = -Infinity;
  }

  /**
   * Shows `text` if the task has run for more than a second (or a line is up
   * on the terminal already, which it replaces) and the last update is old enough.
   */
  update(text: string): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.start < this.delay && this.drawn === 0) return;
    if (now - this.last < (this.tty ? TTY_INTERVAL_MS : LOG_INTERVAL_MS)) return;
    this.last = now;
    const line = `stackfield: ${terminalSafe(text, 200)}`;
    if (this.tty) this.draw(line);
    else sayRaw(`${line}\n`);
  }

  /**
   * Names a step that reports nothing while it runs (a big mesh parsed,
   * checked, analysed: each in one synchronous piece). `expectedMs` is a
   * rough guess of how long the work has left; it only decides whether the
   * step is worth showing. On a terminal the line is redrawn at once, not
   * held back by the interval, when the task has run past the delay or is
   * expected to; the updates after it replace it without waiting out the
   * delay. A file or a pipe gets nothing: a log keeps to update()'s lines.
   */
  step(text: string, expectedMs: number): void {
    if (!this.enabled || !this.tty) return;
    const now = performance.now();
    if (now - this.start + Math.max(0, expectedMs || 0) < this.delay) return;
    this.last = now;
    this.draw(`stackfield: ${terminalSafe(text, 200)}`);
  }

  /** Redraws the line in place (a terminal), blanking what is left of a longer one. */
  private draw(line: string): void {
    sayRaw(`\r${line}${' '.repeat(Math.max(0, this.drawn - line.length))}`);
    this.drawn = line.length;
  }

  /** Ends the line drawn in place, if any. */
  done(): void {
    if (this.drawn > 0) sayRaw(`\r${' '.repeat(this.drawn)}\r`);
    this.drawn = 0;
  }
}
