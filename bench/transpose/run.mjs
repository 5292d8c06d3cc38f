// The transpose schemes of bench/transpose/schemes.ts against a copy of the same bytes, on 1 and 2
// worker threads over one shared memory (each thread one contiguous range of B's rows, as the pool
// splits it). Interleaved rounds: each round times the copy and every scheme once (best of 2), so the
// drift of a shared machine hits all alike; medians over the rounds. Every scheme is checked on a sample.
//
//   node bench/transpose/run.mjs            f32 4096² (the README table)
//   ES=8 node bench/transpose/run.mjs       8-byte elements 4096²;  ES=16 N=2896: 16-byte elements
//   V="t_lines,256,128;t_rec,64" TH=1 R=9 node bench/transpose/run.mjs   (scheme,params;…  threads  rounds)
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const N = +(process.env.N ?? 4096);
const ES = +(process.env.ES ?? 4);
const bytes = N * N * ES;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WASM = join(root, 'build', 'transpose-schemes.wasm');
const PRESET = {
  4: 't_direct,256,256;t_direct,64,64;t_direct,32,32;t_rec,32;t_rec,64;t_rec,128;t_scratch,64,64;t_wscratch,64,64;t_lscratch,256,16;t_half,256,16;t_lines2,256,32;t_lines,64,64;t_lines,128,64;t_lines,256,16;t_lines,256,128;t_lines,256,256;t_lines,512,64',
  8: 't8_direct,32;t8_direct,64;t8_lines,64,64;t8_lines,128,16;t8_lines,128,64;t8_lines,256,64',
  16: 't16_direct,16;t16_direct,32;t16_lines,32,32;t16_lines,64,16;t16_lines,64,32;t16_lines,128,32',
};
if (isMainThread) {
  mkdirSync(dirname(WASM), { recursive: true });
  const asc = join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js');
  execFileSync(process.execPath, [asc, join(root, 'bench', 'transpose', 'schemes.ts'), '--runtime', 'stub', '--importMemory', '--sharedMemory', '--initialMemory', '1', '--maximumMemory', '65536', '--enable', 'simd,threads', '--noAssert', '-O3', '--outFile', WASM], { stdio: 'inherit' });
  const mem = new WebAssembly.Memory({ initial: Math.ceil((2 * bytes + (1 << 24)) / 65536), maximum: 65536, shared: true });
  const mod = new WebAssembly.Module(readFileSync(WASM));
  const A = 1 << 20, B = A + bytes, SC = B + bytes;
  const u32 = new Uint32Array(mem.buffer);
  for (let i = 0; i < N * N * ES / 4; i++) u32[A / 4 + i] = i;
  const ctl = new Int32Array(new SharedArrayBuffer(64));
  const maxT = Math.max(...(process.env.TH ?? '1,2').split(',').map(Number));
  const ws = [];
  for (let t = 0; t < maxT; t++) ws.push(new Worker(new URL(import.meta.url), { workerData: { mem, mod, ctl, t } }));
  await new Promise((r) => setTimeout(r, 300));
  function run(name, mk, threads) {
    ctl[2] = 0;
    for (let t = 0; t < threads; t++) ws[t].postMessage({ name, args: mk(t, threads) });
    while (Atomics.load(ctl, 2) < threads) Atomics.wait(ctl, 2, Atomics.load(ctl, 2), 100);
  }
  const chunk = (t, T) => [Math.floor((N * t) / T / 16) * 16, t + 1 === T ? N : Math.floor((N * (t + 1)) / T / 16) * 16];
  const W = ES / 4; // u32 words per element
  function check() {
    for (let s = 0; s < 2000; s++) { const i = (s * 7919) % N, j = (s * 104729) % N; for (let w = 0; w < W; w++) if (u32[B / 4 + (j * N + i) * W + w] !== (i * N + j) * W + w) return false; }
    return true;
  }
  const spec = (process.env.V ?? PRESET[ES]).split(';').filter(Boolean);
  const rounds = +(process.env.R ?? 9);
  for (const threads of (process.env.TH ?? '1,2').split(',').map(Number)) {
    const vs = [{ s: 'copy', name: 't_copy', mk: (t, T) => { const [r0, r1] = chunk(t, T); return [A + r0 * N * ES, B + r0 * N * ES, (r1 - r0) * N * W]; } }];
    for (const s of spec) {
      const [name, ...ps] = s.split(',');
      const p = ps.map(Number);
      vs.push({ s, name, mk: (t, T) => { const [r0, r1] = chunk(t, T); const args = [A, B, N, N, r0, r1, ...p]; if (name.includes('scratch')) args.push(SC + t * (1 << 20)); return args; } });
    }
    for (const v of vs) {
      u32.fill(0xffffffff, B / 4, B / 4 + N * N * W);
      run(v.name, v.mk, threads);
      v.ok = v.s === 'copy' || check();
      v.ts = [];
    }
    for (let r = 0; r < rounds; r++)
      for (const v of vs) {
        let best = Infinity;
        for (let q = 0; q < 2; q++) { const t0 = performance.now(); run(v.name, v.mk, threads); best = Math.min(best, performance.now() - t0); }
        v.ts.push(best);
      }
    const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
    const cp = med(vs[0].ts);
    console.log(`threads ${threads}, ${N}² × ${ES} B: copy ${cp.toFixed(2)} ms (${((2 * bytes) / cp / 1e6).toFixed(1)} GB/s), ${rounds} interleaved rounds`);
    for (const v of vs.slice(1)) {
      const m = med(v.ts);
      const ratios = v.ts.map((t, r) => vs[0].ts[r] / t);
      console.log(`  ${v.s.padEnd(22)} ${m.toFixed(2)} ms  ${(100 * cp / m).toFixed(0)}% of copy (per-round ratio median ${(100 * med(ratios)).toFixed(0)}%) ${v.ok ? '' : 'WRONG'}`);
    }
  }
  ws.forEach((w) => w.terminate());
} else {
  const { mem, mod, ctl } = workerData;
  const inst = new WebAssembly.Instance(mod, { env: { memory: mem, abort() { throw new Error('abort'); } } });
  parentPort.on('message', ({ name, args }) => { inst.exports[name](...args); Atomics.add(ctl, 2, 1); Atomics.notify(ctl, 2); });
}
