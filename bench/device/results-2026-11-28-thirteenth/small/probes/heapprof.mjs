import { readFileSync, writeFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const name = process.env.CASE || 'west0479';
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync(`/work/wt/small/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect();
for (let k = 0; k < 300; k++) { const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); }
await s.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
const N = 2000;
for (let k = 0; k < N; k++) { const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); }
const { profile } = await s.post('HeapProfiler.stopSampling');
const self = new Map(); let total = 0;
const walk = (n) => { const f = n.callFrame; const k = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`; if (n.selfSize) { self.set(k, (self.get(k) || 0) + n.selfSize); total += n.selfSize; } for (const c of n.children) walk(c); };
walk(profile.head);
console.log(name, 'total', (total / N / 1024).toFixed(1), 'KB/call');
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 45).map(([k, v]) => `${(v / N).toFixed(0).padStart(7)} B/call ${k}`).join('\n'));
rt.dispose();
