import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { convert, FORMATS, type FormatName } from '../formats/index.js';
import type { CSRMatrix } from '../formats/csr.js';
import { parseMatrixMarket } from '../io/index.js';
import { poisson3D } from '../generators/poisson.js';
import { Prng } from '../generators/prng.js';
import { allocValues, componentBytes, components, isComplex, type DType, type ValueArray } from '../dtype.js';
import { SimdglError } from '../errors.js';
import { effectiveGBs, maxRelativeError, spmvGflops, timeMedianMs } from '../metrics.js';
import { jsCsrSpmv } from './js-csr.js';

/** A matrix to compare on: a name and a loader returning canonical CSR in f64 or c128. */
export interface MatrixSource {
  name: string;
  load(): CSRMatrix;
}

/** One measured (or skipped) combination. `impl` is the code that ran. */
export interface CompareRow {
  matrix: string;
  rows: number;
  cols: number;
  nnz: number;
  format: FormatName | 'js-csr';
  dtype: DType;
  /** wasm-simd-mt: the SIMD build on the worker pool (`threads` threads, the calling one included) */
  impl: 'wasm-simd' | 'wasm-plain' | 'wasm-simd-mt' | 'js';
  /** threads the row ran on (1 except for wasm-simd-mt) */
  threads?: number;
  kernelMs?: number;
  gflops?: number;
  gbs?: number;
  maxRelError?: number;
  skipped?: string;
}

export interface CompareOptions {
  formats?: readonly FormatName[];
  dtypes?: readonly DType[];
  /** minimum time spent timing each combination (ms) */
  minMs?: number;
  /** also run the SIMD build on a pool of this many threads (rows with impl 'wasm-simd-mt'); 1 = no */
  workers?: number;
  onProgress?: (done: number, total: number, what: string) => void;
}

/** The default workload of `npm start`: poisson3D_64 plus the shared SuiteSparse matrices when present. */
export function defaultSources(matrixDirs: string[]): MatrixSource[] {
  const sources: MatrixSource[] = [{ name: 'poisson3D_64', load: () => poisson3D(64) }];
  const dir = matrixDirs.find((d) => existsSync(d));
  if (dir) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.mtx')).sort()) sources.push(fileSource(join(dir, f)));
  }
  return sources;
}

export function fileSource(path: string): MatrixSource {
  return { name: basename(path, '.mtx'), load: () => parseMatrixMarket(readFileSync(path)).matrix.toCSR() };
}

/** A reproducible x in [-1, 1) for a dtype. */
export function randomVector(dtype: DType, n: number, seed: number): ValueArray {
  const v = allocValues(dtype, n);
  const rng = new Prng(seed);
  for (let i = 0; i < v.length; i++) v[i] = rng.next() * 2 - 1;
  return v;
}

/**
 * Runs every format × dtype on the SIMD build, the plain build and the plain JavaScript CSR loop, and
 * yields a row per combination. Errors are measured against the f64 (c128) JavaScript CSR product.
 */
export async function* compare(sources: MatrixSource[], options: CompareOptions = {}): AsyncGenerator<CompareRow> {
  const formats = options.formats ?? FORMATS;
  const runtimes: Array<[CompareRow['impl'], Runtime]> = [
    ['wasm-simd', await createRuntime({ backend: 'cpu', simd: 'auto' })],
    ['wasm-plain', await createRuntime({ backend: 'cpu', simd: false })],
  ];
  const threads = options.workers ?? 1;
  if (threads > 1) runtimes.push(['wasm-simd-mt', await createRuntime({ backend: 'cpu', simd: 'auto', workers: threads })]);
  const perFormat = runtimes.length;
  const perMatrix = (options.dtypes ?? ['f32', 'f64', 'c64', 'c128']).length * (formats.length * perFormat + 1);
  const total = sources.length * perMatrix;
  let done = 0;
  const tick = (what: string): void => options.onProgress?.(++done, total, what);
  try {
    for (const src of sources) {
      const base = src.load();
      const dtypes = options.dtypes ?? ['f32', 'f64', 'c64', 'c128'];
      for (const dtype of dtypes) {
        const row = { matrix: src.name, rows: base.rows, cols: base.cols, nnz: base.nnz, dtype };
        if (isComplex(base.dtype) && !isComplex(dtype)) {
          done += formats.length * perFormat + 1;
          yield { ...row, format: 'js-csr', impl: 'js', skipped: 'complex matrix, real dtype' };
          continue;
        }
        const cplx = isComplex(dtype);
        const ref64 = base.astype(cplx ? 'c128' : 'f64');
        const x64 = randomVector(ref64.dtype, base.cols, 7);
        const yRef = allocValues(ref64.dtype, base.rows);
        jsCsrSpmv(ref64, x64, yRef);
        const A = base.astype(dtype);
        const x = allocValues(dtype, base.cols);
        x.set(x64);
        const bytes = (fmtBytes: number): number => fmtBytes + (base.cols + base.rows) * components(dtype) * componentBytes(dtype);
        // the plain JavaScript loop on the same dtype's arrays
        const yJs = allocValues(dtype, base.rows);
        const jsMs = await timeMedianMs(() => jsCsrSpmv(A, x, yJs), options.minMs);
        tick(`${src.name} js ${dtype}`);
        yield { ...row, format: 'js-csr', impl: 'js', threads: 1, ...figures(jsMs, base.nnz, cplx, bytes(A.storageBytes()), yJs, yRef) };
        for (const format of formats) {
          let M;
          try {
            M = convert(A, format);
          } catch (e) {
            if (!(e instanceof SimdglError)) throw e;
            done += perFormat;
            yield { ...row, format, impl: 'wasm-simd', skipped: e.message };
            continue;
          }
          for (const [impl, rt] of runtimes) {
            const h = rt.upload(M);
            const xv = rt.vector(x, dtype);
            const yv = rt.vector(base.rows, dtype);
            try {
              const ms = await timeMedianMs(() => rt.spmv(h, xv, { y: yv }), options.minMs);
              tick(`${src.name} ${format} ${dtype} ${impl}`);
              yield { ...row, format, impl, threads: impl === 'wasm-simd-mt' ? threads : 1, ...figures(ms, base.nnz, cplx, bytes(h.storageBytes), await yv.read(), yRef) };
            } finally {
              h.dispose();
              xv.dispose();
              yv.dispose();
            }
          }
        }
      }
    }
  } finally {
    for (const [, rt] of runtimes) rt.dispose();
  }
}

function figures(ms: number, nnz: number, cplx: boolean, bytes: number, y: ArrayLike<number>, ref: ArrayLike<number>) {
  return {
    kernelMs: ms,
    gflops: spmvGflops(nnz, cplx, ms / 1e3),
    gbs: effectiveGBs(bytes, ms / 1e3),
    maxRelError: maxRelativeError(y, ref),
  };
}
