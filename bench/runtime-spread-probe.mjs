/**
 * How a product's time spreads within one process: the runtime's CSR SpMV of the power-law matrix of
 * `npm run bench -- --only formats` (1 M rows, 7.4 M entries), 31 timed products after 5 untimed, on
 * `threads` threads, with tiles ('auto') and row by row (cacheTiles: false); prints median and min ms
 * and the CPU ticks (10 ms) each thread of the process used during the timed products, read from
 * /proc/self/task (Linux), so that a thread other than the computing ones would show. After
 * `npm run build`:
 *   node bench/runtime-spread-probe.mjs [threads=2] [f64|f32]
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRuntime, randomMatrix } from '../dist/index.js';

const threads = Number(process.argv[2] ?? 2);
const dtype = process.argv[3] ?? 'f64';
const ticks = () => {
  if (!existsSync('/proc/self/task')) return {};
  return Object.fromEntries(
    readdirSync('/proc/self/task').map((t) => {
      const st = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      return [t, Number(f[11]) + Number(f[12])]; // utime + stime
    }),
  );
};
const A = randomMatrix({ rows: 1e6, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42, dtype });
for (const cacheTiles of ['auto', false]) {
  const rt = await createRuntime({ workers: threads, backend: 'cpu', cacheTiles, maxMemoryMB: 4096 });
  const h = rt.upload(A, { format: 'csr' });
  const x = rt.vector(A.values.constructor.from({ length: A.cols }, (_, i) => Math.sin(i)));
  const y = rt.vector(A.rows, dtype);
  for (let i = 0; i < 5; i++) await rt.spmv(h, x, { y });
  const before = ticks();
  const t = [];
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now();
    await rt.spmv(h, x, { y });
    t.push(performance.now() - t0);
  }
  const after = ticks();
  t.sort((a, b) => a - b);
  const used = Object.entries(after).map(([k, v]) => v - (before[k] ?? 0)).filter((d) => d > 0);
  console.log(`${dtype} ${threads} thread(s), ${cacheTiles === false ? 'row by row' : 'tiles'}: median ${t[15].toFixed(2)} ms, min ${t[0].toFixed(2)}, max ${t[30].toFixed(2)}; CPU ticks per busy thread: ${used.join(' ')}`);
  rt.dispose();
}
