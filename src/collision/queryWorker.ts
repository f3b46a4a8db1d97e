/**
 * A query worker (the worker side of parallelQuery.ts; the protocol is in
 * poolProtocol.ts). The same module runs as a Web Worker (Vite bundles it
 * from the `new Worker(new URL(...))` in parallelQuery.ts) and as a Node
 * worker thread (queryWorker.node.mjs loads it through tsx and calls
 * startQueryWorker).
 *
 * A worker lives in two states. Parked in its event loop, it takes config
 * messages (new shapes or larger buffers). Serving, it blocks in
 * Atomics.wait on the SEQ word and, each time it is woken, claims and runs
 * chunks until none is left; a config generation newer than its own sends
 * it back to the event loop, where the message announcing that generation
 * is already queued (the main thread posts it before raising GEN).
 */
import type { KernelShape } from './cpuKernel.ts';
import { batchViews, C, CallSets, drainChunks, kernelShapesOf, type BatchViews, type PoolConfig } from './poolProtocol.ts';

/** How a worker talks to the main thread, whichever runtime hosts it. */
export interface WorkerPort {
  onMessage(fn: (data: unknown) => void): void;
  close(): void;
}

export function startQueryWorker(port: WorkerPort): void {
  let ctrl: Int32Array | null = null;
  let gen = -1;
  let shapesVersion = -1;
  let shapes: KernelShape[] = [];
  let views: BatchViews | null = null;
  let sets: CallSets | null = null;
  const nrm = new Float64Array(3);

  port.onMessage((data) => {
    const m = data as PoolConfig;
    if (m?.type !== 'config') return;
    ctrl = new Int32Array(m.control);
    if (m.shapesVersion !== shapesVersion) {
      shapes = kernelShapesOf(m.points, m.values, m.orders, m.spheres, m.shapes);
      shapesVersion = m.shapesVersion;
    }
    views = batchViews(m.batch, m.caps);
    sets = new CallSets(views);
    gen = m.gen;
    Atomics.store(ctrl, C.READY + 16 * m.worker, gen);
    serve(ctrl, views, sets);
  });

  function serve(ctrl: Int32Array, v: BatchViews, sets: CallSets): void {
    for (;;) {
      // Read SEQ before looking for work: a call published after this read
      // bumps SEQ, so the wait below returns at once instead of missing it.
      const seq = Atomics.load(ctrl, C.SEQ);
      if (Atomics.load(ctrl, C.EXIT) !== 0) {
        port.close();
        return;
      }
      // BUSY, then GEN (the main thread writes them in the other order):
      // either the main thread sees us busy and waits before swapping
      // buffers, or we see the new generation and leave the old buffers.
      Atomics.add(ctrl, C.BUSY, 1);
      if (Atomics.load(ctrl, C.GEN) !== gen) {
        Atomics.sub(ctrl, C.BUSY, 1);
        return; // to the event loop, where the new config waits
      }
      drainChunks(ctrl, v, shapes, sets, nrm);
      Atomics.sub(ctrl, C.BUSY, 1);
      Atomics.wait(ctrl, C.SEQ, seq);
    }
  }
}

// In a browser worker, start at once (Node's bootstrap calls startQueryWorker itself).
const scope = globalThis as unknown as { WorkerGlobalScope?: new () => unknown; postMessage?: unknown; close?: () => void; onmessage?: unknown };
if (typeof scope.WorkerGlobalScope === 'function' && globalThis instanceof scope.WorkerGlobalScope) {
  startQueryWorker({
    onMessage: (fn) => {
      scope.onmessage = (e: MessageEvent) => fn(e.data);
    },
    close: () => scope.close?.(),
  });
}
