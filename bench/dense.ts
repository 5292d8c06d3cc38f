/**
 * Dense benchmark, every comparison measured in the same run:
 * - f32 gemm n = 1024 (GFLOP/s = 2n³/t, median time) on 1 and 2 threads: tiled (packed B) vs the naive
 *   triple loop (seeds 003/004's naive-vs-tiled ratio), vs TensorFlow.js's wasm backend (XNNPACK, its
 *   own threads) and its pure-JS cpu backend (tf.matMul + dataSync); f64, c64 and c128 at n = 512;
 * - transpose of 64 MiB in every dtype (f32 4096 × 4096, f64 and c64 2048 × 4096, c128 2048 × 2048;
 *   effective GB/s = bytes read + written / t) on 1 and 2 threads, vs the memory-copy bandwidth of the
 *   same machine: Float32Array.prototype.set of 64 MiB, and the copy_f32 kernel through the pool.
 * - the same f32 transpose through rt.transpose: a DenseMatrix operand (copied in and out per call)
 *   against a resident handle from rt.dense() (no copies; issue 12 item 6).
 * Goals (printed met/MISS): gemm 2 threads ≥ 1.5× tfjs-wasm, ≥ 20× tfjs-cpu; transpose ≥ 50% of memcpy.
 *
 * Standalone: npx esbuild bench/dense.ts --bundle --platform=node --format=esm \
 *   --outfile=build/bench-dense.mjs --external:@tensorflow/* && node build/bench-dense.mjs
 */
import os from 'node:os';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';

import { CpuBackend } from '../src/cpu/backend.js';
import { gemm, gemmNaive, transpose } from '../src/cpu/dense.js';
import { copy } from '../src/cpu/blas1.js';
import { Prng } from '../src/generators/prng.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { DenseMatrix } from '../src/formats/dense.js';
import { elementBytes, isComplex, type DType } from '../src/dtype.js';
import { median, timeMedianMs } from '../src/metrics.js';

export interface DenseBenchResult {
  gemmGflops: Record<string, number | null>;
  transposeGBs: Record<string, number | null>;
  /** transpose time over copy time, median of the per-round ratios (copy and transpose alternating) */
  transposeRatio: Record<string, number>;
  goals: { label: string; ratio: number | null; min: number; met: boolean }[];
}

const rand = (n: number, seed: number): Float32Array => {
  const r = new Prng(seed);
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) v[i] = r.next() * 2 - 1;
  return v;
};

/** Median ms over at least `reps` runs after a warm-up (for runs too slow for timeMedianMs's loop). */
async function timeFew(fn: () => unknown, reps: number): Promise<number> {
  await fn();
  const t: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

/**
 * a and b timed in alternation (a, b, a, b, … after a warm-up of each), so the drift of a shared machine
 * hits both alike: [median ms of a, median ms of b, median of the per-round ratios a/b].
 */
async function timeAlternating(a: () => unknown, b: () => unknown, rounds: number): Promise<[number, number, number]> {
  await a();
  await b();
  const ta: number[] = [], tb: number[] = [], q: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    tb.push(performance.now() - t0);
    q.push(ta[r] / tb[r]);
  }
  return [median(ta), median(tb), median(q)];
}

interface Tf {
  tf: typeof import('@tensorflow/tfjs-core');
  wasmThreads: number | null;
}

async function loadTf(log: (s: string) => void): Promise<Tf | null> {
  try {
    const tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-cpu');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    // the .wasm files ship in the npm package's dist folder
    // (SIMDGL_TFJS_WASM_DIR overrides, for a bundled copy of this benchmark run away from node_modules)
    const dist = process.env.SIMDGL_TFJS_WASM_DIR ?? dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    wasm.setWasmPaths(dist.endsWith('/') ? dist : dist + '/');
    return { tf, wasmThreads: null };
  } catch (e) {
    log(`  tfjs unavailable: ${(e as Error).message}`);
    return null;
  }
}

