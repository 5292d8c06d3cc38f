// upload + solve + dispose in a loop, wall and process CPU µs per call (collections included): node [--trace-gc] loop.mjs ROOT MATRIX CALLS
import { readFileSync } from 'node:fs';
const [root, name, nS] = process.argv.slice(2);
const m = await import(root + '/dist/index.js');
const rt = await m.createRuntime();
const A = m.parseMatrixMarket(readFileSync(`${root}/data/matrices/${name}.mtx`)).matrix.toCSR();
const b = new Float64Array(A.rows); b.fill(1);
const n = +nS;
const t0 = performance.now(); const c0 = process.cpuUsage();
for (let k = 0; k < n; k++) { const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); }
const c = process.cpuUsage(c0);
console.log(name, ((performance.now() - t0) / n * 1000).toFixed(1), 'us/call wall', ((c.user + c.system) / n).toFixed(1), 'us cpu');
rt.dispose();
