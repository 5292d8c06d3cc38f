/**
 * Every storage format and `format: 'auto'` against the native C CSR (bench/native/spmv_csr.c, gcc
 * -O3 -march=native, OpenMP) in the same run: f32 and f64, resident vectors, for each thread count
 * (default 1 and 2; SIMDGL_THREADS=1,2,4,8,16 picks others), on poisson3D_128, the power-law matrix
 * of issue 11 (1 M rows) and the larger real shared matrices (data/matrices, or $SIMDGL_MATRICES).
 * SIMDGL_SELL=C:σ,C:σ adds SELL rows with those parameters (how the defaults were chosen);
 * SIMDGL_TILES=off,R:W,… adds CSR rows run by a runtime with createRuntime({ cacheTiles }) false
 * ('csr rows') or { rows: R, cols: W } ('csr R:W');
 * SIMDGL_FORMATS=csr,sell,auto and SIMDGL_ONLY_MATRICES=poisson3D_128,… narrow the run.
 * Every product is checked against an f64 reference before its time counts; the contenders are timed
 * in 5 interleaved rounds (ms = median of the rounds' medians).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import type { RuntimeOptions, UploadOptions } from '../src/runtime/options.js';
import type { MatrixHandle, ResidentVector } from '../src/runtime/handles.js';
import { FORMATS } from '../src/formats/index.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { parseMatrixMarket } from '../src/io/index.js';
import { poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { isComplex, type DType } from '../src/dtype.js';
import { maxRelativeError, median, timeMedianMs } from '../src/metrics.js';
import { benchVector, referenceProduct } from './bench-data.js';
import { nativeCsrSpmv } from './peers/native.js';

export interface FormatRow {
  matrix: string;
  dtype: DType;
  /** a format, 'auto', a SELL variant, or 'native C' */
  impl: string;
  /** the format 'auto' chose */
  chose?: string;
  threads: number;
  ms: number | null;
  note?: string;
}

const MIN_MS = 600;
const ROUNDS = 5;
const SHARED = ['Groebner_id2003_aug', 'bcsstk13', 'rajat01'];

export function formatBenchMatrices(): Array<[string, () => CSRMatrix]> {
  const dir = process.env.SIMDGL_MATRICES ?? path.resolve('data/matrices');
  const shared = SHARED.filter((n) => existsSync(path.join(dir, `${n}.mtx`))).map(
    (n) => [n, () => parseMatrixMarket(readFileSync(path.join(dir, `${n}.mtx`))).matrix.toCSR()] as [string, () => CSRMatrix],
  );
  const all: Array<[string, () => CSRMatrix]> = [
    ['poisson3D_128', () => poisson3D(128)],
    ['powerlaw_1M', () => randomMatrix({ rows: 1e6, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 })],
    ...shared,
  ];
  const only = process.env.SIMDGL_ONLY_MATRICES?.split(',');
  return only ? all.filter(([n]) => only.includes(n)) : all;
}

/** One row of a table: its label, the upload options and, for a tiles variant, the runtime's cacheTiles. */
interface Variant {
  impl: string;
  upload: UploadOptions;
  cacheTiles?: RuntimeOptions['cacheTiles'];
}

/** What each row uploads: every format, 'auto', and the variants of SIMDGL_SELL and SIMDGL_TILES. */
function variants(): Variant[] {
  const only = process.env.SIMDGL_FORMATS?.split(',');
  const out: Variant[] = [...FORMATS, 'auto' as const].filter((f) => !only || only.includes(f)).map((f) => ({ impl: f, upload: { format: f } }));
  for (const v of (process.env.SIMDGL_SELL ?? '').split(',').filter(Boolean)) {
    const [C, sigma] = v.split(':').map(Number);
    out.push({ impl: `sell ${C}:${sigma}`, upload: { format: 'sell', sliceHeight: C, sortWindow: sigma } });
  }
  for (const v of (process.env.SIMDGL_TILES ?? '').split(',').filter(Boolean)) {
    if (v === 'off') out.push({ impl: 'csr rows', upload: { format: 'csr' }, cacheTiles: false });
    else {
      const [rows, cols] = v.split(':').map(Number);
      out.push({ impl: `csr ${rows}:${cols}`, upload: { format: 'csr' }, cacheTiles: { rows, cols } });
    }
  }
  return out;
}

