import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const name = process.env.CASE || 'west0479';
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const T = new Float64Array(+(process.env.THRASH || 0)); let sink = 0;
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect();
for (let k = 0; k < 300; k++) { const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); }
await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 20 });
let prof = null;
for (let k = 0; k < +(process.env.N || 1500); k++) {
  for (let i = 0; i < T.length; i += 8) sink += (T[i] += 1);
  if (k === 0) await s.post('Profiler.start');
  const h = rt.upload(A);
  await rt.solve(h, b, { tol: 1e-8 });
  h.dispose();
}
const { profile } = await s.post('Profiler.stop');
(await import('node:fs')).writeFileSync(process.env.OUTF || '/tmp/small/cold.cpuprofile', JSON.stringify(profile));
rt.dispose();
