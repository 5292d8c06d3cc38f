// Where the small direct cells' time goes (issue 20: west0479, t1, 494_bus swing across the goal on the
// 16-core host): rt.upload + rt.solve as bench/solve.ts times them (b = 1, tol 1e-8), after a second's
// warm-up, N calls one by one — percentiles, the spread of medians of 7 (the bench's count) over
// consecutive groups, and the pool calls a solve makes (WorkerPool.run / runSync / copyOutSync, counted
// and timed from the calling thread) — for the default runtime and for { workers: 1 }.
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
const gcs: [number, number][] = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push([e.startTime, e.duration]); }).observe({ entryTypes: ['gc'] });
import { createRuntime, parseMatrixMarket } from '../../../../src/index.js';
const N = +(process.env.N ?? 211);
const names = (process.env.CASES ?? 'west0479,t1,494_bus').split(',');
const dir = process.env.MATRICES ?? new URL('../../../../data/matrices/', import.meta.url).pathname;
const pct = (a: number[], p: number) => { const s = a.slice().sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
for (const workers of (process.env.WORKERS ?? 'auto,1').split(',')) {
  const rt = await createRuntime(workers === 'auto' ? {} : { workers: +workers });
  const B = (rt as any).cpuBackend;
  const pool = B.pool;
  const calls: Record<string, [number, number]> = {};
  if (pool) for (const m of ['run', 'runSync', 'copyOutSync']) {
    const f = pool[m].bind(pool);
    pool[m] = (...a: any[]) => { const t0 = performance.now(); const e = (calls[m] ??= [0, 0]); e[0]++; const r = f(...a); if (r instanceof Promise) return r.finally(() => (e[1] += performance.now() - t0)); e[1] += performance.now() - t0; return r; };
  }
  for (const name of names) {
    const A = parseMatrixMarket(readFileSync(dir + name + '.mtx')).matrix.toCSR();
    const b = new Float64Array(A.rows).fill(1);
    let r: any;
    const up: number[] = [];
    const wins: [number, number][] = [];
    const once = async () => { const t0 = performance.now(); const h = rt.upload(A); const t1 = performance.now(); r = await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); const t2 = performance.now(); up.push(t1 - t0); wins.push([t0, t2]); return t2 - t0; };
    const until = performance.now() + 1000;
    let warm = 0;
    while (performance.now() < until && warm < 200) { await once(); warm++; }
    for (const k in calls) delete calls[k];
    up.length = 0; wins.length = 0;
    const t: number[] = [];
    for (let i = 0; i < N; i++) t.push(await once());
    await new Promise((f) => setTimeout(f, 20));
    const gcCalls = wins.filter(([a, z]) => gcs.some(([t]) => t >= a && t <= z)).map(([a, z]) => z - a);
    const meds: number[] = [];
    for (let i = 0; i + 7 <= t.length; i += 7) meds.push(pct(t.slice(i, i + 7), 0.5));
    const pc = Object.entries(calls).map(([k, [c, ms]]) => `${k} ${(c / N).toFixed(2)}/solve ${(ms / Math.max(1, c)).toFixed(3)} ms`).join(', ') || 'none';
    console.log(`${name} workers=${workers} (${rt.capabilities().threads} threads, ${r.method}, warm-up ${warm}): p10 ${pct(t, 0.1).toFixed(3)} p25 ${pct(t, 0.25).toFixed(3)} p50 ${pct(t, 0.5).toFixed(3)} p75 ${pct(t, 0.75).toFixed(3)} p90 ${pct(t, 0.9).toFixed(3)} max ${Math.max(...t).toFixed(3)} ms; medians of 7 over ${meds.length} groups ${pct(meds, 0).toFixed(3)}–${pct(meds, 1).toFixed(3)} (in order: ${meds.map((m) => m.toFixed(2)).join(' ')}); upload p50 ${pct(up, 0.5).toFixed(3)}; calls with a GC ${gcCalls.length}${gcCalls.length ? ` (p50 ${pct(gcCalls, 0.5).toFixed(3)})` : ''}; pool: ${pc}`);
  }
  rt.dispose();
}
