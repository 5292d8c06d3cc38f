/**
 * Probe (helper pool16): what one pooled call costs at THREADS threads, and where the calling thread's
 * time goes in poisson3D(64)'s f64 and f32 + refinement solves to a true 1e-10. Measurement only.
 *   THREADS=16 CALLS=3000 ROUNDS=5 node pool-probe.mjs   (bundled by esbuild as the README says)
 * PARTS=micro,solve (default both), DTYPES=f64,f32 (the solves timed, alternated; default both),
 * GC_BETWEEN=1 (a collection before each solve), PROFILE (below).
 * Per pooled call (WorkerPool.run wrapped): wall, the caller's own chunks (runInline wrapped), the wait.
 */
import { createRuntime } from '../../../../src/runtime/runtime.js';
import { poisson3D } from '../../../../src/generators/poisson.js';

const env = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const T = env('THREADS', 2);
const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const q = (xs: number[], f: number) => xs.slice().sort((a, b) => a - b)[Math.floor(f * (xs.length - 1))];

type Pool = { run: (job: unknown) => Promise<void>; runInline: (...a: unknown[]) => void };
function instrument(pool: Pool) {
  let own = 0;
  const inline = pool.runInline;
  pool.runInline = (...a: unknown[]) => {
    const s = performance.now();
    try {
      inline(...a);
    } finally {
      own += performance.now() - s;
    }
  };
  const calls: { wall: number; own: number }[] = [];
  const run = pool.run;
  pool.run = async function (job: unknown) {
    const o0 = own;
    const t = performance.now();
    await run.call(this, job);
    calls.push({ wall: performance.now() - t, own: own - o0 });
  };
  return calls;
}

const parts = (process.env.PARTS ?? 'micro,solve').split(',');
const dtypes = (process.env.DTYPES ?? 'f64,f32').split(',');

// 1. one pooled reduction, every op on the pool (inlineThreshold 0): dot over n = 64 (chunks empty:
// the pool's own cost) and over poisson3D(64)'s 262 144 rows, f32 and f64
if (parts.includes('micro')) {
  const rt = await createRuntime({ workers: T, inlineThreshold: 0 });
  const B = rt.cpuBackend;
  const calls = instrument(B.workerPool as unknown as Pool);
  const N = env('CALLS', 3000);
  for (const [dt, n] of [['f32', 64], ['f32', 262144], ['f64', 262144]] as const) {
    const x = B.vector(dt, n);
    const y = B.vector(dt, n);
    x.view().fill(1);
    y.view().fill(2);
    for (let i = 0; i < 300; i++) await B.runReduction(`dot_${dt}`, () => [x.ptr, y.ptr], n);
    calls.length = 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await B.runReduction(`dot_${dt}`, () => [x.ptr, y.ptr], n);
    const per = (performance.now() - t0) / N;
    const w = calls.map((c) => c.wall);
    const wait = calls.map((c) => c.wall - c.own);
    console.log(`T=${T} dot_${dt} n=${n}: ${(per * 1e3).toFixed(1)} µs a call (loop); pool.run p10/p50/p90 ${[0.1, 0.5, 0.9].map((f) => (q(w, f) * 1e3).toFixed(1)).join(' / ')} µs, own p50 ${(med(calls.map((c) => c.own)) * 1e3).toFixed(1)}, wait p50 ${(med(wait) * 1e3).toFixed(1)} p90 ${(q(wait, 0.9) * 1e3).toFixed(1)} µs`);
    x.dispose();
    y.dispose();
  }
  rt.dispose();
}

// 2. the bench's comparison with the runtime's defaults, pool calls counted per solve
if (parts.includes('solve')) {
  const rt = await createRuntime({ workers: T });
  const calls = instrument(rt.cpuBackend.workerPool as unknown as Pool);
  const P = poisson3D(64);
  const P32 = P.astype('f32');
  const b = new Float64Array(P.rows).fill(1);
  // GC_BETWEEN=1: a full collection before each timed solve (outside its time), so none of the previous solve's garbage is collected inside it
  const gc = process.env.GC_BETWEEN === '1' ? (globalThis as { gc?: () => void }).gc : undefined;
  const solve = async (A: typeof P) => {
    gc?.();
    calls.length = 0;
    const t0 = performance.now();
    const h = rt.upload(A);
    const r = await rt.solve(h, b, { tol: 1e-10 });
    h.dispose();
    const wall = performance.now() - t0;
    const pw = calls.reduce((s, c) => s + c.wall, 0);
    const po = calls.reduce((s, c) => s + c.own, 0);
    return { wall, it: r.iterations, n: calls.length, pw, po, res: r.relativeResidual };
  };
  await solve(P);
  await solve(P32);
  const rows: Record<string, Awaited<ReturnType<typeof solve>>[]> = Object.fromEntries(dtypes.map((d) => [d, []]));
  // PROFILE=prefix: the calling thread's CPU profile (100 µs samples) of each timed solve of the dtypes
  // in PROFILE_DTYPES (default all), one file each: prefix-<dtype>-<round>.json
  const { Session } = await import('node:inspector/promises');
  const session = process.env.PROFILE ? new Session() : null;
  const profiled = (process.env.PROFILE_DTYPES ?? dtypes.join(',')).split(',');
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
  }
  for (let i = 0; i < env('ROUNDS', 5); i++) {
    for (const d of dtypes) {
      const on = session && profiled.includes(d);
      if (on) await session.post('Profiler.start');
      rows[d].push(await solve(d === 'f32' ? P32 : P));
      if (on) {
        const { profile } = await session.post('Profiler.stop');
        (await import('node:fs')).writeFileSync(`${process.env.PROFILE}-${d}-${i}.json`, JSON.stringify(profile));
      }
    }
  }
  for (const [k, v] of Object.entries(rows)) {
    const m = (f: (x: (typeof v)[0]) => number) => med(v.map(f)).toFixed(1);
    console.log(`T=${T} solve ${k}: wall ${v.map((x) => x.wall.toFixed(0)).join(' ')} (median ${m((x) => x.wall)} ms), ${v[0].it} it, true ${v[0].res.toExponential(1)}; pool calls ${v[0].n}, in them ${m((x) => x.pw)} ms (caller's chunks ${m((x) => x.po)}, wait ${m((x) => x.pw - x.po)}), µs a call ${m((x) => (1e3 * x.pw) / x.n)}`);
  }
  if (rows.f64 && rows.f32) console.log(`T=${T} f64/f32 medians ${(med(rows.f64.map((x) => x.wall)) / med(rows.f32.map((x) => x.wall))).toFixed(2)}`);
  rt.dispose();
}
