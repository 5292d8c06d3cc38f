// in-process A/B: node abin.mjs ROOT_A ROOT_B cases reps
import { readFileSync } from 'node:fs';
const [ra, rb, names, repsS] = process.argv.slice(2);
const sides = [];
for (const root of [ra, rb]) { const m = await import(root + '/dist/index.js'); sides.push({ root, m, rt: await m.createRuntime() }); }
const reps = +repsS;
const med = (a) => { a = a.slice().sort((x, y) => x - y); return a[a.length >> 1]; };
const out = {};
for (const name of names.split(',')) {
  const runs = sides.map((s) => {
    const A = s.m.parseMatrixMarket(readFileSync(`${ra}/data/matrices/${name}.mtx`)).matrix.toCSR();
    const c = A.dtype === 'c128' ? 2 : 1; const b = new Float64Array(A.rows * c); for (let i = 0; i < A.rows; i++) b[c * i] = 1;
    return async () => { const h = s.rt.upload(A); try { return await s.rt.solve(h, b, { tol: 1e-8 }); } finally { h.dispose(); } };
  });
  const t = performance.now(); while (performance.now() - t < 2000) { await runs[0](); await runs[1](); }
  const cpu = [[], []], wall = [[], []];
  for (let k = 0; k < reps; k++) {
    const order = k & 1 ? [1, 0] : [0, 1];
    for (const s of order) { const c0 = process.cpuUsage(); const w0 = performance.now(); await runs[s](); const c1 = process.cpuUsage(c0); wall[s].push(performance.now() - w0); cpu[s].push((c1.user + c1.system) / 1000); }
  }
  out[name] = { A: +med(cpu[0]).toFixed(4), B: +med(cpu[1]).toFixed(4), ratio: +(med(cpu[1]) / med(cpu[0])).toFixed(3), wallA: +med(wall[0]).toFixed(4), wallB: +med(wall[1]).toFixed(4) };
}
console.log(JSON.stringify(out));
for (const s of sides) s.rt.dispose();
