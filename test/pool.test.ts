/**
 * The worker pool: every SpMV on the shared matrices with 1, 2, 3 and 7 threads against the f64
 * reference, results bitwise identical across thread counts, faults (a worker that throws, exits or
 * stalls; dispose during a call), configuration, and a Node process that exits on its own.
 */
import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { runtimesByThreads, THREADS } from './runtimes-by-threads.js';
import { convert, FORMATS, type SparseMatrix } from '../src/formats/index.js';
import { allocValues, isComplex, type DType, type ValueArray } from '../src/dtype.js';
import { Prng } from '../src/generators/prng.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { DisposedError } from '../src/errors.js';
import { WorkerError, WorkerPool } from '../src/cpu/pool.js';
import * as C from '../src/cpu/control.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { checkAgainst, referenceSpmv, type Op, csrTriplets } from './reference.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

// inlineThreshold 0: even the smallest products go through the pool
const runtimes = runtimesByThreads({ inlineThreshold: 0 });

function randomValues(dtype: DType, n: number, seed: number): ValueArray {
  const v = allocValues(dtype, n);
  const rng = new Prng(seed);
  for (let i = 0; i < v.length; i++) v[i] = rng.next() * 2 - 1;
  return v;
}


function formatsOf(A: CSRMatrix): SparseMatrix[] {
  const out: SparseMatrix[] = [];
  for (const f of FORMATS) {
    if (f === 'dense' && A.rows * A.cols > 4e6) continue;
    try {
      out.push(convert(A, f, { maxFill: 1e9, maxSlots: 4e6 }));
    } catch (e) {
      if ((e as { code?: string }).code !== 'E_PADDING') throw e;
    }
  }
  return out;
}

/** All formats × ops on every thread count: correct, and bit for bit the same as one thread. */
async function checkParallel(base: CSRMatrix, dtype: DType, label: string): Promise<void> {
  const A = base.astype(dtype);
  const ref = csrTriplets(A);
  const precision = dtype === 'f32' || dtype === 'c64' ? 'single' : 'double';
  const alpha = isComplex(dtype) ? ([0.5, -1.25] as [number, number]) : -2.5;
  const beta = isComplex(dtype) ? ([-0.75, 0.5] as [number, number]) : 0.75;
  for (const M of formatsOf(A)) {
    const handles = THREADS.map((t) => [t, runtimes.get(t)!.upload(M, { format: 'keep' })] as const);
    for (const op of ['N', 'T', 'H'] as Op[]) {
      const [inLen, outLen] = op === 'N' ? [A.cols, A.rows] : [A.rows, A.cols];
      const x = randomValues(dtype, inLen, 3);
      const y0 = randomValues(dtype, outLen, 4);
      const r = referenceSpmv(ref, x, y0, alpha, beta, op);
      let first: ValueArray | null = null;
      for (const [t, h] of handles) {
        const y = await runtimes.get(t)!.spmv(h, x, { y: y0.slice(), alpha, beta, op });
        const bad = checkAgainst(y, r, precision, isComplex(dtype));
        if (bad) throw new Error(`${label} ${M.format} ${dtype} op=${op} threads=${t}: ${bad}`);
        if (!first) first = y;
        else if (!bitwiseEqual(first, y)) throw new Error(`${label} ${M.format} ${dtype} op=${op}: ${t} threads differ from 1 thread`);
      }
    }
    for (const [, h] of handles) h.dispose();
  }
}

function bitwiseEqual(a: ValueArray, b: ValueArray): boolean {
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return ua.length === ub.length && ua.every((v, i) => v === ub[i]);
}

describe('parallel SpMV on the shared matrices (1, 2, 3, 7 threads)', () => {
  for (const name of sharedMatrixNames()) {
    it(name, async () => {
      const base = loadShared(name);
      for (const dtype of (isComplex(base.dtype) ? ['c64', 'c128'] : ['f32', 'f64', 'c128']) as DType[]) {
        await checkParallel(base, dtype, name);
      }
    });
  }
  it('a power-law matrix, more threads than rows, and empty matrices', async () => {
    await checkParallel(randomMatrix({ rows: 3000, meanRowLength: 6, distribution: 'powerlaw', seed: 9 }), 'f64', 'powerlaw');
    await checkParallel(randomMatrix({ rows: 3, cols: 50, meanRowLength: 20, seed: 2 }), 'f32', '3 rows');
    await checkParallel(randomMatrix({ rows: 0, cols: 4, seed: 2 }), 'f64', '0×4');
  });
  it('poisson3D_32 with the default inline threshold, on 2 threads', async () => {
    const rt = await createRuntime({ workers: 2 });
    const A = poisson3D(32);
    const h = rt.upload(A);
    const x = randomValues('f64', A.cols, 5);
    const y = await rt.spmv(h, x);
    const solo = await runtimes.get(1)!.spmv(runtimes.get(1)!.upload(A), x);
    expect(bitwiseEqual(y, solo)).toBe(true);
    expect(rt.capabilities().threads).toBe(2);
    rt.dispose();
  });
});

describe('chunk claims', () => {
  it('a chunk is claimed once per job, and never for an older job than its last claim (a worker that woke late)', () => {
    const ctl = new Int32Array(new SharedArrayBuffer(C.CONTROL_BYTES));
    expect(C.claim(ctl, 1, 1)).toBe(true);
    expect(C.claim(ctl, 1, 1)).toBe(false); // the second claimant of job 1
    expect(C.claim(ctl, 1, 3)).toBe(true); // the caller takes chunk 1 of job 3
    expect(C.claim(ctl, 1, 2)).toBe(false); // a worker still at job 2 must not run job 3's chunk
    expect(C.claim(ctl, 2, 2)).toBe(true); // chunks are independent
    // the epoch counter wraps around: newer is by signed difference
    ctl[C.CLAIMS + 3] = 0x7fffffff;
    expect(C.claim(ctl, 3, -0x80000000)).toBe(true);
    expect(C.claim(ctl, 3, 0x7fffffff)).toBe(false);
  });
});

