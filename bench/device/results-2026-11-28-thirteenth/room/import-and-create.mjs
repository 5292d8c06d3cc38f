// Node: `import('simdgl')` (from <tree>/dist) and createRuntime({ backend: 'cpu', workers: 1 }) in a fresh
// process, wall and process CPU from before the import; the solver set-up's chunk is imported inside
// createRuntime where it is a chunk, at the import otherwise, so the sum is what compares.
// usage: node import-and-create.mjs <tree>
const c0 = process.cpuUsage(); const t0 = performance.now();
const { createRuntime } = await import(process.argv[2] + '/dist/index.js');
const t1 = performance.now(); const c1 = process.cpuUsage(c0);
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
const t2 = performance.now(); const c2 = process.cpuUsage(c0);
const ms = (c) => +((c.user + c.system) / 1000).toFixed(2);
console.log(JSON.stringify({ importMs: +(t1 - t0).toFixed(2), createMs: +(t2 - t1).toFixed(2), totalMs: +(t2 - t0).toFixed(2), cpuImport: ms(c1), cpuTotal: ms(c2) }));
rt.dispose();
