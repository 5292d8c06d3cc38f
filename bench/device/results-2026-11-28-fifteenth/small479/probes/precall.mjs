// west0479's rt.upload + rt.solve, GAP ms asleep before each; PRE: an untimed solve of another matrix right
// before it (after the sleep): 'same' a small matrix of the same path (btf LU, 66 rows), 'other' t1 (dense, 4
// rows), 'none'. Medians of process CPU: whether the cold call's extra is the path's code or A's data
import { readFileSync } from 'node:fs';
const { createRuntime, parseMatrixMarket, CSRMatrix } = await import(process.argv[2] + '/dist/index.js');
const rt = await createRuntime();
const load = (n) => parseMatrixMarket(readFileSync(`/work/wt/small479/data/matrices/${n}.mtx`)).matrix.toCSR();
const A = load('west0479');
// the leading 66×66 block of west0479 plus its diagonal... a small nonsymmetric matrix on the btf path: a
// row-permuted upper bidiagonal with a few extra entries, 66 rows
const m = 66, ri = [], ci = [], vi = [];
for (let i = 0; i < m; i++) { const r = (i * 7) % m; ri.push(r, r); ci.push(i, (i + 1) % m); vi.push(10, 1); if (i % 5 === 0) { ri.push(r); ci.push((i + 9) % m); vi.push(0.5); } }
const S = CSRMatrix.fromTriplets(m, m, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(vi));
const T = load('t1');
const solve = async (M) => { const b = new Float64Array(M.rows).fill(1); const h = rt.upload(M); const r = await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); return r; };
console.log('small:', (await solve(S)).factor.ordering, (await solve(S)).factor.orderingReason.slice(0, 80));
const b = new Float64Array(A.rows).fill(1);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const gap = +(process.env.GAP || 20);
const res = { none: [], same: [], other: [] };
for (let k = -200; k < 450; k++) {
  const pre = ['none', 'same', 'other'][((k % 3) + 3) % 3];
  if (k >= 0) await new Promise((r) => setTimeout(r, gap));
  if (pre === 'same') await solve(S); else if (pre === 'other') await solve(T);
  const c0 = process.cpuUsage();
  const h = rt.upload(A); await rt.solve(h, b, { tol: 1e-8 }); h.dispose();
  const c = process.cpuUsage(c0);
  if (k >= 0) res[pre].push(c.user + c.system);
}
console.log(`GAP ${gap}: west0479 µs CPU after nothing ${med(res.none)}, after a small btf solve ${med(res.same)}, after t1 ${med(res.other)}`);
rt.dispose();