describe('faults', () => {
  const A = poisson3D(12);
  const x = randomValues('f64', A.cols, 1);

  it('a worker that throws rejects the call with WorkerError; the pool is replaced and the next call works', async () => {
    const rt = await createRuntime({ workers: 3, inlineThreshold: 0 });
    const h = rt.upload(A);
    const good = await rt.spmv(h, x);
    rt.cpuBackend.workerPool!.failNext(1, 'throw');
    await expect(rt.spmv(h, x)).rejects.toThrow(WorkerError);
    expect(bitwiseEqual(await rt.spmv(h, x), good)).toBe(true);
    rt.dispose();
  });

  it('a worker that exits rejects the call; the next call works', async () => {
    const rt = await createRuntime({ workers: 3, inlineThreshold: 0 });
    const h = rt.upload(A);
    const good = await rt.spmv(h, x);
    rt.cpuBackend.workerPool!.failNext(0, 'exit');
    await expect(rt.spmv(h, x)).rejects.toThrow(/exited with code 3/);
    expect(bitwiseEqual(await rt.spmv(h, x), good)).toBe(true);
    rt.dispose();
  });

  it('dispose() during a call rejects it with DisposedError', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
    const h = rt.upload(A);
    rt.cpuBackend.workerPool!.failNext(0, 'stall');
    const call = rt.spmv(h, x);
    setTimeout(() => rt.dispose(), 200);
    await expect(call).rejects.toThrow(DisposedError);
  });

  it('a worker that fails to start: the start rejects with its WorkerError and the workers that did start are terminated', async () => {
    // one real start fails (worker 1: refused before its thread exists, as when the engine cannot make
    // another thread); workers 0 and 2 start for real, and their terminate() is watched
    type Spawn = (index: number) => Promise<{ terminate(): void }>;
    const proto = WorkerPool.prototype as unknown as { spawn: Spawn };
    const realSpawn = proto.spawn;
    const terminated: number[] = [];
    const spy = vi.spyOn(proto, 'spawn').mockImplementation(async function (this: unknown, index: number) {
      if (index === 1) throw new WorkerError('worker 1 failed to start: no thread (test)');
      const w = await realSpawn.call(this, index);
      const terminate = w.terminate.bind(w);
      return { ...w, terminate: () => (terminated.push(index), terminate()) };
    });
    try {
      // 4 threads: the calling thread and workers 0, 1, 2
      const rt = await createRuntime({ workers: 4, inlineThreshold: 0 }).catch((e: unknown) => e);
      const error = rt instanceof Error ? rt : await (rt as Runtime).spmv((rt as Runtime).upload(A), x).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkerError);
      expect((error as Error).message).toMatch(/worker 1 failed to start/);
      expect(terminated.sort()).toEqual([0, 2]);
      if (!(rt instanceof Error)) (rt as Runtime).dispose();
    } finally {
      spy.mockRestore();
    }
  });

  it('a stalled worker times out: the call rejects, the pool is replaced, the next call works', async () => {
    const rt = await createRuntime({ workers: 2, inlineThreshold: 0, timeoutMs: 300 });
    const h = rt.upload(A);
    rt.cpuBackend.workerPool!.failNext(0, 'stall');
    await expect(rt.spmv(h, x)).rejects.toThrow(/did not finish within 300 ms/);
    expect((await rt.spmv(h, x)).length).toBe(A.rows);
    rt.dispose();
  });
});

describe('configuration', () => {
  it("workers: 'auto' uses the reported cores; setWorkers resizes and closes the pool", async () => {
    const os = await import('node:os');
    const rt = await createRuntime({ workers: 'auto' });
    expect(rt.capabilities().threads).toBe(os.availableParallelism());
    await rt.setWorkers(3);
    expect(rt.capabilities().threads).toBe(3);
    await rt.setWorkers(1);
    expect(rt.capabilities()).toMatchObject({ threads: 1, workers: false, sharedMemory: true, simd: true });
    rt.setSpin(0);
    rt.setInlineThreshold(10);
    expect(() => rt.setInlineThreshold(-1)).toThrow(RangeError);
    await expect(createRuntime({ workers: 0 })).rejects.toThrow(RangeError);
    await expect(createRuntime({ workers: 1.5 })).rejects.toThrow(/workers must be an integer/);
    rt.dispose();
  });

  it('a Node process exits on its own after dispose() (and even without it)', () => {
    const dist = pathToFileURL(join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'index.js')).href;
    const dir = mkdtempSync(join(tmpdir(), 'simdgl-exit-'));
    for (const dispose of [true, false]) {
      const file = join(dir, `exit-${dispose}.mjs`);
      writeFileSync(
        file,
        `import { createRuntime, poisson3D } from '${dist}';
const rt = await createRuntime({ workers: 3, inlineThreshold: 0 });
const A = rt.upload(poisson3D(10));
const y = await rt.spmv(A, new Float64Array(1000).fill(1));
if (y.length !== 1000) process.exit(5);
${dispose ? 'rt.dispose();' : ''}
console.log('done');
`,
      );
      const t = performance.now();
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
      expect(out.trim()).toBe('done');
      expect(performance.now() - t).toBeLessThan(15_000);
    }
  });
});