export async function benchFormats(log: (s: string) => void): Promise<FormatRow[]> {
  const threadCounts = process.env.SIMDGL_THREADS ? process.env.SIMDGL_THREADS.split(',').map(Number) : [1, 2];
  const todo = variants();
  // one runtime per thread count and cacheTiles setting
  const runtimes = new Map<string, Runtime>();
  const runtimeFor = async (t: number, v: Variant): Promise<Runtime> => {
    const key = `${t} ${JSON.stringify(v.cacheTiles ?? 'auto')}`;
    let rt = runtimes.get(key);
    if (!rt) runtimes.set(key, (rt = await createRuntime({ workers: t, backend: 'cpu', maxMemoryMB: 4096, cacheTiles: v.cacheTiles })));
    return rt;
  };
  const rows: FormatRow[] = [];
  try {
    for (const [name, make] of formatBenchMatrices()) {
      const base = make();
      if (isComplex(base.dtype)) continue;
      for (const dtype of ['f32', 'f64'] as DType[]) {
        const A = base.astype(dtype);
        const x = benchVector(dtype, A.cols);
        const yRef = referenceProduct(base, x);
        const tol = dtype === 'f32' ? 1e-4 : 1e-12;
        const checked = (y: ArrayLike<number>): string | undefined => {
          const err = maxRelativeError(y, yRef);
          return err > tol ? `WRONG RESULT (error ${err.toExponential(1)})` : undefined;
        };
        for (const t of threadCounts) {
          // every contender resident at once, then timed in interleaved rounds (native included), so
          // load from other processes on a shared machine falls on all of them alike
          const vectors = new Map<Runtime, { xv: ResidentVector; yv: ResidentVector }>();
          const live: Array<{ impl: string; rt: Runtime; h: MatrixHandle; xv: ResidentVector; yv: ResidentVector; times: number[]; note?: string }> = [];
          for (const v of todo) {
            const rt = await runtimeFor(t, v);
            if (!vectors.has(rt)) vectors.set(rt, { xv: rt.vector(x), yv: rt.vector(A.rows, dtype) });
            const { xv, yv } = vectors.get(rt)!;
            try {
              const h = rt.upload(A, v.upload);
              await rt.spmv(h, xv, { y: yv });
              live.push({ impl: v.impl, rt, h, xv, yv, times: [], note: checked(await yv.read()) });
            } catch (e) {
              rows.push({ matrix: name, dtype, impl: v.impl, threads: t, ms: null, note: (e as { code?: string }).code === 'E_PADDING' ? 'refused (padding)' : String(e) });
            }
          }
          const nat: number[] = [];
          let natNote: string | undefined;
          for (let round = 0; round < ROUNDS; round++) {
            const r = await nativeCsrSpmv(A, x, t, { minMs: MIN_MS / ROUNDS });
            if ('skipped' in r) natNote = r.skipped;
            else {
              nat.push(r.ms);
              natNote ??= checked(r.y);
            }
            for (const v of live) v.times.push(await timeMedianMs(() => v.rt.spmv(v.h, v.xv, { y: v.yv }), MIN_MS / ROUNDS, 3));
          }
          rows.push({ matrix: name, dtype, impl: 'native C', threads: t, ms: nat.length ? median(nat) : null, note: natNote });
          for (const v of live) {
            rows.push({ matrix: name, dtype, impl: v.impl, chose: v.impl === 'auto' ? v.h.format : undefined, threads: t, ms: median(v.times), note: v.note });
            v.h.dispose();
          }
          for (const { xv, yv } of vectors.values()) {
            xv.dispose();
            yv.dispose();
          }
        }
        printTable(log, name, A, dtype, rows.filter((r) => r.matrix === name && r.dtype === dtype), threadCounts);
      }
    }
  } finally {
    for (const rt of runtimes.values()) rt.dispose();
  }
  return rows;
}

/** One table per matrix and dtype: ms per thread count, and native ms / ours (> 1: faster than native). */
function printTable(log: (s: string) => void, name: string, A: CSRMatrix, dtype: DType, rows: FormatRow[], threadCounts: number[]): void {
  const impls = [...new Set(rows.map((r) => r.impl))];
  const native = (t: number) => rows.find((r) => r.impl === 'native C' && r.threads === t)?.ms ?? null;
  log(`\n${name} ${dtype}  ${A.rows}×${A.cols}, nnz ${A.nnz}  (ms; ×native = native C ms / ms, same thread count)`);
  log(['impl'.padEnd(16), ...threadCounts.map((t) => `${t} thr ms`.padStart(10) + '  ×native')].join(''));
  for (const impl of impls) {
    const cells = threadCounts.map((t) => {
      const r = rows.find((q) => q.impl === impl && q.threads === t);
      if (!r || r.ms === null) return `${'-'.padStart(10)}${''.padStart(9)}`;
      const nat = native(t);
      return r.ms.toFixed(3).padStart(10) + (impl !== 'native C' && nat ? `${(nat / r.ms).toFixed(2)}×`.padStart(9) : ''.padStart(9));
    });
    const r0 = rows.find((q) => q.impl === impl);
    const notes = [...new Set(rows.filter((q) => q.impl === impl && q.note).map((q) => q.note))];
    const label = r0?.chose ? `${impl} (${r0.chose})` : impl;
    log(label.padEnd(16) + cells.join('') + (notes.length ? `  ${notes.join('; ')}` : ''));
  }
}
