/**
 * orderRecords (src/gpu/penetrationPass.ts): the GPU query's records arrive in
 * whatever order the kernel's atomic counter handed out, each keyed by its
 * chunk and lane; the host must return them sorted by (task, sample), with
 * each record's phi and normal beside it, whatever the arrival order. A real
 * GPU interleaves workgroups and lanes; SwiftShader, the tests' GPU, mostly
 * does not, so the order is shuffled here.
 */
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../src/collision/query.ts';
import { CHUNK, QUERY_OUTPUT, RECORD, WORKGROUP_SIZE } from '../../src/gpu/layout.ts';
import { orderRecords } from '../../src/gpu/penetrationPass.ts';
import { rng } from '../collision/queryFixtures.ts';

describe('orderRecords: the GPU query records, sorted on the host', () => {
  it('returns records sorted by (task, sample) with their values, from any arrival order', () => {
    const next = rng(7);
    // Tasks with 0-5 chunks each (a culled task has none), samples per task up to 5 chunks' worth.
    const tasks = 40;
    const taskChunk = new Uint32Array(tasks + 1);
    const chunkWords: number[] = [];
    const expected: { task: number; sample: number; phi: number; n: [number, number, number] }[] = [];
    const records: { chunk: number; lane: number; phi: number; n: [number, number, number] }[] = [];
    let chunks = 0;
    for (let t = 0; t < tasks; t++) {
      taskChunk[t] = chunks;
      const nc = Math.floor(next() * 6);
      for (let c = 0; c < nc; c++) {
        chunkWords.push(t, c * WORKGROUP_SIZE);
        for (let lane = 0; lane < WORKGROUP_SIZE; lane++) {
          if (next() < 0.35) {
            const phi = Math.fround(next() - 0.5);
            const n: [number, number, number] = [Math.fround(next()), Math.fround(next()), Math.fround(next())];
            records.push({ chunk: chunks + c, lane, phi, n });
            expected.push({ task: t, sample: c * WORKGROUP_SIZE + lane, phi, n });
          }
        }
      }
      chunks += nc;
    }
    taskChunk[tasks] = chunks;
    expect(CHUNK.size).toBe(8);
    const chunkData = new Uint32Array(chunkWords);
    // Shuffled arrival (Fisher-Yates), written at an offset as in the readback.
    for (let i = records.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [records[i], records[j]] = [records[j]!, records[i]!];
    }
    const n = records.length;
    expect(n).toBeGreaterThan(500);
    const at = 16 + QUERY_OUTPUT.offsets.records;
    const buf = new ArrayBuffer(at + n * RECORD.size);
    const u = new Uint32Array(buf), f = new Float32Array(buf);
    records.forEach((r, i) => {
      const o = (at + i * RECORD.size) / 4;
      u[o + RECORD.offsets.key / 4] = r.chunk * WORKGROUP_SIZE + r.lane;
      f[o + RECORD.offsets.phi / 4] = r.phi;
      f[o + RECORD.offsets.nx / 4] = r.n[0];
      f[o + RECORD.offsets.ny / 4] = r.n[1];
      f[o + RECORD.offsets.nz / 4] = r.n[2];
    });
    const res: QueryResult = {
      count: 0,
      taskStart: new Uint32Array(tasks + 1),
      sample: new Uint32Array(n),
      phi: new Float32Array(n),
      normal: new Float32Array(3 * n),
    };
    orderRecords(buf, at, n, tasks, taskChunk, chunkData, new Uint32Array(chunks + 1), res);
    expect(res.count).toBe(n);
    for (let t = 0; t < tasks; t++) {
      const want = expected.filter((e) => e.task === t);
      const s = res.taskStart[t]!, e = res.taskStart[t + 1]!;
      expect(e - s, `task ${t}`).toBe(want.length);
      for (let k = 0; k < want.length; k++) {
        const i = s + k;
        expect(res.sample[i], `task ${t} record ${k}`).toBe(want[k]!.sample);
        expect(res.phi[i]).toBe(want[k]!.phi);
        expect([res.normal[3 * i], res.normal[3 * i + 1], res.normal[3 * i + 2]]).toEqual(want[k]!.n);
      }
    }
    expect(res.taskStart[tasks]).toBe(n);
  });

  it('rejects a record that names a chunk the call does not have', () => {
    const buf = new ArrayBuffer(RECORD.size);
    new Uint32Array(buf)[0] = 3 * WORKGROUP_SIZE;
    const res: QueryResult = { count: 0, taskStart: new Uint32Array(2), sample: new Uint32Array(1), phi: new Float32Array(1), normal: new Float32Array(3) };
    expect(() => orderRecords(buf, 0, 1, 1, new Uint32Array([0, 2]), new Uint32Array([0, 0, 0, 64]), new Uint32Array(3), res)).toThrow(/chunk 3 of 2/);
  });
});
