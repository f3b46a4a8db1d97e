/**
 * The npm package as a user gets it: `npm pack` of lib/ as `prepare` compiles
 * it (with declaration files), the tarball installed into an empty directory
 * without the network, then what a user runs first: the command through npx
 * (on one thread, on the worker pool with `--threads 2`, on the GPU backend:
 * SwiftShader in CI), a ten-line script through the API, and a TypeScript
 * file type-checked against the installed declarations under `strict`; and
 * the pack scripts/device-bench.sh makes from the same lib/ for a bare GPU
 * machine, run from that pack alone.
 *
 * Offline: the empty project gets a lockfile naming the tarball and, for its
 * dependencies, the exact versions, tarball URLs and hashes of this
 * repository's package-lock.json, so `npm ci --offline` takes them from the
 * npm cache that installing this repository filled (`npm ci` in .ci/run). No
 * version range has to be resolved, which would need the registry.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/cli/nodePlatform.ts';
import { libCurrent } from './cliHelpers.ts';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function sh(cmd: string, args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env });
}

/** The lockfile of a project that depends on the tarball alone (see the file comment). */
function lockFor(tgz: string): unknown {
  const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { dependencies: Record<string, string> };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  const packages: Record<string, LockEntry> = {
    '': { name: 'user-project', version: '1.0.0', dependencies: { stackfield: `file:${tgz}` } },
    'node_modules/stackfield': {
      version: pkg['version'] as string, resolved: `file:${tgz}`, integrity, license: pkg['license'],
      dependencies: pkg.dependencies, bin: pkg['bin'], engines: pkg['engines'],
    },
  };
  // Node's lookup: the nearest node_modules/<name> going up from the dependent.
  const find = (from: string, name: string): string => {
    for (let p = from; ; ) {
      const path = `${p ? `${p}/` : ''}node_modules/${name}`;
      if (lock.packages[path]) return path;
      if (!p) throw new Error(`${name} is not in package-lock.json`);
      const i = p.lastIndexOf('/node_modules/');
      p = i < 0 ? '' : p.slice(0, i);
    }
  };
  const todo: [string, string][] = Object.keys(pkg.dependencies).map((n) => ['', n]);
  while (todo.length > 0) {
    const [from, name] = todo.pop()!;
    const path = find(from, name);
    if (packages[path]) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[path]!;
    packages[path] = entry;
    for (const d of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) todo.push([path, d]);
  }
  return { name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** The ten lines a user writes first: a scene built in code, a world, steps, a pose, a backend switch, a baked SDF. */
const SCRIPT = `import { loadScene, createWorld, bodyPose, switchBackend, bakeSdf, boxMesh, sampleSdf, destroyWorld } from 'stackfield';
const scene = await loadScene({ format: 'stackfield-scene/1', shapes: { floor: { type: 'plane' }, box: { type: 'box', size: [1, 1, 1] } },
  bodies: [{ name: 'ground', shape: 'floor', static: true }, { name: 'box', shape: 'box', position: [0, 2, 0] }] });
const world = await createWorld(scene);
for (let i = 0; i < 50; i++) await world.step();
await switchBackend(world, 'gpu');
for (let i = 0; i < 150; i++) await world.step();
const grid = await bakeSdf(boxMesh([1, 1, 1]), { cells: 8 });
console.log(JSON.stringify({ y: bodyPose(world, 'box').position[1], backend: world.backend.kind, centre: sampleSdf(grid, 0, 0, 0) }));
destroyWorld(world);
`;

/** The same calls type-checked against the installed declarations (strict, no skipLibCheck). */
const TYPED = `import {
  loadScene, createWorld, bodyPose, bodyPoses, switchBackend, destroyWorld, bakeSdf, sampleSdf, boxMesh, validateMesh,
  builtinScene, listBuiltins, InputError, SimulationError, GpuUnavailableError,
  type BodyPose, type SceneDesc, type World, type SdfGrid, type BackendKind, type BuiltinInfo,
} from 'stackfield';
const scene: SceneDesc = await loadScene('scene.json');
const world: World = await createWorld(scene, { backend: 'cpu', warn: (m: string) => console.warn(m) });
await world.step();
const pose: BodyPose = bodyPose(world, 0);
const height: number = pose.position[1] + world.bodies.pos[1]! + bodyPoses(world).length;
const kind: BackendKind = 'gpu';
await switchBackend(world, kind);
destroyWorld(world);
const grid: SdfGrid = await bakeSdf(validateMesh(boxMesh([1, 1, 1]), 'box').mesh, { cells: 8 });
const d: number = sampleSdf(grid, 0, 0, 0);
const infos: BuiltinInfo[] = listBuiltins();
const tower: unknown = builtinScene('tower', {});
const e: InputError = new InputError('message', 'file.json', 'bodies[0]');
const errors: Error[] = [e, new SimulationError('x'), new GpuUnavailableError('y')];
console.log(height, d, infos.length, tower, e.where, errors.length);
`;

describe('the npm package', () => {
  let dir = '';
  let project = '';
  let tgz = '';
  /** The tarball's files (paths inside the package). */
  let packed: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackfield-pack-'));
    // lib/ as `prepare` builds it. Built again only when it is out of date:
    // the other test files run the command from lib/ while it is current
    // (cliHelpers BIN), and `npm pack` would rebuild it under them.
    if (!libCurrent()) {
      const build = sh('npm', ['run', 'build:lib'], PACKAGE_ROOT);
      expect(build.status, build.stderr).toBe(0);
    }
    const pack = sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], PACKAGE_ROOT);
    expect(pack.status, pack.stderr).toBe(0);
    const info = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    tgz = join(dir, info[0]!.filename);
    const files = info[0]!.files.map((f) => f.path);
    // Compiled code with declarations, the shaders found at run time, the bunny; no sources, tests or app.
    expect(files).toContain('lib/index.js');
    expect(files).toContain('lib/index.d.ts');
    expect(files).toContain('lib/cli/bin.js');
    expect(files).toContain('shaders/common.wgsl');
    expect(files).toContain('examples/meshes/bunny.obj');
    expect(files).toContain('docs/api/README.md');
    // The licence package.json names.
    expect(files).toContain('LICENSE');
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('tests/') || f.startsWith('lib/app/'))).toBe(false);
    packed = files;

    project = join(dir, 'project');
    sh('mkdir', ['-p', project], dir);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module', dependencies: { stackfield: `file:${tgz}` } }));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockFor(tgz), null, 2));
    const install = sh('npm', ['ci', '--offline'], project);
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships every docs/ file the README links to, and the heading each link names', () => {
    const installed = join(project, 'node_modules', 'stackfield');
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    // Markdown links and images: [text](docs/...) and ![alt](docs/...), with an optional #heading.
    const links = [...readme.matchAll(/\]\((docs\/[^)\s#]+)(?:#([^)\s]+))?\)/g)].map((m) => ({ path: m[1]!, anchor: m[2] }));
    expect(links.length).toBeGreaterThanOrEqual(10);
    const paths = new Set(links.map((l) => l.path));
    for (const name of ['docs/LIBRARY_FORMAT.md', 'docs/soft-bodies.md', 'docs/SCENE_FORMAT.md']) expect(paths).toContain(name);
    // GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens.
    const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    for (const { path, anchor } of links) {
      expect(packed, `README links to ${path}`).toContain(path);
      expect(existsSync(join(installed, path)), `README links to ${path}`).toBe(true);
      if (anchor === undefined) continue;
      const headings = readFileSync(join(installed, path), 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, '')));
      expect(headings, `README links to ${path}#${anchor}`).toContain(anchor);
    }
  });

  it('declares a typed entry point, a compiled command and tsx only for development', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'stackfield', 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(pkg.exports['.']).toEqual({ types: './lib/index.d.ts', default: './lib/index.js' });
    expect(pkg.bin).toEqual({ stackfield: 'lib/cli/bin.js' });
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    expect(Object.keys(pkg.devDependencies)).toContain('tsx');
  });

  it("has a `prepare` that does nothing in the installed package, which does not ship the build script it runs in a checkout", () => {
    const installed = join(project, 'node_modules', 'stackfield');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepare).toContain('scripts/build-lib.mjs'); // a checkout and a git install still build lib/
    expect(existsSync(join(installed, 'scripts', 'build-lib.mjs'))).toBe(false);
    const before = statSync(join(installed, 'lib', 'index.js')).mtimeMs;
    const r = sh('npm', ['run', '--silent', 'prepare'], installed, 60_000);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(statSync(join(installed, 'lib', 'index.js')).mtimeMs).toBe(before);
  }, 60_000);

  it('runs `npx stackfield run --builtin rings --steps 10` from the installed tarball', () => {
    const r = sh('npx', ['stackfield', 'run', '--builtin', 'rings', '--steps', '10', '--summary', 'json'], project, 120_000);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { step: number; bodies: unknown[] });
    expect(lines.map((l) => l.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(lines[10]!.bodies).toHaveLength(64); // 60 rings, 3 pegs, the ground
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!).summary;
    expect(summary.steps).toBe(10);
    expect(summary.nonFinite).toBe(0);
    const version = sh('npx', ['stackfield', '--version'], project, 60_000);
    expect(version.stdout.trim()).toBe(`stackfield ${JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version}`);
  }, 180_000);

  it('runs the installed command on the worker pool (--threads 2): the same states as one thread', () => {
    const args = ['stackfield', 'run', '--builtin', 'rings', '--param', 'rings=20', '--steps', '40', '--every', '10', '--summary', 'json'];
    const one = sh('npx', [...args, '--threads', '1'], project, 120_000);
    const two = sh('npx', [...args, '--threads', '2'], project, 120_000);
    expect(one.status, one.stderr).toBe(0);
    expect(two.status, two.stderr).toBe(0);
    expect(JSON.parse(two.stderr.trim().split('\n').pop()!).summary.threads).toBe(2);
    expect(two.stdout).toBe(one.stdout);
  }, 240_000);

  it('runs the installed command on the GPU backend, and benchmarks both backends with the pool', () => {
    const run = sh('npx', ['stackfield', 'run', '--builtin', 'rings', '--param', 'rings=20', '--steps', '10', '--backend', 'gpu', '--summary', 'json'], project, 180_000);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(11);
    const summary = JSON.parse(run.stderr.trim().split('\n').pop()!).summary;
    expect(summary.backend).toBe('gpu');
    expect(summary.nonFinite).toBe(0);
    // The command the issue reported crashing in an installed package.
    const bench = sh('npx', ['stackfield', 'bench', '--builtin', 'rings', '--bodies', '20', '--steps', '20', '--backend', 'cpu,gpu', '--threads', '2', '--json'], project, 240_000);
    expect(bench.status, bench.stderr).toBe(0);
    const { results } = JSON.parse(bench.stdout) as { results: { backend: string; threads: number; gcPerStep: { ms: number; pauses: number } | null }[] };
    expect(results.map((r) => [r.backend, r.threads])).toEqual([['cpu', 2], ['gpu', 1]]);
    // Node's garbage collection pauses, per measured step (the CLI observes them).
    for (const r of results) {
      expect(r.gcPerStep!.ms).toBeGreaterThanOrEqual(0);
      expect(r.gcPerStep!.pauses).toBeGreaterThanOrEqual(0);
    }
  }, 480_000);

  it('says so, without a stack trace, when a query worker cannot start', () => {
    // The fault the package once shipped with: the workers' entry missing from lib/.
    const entry = join(project, 'node_modules', 'stackfield', 'lib', 'collision', 'queryWorker.node.mjs');
    renameSync(entry, `${entry}.away`);
    try {
      const r = sh('npx', ['stackfield', 'run', '--builtin', 'rings', '--param', 'rings=20', '--steps', '5', '--threads', '2'], project, 120_000);
      expect(r.status).toBe(1);
      // (A build that takes over a second on a loaded machine reports its progress first.)
      expect(r.stderr).toMatch(/^(?:stackfield: building the world: [^\n]*\n)*stackfield: error: 1 of 1 query worker threads failed to start: .*queryWorker\.node\.mjs.*\(--threads 1 runs the queries without workers\)\n$/s);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    } finally {
      renameSync(`${entry}.away`, entry);
    }
  }, 180_000);

  it('runs a ten-line script through the API: a box dropped from 2 m rests on the floor, on the GPU after a switch', () => {
    expect(SCRIPT.trim().split('\n')).toHaveLength(10);
    writeFileSync(join(project, 'try.mjs'), SCRIPT);
    const r = sh(process.execPath, ['try.mjs'], project, 180_000);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as { y: number; backend: string; centre: number };
    // 2 s: the box fell 1.5 m in 0.55 s, bounced (restitution 0.5: the bounces
    // add up to 1.1 s more) and rests with its centre half a side up.
    expect(out.y).toBeCloseTo(0.5, 2);
    expect(out.backend).toBe('gpu');
    // The unit cube's centre is half a side deep.
    expect(out.centre).toBeCloseTo(-0.5, 5);
  }, 240_000);

  it('packs for a bare GPU machine (scripts/device-bench.sh) from the freshly built lib/, and runs every benchmark from that pack alone', () => {
    // Packed here (fast xz, lib/ as `npm pack` just built it, no Vulkan .deb)
    // and run as a bare machine runs it: PATH with no npm tools, the packed
    // Node, unpacked into a temporary root, on this machine's GPU (SwiftShader
    // in CI), at BENCH_QUICK's few bodies and steps. Every benchmark exits 0
    // with both backends' figures (the bunny heap the CPU's alone: a software
    // GPU bakes the bunny's field for minutes), device.json lists the five
    // runs and the two profiled ones, and profile.txt holds a summary of each
    // backend's profile. Only the script is checked: real GPU figures come
    // from a machine CI never uses.
    const script = join(PACKAGE_ROOT, 'scripts', 'device-bench.sh');
    const tmp = mkdtempSync(join(tmpdir(), 'sf-device-bench-'));
    try {
      const pack = join(tmp, 'pack'), out = join(tmp, 'out');
      const packedRun = spawnSync('bash', [script, 'pack'], {
        cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 240_000,
        env: { ...process.env, DEVICE_BENCH_DIR: pack, DEVICE_BENCH_XZ: '0', DEVICE_BENCH_SKIP_BUILD: '1', DEVICE_BENCH_NO_DEBS: '1' },
      });
      expect(packedRun.status, packedRun.stderr).toBe(0);
      const ran = spawnSync('bash', [script, 'run'], {
        cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 300_000,
        env: {
          PATH: '/usr/bin:/bin', HOME: tmp, OUT: out, BENCH_QUICK: '1', DEVICE_BENCH_DIR: pack, DEVICE_BENCH_ROOT: join(tmp, 'root'),
          VK_ICD_FILENAMES: process.env['VK_ICD_FILENAMES'] ?? '/usr/lib/chromium/vk_swiftshader_icd.json',
        },
      });
      expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      const scenes = ['sdf', 'rings-12', 'boxes-27', 'skulls-3', 'rings-24'];
      const device = JSON.parse(readFileSync(join(out, 'device.json'), 'utf8')) as { runs: { name: string; exit: number }[]; node: string; quick: number };
      expect(device.runs.map((r) => r.name)).toEqual([...scenes, 'profile-cpu', 'profile-gpu']);
      for (const r of device.runs) expect(r.exit, r.name).toBe(0);
      expect(device.node).toBe(process.version);
      expect(device.quick).toBe(1);
      for (const name of scenes) {
        const rows = (JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as { results: { backend: string; adapter: string; stepMs?: { median: number } }[] }).results;
        const backends = name.startsWith('skulls') ? ['cpu'] : ['cpu', 'gpu'];
        expect(new Set(rows.map((r) => r.backend)), name).toEqual(new Set(backends));
        if (backends.includes('gpu')) expect(rows.find((r) => r.backend === 'gpu')!.adapter, name).toMatch(/^gpu \(/);
        if (name !== 'sdf') for (const r of rows) expect(r.stepMs!.median, `${name} ${r.backend}`).toBeGreaterThan(0);
      }
      // The backends side by side at the end of the output (bench-compare.mjs).
      expect(ran.stdout).toMatch(/^== sdf\.json: SDF bakes, median ms/m);
      expect(ran.stdout.match(/^step mean \(ms\) +[\d.]+ +[\d.]+$/gm), ran.stdout).toHaveLength(3); // rings-12, boxes-27, rings-24 (skulls-3: cpu only)
      // Each profile: the bench's table, then the functions by self time.
      const profile = readFileSync(join(out, 'profile.txt'), 'utf8');
      expect(profile.match(/^\S+\.cpuprofile: \d+ ms sampled; self time by function$/gm), profile).toHaveLength(2);
      expect(profile).toMatch(/^ +\d+ ms +[\d.]+ % +\S/m);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 600_000);

  it('type-checks a TypeScript user of the declarations (strict, library checking on)', () => {
    writeFileSync(join(project, 'typed.ts'), TYPED);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true,
          skipLibCheck: false, types: ['node'], typeRoots: [join(PACKAGE_ROOT, 'node_modules', '@types')],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = sh(process.execPath, [tsc, '-p', 'tsconfig.json'], project, 180_000);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  }, 240_000);
});
