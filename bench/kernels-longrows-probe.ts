/**
 * Kernel-level A/B of how a row of irregular length is summed: the SIMD build's csr_rows_<dt> (rows of
 * more than SHORT_ROW entries with SIMD within the row, gathers into lanes) against the plain build's
 * csr_<dt> (every row scalar, two accumulators), on the power-law matrix of the formats bench with `rows`
 * rows (or, with COLS=…, MEAN=…, DIST=uniform, another random matrix), one thread, both modules over one
 * memory, calls interleaved. Prints median and min ms:
 *   npx esbuild bench/kernels-longrows-probe.ts --bundle --platform=node --format=esm --outfile=build/longrows-probe.js
 *   node build/longrows-probe.js [rows=1000000] [f64|f32] [rounds=25]
 * (after `npm run build`, which compiles build/wasm/*.wasm). VARIANTS=a.wasm,b.wasm adds the csr_rows_<dt>
 * of other builds of the SIMD target (kernel experiments: asc --config asconfig.json --target simd --outFile a.wasm).
 */
import { readFileSync } from 'node:fs';
import { randomMatrix } from '../src/generators/random.js';
import { heapCopier } from './probe-heap.js';

type Kernel = (...args: number[]) => void;
const rows = Number(process.argv[2] ?? 1e6);
const dt = process.argv[3] === 'f32' ? 'f32' : 'f64';
const rounds = Number(process.argv[4] ?? 25);
const distribution = process.env.DIST === 'uniform' ? 'uniform' : 'powerlaw';
const cols = Number(process.env.COLS ?? rows);
const A = randomMatrix({ rows, cols, meanRowLength: Number(process.env.MEAN ?? 8), distribution, exponent: 1.5, seed: 42, dtype: dt });
const memory = new WebAssembly.Memory({ initial: Math.ceil((A.nnz * 16 + rows * 24 + cols * 8 + (2 << 20)) / 65536), maximum: 65536 });
const put = heapCopier(memory);
const Arr = dt === 'f32' ? Float32Array : Float64Array;
const ptr = put(A.rowPtr), idx = put(A.colIdx), val = put(A.values), x = put(new Arr(cols).map((_, i) => Math.sin(i)));
const ys = [put(new Arr(rows)), put(new Arr(rows))];
const build = async (file: string | URL) =>
  (await WebAssembly.instantiate(readFileSync(file), { env: { memory, abort() {}, seed: () => 1 } })).instance.exports as Record<string, Kernel>;
const plain = await build(new URL('../build/wasm/plain.wasm', import.meta.url));
const simd = await build(new URL('../build/wasm/simd.wasm', import.meta.url));
const runs: Array<[string, () => void]> = [
  [`plain csr_${dt}`, () => plain[`csr_${dt}`](ptr, idx, val, x, ys[0], 1, 0, 0, rows)],
  [`simd csr_rows_${dt}`, () => simd[`csr_rows_${dt}`](ptr, idx, val, x, ys[1], 1, 0, 0, rows)],
];
for (const file of (process.env.VARIANTS ?? '').split(',').filter(Boolean)) {
  const v = await build(file);
  runs.push([file.replace(/^.*\//, ''), () => v[`csr_rows_${dt}`](ptr, idx, val, x, ys[1], 1, 0, 0, rows)]);
}
const times: number[][] = runs.map(() => []);
for (let r = 0; r < rounds + 3; r++) {
  runs.forEach(([, run], j) => {
    const t0 = performance.now();
    run();
    if (r >= 3) times[j].push(performance.now() - t0);
  });
}
const long = Array.from({ length: rows }, (_, i) => A.rowPtr[i + 1] - A.rowPtr[i]).reduce((s, n) => s + (n > 16 ? n : 0), 0);
const stat = (t: number[]) => {
  const s = t.slice().sort((p, q) => p - q);
  return `${s[s.length >> 1].toFixed(2)} ms (min ${s[0].toFixed(2)})`;
};
console.log(
  `${distribution} ${rows}×${cols} ${dt}, ${A.nnz} entries (${((100 * long) / A.nnz).toFixed(0)}% in rows > 16): ` +
    runs.map(([name], j) => `${name} ${stat(times[j])}`).join('  '),
);
