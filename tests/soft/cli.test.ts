import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../cli/cliHelpers.ts';
import { scratchDir } from '../scratchDir.ts';

describe('stackfield run with soft bodies', () => {
  const dir = scratchDir('stackfield-soft-');
  const scene = (soft: object) => ({
    format: 'stackfield-scene/1',
    shapes: { floor: { type: 'plane' }, ball: { type: 'sphere', radius: 0.3 } },
    bodies: [{ name: 'ground', shape: 'floor', static: true }],
    ...soft,
  });

  it('exits with code 2 and names the file and JSON path of a bad soft body', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(scene({ softBodies: [{ shape: 'ball', construction: { method: 'seed' } }] })));
    const r = spawnSync(process.execPath, [BIN, 'run', file, '--steps', '1'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}: softBodies[0].construction.method: the seed construction builds a net on a 2D outline and needs an "extrude" shape`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('says up front, in check and run, when every step will take a second or more (substeps x force evaluations x springs)', () => {
    const file = join(dir, 'slow.json');
    const blob = { name: 'blob', shape: 'ball', position: [0, 1, 0], construction: { resolution: 4 } };
    writeFileSync(file, JSON.stringify(scene({ softSolver: { integrator: 'rk4', substeps: 10000, maxSubsteps: 10000 }, softBodies: [blob] })));
    const warning = /softSolver: each step will take at least about ([\d.]+) s \(10000 substeps of (\d+) springs, 4 force evaluations each \(rk4\)\); fewer "substeps", the "semiImplicit" integrator or a coarser "construction" cut it/;
    const checked = spawnSync(process.execPath, [BIN, 'check', file], { encoding: 'utf8', timeout: 60_000 });
    expect(checked.status, checked.stderr).toBe(0);
    const m = warning.exec(checked.stderr)!;
    expect(m, checked.stderr).not.toBeNull();
    // At 20 ns a spring's evaluation: the least a desktop takes.
    expect(Number(m[1])).toBeCloseTo(10000 * 4 * Number(m[2]) * 2e-8, 1);
    expect(checked.stderr).toContain(`warning: ${file}: softSolver:`);
    // run says it before its first (long) step; at the default substeps nothing is said (the next test).
    const ran = spawnSync(process.execPath, [BIN, 'run', file, '--steps', '1', '--summary', 'none'], { encoding: 'utf8', timeout: 120_000 });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(warning);
  }, 180_000);

  it('writes each soft body\'s centre and volume ratio per line, and with --particles every particle', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify(scene({ softBodies: [{ name: 'blob', shape: 'ball', position: [0, 1, 0], construction: { resolution: 4 } }] })));
    const r = spawnSync(process.execPath, [BIN, 'run', file, '--steps', '20', '--every', '10'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.step)).toEqual([0, 10, 20]);
    // Falling freely for 0.2 s: the centre drops g t^2 / 2 = 0.196 m (its start: the sphere's centre).
    expect(lines[0].soft[0].name).toBe('blob');
    expect(lines[0].soft[0].volume).toBeCloseTo(1, 12);
    expect(lines[0].soft[0].x).toBeUndefined();
    expect(lines[0].soft[0].c[1] - lines[2].soft[0].c[1]).toBeCloseTo(0.5 * 9.81 * 0.2 * 0.2, 2);
    const full = spawnSync(process.execPath, [BIN, 'run', file, '--steps', '1', '--particles'], { encoding: 'utf8', timeout: 60_000 });
    expect(full.status, full.stderr).toBe(0);
    const last = JSON.parse(full.stdout.trim().split('\n').at(-1)!);
    const x: number[] = last.soft[0].x;
    expect(x.length % 3).toBe(0);
    expect(x.length / 3).toBeGreaterThan(20);
    // The particles' mean is near the centre of mass (masses differ a little between particles).
    const mean = [0, 1, 2].map((k) => x.filter((_, i) => i % 3 === k).reduce((a, b) => a + b, 0) / (x.length / 3));
    for (let k = 0; k < 3; k++) expect(Math.abs(mean[k]! - last.soft[0].c[k])).toBeLessThan(0.02);
  });

  it('exits with code 1 and names the soft body when explicit Euler blows up the stiff cube; the default holds it', () => {
    const bad = spawnSync(process.execPath, [BIN, 'run', '--builtin', 'soft-integrators', '--param', 'integrator=1', '--steps', '150', '--out', join(dir, 'euler.jsonl')], { encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/simulation error: soft body "stiffCube" blew up at step \d+ .*integrator "euler"/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const good = spawnSync(process.execPath, [BIN, 'run', '--builtin', 'soft-integrators', '--steps', '150', '--every', '150'], { encoding: 'utf8', timeout: 60_000 });
    expect(good.status, good.stderr).toBe(0);
    const end = JSON.parse(good.stdout.trim().split('\n').at(-1)!);
    // Resting on the ground (0.5 m cube): centre a little below 0.25 m, most of its volume.
    expect(end.soft[0].c[1]).toBeGreaterThan(0.18);
    expect(end.soft[0].c[1]).toBeLessThan(0.26);
    expect(end.soft[0].volume).toBeGreaterThan(0.85);
  });
});
