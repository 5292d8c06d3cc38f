/**
 * Matrix Market parse throughput: a ~50 MB coordinate real general file (seeded random pattern, values
 * written by our writer) parsed from bytes several times; returns the median MB/s (1 MB = 10^6 bytes).
 * Values are full-precision random doubles (mostly 16–17 significant digits, the slow path of the
 * number scanner) mixed with short decimals (the Clinger fast path), like real-world files.
 */
import { COOMatrix } from '../src/formats/coo.js';
import { Prng } from '../src/generators/prng.js';
import { parseMatrixMarket, writeMatrixMarket } from '../src/io/index.js';

/** The benchmark file as bytes. `targetBytes` is approximate. */
export function makeBenchFile(targetBytes = 50e6, seed = 12345): Uint8Array {
  const prng = new Prng(seed);
  const rand = () => prng.next();
  const n = 400_000;
  const nnz = Math.round(targetBytes / 27); // ~27 bytes per entry line with these sizes and values
  const rowIdx = new Int32Array(nnz);
  const colIdx = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  for (let k = 0; k < nnz; k++) {
    rowIdx[k] = Math.floor(rand() * n);
    colIdx[k] = Math.floor(rand() * n);
    const r = rand();
    // half full-precision doubles, half short decimals (e.g. "-12.375")
    values[k] = r < 0.5 ? (rand() - 0.5) * 1e3 : Math.round((rand() - 0.5) * 1e6) / 1e3;
  }
  const text = writeMatrixMarket(new COOMatrix(n, n, 'f64', rowIdx, colIdx, values), { comment: ' simdgl parse benchmark' });
  return new TextEncoder().encode(text);
}

export async function benchMatrixMarket(opts: { runs?: number; bytes?: Uint8Array } = {}): Promise<{ mbPerSecond: number; bytes: number }> {
  const bytes = opts.bytes ?? makeBenchFile();
  const runs = opts.runs ?? 5;
  parseMatrixMarket(bytes); // warm-up: lets the JIT optimise the scanner before timing
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const res = parseMatrixMarket(bytes);
    const s = (performance.now() - t0) / 1e3;
    if (res.matrix.rows === 0) throw new Error('benchmark file parsed empty');
    rates.push(bytes.length / 1e6 / s);
    await new Promise((resolve) => setTimeout(resolve, 0)); // let GC and other tasks run between runs
  }
  rates.sort((a, b) => a - b);
  return { mbPerSecond: rates[rates.length >> 1], bytes: bytes.length };
}
