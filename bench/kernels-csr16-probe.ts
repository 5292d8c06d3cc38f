/**
 * Kernel-level A/B of CSR with i32 columns (csr_<dt>) against the grouped layout of src/cpu/csr-layout.ts
 * (csr16_<dt>: i16 offsets from the diagonal, uniform 4-row groups interleaved), that layout with no
 * group marked uniform (offsets alone) and the groups over i32 columns (csrg_<dt>), on poisson3D_128 (or poisson3D_N with N=…), in one shared
 * memory on `threads` workers that split the rows evenly, rounds interleaved. Prints the median and min
 * ms per product and whether each gave csr_<dt>'s bits:
 *   npx esbuild bench/kernels-csr16-probe.ts --bundle --platform=node --format=esm --outfile=build/csr16-probe.js
 *   node build/csr16-probe.js [threads=2] [f32|f64] [rounds=31]
 * (after `npm run build`, which compiles build/wasm/simd-shared.wasm).
 */
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { poisson3D } from '../src/generators/poisson.js';
import { groupedLayout } from '../src/cpu/csr-layout.js';
import { heapCopier } from './probe-heap.js';

type Kernel = (...args: number[]) => void;
const KINDS = ['csr', 'csr16, offsets only', 'csr16', 'csrg'] as const;

if (isMainThread) {
  const threads = Number(process.argv[2] ?? 2);
  const dt = process.argv[3] === 'f64' ? 'f64' : 'f32';
  const rounds = Number(process.argv[4] ?? 31);
  const A = poisson3D(Number(process.env.N ?? 128)).astype(dt);
  const n = A.rows;
  const L = groupedLayout('csr16', A.rowPtr, A.colIdx, A.values as Float32Array | Float64Array);
  const G = groupedLayout('csrg', A.rowPtr, A.colIdx, A.values as Float32Array | Float64Array);
  // the same offsets in CSR order, no group uniform
  const off = new Int16Array(A.nnz);
  for (let i = 0; i < n; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) off[k] = A.colIdx[k] - i;
  const memory = new WebAssembly.Memory({ initial: 16000, maximum: 24000, shared: true });
  const put = heapCopier(memory);
  const Arr = dt === 'f32' ? Float32Array : Float64Array;
  const ptr = put(A.rowPtr), x = put(new Arr(n).map((_, i) => Math.sin(i)));
  const ys = KINDS.map(() => put(new Arr(n)));
  const calls = [
    [`csr_${dt}`, ptr, put(A.colIdx), put(A.values), x, ys[0]],
    [`csr16_${dt}`, ptr, put(off), put(A.values), put(new Uint8Array(L.groups.length)), x, ys[1]],
    [`csr16_${dt}`, ptr, put(L.idx), put(L.values), put(L.groups), x, ys[2]],
    [`csrg_${dt}`, ptr, put(G.idx), put(G.values), put(G.groups), x, ys[3]],
  ];
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const workers = Array.from({ length: threads }, (_, t) => {
    const r0 = Math.floor((n * t) / threads / 4) * 4, r1 = t === threads - 1 ? n : Math.floor((n * (t + 1)) / threads / 4) * 4;
    return new Worker(new URL(import.meta.url), { workerData: { memory, ctl, r0, r1, calls } });
  });
  await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
  const times: number[][] = KINDS.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < KINDS.length; j++) {
      const t0 = performance.now();
      Atomics.store(ctl, 1, 0);
      Atomics.store(ctl, 2, j);
      Atomics.add(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      for (let d; (d = Atomics.load(ctl, 1)) < threads; ) Atomics.wait(ctl, 1, d);
      times[j].push(performance.now() - t0);
    }
  }
  Atomics.store(ctl, 0, -1);
  Atomics.notify(ctl, 0);
  const y = ys.map((p) => new Arr(memory.buffer, p, n));
  const stat = (t: number[]) => {
    const s = t.slice().sort((p, q) => p - q);
    return `${s[s.length >> 1].toFixed(2)} ms (min ${s[0].toFixed(2)})`;
  };
  const line = KINDS.map((k, j) => `${k} ${stat(times[j])}${y[j].every((e, i) => Object.is(e, y[0][i])) ? '' : ' BITS DIFFER'}`);
  console.log(`poisson3D ${A.rows} rows ${dt}, ${threads} thread(s), ${L.uniform} of ${L.groups.length} groups uniform: ${line.join('  ')}`);
} else {
  const { memory, ctl, r0, r1, calls } = workerData as { memory: WebAssembly.Memory; ctl: Int32Array; r0: number; r1: number; calls: Array<[string, ...number[]]> };
  const lib = readFileSync(new URL('../build/wasm/simd-shared.wasm', import.meta.url));
  const exports = (await WebAssembly.instantiate(lib, { env: { memory, abort() {}, seed: () => 1 } })).instance.exports as Record<string, Kernel>;
  const run = calls.map(([name, ...a]) => () => exports[name](...a, 1, 0, r0, r1));
  parentPort!.postMessage('ready');
  for (let seen = 0; ; ) {
    Atomics.wait(ctl, 0, seen);
    seen = Atomics.load(ctl, 0);
    if (seen < 0) break;
    run[Atomics.load(ctl, 2)]();
    Atomics.add(ctl, 1, 1);
    Atomics.notify(ctl, 1);
  }
}
