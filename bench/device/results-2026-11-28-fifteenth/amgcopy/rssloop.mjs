// 40 uploads of poisson3D matrices of varying sizes (each disposed), RSS after: the private copies on
// SharedArrayBuffers must be collected as the unshared ones are
const { createRuntime, poisson3D } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
const mats = [60, 61, 62, 63].map((n) => poisson3D(n));
const t0 = performance.now(); const c0 = process.cpuUsage();
for (let i = 0; i < 40; i++) {
  const h = rt.upload(mats[i % 4]);
  h.dispose();
}
const kind = (() => { const h = rt.upload(mats[0]); const k = h.source.values.buffer.constructor.name; h.dispose(); return k; })();
console.log(process.argv[2], 'threads', rt.cpuBackend.threads, kind, 'rss', (process.memoryUsage().rss / 1e6).toFixed(0), 'MB', (performance.now() - t0).toFixed(0), "ms wall", ((u => (u.user + u.system) / 1000)(process.cpuUsage(c0))).toFixed(0), "ms CPU");
rt.dispose();
