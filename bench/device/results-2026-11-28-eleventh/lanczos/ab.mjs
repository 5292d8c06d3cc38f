// usage: [W=workers] node ab.mjs <repo> <case> <reps>: times CpuSparseSession.lanczosBounds(A, dinv, 15) on 2 workers, prints ρ bits
const [, , repo, which, reps] = process.argv;
const { createRuntime } = await import(`${repo}/dist/runtime/runtime.js`);
const { poisson3D, poisson2D } = await import(`${repo}/dist/generators/poisson.js`);
const { CpuSparseSession } = await import(`${repo}/dist/cpu/spgemm.js`);
const rt = await createRuntime({ workers: +(process.env.W || 2), backend: 'cpu' }); // W: workers (2 unless given)
const A = which.startsWith('3D') ? poisson3D(+which.slice(3, -1)) : poisson2D(+which.slice(3, -1));
const dinv = new Float64Array(A.rows);
for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === i) dinv[i] = 1 / A.values[k];
const s = new CpuSparseSession(rt.cpuBackend);
const t = [], cpu = [];
let r;
for (let k = 0; k < +reps; k++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  r = s.lanczosBounds(A, dinv, 15);
  t.push(performance.now() - t0); const c1 = process.cpuUsage(c0); cpu.push((c1.user + c1.system) / 1000);
}
t.sort((a, b) => a - b);
console.log(JSON.stringify({ repo: repo.split('/').pop(), which, median: +t[t.length >> 1].toFixed(1), cpuMed: +cpu.sort((a,b)=>a-b)[cpu.length>>1].toFixed(1), min: +t[0].toFixed(1), all: t.map((x) => +x.toFixed(1)), max: r.max, min_: r.min }));
s.dispose(); rt.dispose();
