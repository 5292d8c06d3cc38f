/**
 * The runtime under pressure: 50 operations fired at once give what they give in series; dispose()
 * during calls rejects them with DisposedError and leaks nothing (the process exits, the memory is
 * collected); 1,000 upload/dispose cycles leave the memory flat; a maxMemoryMB refusal leaves the
 * runtime usable.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { convert, DenseMatrix, FORMATS, type FormatName } from '../src/formats/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { DisposedError, MemoryLimitError } from '../src/errors.js';
import { checkAgainst, referenceSpmv } from './reference.js';
import { loadShared } from './matrices.js';
import { mulberry32 } from './random.js';

function randomVector(n: number, seed: number): Float64Array {
  const rnd = mulberry32(seed);
  return Float64Array.from({ length: n }, () => rnd() * 2 - 1);
}

/**
 * 50 independent operations on shared resident matrices, each with inputs of its own: SpMV in several
 * formats (N and T, typed arrays and resident vectors, β ≠ 0), BLAS-1 (axpy, scal, dot, nrm2), CG,
 * gemm and transpose. Each returns plain numbers to compare.
 */
const W = randomMatrix({ rows: 3000, cols: 2500, meanRowLength: 9, distribution: 'powerlaw', seed: 4 });

function operations(rt: Runtime): (() => Promise<unknown>)[] {
  const P = poisson3D(14);
  const handles = (['csr', 'hyb', 'jds', 'coo', 'ell', 'csc'] as FormatName[]).map((f) => rt.upload(convert(f === 'ell' ? P : W, f, { maxFill: 100 }), { format: 'keep' }));
  handles.push(rt.upload(loadShared('494_bus')));
  const ops: (() => Promise<unknown>)[] = [];
  for (let k = 0; ops.length < 50; k++) {
    const h = handles[k % handles.length];
    const seed = 100 + k;
    switch (k % 7) {
      case 0:
      case 1:
        ops.push(() => rt.spmv(h, randomVector(h.cols, seed), { alpha: 0.5 }));
        break;
      case 2:
        ops.push(() => rt.spmv(h, randomVector(h.rows, seed), { op: 'T' }));
        break;
      case 3:
        ops.push(async () => {
          const y = rt.vector(randomVector(h.rows, seed + 1));
          await rt.spmv(h, rt.vector(randomVector(h.cols, seed)), { y, beta: -2 });
          return y.read();
        });
        break;
      case 4:
        ops.push(async () => {
          const x = rt.vector(randomVector(40000, seed));
          const y = rt.vector(randomVector(40000, seed + 1));
          await rt.axpy(0.25, x, y);
          await rt.scal(3, y);
          return [await rt.dot(x, y), await rt.nrm2(y), await y.read()];
        });
        break;
      case 5:
        ops.push(async () => {
          const r = await rt.cg(handles[handles.length - 1], randomVector(494, seed), { tol: 1e-6, maxIter: 60 });
          return [r.x, r.iterations, r.residualNorm, r.history];
        });
        break;
      case 6:
        ops.push(async () => {
          const A = new DenseMatrix(70, 40, 'f64', randomVector(2800, seed));
          const B = new DenseMatrix(40, 50, 'f64', randomVector(2000, seed + 1));
          return [(await rt.gemm(A, B)).values, (await rt.transpose(A)).values];
        });
        break;
    }
  }
  return ops;
}

