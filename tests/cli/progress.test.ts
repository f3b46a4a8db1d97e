/**
 * The command line's progress line (src/cli/progress.ts) for the steps of a
 * build that report nothing while they run: an 80 000-triangle mesh spent
 * a second or more parsed, checked and analysed before its bake's first
 * percentage, with nothing on the terminal. Progress.step names such a step
 * on a terminal, at once when the work is expected to outlast the delay,
 * and never writes to a file or a pipe, whose lines tests and logs read.
 * Standard error is made a terminal (or not) here by its isTTY flag, and
 * what is written to it collected; both are restored after each test.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../src/cli/progress.ts';

let written: string[] = [];
const savedTty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
const savedDelay = process.env['STACKFIELD_PROGRESS_AFTER_MS'];

/** A Progress on a standard error that is a terminal (or not), with the given delay (ms). */
function progressOn(tty: boolean, delayMs: number): Progress {
  Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true, writable: true });
  process.env['STACKFIELD_PROGRESS_AFTER_MS'] = String(delayMs);
  return new Progress(true);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(() => {
  written = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  if (savedTty) Object.defineProperty(process.stderr, 'isTTY', savedTty);
  else delete (process.stderr as { isTTY?: boolean }).isTTY;
  if (savedDelay === undefined) delete process.env['STACKFIELD_PROGRESS_AFTER_MS'];
  else process.env['STACKFIELD_PROGRESS_AFTER_MS'] = savedDelay;
});

describe('progress of the steps that report nothing themselves', () => {
  it('on a terminal, a step of work expected to outlast the delay is drawn at once, each step replacing the last', () => {
    const p = progressOn(true, 1000);
    p.step('shape 1 of 1 ("ball"), parsing the mesh file', 1600);
    p.step('shape 1 of 1 ("ball"), checking 81920 triangles', 1500);
    p.step('shape 1 of 1 ("ball"), finding what 81920 triangles enclose (BVH, self-intersections)', 1400);
    p.step('shape 1 of 1 ("ball"), SDF 0%', 1000);
    p.done();
    const longest = 'stackfield: shape 1 of 1 ("ball"), finding what 81920 triangles enclose (BVH, self-intersections)';
    const last = 'stackfield: shape 1 of 1 ("ball"), SDF 0%';
    expect(written).toEqual([
      '\rstackfield: shape 1 of 1 ("ball"), parsing the mesh file',
      '\rstackfield: shape 1 of 1 ("ball"), checking 81920 triangles',
      `\r${longest}`,
      // A shorter line blanks what is left of the longer one; done() blanks the line.
      `\r${last.padEnd(longest.length)}`,
      `\r${' '.repeat(last.length)}\r`,
    ]);
  });

  it('on a terminal, a step of work expected to end within the delay shows nothing (a small mesh)', () => {
    const p = progressOn(true, 1000);
    p.step('shape 1 of 1 ("box"), checking 12 triangles', 1);
    p.update('shape 1 of 1 ("box"), SDF 0%');
    p.done();
    expect(written).toEqual([]);
  });

  it('once a step is up, the updates that follow are drawn without waiting out the delay', async () => {
    const p = progressOn(true, 60_000);
    p.step('checking 81920 triangles', 120_000);
    p.update('SDF 0%'); // within the interval of the step: held back, as any update
    await sleep(150);
    p.update('SDF 11%');
    p.done();
    expect(written.map((w) => w.trim())).toEqual(['stackfield: checking 81920 triangles', 'stackfield: SDF 11%', '']);
  });

  it('a file or a pipe gets nothing from the steps, and the same update lines as before', () => {
    const p = progressOn(false, 0);
    p.step('shape 1 of 1 ("ball"), parsing the mesh file', 1600);
    p.update('building the world: shape 1 of 1 ("ball"), SDF 0%');
    p.step('shape 1 of 1 ("ball"), placing collision samples on 81920 triangles', 1600);
    p.done();
    expect(written).toEqual(['stackfield: building the world: shape 1 of 1 ("ball"), SDF 0%\n']);
  });
});
