import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(__dirname, '..', '..', 'bin', 'stackfield.mjs');

describe('stackfield run with soft bodies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stackfield-soft-'));
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

  it('warns that the soft bodies of a valid scene are not stepped by the rigid world', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify(scene({ softBodies: [{ shape: 'ball', position: [0, 1, 0] }] })));
    const r = spawnSync(process.execPath, [BIN, 'run', file, '--steps', '1'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 soft body is validated but not simulated here');
  });
});
