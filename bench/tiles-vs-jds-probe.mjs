/**
 * The power-law matrix of `npm run bench -- --only formats` (1 M rows, 7.4 M entries) uploaded as JDS, as
 * CSR in cache tiles (the default), CSR row by row (cacheTiles: false) and CSR in 32768 × 8192 tiles, each
 * on its own runtime, products interleaved in one process (15 timed rounds after 3), medians in ms. After
 * `npm run build`:
 *   node bench/tiles-vs-jds-probe.mjs [threads=2] [f64|f32]
 */
import { createRuntime, randomMatrix } from '../dist/index.js';

const threads = Number(process.argv[2] ?? 2);
const dtype = process.argv[3] ?? 'f64';
const A = randomMatrix({ rows: 1e6, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42, dtype });
const data = A.values.constructor.from({ length: A.cols }, (_, i) => Math.sin(i));
const cases = [['jds', 'auto'], ['csr', 'auto'], ['csr', false], ['csr', { rows: 32768, cols: 8192 }]];
const runs = [];
for (const [format, cacheTiles] of cases) {
  const rt = await createRuntime({ workers: threads, backend: 'cpu', cacheTiles, maxMemoryMB: 2048 });
  runs.push({ rt, h: rt.upload(A, { format }), x: rt.vector(data), y: rt.vector(A.rows, dtype), t: [], name: `${format} ${JSON.stringify(cacheTiles)}` });
}
for (let r = 0; r < 18; r++) {
  for (const c of runs) {
    const t0 = performance.now();
    await c.rt.spmv(c.h, c.x, { y: c.y });
    if (r >= 3) c.t.push(performance.now() - t0);
  }
}
console.log(`${dtype} ${threads} threads: ` + runs.map((c) => `${c.name} ${c.t.sort((a, b) => a - b)[c.t.length >> 1].toFixed(1)}`).join(' | '));
for (const c of runs) c.rt.dispose();
