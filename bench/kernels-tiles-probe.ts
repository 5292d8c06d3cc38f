/**
 * Kernel-level A/B of CSR in cache tiles (assembly/spmv_tiles.ts) on the power-law matrix of the formats
 * bench (1 M rows), one thread: tiles_<dt> with each tile's slice of x read in order first (touchX 1)
 * against the same kernel without (touchX 0) — the two the runtime chooses between per matrix
 * (src/cpu/tiles.ts nextTouchX) — calls interleaved, median and min ms.
 * CASES=R:W:touchX,… times other shapes (each its own layout) in the same rounds:
 *   npx esbuild bench/kernels-tiles-probe.ts --bundle --platform=node --format=esm --outfile=build/tiles-probe.js
 *   node build/tiles-probe.js [f64|f32] [rounds=15]
 * (after `npm run build`, which compiles build/wasm/*.wasm). Results must have the same bits in every case.
 */
import { readFileSync } from 'node:fs';
import { randomMatrix } from '../src/generators/random.js';
import { cacheTiles, tileShape } from '../src/cpu/tiles.js';
import { heapCopier } from './probe-heap.js';

type Kernel = (...args: number[]) => void;
const dt = process.argv[2] === 'f32' ? 'f32' : 'f64';
const rounds = Number(process.argv[3] ?? 15);
const A = randomMatrix({ rows: 1e6, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42, dtype: dt });
const shape = tileShape(dt, A.rows, 1);
// CASES=R:W:touchX,… (default: tileShape's R and W, with and without the x reads)
const cases = (process.env.CASES ?? `${shape.R}:${shape.W}:1,${shape.R}:${shape.W}:0`).split(',').map((c) => c.split(':').map(Number));
const layouts = new Map(cases.map(([R, W]) => [`${R}:${W}`, cacheTiles(A, { R, W })]));
const bytes = [...layouts.values()].reduce((s, T) => s + T.rc.byteLength + T.values.byteLength + T.tilePtr.byteLength * 3, 0);
const memory = new WebAssembly.Memory({ initial: Math.ceil((bytes + A.rows * 8 * (cases.length + 1) + A.cols * 8 + (2 << 20)) / 65536), maximum: 65536 });
const put = heapCopier(memory);
const Arr = dt === 'f32' ? Float32Array : Float64Array;
const regs = new Map([...layouts].map(([k, T]) => [k, [T.bandPtr, T.tilePtr, T.tileCol, T.rc, T.values].map(put)]));
const x = put(new Arr(A.cols).map((_, i) => Math.sin(i)));
const ys = cases.map(() => put(new Arr(A.rows)));
const work = put(new Arr(A.rows));
const { instance } = await WebAssembly.instantiate(readFileSync(new URL('../build/wasm/simd.wasm', import.meta.url)), { env: { memory, abort() {}, seed: () => 1 } });
const tiles = (instance.exports as Record<string, Kernel>)[`tiles_${dt}`];
const runs = cases.map(([R, W, touchX], i) => () =>
  tiles(...regs.get(`${R}:${W}`)!, x, ys[i], work, R, W, A.rows, A.cols, touchX, 1, 0, 0, layouts.get(`${R}:${W}`)!.bands));
const times: number[][] = runs.map(() => []);
for (let r = 0; r < rounds + 2; r++) {
  runs.forEach((run, i) => {
    const t0 = performance.now();
    run();
    if (r >= 2) times[i].push(performance.now() - t0);
  });
}
const [a, ...others] = ys.map((p) => new Arr(memory.buffer, p, A.rows));
for (const b of others) if (a.some((v, i) => !Object.is(v, b[i]))) throw new Error('touchX changed the bits');
const show = (t: number[]) => `${t.sort((p, q) => p - q)[t.length >> 1].toFixed(2)} ms (min ${t[0].toFixed(2)})`;
console.log(`tiles_${dt}, ${A.nnz} entries: ` + cases.map(([R, W, t], i) => `${R}×${W}${t ? ' x read first' : ''} ${show(times[i])}`).join('  '));
