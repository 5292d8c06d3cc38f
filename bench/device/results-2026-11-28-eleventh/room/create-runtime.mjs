const dist = process.argv[2];
const { createRuntime } = await import(dist + '/dist/index.js');
const c0 = process.cpuUsage(); const t0 = performance.now();
const rt = await createRuntime({ backend: 'cpu', workers: 1 });
const t1 = performance.now(); const c1 = process.cpuUsage(c0);
await new Promise((r) => setTimeout(r, 50));
const c2 = process.cpuUsage(c0);
console.log(JSON.stringify({ create: +(t1 - t0).toFixed(2), cpu: +((c1.user + c1.system) / 1000).toFixed(2), cpuAfter50: +((c2.user + c2.system) / 1000).toFixed(2) }));
rt.dispose();
