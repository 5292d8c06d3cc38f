// f32 + refinement against f64 on poisson3D(64), tol 1e-10, rt.upload + rt.solve as bench/solve.ts
// times them, alternated (one untimed pair, then ROUNDS): wall medians, phases from onIteration stamps
// (upload; to the first iteration; the f32 head's iterations 1–HEAD and the tail; after the last), and
// per kernel the calls and summed wall ms (pooled or inline) with the time outside every kernel.
// Twelfth session (f32ref16): WARM untimed pairs first (default 1) and, with WARM2D=1, one solve of
// poisson2D(1024) before them (the full bench's state when it reaches the comparison: heap grown, JIT and
// the dispatch settled); per-round walls, GC pauses (perf_hooks 'gc') inside each timed call, dispatch stats.
import { PerformanceObserver } from 'node:perf_hooks';
import { createRuntime, poisson3D, poisson2D } from '../../../../src/index.js';
const rounds = +(process.env.ROUNDS ?? 5);
const warmPairs = +(process.env.WARM ?? 1);
const gcs: [number, number][] = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push([e.startTime, e.duration]); }).observe({ entryTypes: ['gc'] });
const gcIn = (a: number, z: number) => gcs.reduce((s, [t, d]) => (t >= a && t <= z ? s + d : s), 0);
const P = poisson3D(64);
const P32 = P.astype('f32');
const b = new Float64Array(P.rows).fill(1);
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const rt = await createRuntime();
const B = (rt as any).cpuBackend;
if (process.env.WARM2D) { const Q = poisson2D(1024); const h = rt.upload(Q); const t0 = performance.now(); const r = await rt.solve(h, new Float64Array(Q.rows).fill(1)); h.dispose(); console.log(`  warm-up poisson2D(1024): ${(performance.now() - t0).toFixed(0)} ms, ${r.method} ${r.iterations} it`); }
const walls: Record<string, string[]> = { f64: [], f32: [], f32p: [] };
// per-iteration wall (median of the stamps' differences) in each phase, per round
const perIt: Record<string, Record<string, number[]>> = { f64: {}, f32: {}, f32p: {} };
// f32: the head with the path's uniform Jacobi (the change under test); f32p: the plain head (main's)
const variants = (process.env.VARIANTS ?? 'f64,f32,f32p').split(',');
const proto = Object.getPrototypeOf(B);
let K: Record<string, [number, number]> = {};
// the last round's calls (kernel, start, end), for the windows printed at the end
let events: [string, number, number][] = [];
let depth = 0;
const rvn = proto.runVectorNow;
proto.runVectorNow = async function (kernel: string, ...a: unknown[]) {
  const t0 = performance.now(); depth++;
  try { return await rvn.call(this, kernel, ...a); } finally { depth--; const t1 = performance.now(); const e = (K[kernel] ??= [0, 0]); e[0]++; e[1] += t1 - t0; events.push([kernel, t0, t1]); }
};
const call = proto.call;
proto.call = function (kernel: string, ...a: unknown[]) {
  if (depth) return call.call(this, kernel, ...a);
  const t0 = performance.now();
  try { return call.call(this, kernel, ...a); } finally { const t1 = performance.now(); const e = (K['inline:' + kernel] ??= [0, 0]); e[0]++; e[1] += t1 - t0; events.push(['inline:' + kernel, t0, t1]); }
};
const res: Record<string, Record<string, number[]>> = { f64: {}, f32: {}, f32p: {} };
const kern: Record<string, Record<string, [number, number]>> = { f64: {}, f32: {}, f32p: {} };
const info: Record<string, string> = {};
for (let k = 1 - warmPairs; k <= rounds; k++) {
  for (const dt of variants) {
    const A = dt === 'f64' ? P : P32;
    (globalThis as any).__headScaled = dt !== 'f32p';
    K = {};
    events = [];
    const t0 = performance.now();
    const h = rt.upload(A);
    const t1 = performance.now();
    const st: number[] = [];
    let head = -1;
    const r = await rt.solve(h, b, { tol: 1e-10, onIteration: (_i: number, rel: number) => { st.push(performance.now()); if (head < 0 && dt !== 'f64' && rel <= 1e-2) head = st.length; } });
    const t2 = performance.now();
    h.dispose();
    await new Promise((f) => setTimeout(f, 0));
    if (k <= 0) continue;
    const d = (a: number, z: number) => { const x: number[] = []; for (let i = a + 1; i < z; i++) x.push(st[i] - st[i - 1]); return x.length ? med(x) : NaN; };
    for (const [key, v] of Object.entries(head > 0 ? { head: d(0, head), tail: d(head, st.length) } : { all: d(0, st.length) })) (perIt[dt][key] ??= []).push(v);
    walls[dt].push(`${(t2 - t0).toFixed(0)}${gcIn(t0, t2) > 0 ? `(gc ${gcIn(t0, t2).toFixed(1)})` : ''}`);
    const n = st.length;
    const inK = Object.values(K).reduce((s, e) => s + e[1], 0);
    const m: Record<string, number> = { wall: t2 - t0, upload: t1 - t0, toFirst: st[0] - t1, iters: st[n - 1] - st[0], head: head > 0 ? st[head - 1] - st[0] : 0, sw: head > 0 ? st[head] - st[head - 1] : 0, tail: head > 0 ? st[n - 1] - st[head] : 0, fin: t2 - st[n - 1], kernels: inK, outside: t2 - t1 - inK };
    for (const [key, v] of Object.entries(m)) (res[dt][key] ??= []).push(v);
    for (const [kk, e] of Object.entries(K)) { const a = (kern[dt][kk] ??= [0, 0]); a[0] += e[0]; a[1] += e[1]; }
    if (k === rounds) {
      // the calls from the upload's end to the first iteration's, and (f32) across the head's end: each with the gap before it
      const show = (from: number, to: number) => { let last = from; const out: string[] = []; for (const [kk, a, z] of events) if (a >= from && z <= to) { out.push(`+${(a - last).toFixed(2)} ${kk} ${(z - a).toFixed(2)}`); last = z; } out.push(`+${(to - last).toFixed(2)} end`); return out.join(', '); };
      console.log(`  ${dt} last round, to the first iteration (${(st[0] - t1).toFixed(1)} ms): ${show(t1, st[0])}`);
      if (head > 0) console.log(`  ${dt} last round, head's last iteration to the tail's first (${(st[head] - st[head - 1]).toFixed(2)} ms): ${show(st[head - 1], st[head])}`);
      console.log(`  ${dt} last round, after the last iteration (${(t2 - st[n - 1]).toFixed(2)} ms): ${show(st[n - 1], t2)}`);
    }
    info[dt] = `${r.iterations} it (head ${head}), ${r.refinements} ref, true ${r.relativeResidual.toExponential(2)}${r.converged ? '' : ' ' + r.reason}`;
  }
}
console.log(`== threads ${rt.capabilities().threads}, medians of ${rounds} (ms)`);
for (const dt of variants) console.log(`  ${dt}: ${Object.entries(res[dt]).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join(' ')} | ${info[dt]}`);
for (const dt of variants) console.log(`  ${dt} per iteration (ms, median of each round's median): ${Object.entries(perIt[dt]).map(([k, v]) => `${k} ${med(v).toFixed(3)}`).join(' ')}`);
for (const dt of variants) console.log(`  ${dt} walls by round (ms, GC inside): ${walls[dt].join(' ')}`);
for (const dt of variants.filter((v) => v !== 'f64')) console.log(`  ratio f64/${dt} wall ${(med(res.f64.wall) / med(res[dt].wall)).toFixed(3)}`);
for (const dt of variants) console.log(`  ${dt} kernels (calls a solve, ms a call, ms a solve): ` + Object.entries(kern[dt]).sort((x, y) => y[1][1] - x[1][1]).map(([kk, e]) => `${kk} ${(e[0] / rounds).toFixed(0)}×${(e[1] / e[0]).toFixed(3)}=${(e[1] / rounds).toFixed(1)}`).join('; '));
const stats = B.dispatchStats ?? {};
console.log('  dispatch (inline / pooled ms est. at 262144, calls inline / pooled): ' + Object.entries(stats).filter(([k]) => /^(cg_|refine_)/.test(k) && Math.abs(Number(k.split(':')[1]) - 36) <= 1).map(([k, v]: [string, any]) => `${k.split(':')[0]} ${((v.inline * 262144) / 1e6).toFixed(3)} / ${((v.pool * 262144) / 1e6).toFixed(3)}, ${v.samples[0]} / ${v.samples[1]}`).join('; '));
rt.dispose();
