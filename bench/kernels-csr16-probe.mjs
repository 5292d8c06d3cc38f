/**
 * Kernel-level A/B of CSR with i32 columns (csr_<dt>) against i16 offsets from the diagonal
 * (csr16_<dt>, src/cpu/offsets.ts) on poisson3D_128, in one shared memory on `threads` workers that
 * split the rows evenly, rounds interleaved; prints the median and min ms per product and whether the
 * two gave the same bits. OLD=path/to/simd-shared.wasm adds that build's csr_<dt> (an older build, to
 * check the i32 kernel did not slow down). After `npm run build`:
 *   node bench/kernels-csr16-probe.mjs [threads=2] [f32|f64] [rounds=31]
 */
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const LIB = new URL('../build/wasm/simd-shared.wasm', import.meta.url);

if (isMainThread) {
  const { poisson3D } = await import('../dist/index.js');
  const [T = 2, dt = 'f32', rounds = 31] = [Number(process.argv[2] ?? 2), process.argv[3], Number(process.argv[4] ?? 31)];
  const A = poisson3D(128).astype(dt);
  const n = A.rows, rp = A.rowPtr, ci = A.colIdx;
  const off = new Int16Array(ci.length);
  for (let i = 0; i < n; i++) for (let k = rp[i]; k < rp[i + 1]; k++) off[k] = ci[k] - i;
  const mem = new WebAssembly.Memory({ initial: 8000, maximum: 16000, shared: true });
  let top = 1 << 20;
  const put = (a) => {
    const p = top;
    new Uint8Array(mem.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    top = (top + a.byteLength + 63) & ~63;
    return p;
  };
  const Arr = A.values.constructor;
  const a = { ptr: put(rp), idx: put(ci), off: put(off), val: put(A.values), x: put(Arr.from({ length: n }, (_, i) => Math.sin(i))) };
  const kinds = ['csr', 'csr16', ...(process.env.OLD ? ['old csr'] : [])];
  const ys = kinds.map(() => put(new Arr(n)));
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const workers = Array.from({ length: T }, (_, t) => {
    const r0 = Math.floor((n * t) / T / 4) * 4, r1 = t === T - 1 ? n : Math.floor((n * (t + 1)) / T / 4) * 4;
    return new Worker(new URL(import.meta.url), { workerData: { mem, ctl, r0, r1, dt, a, ys, old: process.env.OLD } });
  });
  await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
  const times = kinds.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < kinds.length; j++) {
      const t0 = performance.now();
      Atomics.store(ctl, 1, 0);
      Atomics.store(ctl, 2, j);
      Atomics.add(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      for (let d; (d = Atomics.load(ctl, 1)) < T; ) Atomics.wait(ctl, 1, d);
      times[j].push(performance.now() - t0);
    }
  }
  Atomics.store(ctl, 0, -1);
  Atomics.notify(ctl, 0);
  const y = ys.map((p) => new Arr(mem.buffer, p, n));
  const same = y.map((v) => v.every((e, i) => Object.is(e, y[0][i])));
  const stat = (t) => {
    const s = t.slice().sort((p, q) => p - q);
    return `${s[s.length >> 1].toFixed(2)} ms (min ${s[0].toFixed(2)})`;
  };
  console.log(`poisson3D_128 ${dt}, ${T} thread(s): ` + kinds.map((k, j) => `${k} ${stat(times[j])}${same[j] ? '' : ' BITS DIFFER'}`).join('  '));
} else {
  const { mem, ctl, r0, r1, dt, a, ys, old } = workerData;
  const env = { env: { memory: mem, abort() {}, seed: () => 1 } };
  const L = (await WebAssembly.instantiate(readFileSync(LIB), env)).instance.exports;
  const O = old ? (await WebAssembly.instantiate(readFileSync(old), env)).instance.exports : null;
  const run = [
    () => L[`csr_${dt}`](a.ptr, a.idx, a.val, a.x, ys[0], 1, 0, r0, r1),
    () => L[`csr16_${dt}`](a.ptr, a.off, a.val, a.x, ys[1], 1, 0, r0, r1),
    () => O[`csr_${dt}`](a.ptr, a.idx, a.val, a.x, ys[2], 1, 0, r0, r1),
  ];
  parentPort.postMessage('ready');
  for (let seen = 0; ; ) {
    Atomics.wait(ctl, 0, seen);
    seen = Atomics.load(ctl, 0);
    if (seen < 0) break;
    run[Atomics.load(ctl, 2)]();
    Atomics.add(ctl, 1, 1);
    Atomics.notify(ctl, 1);
  }
}
