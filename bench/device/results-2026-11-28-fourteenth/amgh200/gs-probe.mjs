// Gauss–Seidel on the near-null space alone (CpuSparseSession.gaussSeidelOnZero, 4 symmetric sweeps, 2 workers), 9 times:
//   node gs-probe.mjs <worktree with dist/ built> [n]   (alternated between a base worktree and this one)
const root = process.argv[2];
const n = Number(process.argv[3] ?? 96);
const { createRuntime } = await import(`${root}/dist/runtime/runtime.js`);
const { poisson3D } = await import(`${root}/dist/generators/poisson.js`);
const { CpuSparseSession } = await import(`${root}/dist/cpu/spgemm.js`);
const rt = await createRuntime({ workers: 2 });
const A = poisson3D(n);
const s = new CpuSparseSession(rt.cpuBackend);
s.resident(A);
const wall = [], cpu = [];
let sum = 0;
for (let k = 0; k < 9; k++) {
  const x = s.ones(A.rows);
  const c = process.cpuUsage(); const t = performance.now();
  s.gaussSeidelOnZero(A, x, 4);
  wall.push(performance.now() - t); const u = process.cpuUsage(c); cpu.push((u.user + u.system) / 1000);
  if (k === 0) for (let i = 0; i < x.length; i += 997) sum += x[i];
  s.release(x);
}
const med = (a) => a.slice(2).sort((p, q) => p - q)[Math.floor((a.length - 2) / 2)];
console.log(`${root.split('/').pop()} poisson3D(${n}) GS 4 sym sweeps: wall median ${med(wall).toFixed(1)} ms [${wall.map((w) => w.toFixed(0)).join(' ')}], CPU median ${med(cpu).toFixed(1)} ms; checksum ${sum}`);
s.dispose(); rt.dispose();