async function tfMatmulMs(T: Tf, backend: 'wasm' | 'cpu', n: number, A: Float32Array, B: Float32Array, reps: number, log: (s: string) => void): Promise<number | null> {
  const { tf } = T;
  try {
    if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} did not initialise`);
    await tf.ready();
    if (backend === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      T.wasmThreads = wasm.getThreadsCount();
    }
    const a = tf.tensor2d(A, [n, n]);
    const b = tf.tensor2d(B, [n, n]);
    const ms = await timeFew(() => {
      const c = tf.matMul(a, b);
      c.dataSync();
      c.dispose();
    }, reps);
    a.dispose();
    b.dispose();
    return ms;
  } catch (e) {
    log(`  tfjs-${backend} failed: ${(e as Error).message}`);
    return null;
  }
}

/** `only` runs one half (for quick runs of a bundled copy); `npm run bench` runs both. */
export async function benchDense(log: (s: string) => void, only?: 'gemm' | 'transpose'): Promise<DenseBenchResult> {
  const n = 1024;
  const flops = 2 * n ** 3;
  const gf = (ms: number | null) => (ms ? flops / ms / 1e6 : null);
  const fmt = (x: number | null, d = 1) => (x === null ? 'n/a' : x.toFixed(d));
  const res: DenseBenchResult = { gemmGflops: {}, transposeGBs: {}, transposeRatio: {}, goals: [] };
  log(`dense bench — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.availableParallelism()}, Node ${process.version}`);

  let tfWasm: number | null = null, tfCpu: number | null = null;
  if (only !== 'transpose') {
    const A = rand(n * n, 1);
    const B = rand(n * n, 2);
    log(`\n== f32 gemm ${n}×${n}·${n}×${n} (GFLOP/s = 2n³/t, median) ==`);
    let check: Float32Array | null = null;
    for (const threads of [1, 2]) {
      const be = await CpuBackend.create({ threads, inlineThreshold: 0 });
      try {
        const va = be.vector('f32', n * n), vb = be.vector('f32', n * n), vc = be.vector('f32', n * n);
        va.view().set(A);
        vb.view().set(B);
        const R = (v: { ptr: number }) => ({ ptr: v.ptr, rows: n, cols: n });
        const tiled = await timeMedianMs(() => gemm(be, 'f32', R(va), R(vb), R(vc), 1, 0), 1500, 5, 50);
        res.gemmGflops[`simdgl ${threads}t`] = gf(tiled);
        const out = (vc.view() as Float32Array).slice();
        if (check) {
          let d = 0;
          for (let i = 0; i < out.length; i++) d = Math.max(d, Math.abs(out[i] - check[i]));
          if (d !== 0) log(`  WARNING: ${threads}-thread result differs from 1-thread by ${d}`);
        } else check = out;
        const naive = await timeFew(() => gemmNaive(be, 'f32', R(va), R(vb), R(vc), 1, 0), 2);
        res.gemmGflops[`naive ${threads}t`] = gf(naive);
        log(`  simdgl tiled ${threads} thread(s): ${fmt(tiled, 1)} ms  ${fmt(gf(tiled))} GFLOP/s   naive: ${fmt(naive, 0)} ms  ${fmt(gf(naive), 2)} GFLOP/s   tiled/naive ${(naive / tiled).toFixed(1)}×`);
      } finally {
        be.dispose();
      }
    }
    // spot check against an f64 dot product on a few entries
    if (check) {
      let worst = 0;
      for (let s = 0; s < 64; s++) {
        const i = (s * 97) % n, j = (s * 389) % n;
        let ref = 0, mag = 0;
        for (let p = 0; p < n; p++) {
          ref += A[i * n + p] * B[p * n + j];
          mag += Math.abs(A[i * n + p] * B[p * n + j]);
        }
        worst = Math.max(worst, Math.abs(check[i * n + j] - ref) / mag);
      }
      log(`  spot check vs f64: max |err|/Σ|a·b| = ${worst.toExponential(2)}`);
    }
    // the other dtypes, n = 512 (GFLOP/s of real arithmetic: 2n³ real, 8n³ complex)
    const m = 512;
    const cells: string[] = [];
    for (const threads of [1, 2]) {
      const be = await CpuBackend.create({ threads, inlineThreshold: 0 });
      try {
        for (const dt of ['f64', 'c64', 'c128'] as DType[]) {
          const len = m * m * (isComplex(dt) ? 2 : 1);
          const va = be.vector(dt, m * m), vb = be.vector(dt, m * m), vc = be.vector(dt, m * m);
          va.view().set(rand(len, 4));
          vb.view().set(rand(len, 5));
          const R = (v: { ptr: number }) => ({ ptr: v.ptr, rows: m, cols: m });
          const ms = await timeMedianMs(() => gemm(be, dt, R(va), R(vb), R(vc), 1, 0), 1000, 5, 50);
          const g = ((isComplex(dt) ? 8 : 2) * m ** 3) / ms / 1e6;
          res.gemmGflops[`${dt} 512 ${threads}t`] = g;
          cells.push(`${dt} ${threads}t ${g.toFixed(1)}`);
          for (const v of [va, vb, vc]) v.dispose();
        }
      } finally {
        be.dispose();
      }
    }
    log(`  n = 512, GFLOP/s (real arithmetic): ${cells.join('   ')}`);
    const T = await loadTf(log);
    if (T) {
      const msW = await tfMatmulMs(T, 'wasm', n, A, B, 5, log);
      tfWasm = gf(msW);
      log(`  tfjs-wasm (${T.wasmThreads ?? '?'} thread(s)): ${fmt(msW, 1)} ms  ${fmt(tfWasm)} GFLOP/s`);
      const msC = await tfMatmulMs(T, 'cpu', n, A, B, 2, log);
      tfCpu = gf(msC);
      log(`  tfjs-cpu (pure JS): ${fmt(msC, 0)} ms  ${fmt(tfCpu, 2)} GFLOP/s`);
    }
    res.gemmGflops['tfjs-wasm'] = tfWasm;
    res.gemmGflops['tfjs-cpu'] = tfCpu;
  }

  if (only !== 'gemm') {
    // ---------------------------------------------------------------- transpose vs memcpy
    // Every dtype moves the same 64 MiB: f32 4096², f64 and c64 2048 × 4096, c128 2048²
    // (powers of two: the hardest case for caches, every row of A maps to the same cache sets).
    const bytes = 64 * 2 ** 20;
    const gbs = (ms: number) => (2 * bytes) / ms / 1e6; // read + write
    const shapes: [DType, number, number][] = [['f32', 4096, 4096], ['f64', 2048, 4096], ['c64', 2048, 4096], ['c128', 2048, 2048]];
    log(`\n== transpose, 64 MiB (f32 4096², f64/c64 2048×4096, c128 2048²; GB/s = (read + written) / t, median) ==`);
    const src = rand(bytes / 4, 3);
    const dstJs = new Float32Array(bytes / 4);
    const ROUNDS = 11;
    for (const threads of [1, 2]) {
      const be = await CpuBackend.create({ threads, inlineThreshold: 0 });
      try {
        const va = be.vector('f32', bytes / 4), vb = be.vector('f32', bytes / 4);
        va.view().set(src);
        vb.view().fill(0);
        const cp = () => copy(be, va, vb);
        const cells: string[] = [];
        for (const [dt, rows, cols] of shapes) {
          const tr = () => transpose(be, dt, rows, cols, va.ptr, vb.ptr);
          const [cpMs, trMs, ratio] = await timeAlternating(cp, tr, ROUNDS);
          // check a sample against the definition (u32 words: an element is 1, 2 or 4 of them)
          const w = elementBytes(dt) / 4;
          const inp = new Uint32Array(src.buffer), out = new Uint32Array(vb.view().buffer, vb.ptr, bytes / 4);
          for (let s = 0; s < 1000; s++) {
            const i = (s * 7919) % rows, j = (s * 104729) % cols;
            for (let q = 0; q < w; q++) if (out[(j * rows + i) * w + q] !== inp[(i * cols + j) * w + q]) throw new Error(`${dt} transpose check failed at (${i}, ${j})`);
          }
          res.transposeGBs[`transpose ${dt} ${threads}t`] = gbs(trMs);
          res.transposeGBs[`copy_f32 ${threads}t (beside ${dt})`] = gbs(cpMs);
          res.transposeRatio[`${dt} ${threads}t / copy_f32`] = ratio;
          cells.push(`${dt} ${trMs.toFixed(1)} ms ${(100 * ratio).toFixed(0)}% (copy ${cpMs.toFixed(1)} ms)`);
        }
        if (threads === 1) {
          const [setMs, , ratio] = await timeAlternating(() => dstJs.set(src), () => transpose(be, 'f32', 4096, 4096, va.ptr, vb.ptr), ROUNDS);
          res.transposeGBs['Float32Array.set'] = gbs(setMs);
          res.transposeRatio['f32 1t / Float32Array.set'] = ratio;
          cells.push(`f32 vs memcpy (Float32Array.set ${setMs.toFixed(1)} ms): ${(100 * ratio).toFixed(0)}%`);
        }
        log(`  ${threads} thread(s), transpose ms and % of copy_f32 timed alternately:\n    ${cells.join('\n    ')}`);
      } finally {
        be.dispose();
      }
    }
    // the same transpose through the public runtime: a DenseMatrix operand is copied in and the result
    // copied out on every call; a resident handle (rt.dense) is used in place and the result stays resident
    const N = 4096;
    const memcpyGBs = res.transposeGBs['Float32Array.set'] ?? NaN;
    for (const threads of [1, 2]) {
      const rt = await createRuntime({ workers: threads, inlineThreshold: 0 });
      try {
        const M = new DenseMatrix(N, N, 'f32', src);
        const plain = await timeFew(() => rt.transpose(M), 5);
        const h = rt.dense(M);
        const resident = await timeFew(async () => (await rt.transpose(h)).dispose(), 5);
        const T = await rt.transpose(h);
        const out = (await T.read()).values;
        for (let s = 0; s < 1000; s++) {
          const i = (s * 7919) % N, j = (s * 104729) % N;
          if (out[j * N + i] !== src[i * N + j]) throw new Error(`rt.transpose check failed at (${i}, ${j})`);
        }
        res.transposeGBs[`rt.transpose DenseMatrix ${threads}t`] = gbs(plain);
        res.transposeGBs[`rt.transpose handle ${threads}t`] = gbs(resident);
        log(`  rt.transpose ${threads} thread(s): DenseMatrix ${plain.toFixed(2)} ms ${gbs(plain).toFixed(1)} GB/s (${((100 * gbs(plain)) / memcpyGBs).toFixed(0)}% of memcpy)   resident handle ${resident.toFixed(2)} ms ${gbs(resident).toFixed(1)} GB/s (${((100 * gbs(resident)) / memcpyGBs).toFixed(0)}% of memcpy)   handle/DenseMatrix ${(plain / resident).toFixed(1)}×`);
      } finally {
        rt.dispose();
      }
    }
  }

  const goal = (label: string, ratio: number | null, min: number) => res.goals.push({ label, ratio, min, met: ratio !== null && ratio >= min });
  const g2 = res.gemmGflops['simdgl 2t'] ?? null;
  const g1 = res.gemmGflops['simdgl 1t'] ?? null;
  if (only !== 'transpose') {
    goal('gemm f32 1024, 2 threads / tfjs-wasm', g2 && tfWasm ? g2 / tfWasm : null, 1.5);
    goal('gemm f32 1024, 2 threads / tfjs-cpu', g2 && tfCpu ? g2 / tfCpu : null, 20);
    goal('gemm f32 1024, 1 thread tiled / naive', g1 && res.gemmGflops['naive 1t'] ? g1 / res.gemmGflops['naive 1t']! : null, 10);
  }
  if (only !== 'gemm') {
    const r = res.transposeRatio;
    goal('transpose 4096 f32, 1 thread / memcpy (Float32Array.set)', r['f32 1t / Float32Array.set'] ?? null, 0.5);
    goal('transpose 4096 f32, 1 thread / copy_f32 1 thread', r['f32 1t / copy_f32'] ?? null, 0.5);
    goal('transpose 4096 f32, 2 threads / copy_f32 2 threads', r['f32 2t / copy_f32'] ?? null, 0.5);
  }
  log('\n== dense goals ==');
  for (const g of res.goals) log(`  ${g.met ? 'met ' : 'MISS'}  ${g.label}: ${g.ratio === null ? 'n/a' : g.ratio.toFixed(2)}× (goal ≥ ${g.min}×)`);
  return res;
}
