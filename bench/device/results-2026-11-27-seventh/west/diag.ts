// Scratch diagnostics (not part of the project): where rt.solve's time goes on small matrices, and the
// costs of the engine operations it is made of, printed as µs per call.
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { parseMatrixMarket } from '../../../../src/io/index.js';
import { planFactor } from '../../../../src/solvers/direct/plan.js';
import { cpuSymbolicKernels } from '../../../../src/cpu/symbolic.js';
import { directKernels, factorize } from '../../../../src/runtime/direct.js';
import { cscOf, patternSymmetry, symmetricGraph, inversePermutation } from '../../../../src/solvers/direct/pattern.js';
import { amdOrder } from '../../../../src/solvers/direct/amd.js';
import { analyze } from '../../../../src/solvers/direct/analysis.js';
import { blockOrder } from '../../../../src/solvers/direct/btf.js';
const MDIR = process.env.MDIR ?? 'data/matrices';
const R = Number(process.env.R ?? 9);
let gcMs = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcMs += e.duration; }).observe({ entryTypes: ['gc'] });
function med(xs: number[]) { const s = xs.slice().sort((a, b) => a - b); return s[s.length >> 1]; }
async function timeit(f: () => unknown, batch: number): Promise<number> {
  for (let i = 0; i < batch; i++) await f();
  const ms: number[] = [];
  for (let r = 0; r < R; r++) { const t0 = performance.now(); for (let i = 0; i < batch; i++) await f(); ms.push((performance.now() - t0) / batch); }
  return med(ms) * 1e3;
}
function timeSync(f: () => unknown, batch: number): number {
  for (let i = 0; i < batch; i++) f();
  const ms: number[] = [];
  for (let r = 0; r < R; r++) { const t0 = performance.now(); for (let i = 0; i < batch; i++) f(); ms.push((performance.now() - t0) / batch); }
  return med(ms) * 1e3;
}
// engine micro-costs
{
  let s = 0;
  const out: string[] = [];
  out.push(`performance.now ${timeSync(() => { s += performance.now(); }, 20000).toFixed(3)}`);
  out.push(`new Float64Array(8) ${timeSync(() => new Float64Array(8), 20000).toFixed(3)}`);
  out.push(`new Float64Array(500) ${timeSync(() => new Float64Array(500), 5000).toFixed(3)}`);
  out.push(`new Float64Array(4000) ${timeSync(() => new Float64Array(4000), 2000).toFixed(3)}`);
  out.push(`new Float64Array(20000) ${timeSync(() => new Float64Array(20000), 1000).toFixed(3)}`);
  const src = new Float64Array(4000).fill(1);
  out.push(`slice(4000) ${timeSync(() => src.slice(), 2000).toFixed(3)}`);
  const wm = new WeakMap<object, number>();
  out.push(`WeakMap.set(fresh) ${timeSync(() => wm.set({}, 1), 20000).toFixed(3)}`);
  out.push(`await null ${(await timeit(async () => { await null; }, 20000)).toFixed(3)}`);
  const a = new Float64Array(100000);
  out.push(`sum 1e5 f64 ${timeSync(() => { let t = 0; for (let i = 0; i < a.length; i++) t += a[i]; s += t; }, 50).toFixed(3)}`);
  console.log('engine µs/call:', out.join(' | '), s > 0 ? '' : '.');
}
const rt = await createRuntime();
console.log('threads', rt.capabilities().threads);
const B = (rt as any).cpu.backend;
const sk = cpuSymbolicKernels(B);
const dk = directKernels(B);
for (const name of (process.env.CASES ?? 'west0479,t1,olm1000,young1c').split(',')) {
  const A = parseMatrixMarket(readFileSync(`${MDIR}/${name}.mtx`)).matrix.toCSR();
  const c = A.dtype === 'c128' ? 2 : 1;
  const b = new Float64Array(A.rows * c);
  for (let i = 0; i < A.rows; i++) b[c * i] = 1;
  const batch = Math.max(5, Math.round(20000 / (A.nnz + 10)));
  const plan = planFactor(A, 'auto', 'auto', sk);
  const full = async () => { const h = rt.upload(A); try { await rt.solve(h, b, { tol: 1e-8 }); } finally { h.dispose(); } };
  const f1 = await timeit(full, batch);
  const up = await timeit(() => rt.upload(A).dispose(), batch);
  const pl = await timeit(() => planFactor(A, 'auto', 'auto', sk), batch);
  const fac = await timeit(async () => { const F = await factorize(A, {}, undefined, dk, plan); F.dispose(); }, batch);
  const fs = await timeit(async () => { const F = await factorize(A, {}, undefined, dk, plan); await F.solve(b); F.dispose(); }, batch);
  const F = await factorize(A, {}, undefined, dk, plan);
  const so = await timeit(() => F.solve(b), batch);
  F.dispose();
  const f2 = await timeit(full, batch);
  // the solve loop's GC and CPU per call
  const n = batch * 40;
  gcMs = 0;
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) await full();
  const wall = (performance.now() - t0) / n * 1e3; const cu = process.cpuUsage(c0);
  await new Promise((r) => setTimeout(r, 10));
  const parts: string[] = [];
  const rows = { rowPtr: A.rowPtr, colIdx: A.colIdx };
  const C = cscOf(A);
  parts.push(`cscOf ${timeSync(() => cscOf(A), batch).toFixed(0)}`);
  parts.push(`patsym ${timeSync(() => patternSymmetry(C, rows), batch).toFixed(0)}`);
  if (plan.a.ordering === 'btf') {
    const bt: any = sk.btf(C, rows);
    parts.push(`btf ${timeSync(() => sk.btf(C, rows), batch).toFixed(0)}`);
    parts.push(`amd ${timeSync(() => amdOrder(bt.graph, sk.minimumDegree), batch).toFixed(0)}`);
    parts.push(`analyze ${timeSync(() => analyze(bt.graph, 'btf', true, false, sk, bt), batch).toFixed(0)}`);
    const perm = blockOrder(bt, amdOrder(bt.graph, sk.minimumDegree)); const pinv = inversePermutation(perm);
    parts.push(`graphTree ${timeSync(() => sk.graphTree(bt.graph, perm, pinv), batch).toFixed(0)}`);
  } else if (plan.a.ordering === 'amd') {
    const g = symmetricGraph(C.n, C.colPtr, C.rowIdx, rows);
    parts.push(`amd ${timeSync(() => amdOrder(g, sk.minimumDegree), batch).toFixed(0)}`);
    parts.push(`analyze ${timeSync(() => analyze(g, 'auto', true, C.complex, sk), batch).toFixed(0)}`);
    const perm = amdOrder(g, sk.minimumDegree); const pinv = inversePermutation(perm);
    parts.push(`graphTree ${timeSync(() => sk.graphTree(g, perm, pinv), batch).toFixed(0)}`);
  }
  console.log(`${name.padEnd(9)} rt.solve ${f1.toFixed(0)}/${f2.toFixed(0)} µs | upload ${up.toFixed(0)} plan ${pl.toFixed(0)} (${plan.a.ordering}) factor ${fac.toFixed(0)} factor+solve ${fs.toFixed(0)} kept-solve ${so.toFixed(0)} | loop of ${n}: wall ${wall.toFixed(0)} cpu ${((cu.user + cu.system) / n).toFixed(0)} (sys ${(cu.system / n).toFixed(0)}) gc ${(gcMs / n * 1e3).toFixed(0)} µs/call | plan pieces ${parts.join(' ')}`);
}
rt.dispose();