describe('the runtime under concurrency, dispose and memory pressure', () => {
  it('50 operations fired at once (Promise.all) on a runtime with workers give the results of the same operations in series', async () => {
    // a low inline threshold sends most operations to the pool
    const rt = await createRuntime({ workers: 3, inlineThreshold: 2000 });
    try {
      const series: unknown[] = [];
      for (const op of operations(rt)) series.push(await op());
      const atOnce = await Promise.all(operations(rt).map((op) => op()));
      expect(atOnce.length).toBe(50);
      for (let k = 0; k < 50; k++) expect(atOnce[k], `operation ${k}`).toEqual(series[k]);
      // and right: operation 0 is 0.5·W·x
      const ref = referenceSpmv({ ...W, complex: false, rowIdx: rowsOf(W.rowPtr) }, randomVector(W.cols, 100), null, 0.5, 0);
      expect(checkAgainst(series[0] as Float64Array, ref, 'double', false)).toBeNull();
    } finally {
      rt.dispose();
    }
  });

  it('dispose() during calls rejects them with DisposedError; later calls too', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    const A = rt.upload(poisson3D(30));
    const b = new Float64Array(A.rows).fill(1);
    const calls: Promise<unknown>[] = [rt.cg(A, b, { tol: 0, maxIter: 100000 })];
    for (let k = 0; k < 30; k++) calls.push(rt.spmv(A, b));
    const x = rt.vector(b);
    for (let k = 0; k < 10; k++) calls.push(rt.dot(x, x), rt.axpy(1, x, x));
    await new Promise((r) => setTimeout(r, 30));
    rt.dispose();
    const settled = await Promise.allSettled(calls);
    const rejected = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason);
    for (const e of rejected) expect(e).toBeInstanceOf(DisposedError);
    expect(rejected.length).toBeGreaterThan(0);
    expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(DisposedError); // the unbounded CG
    await expect(rt.spmv(A, b)).rejects.toBeInstanceOf(DisposedError);
    expect(() => rt.upload(poisson2D(3))).toThrow(DisposedError);
  });

  it('runtimes disposed during calls leak nothing: their memories are collected and Node exits on its own', () => {
    const dist = pathToFileURL(join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'index.js')).href;
    const file = join(mkdtempSync(join(tmpdir(), 'simdgl-robust-')), 'dispose-leak.mjs');
    writeFileSync(
      file,
      `import { createRuntime, poisson3D, DisposedError } from '${dist}';
const cycles = 6;
const collected = [];
const registry = new FinalizationRegistry((c) => collected.push(c));
const outcomes = {};
const A0 = poisson3D(24);
async function cycle(c) {
  const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
  registry.register(rt.cpuBackend.heap.memory, c);
  const A = rt.upload(A0);
  const b = new Float64Array(A.rows).fill(1);
  const calls = [rt.cg(A, b, { tol: 0, maxIter: 100000 })];
  for (let k = 0; k < 20; k++) calls.push(rt.spmv(A, b));
  await new Promise((r) => setTimeout(r, 20));
  rt.dispose();
  for (const s of await Promise.allSettled(calls)) {
    const k = s.status === 'fulfilled' ? 'fulfilled' : s.reason instanceof DisposedError ? 'DisposedError' : 'other: ' + s.reason;
    outcomes[k] = (outcomes[k] ?? 0) + 1;
  }
}
for (let c = 0; c < cycles; c++) await cycle(c);
for (let i = 0; i < 100 && collected.length < cycles; i++) {
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 20));
}
console.log(JSON.stringify({ cycles, collected: collected.length, outcomes }));
`,
    );
    const t = performance.now();
    const out = execFileSync(process.execPath, ['--expose-gc', file], { encoding: 'utf8', timeout: 60_000 });
    const r = JSON.parse(out.trim()) as { cycles: number; collected: number; outcomes: Record<string, number> };
    expect(Object.keys(r.outcomes).filter((k) => k.startsWith('other'))).toEqual([]);
    expect(r.outcomes.DisposedError).toBeGreaterThanOrEqual(r.cycles);
    expect(r.collected, 'WebAssembly memories collected after dispose').toBe(r.cycles);
    expect(performance.now() - t).toBeLessThan(50_000);
  });

  it('1,000 upload/use/dispose cycles leave memoryInUse and the WebAssembly memory flat', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 500 });
    try {
      const keep = rt.upload(poisson2D(10));
      const base = rt.memoryInUse;
      const memory = rt.cpuBackend.heap.memory;
      const mats = FORMATS.map((f, i) => convert(randomMatrix({ rows: 150 + 37 * i, cols: 140 + 29 * i, meanRowLength: 5, seed: i }), f, { maxFill: 1e3 }));
      let wasmAfterWarmup = 0;
      for (let c = 0; c < 1000; c++) {
        const A = mats[c % mats.length];
        const h = rt.upload(A);
        const op = c % 2 ? 'T' : 'N';
        const x = rt.vector(randomVector(op === 'N' ? A.cols : A.rows, c));
        const y = rt.vector(op === 'N' ? A.rows : A.cols);
        await rt.spmv(h, x, { y, op });
        x.dispose();
        y.dispose();
        h.dispose();
        expect(rt.memoryInUse, `cycle ${c}`).toBe(base);
        if (c === 99) wasmAfterWarmup = memory.buffer.byteLength;
      }
      expect(memory.buffer.byteLength).toBe(wasmAfterWarmup);
      expect(await rt.spmv(keep, new Float64Array(100).fill(1))).toBeInstanceOf(Float64Array);
    } finally {
      rt.dispose();
    }
  });

  it('a maxMemoryMB refusal leaves the runtime usable and its earlier data intact', async () => {
    const rt = await createRuntime({ maxMemoryMB: 16, workers: 2 });
    try {
      const S = loadShared('494_bus');
      const A = rt.upload(S);
      const x = randomVector(S.cols, 9);
      const before = await rt.spmv(A, x);
      const ref = referenceSpmv(
        { rows: S.rows, cols: S.cols, complex: false, rowIdx: rowsOf(S.rowPtr), colIdx: S.colIdx, values: S.values },
        x,
        null,
        1,
        0,
      );
      expect(checkAgainst(before, ref, 'double', false)).toBeNull();
      const inUse = rt.memoryInUse;
      const big = poisson3D(64); // 21 MB of CSR
      const refusals: [string, () => unknown][] = [
        ['upload', () => rt.upload(big, { format: 'keep' })],
        ['upload with conversion', () => rt.upload(big, { format: 'ell' })],
        // CSR the CPU runs in cache tiles (x of 1.8 MiB): 15.7 MB of tiles fit, their accumulators (1.9 MB) do not
        ['upload in cache tiles', () => rt.upload(randomMatrix({ rows: 240_000, meanRowLength: 6, distribution: 'powerlaw', seed: 5 }), { format: 'keep' })],
        ['vector', () => rt.vector(3_000_000)],
      ];
      for (const [what, f] of refusals) {
        expect(f, what).toThrow(MemoryLimitError);
        expect(rt.memoryInUse, what).toBe(inUse);
      }
      await expect(rt.gemm(new DenseMatrix(1100, 1100, 'f64', new Float64Array(1100 * 1100)), new DenseMatrix(1100, 1100, 'f64', new Float64Array(1100 * 1100)))).rejects.toBeInstanceOf(
        MemoryLimitError,
      );
      expect(rt.memoryInUse).toBe(inUse);
      // still usable: the old matrix gives the same product, new data that fits uploads and solves
      expect(await rt.spmv(A, x)).toEqual(before);
      const P = rt.upload(poisson3D(12));
      const r = await rt.cg(P, new Float64Array(P.rows).fill(1), { tol: 1e-8 });
      expect(r.converged).toBe(true);
    } finally {
      rt.dispose();
    }
  });
});

function rowsOf(ptr: Int32Array): Int32Array {
  const r = new Int32Array(ptr[ptr.length - 1]);
  for (let i = 0; i + 1 < ptr.length; i++) r.fill(i, ptr[i], ptr[i + 1]);
  return r;
}
