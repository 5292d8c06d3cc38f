import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const { WorkerPool } = await import(dist + '/dist/cpu/pool.js');
const counts = {};
for (const m of ['run', 'runSync', 'copyOutSync', 'start']) { const f = WorkerPool.prototype[m]; WorkerPool.prototype[m] = function (...a) { counts[m] = (counts[m] || 0) + 1; return f.apply(this, a); }; }
const rt = await createRuntime(process.env.WORKERS ? { workers: +process.env.WORKERS } : {});
for (const name of ['west0479', 'olm1000', '494_bus', 'bcsstk01', 'qc324']) {
  const A = parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${name}.mtx`)).matrix.toCSR();
  const c = A.dtype === 'c128' ? 2 : 1;
  const b = new Float64Array(A.rows * c); for (let i = 0; i < A.rows; i++) b[c * i] = 1;
  for (let k = 0; k < 5; k++) { const h = rt.upload(A); await rt.solve(h, b); h.dispose(); }
  for (const k in counts) delete counts[k];
  for (let k = 0; k < 20; k++) { const h = rt.upload(A); await rt.solve(h, b); h.dispose(); }
  console.log(name, JSON.stringify(counts));
}
rt.dispose();
