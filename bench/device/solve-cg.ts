/**
 * Issue 20, WebGPU part: CG on poisson3D(128) to 1e-8 through the public API (rt.cg on the WebGPU path,
 * Dawn in Node) against CuPy's cupyx.scipy.sparse.linalg.cg on the same GPU in the same device call
 * (bench/device/solve_cg_cupy.py writes its figures first; this script reads them and prints the
 * ratios and the goal), plus f32 CG + iterative refinement to a true 1e-10 on poisson3D(64) against
 * the f64 (double-single) solve, and the level-scheduled against the Jacobi-sweep triangular solve.
 *
 *   node solve-cg.mjs [--cupy cupy.tsv] [--n 128] [--runs 5] [--label new] > webgpu.tsv
 *
 * Times: wall ms of rt.cg (b on the host, x back on the host, everything in between) after a warm-up
 * solve (pipelines, the upload); median of --runs. ms per iteration: resident solves of 20 and 220
 * iterations (one read-back each; medians of 3), the difference / 200; the GPU ms of one SpMV by
 * timestamp queries, so the share of the iteration beyond the SpMV shows. The true residual ‖b − A·x‖/‖b‖ is
 * computed in f64 on the host. rt.solve's first call of a matrix: the FIRST row (wall and host CPU ms,
 * the pipelines it made, solves 2–4, each solve's garbage collections, its window in a --cpu-prof profile).
 */
import { readFileSync, existsSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { median } from '../../src/metrics.js';
import { trueResidual } from './true-residual.js';
import type { CSRMatrix } from '../../src/formats/csr.js';
import type { WebGpuPath } from '../../src/webgpu/path.js';
import { initialState } from '../../src/webgpu/cg.js';
import { levelSchedule } from '../../src/solvers/precond/levels.js';
import { CSRMatrix as Csr } from '../../src/formats/csr.js';
import { DIAMatrix, ELLMatrix } from '../../src/formats/index.js';
import { poisson2D } from '../../src/generators/poisson.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const n = Number(opt('--n', '128'));
const runs = Number(opt('--runs', '5'));
const label = opt('--label', 'webgpu');
const cupyFile = opt('--cupy', '');
const skip = new Set(opt('--skip', '').split(','));
// the dtypes of the rt.cg section (--dtypes f64: e.g. for a CPU profile of the f64 solve alone)
const cgTypes = opt('--dtypes', 'f64,f32').split(',') as ('f64' | 'f32')[];

const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
const rt = await createRuntime({ backend: 'webgpu', workers: 1, webgpu: { gpu } });
const path = rt.pathById('webgpu') as WebGpuPath;
await path.prepare(); // the WGSL sources: the backend is driven directly below
// measured now, so that no background measurement (the rt.explain of the cg section starts one on an
// uncalibrated runtime) runs during the timed solves after it (fifth session's call3: rt.solve's spread)
await rt.calibrate();
const be = path.backend;
console.log(`# ${label}: adapter ${be.capabilities().adapter}`);


const cupy = new Map<string, { ms: number; iterations: number; relres: number }>();
if (cupyFile && existsSync(cupyFile)) {
  for (const line of readFileSync(cupyFile, 'utf8').split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'CUPY_CG' || f[0] === 'CUPY_CG_HOST') cupy.set(`${f[1]}/${f[2]}${f[0] === 'CUPY_CG_HOST' ? '/host' : ''}`, { ms: Number(f[4]), iterations: Number(f[6]), relres: Number(f[8]) });
  }
}

const A64 = poisson3D(n);
const b = new Float64Array(A64.rows).fill(1);
console.log('ROW\twhat\tmatrix\tdtype\tms\titerations\trelres_recurrence\trelres_true\tformat\tgpu_ms_per_iter\tspmv_gpu_ms');
const goals: string[] = [];
for (const dt of skip.has('cg') ? [] : cgTypes) {
  const A = A64.astype(dt);
  const bd = dt === 'f32' ? new Float32Array(b) : b;
  const h = rt.upload(A);
  await rt.cg(h, bd, { tol: 1e-8, maxIter: 5, path: 'webgpu' }); // warm-up: upload, pipelines
  const times: number[] = [];
  let last;
  // where the wall time of a solve goes: before the first block's residuals arrive, between blocks, after the last
  const first: number[] = [];
  const gaps: number[] = [];
  const tail: number[] = [];
  for (let i = 0; i < runs; i++) {
    const arrivals: number[] = [];
    const t0 = performance.now();
    last = await rt.cg(h, bd, { tol: 1e-8, path: 'webgpu', onIteration: (k) => void (k % 16 === 0 && arrivals.push(performance.now())) });
    const t1 = performance.now();
    times.push(t1 - t0);
    first.push(arrivals[0] - t0);
    for (let j = 1; j < arrivals.length; j++) gaps.push(arrivals[j] - arrivals[j - 1]);
    tail.push(t1 - arrivals[arrivals.length - 1]);
  }
  const ms = median(times);
  // the same solves without onIteration (what a user's call looks like), after the ones above
  const plainTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await rt.cg(h, bd, { tol: 1e-8, path: 'webgpu' });
    plainTimes.push(performance.now() - t0);
  }
  const plain = median(plainTimes);
  console.log(`PLAIN\t${label}\tpoisson3D_${n}\t${dt}\trt.cg without onIteration ${plain.toFixed(1)} ms (min ${Math.min(...plainTimes).toFixed(1)})\twith ${ms.toFixed(1)} ms`);
  console.log(`SPLIT\t${label}\tpoisson3D_${n}\t${dt}\tfirst block ms\t${median(first).toFixed(2)}\tbetween blocks ms (median, max)\t${median(gaps).toFixed(2)}\t${Math.max(...gaps).toFixed(2)}\tafter the last ms\t${median(tail).toFixed(2)}`);
  const tr = trueResidual(A64, last!.x, b);
  // time per iteration: two resident solves of a fixed number of iterations (one read-back each),
  // the difference divided by the extra iterations; and one SpMV by timestamp queries
  const M = be.upload(A);
  const bv = be.vector(dt, bd);
  const q = be.vector(dt, A.rows);
  const spmvMs: number[] = [];
  for (let i = 0; i < 5; i++) spmvMs.push((await be.kernelTime(() => be.spmv(M, bv, q))) ?? NaN);
  const fixed = async (iters: number): Promise<number> => {
    const t0 = performance.now();
    const r = await be.cgResident(M, null, bv, { tol: 1e-30, maxIter: iters, checkEvery: iters });
    const t = performance.now() - t0;
    r.x.dispose();
    return t;
  };
  await fixed(10);
  const short: number[] = [];
  const long: number[] = [];
  for (let i = 0; i < 3; i++) {
    short.push(await fixed(20));
    long.push(await fixed(220));
  }
  const perIter = (median(long) - median(short)) / 200;
  const fmt = `${rt.explain('spmv', h).estimates.webgpu?.format}:${M.kernel}`;
  for (const v of [M, bv, q]) v.dispose();
  console.log(`ROW\t${label}_cg\tpoisson3D_${n}\t${dt}\t${ms.toFixed(1)}\t${last!.iterations}\t${last!.relativeResidual.toExponential(2)}\t${tr.toExponential(2)}\t${fmt}\t${perIter.toFixed(4)}\t${median(spmvMs).toFixed(4)}`);
  // the goal: against CuPy's cg with b and x on the device; also against CuPy from host to host (as rt.cg runs),
  // and our steady state (the time between two blocks of 16 iterations) against CuPy's time per iteration
  for (const [key, what] of [['', 'b, x on the GPU'], ['/host', 'host to host']] as const) {
    const c = cupy.get(`poisson3D_${n}/${dt}${key}`);
    if (!c) continue;
    if (key === '') goals.push(`RATIO\t${label} rt.cg without onIteration vs CuPy cg (${what})\tpoisson3D_${n}\t${dt}\tours ${plain.toFixed(1)} ms\tCuPy ${c.ms.toFixed(1)} ms\t${(c.ms / plain).toFixed(2)}x\tgoal >= 1.0x: ${c.ms / plain >= 1 ? 'met' : 'MISSED'}`);
    const ratio = c.ms / ms;
    goals.push(`RATIO\t${label} rt.cg vs CuPy cg (${what})\tpoisson3D_${n}\t${dt}\tours ${ms.toFixed(1)} ms (${last!.iterations} it)\tCuPy ${c.ms.toFixed(1)} ms (${c.iterations} it)\t${ratio.toFixed(2)}x\tgoal >= 1.0x: ${ratio >= 1 ? 'met' : 'MISSED'}`);
    if (key === '') goals.push(`RATIO\t${label} per iteration, steady state (blocks of 16) vs CuPy cg's mean\tpoisson3D_${n}\t${dt}\tours ${(median(gaps) / 16).toFixed(4)} ms\tCuPy ${(c.ms / c.iterations).toFixed(4)} ms\t${(c.ms / c.iterations / (median(gaps) / 16)).toFixed(2)}x`);
  }
  h.dispose();
}

// where the wall time of one rt.cg goes (--timeline): each read-back of the engine (bytes, start and end
// ms from the call's start) and each host write, by wrapping the backend's engine (internal: a measurement)
if (opt('--timeline', '') !== '') {
  const A = A64;
  const h = rt.upload(A);
  await rt.cg(h, b, { tol: 1e-8, maxIter: 5, path: 'webgpu' });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const engine = (be as any).engine;
  const events: string[] = [];
  let t0 = 0;
  const wrap = (obj: Record<string, unknown>, name: string, what: (args: unknown[]) => string) => {
    const f = obj[name] as (...a: unknown[]) => unknown;
    obj[name] = function (this: unknown, ...a: unknown[]) {
      const s = performance.now() - t0;
      const out = f.apply(this, a);
      const note = (e: number) => events.push(`${name}(${what(a)}) ${s.toFixed(2)}-${e.toFixed(2)}`);
      if (out instanceof Promise) out.then(() => note(performance.now() - t0), () => undefined);
      else note(performance.now() - t0);
      return out;
    };
  };
  wrap(engine, 'read', (a) => `${a[1]} B`);
  wrap(engine, 'write', (a) => `${(a[1] as ArrayBufferView).byteLength} B`);
  wrap(engine, 'flush', () => '');
  // the window of these solves in a CPU profile (--cpu-prof: its timestamps are µs of this clock)
  console.log(`# timeline solves from ${process.hrtime.bigint() / 1000n} µs`);
  // rt.cg (Jacobi of a constant diagonal: none), then rt.solve's defaults (its first solve untimed: the plan)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const solveOf = typeof (rt as any).solve === 'function' ? (rt as any).solve.bind(rt) : null;
  if (solveOf) await solveOf(h, b, { path: 'webgpu' });
  for (const [what, call] of [['rt.cg', () => rt.cg(h, b, { tol: 1e-8, path: 'webgpu' })], ...(solveOf ? [['rt.solve', () => solveOf(h, b, { path: 'webgpu' })]] : [])] as const) {
    for (let i = 0; i < Number(opt('--timeline', '3')); i++) {
      events.length = 0;
      t0 = performance.now();
      const r = await call();
      const total = performance.now() - t0;
      // flushes: only the slow ones (≥ 0.3 ms of host time)
      const shown = events.filter((e) => !e.startsWith('flush') || (() => { const m = / ([\d.]+)-([\d.]+)$/.exec(e)!; return Number(m[2]) - Number(m[1]) >= 0.3; })());
      console.log(`TIMELINE\t${label}\tpoisson3D_${n}\tf64\t${what} ${total.toFixed(1)} ms, ${r.iterations} it\t${shown.join('\t')}`);
    }
  }
  console.log(`# timeline solves until ${process.hrtime.bigint() / 1000n} µs`);
  h.dispose();
}

// SpMV of poisson3D(n) in each format the WebGPU path runs (GPU ms by timestamp queries, median of 5;
// --formats): what DIA would give against the CSR kernels 'auto' picks
if (opt('--formats', '') !== '') {
  for (const dt of ['f64', 'f32'] as const) {
    const A = A64.astype(dt);
    const cells: string[] = [];
    for (const [what, host, o] of [
      ['auto', A, {}],
      ['dia', DIAMatrix.fromCSR(A), {}],
      ['ell', ELLMatrix.fromCSR(A), {}],
      ['row', A, { kernel: 'row' }],
    ] as const) {
      const M = be.upload(host, o);
      const xv = be.vector(dt, A.rows);
      const yv = be.vector(dt, A.rows);
      be.spmv(M, xv, yv);
      const ts: number[] = [];
      for (let i = 0; i < 5; i++) ts.push((await be.kernelTime(() => { for (let k = 0; k < 10; k++) be.spmv(M, xv, yv); })) ?? NaN);
      cells.push(`${what}: ${(median(ts) / 10).toFixed(4)} ms`);
      for (const v of [M, xv, yv]) v.dispose();
    }
    console.log(`FORMATS\t${label}\tpoisson3D_${n}\t${dt}\t${cells.join('\t')}`);
  }
}

// the fixed costs of a solve through rt.cg, by piece (wall ms, medians of 5): uploading b, allocating
// the solver's vectors, one scalar read-back, reading x back (and the raw map without decoding)
if (!skip.has('transfer')) {
  for (const dt of ['f64', 'f32'] as const) {
    const data = dt === 'f32' ? new Float32Array(A64.rows).fill(1) : new Float64Array(A64.rows).fill(1);
    const parts: Record<string, number[]> = { upload: [], write: [], allocate5: [], scalarRead: [], read: [], rawRead: [] };
    const kept = be.vector(dt, A64.rows);
    for (let i = 0; i < 6; i++) {
      // a solve's upload of b: into a kept vector, without the range scan where the tree has that option
      let t = performance.now();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      (be as any).writeVector(kept, data, { deferRangeCheck: true });
      be.flush();
      parts.write.push(performance.now() - t);
      t = performance.now();
      const v = be.vector(dt, data);
      be.flush();
      parts.upload.push(performance.now() - t);
      t = performance.now();
      const vs = [0, 1, 2, 3, 4].map(() => be.vector(dt, A64.rows));
      for (const w of vs) be.copy(v, w);
      await be.nrm2(vs[4]);
      parts.allocate5.push(performance.now() - t);
      t = performance.now();
      await be.nrm2(vs[3]);
      parts.scalarRead.push(performance.now() - t);
      t = performance.now();
      await be.read(vs[2]);
      parts.read.push(performance.now() - t);
      t = performance.now();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      await (be as any).engine.read(vs[1].buffer, A64.rows * (dt === 'f32' ? 4 : 8));
      parts.rawRead.push(performance.now() - t);
      for (const w of [v, ...vs]) w.dispose();
    }
    kept.dispose();
    console.log(`TRANSFER\t${label}\t${dt}\t${A64.rows} elements\t${Object.entries(parts).map(([k, v]) => `${k} ${median(v.slice(1)).toFixed(2)} ms`).join('\t')}`);
  }
}

// A 16 MB upload three ways (--upload-probe): the engine's write (a kept MAP_WRITE buffer: its mapped
// range is a fresh 16 MB ArrayBuffer each time, which V8 counts as external memory), one
// queue.writeBuffer of 16 MB (Dawn stages it), and four of 4 MB (Dawn's ring buffer); each followed by
// a 16-byte read-back (the copy done). Wall ms (median of 8 after 2), and the garbage collections the
// rounds caused (PerformanceObserver 'gc': count and ms) — what b's upload costs a solve
if (opt('--upload-probe', '') !== '') {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const engine = (be as any).engine;
  const data = new Float64Array(A64.rows).fill(1);
  const bytes = data.byteLength;
  const dst = engine.device.createBuffer({ size: bytes, usage: 0x80 | 0x8 | 0x4 /* STORAGE | COPY_DST | COPY_SRC */ });
  const gcs: number[] = [];
  const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push(e.duration); });
  obs.observe({ entryTypes: ['gc'] });
  const ways: [string, () => void][] = [
    ['engine.write (mapped)', () => engine.write(dst, data)],
    ['writeBuffer 16 MB', () => engine.device.queue.writeBuffer(dst, 0, data.buffer, 0, bytes)],
    ['writeBuffer 4 x 4 MB', () => { for (let at = 0; at < bytes; at += 4 << 20) engine.device.queue.writeBuffer(dst, at, data.buffer, at, Math.min(4 << 20, bytes - at)); }],
  ];
  for (const [what, write] of ways) {
    const ts: number[] = [];
    await new Promise((r) => setTimeout(r, 50));
    gcs.length = 0;
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      write();
      await engine.read(dst, 16);
      ts.push(performance.now() - t);
    }
    await new Promise((r) => setTimeout(r, 50));
    console.log(`UPLOAD\t${label}\t${what}\t${median(ts.slice(2)).toFixed(2)} ms (min ${Math.min(...ts.slice(2)).toFixed(2)}, first ${ts[0].toFixed(2)})\tGCs ${gcs.length}, ${gcs.reduce((a, b) => a + b, 0).toFixed(1)} ms`);
  }
  obs.disconnect();
  dst.destroy();
}

// GPU ms of each kernel of a resident CG iteration (timestamp queries around 20 of them, / 20), through
// the backend's recorder (internal: a measurement, not an API)
if (!skip.has('kernels')) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const G = (be as any).cgRecorder;
  for (const dt of ['f64', 'f32'] as const) {
    const A = A64.astype(dt);
    const M = be.upload(A);
    const ones = dt === 'f32' ? new Float32Array(A.rows).fill(1) : new Float64Array(A.rows).fill(1);
    const [p, q, x, r] = [0, 1, 2, 3].map(() => be.vector(dt, ones));
    const tiny = be.vector(dt, 1);
    const S = G.state(initialState(9, 16, 0, { 0: [1, 0] }));
    const partials = G.partials ? G.partials(G.partialsFor(M)) : null;
    const reps = 20;
    const time = async (what: string, f: () => void) => {
      f();
      const ts: number[] = [];
      for (let i = 0; i < 3; i++) ts.push(((await be.kernelTime(() => { for (let k = 0; k < reps; k++) f(); })) ?? NaN) / reps);
      console.log(`KERNEL\t${label}\tpoisson3D_${n}\t${dt}\t${what}\t${median(ts).toFixed(4)}`);
    };
    await time('spmv', () => be.spmv(M, p, q));
    if (G.cgScalars) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const engine = (be as any).engine;
      const cap = engine.dotGroups;
      let count = 0;
      for (const groups of [cap, 4 * cap, 8 * cap]) {
        engine.dotGroups = groups;
        const big = G.partials(G.partialsFor(M));
        await time(`spmv+dot (fused where the kernel has it), ${groups} groups at most`, () => void (count = G.spmvDot(M, p, q, big)));
        await time(`cg_scalars summing ${count} partials`, () => G.cgScalars(dt, S, big, count, 0, 16, false));
        G.release(big);
      }
      engine.dotGroups = cap;
      count = G.spmvDot(M, p, q, partials);
      await time('cg_update (x, r, |r|^2 partials)', () => G.update(p, q, x, r, S, partials, null));
    } else {
      await time('dot + reduce_final', () => G.dot(p, q, S, 1));
      await time('cg_scalars', () => G.scalars('cg_scalars', dt, S, 0, 16, false));
      await time('cg_update + reduce_final', () => G.update(p, q, x, r, S));
    }
    await time('aypx (resident)', () => G.blas1('aypx', r, p, S, 6));
    await time('axpy', () => be.axpy(1e-3, p, q));
    await time('copy (buffer copy)', () => be.copy(p, q));
    await time('axpy of 1 element (a dispatch)', () => be.axpy(1e-3, tiny, tiny));
    for (const v of [M, p, q, x, r, tiny]) v.dispose();
    G.release(S);
    if (partials) G.release(partials);
  }
}

// GPU ms of the resident Chebyshev-CG's kernels on poisson3D(n) f64 as DIA (--cheb-kernels; timestamp
// queries around 20 of each, / 20), through the backend's recorder (internal: a measurement): the fused
// step against the DIA SpMV and the plain CG iteration's kernels
if (opt('--cheb-kernels', '') !== '') {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const G = (be as any).cgRecorder;
  if (G.chebyshevStep) {
    const M = be.upload(DIAMatrix.fromCSR(A64), {});
    const ones = new Float64Array(A64.rows).fill(1);
    const [zk, zo, r, q] = [0, 1, 2, 3].map(() => be.vector('f64', ones));
    const pitch = Math.ceil(A64.rows / 4) * 4;
    const D = be.upload(new DIAMatrix(A64.rows, A64.cols, 'f64', new Int32Array([0]), pitch, new Float64Array(pitch).fill(1 / 6)), {});
    const S = G.state(initialState(9, 16, 0, { 0: [1, 0] }));
    const partials = G.partials(2 * G.partialsFor(M));
    const c = [Float32Array.of(0.5, 0, 0, 0), Float32Array.of(0.25, 0, 0, 0)] as const;
    const scalar = null;
    const perRow = (D.data.main as { values: GPUBuffer }).values;
    const time = async (what: string, f: () => void) => {
      f();
      const ts: number[] = [];
      for (let i = 0; i < 3; i++) ts.push(((await be.kernelTime(() => { for (let k = 0; k < 20; k++) f(); })) ?? NaN) / 20);
      console.log(`CHEBKERNEL\t${label}\tpoisson3D_${n}\tf64\t${what}\t${median(ts).toFixed(4)}`);
    };
    await time('dia spmv', () => be.spmv(M, zk, q));
    await time('dia spmv+dot', () => G.spmvDot(M, zk, q, partials));
    await time('cg_update', () => G.update(zk, q, zo, r, S, partials, null));
    await time('cg_scalars (phase 1, two sums)', () => G.cgScalars('f64', S, partials, 1024, 1, 16, true, 2048));
    await time('aypx', () => G.blas1('aypx', zk, zo, S, 6));
    await time('chebyshev first_main', () => G.chebyshevFirst(r, scalar, zk, c[1], false, partials));
    await time('fused step, D⁻¹ one value', () => G.chebyshevStep(M, zk, zo, r, scalar, c, false, false, S, partials, 1024));
    await time('fused step, D⁻¹ per row', () => G.chebyshevStep(M, zk, zo, r, perRow, c, false, false, S, partials, 1024));
    await time('fused step, first', () => G.chebyshevStep(M, zk, zo, r, scalar, c, true, false, S, partials, 1024));
    await time('fused step, last (partials)', () => G.chebyshevStep(M, zk, zo, r, scalar, c, false, true, S, partials, 1024));
    await time('unfused: chebyshev elementwise step', () => G.chebyshev(false, false, r, perRow, q, zo, zk, c, partials));
    for (const v of [M, zk, zo, r, q, D]) v.dispose();
    G.release(S);
    G.release(partials);
  }
}

// triangular solves: the lower triangle of poisson3D(n) and of poisson2D(1024), level-scheduled
// against Jacobi sweeps (GPU ms by timestamp queries, median of 5), and what 'auto' picks
if (!skip.has('trisolve') && typeof (be as { triangular?: unknown }).triangular === 'function') {
  const lowerOf = (A: CSRMatrix): CSRMatrix => {
    const ri: number[] = [], ci: number[] = [], v: number[] = [];
    for (let i = 0; i < A.rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] <= i) (ri.push(i), ci.push(A.colIdx[k]), v.push(A.values[k]));
    return Csr.fromTriplets(A.rows, A.cols, 'f64', Int32Array.from(ri), Int32Array.from(ci), Float64Array.from(v));
  };
  for (const [name, P] of [[`poisson3D_${n}`, A64], ['poisson2D_1024', poisson2D(1024)]] as const) {
    const L = lowerOf(P);
    const levels = levelSchedule(L, true);
    for (const dt of ['f64', 'f32'] as const) {
      const T = L.astype(dt);
      const bv = be.vector(dt, T.rows);
      const xv = be.vector(dt, T.rows);
      const cells: string[] = [];
      for (const method of ['levels', 'jacobi', 'auto'] as const) {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const S = (be as any).triangular(T, { lower: true, unitDiagonal: false, levels, method });
        await S.solve(bv, xv);
        const ts: number[] = [];
        for (let i = 0; i < 5; i++) ts.push((await be.kernelTime(() => void S.solve(bv, xv))) ?? NaN);
        cells.push(`${method}: ${median(ts).toFixed(3)} ms (${S.method})`);
        S.dispose();
      }
      console.log(`TRISOLVE\t${label}\t${name} lower\t${dt}\t${levels.levelPtr.length - 1} levels\t${cells.join('\t')}`);
      for (const v of [bv, xv]) v.dispose();
    }
  }
}

// rt.solve with its defaults on the WebGPU path (method and preconditioner chosen by the runtime)
if (!skip.has('solve') && typeof (rt as { solve?: unknown }).solve === 'function') {
  for (const dt of ['f64', 'f32'] as const) {
    const A = A64.astype(dt);
    const bd = dt === 'f32' ? new Float32Array(b) : b;
    const h = rt.upload(A);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const solve = (rt as any).solve.bind(rt);
    // the wall clock of the first solve's start: a GPU clock trace (nvidia-smi) can be lined up with the solves
    const startedAt = new Date().toISOString();
    // the first call's report (FIRST row): pipelines made (count, host ms: engine.pipeline's misses),
    // host CPU ms, the garbage collections of each solve (PerformanceObserver 'gc', by the solve they
    // fell in or right after), and the window of the first solve in a CPU profile (µs of its clock)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const engine = (be as any).engine;
    const made = { n: 0, ms: 0 };
    const pipelineOf = engine.pipeline;
    engine.pipeline = function (this: unknown, ...a: unknown[]) {
      const before = engine.pipelines.size;
      const t = performance.now();
      const out = pipelineOf.apply(this, a);
      if (engine.pipelines.size > before) { made.n++; made.ms += performance.now() - t; }
      return out;
    };
    const gcAt: { t: number; ms: number; kind: number }[] = [];
    const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcAt.push({ t: e.startTime, ms: e.duration, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0 }); });
    obs.observe({ entryTypes: ['gc'] });
    const windows: [number, number][] = [];
    const cpu0 = process.cpuUsage();
    const from = process.hrtime.bigint() / 1000n;
    const t0 = performance.now();
    const first = await solve(h, bd, { path: 'webgpu' });
    const firstMs = performance.now() - t0;
    const firstCpu = process.cpuUsage(cpu0);
    const until = process.hrtime.bigint() / 1000n;
    windows.push([t0, performance.now()]);
    const firstMade = { ...made };
    // repeated solves of the same handle: median of --runs (one solve right after the first measured
    // the first's garbage and the card's clock as well: 170 ms where rt.cg + jacobi took 117)
    const again: number[] = [];
    let r;
    for (let i = 0; i < runs; i++) {
      const t1 = performance.now();
      r = await solve(h, bd, { path: 'webgpu' });
      again.push(performance.now() - t1);
      windows.push([t1, performance.now()]);
    }
    await new Promise((res) => setTimeout(res, 20));
    obs.disconnect();
    engine.pipeline = pipelineOf;
    // each solve's collections: those that start inside it or before the next one starts
    const gcOf = windows.map(([s], i) => gcAt.filter((g) => g.t >= s && g.t < (windows[i + 1]?.[0] ?? Infinity)));
    const gcCell = (gs: typeof gcAt) => `${gs.length}/${gs.reduce((a, g) => a + g.ms, 0).toFixed(1)}${gs.some((g) => g.kind === 4) ? 'M' : ''}`;
    console.log(`FIRST\t${label}\tpoisson3D_${n}\t${dt}\tfirst ${firstMs.toFixed(1)} ms, host CPU ${((firstCpu.user + firstCpu.system) / 1000).toFixed(0)} ms\tpipelines made ${firstMade.n} (${firstMade.ms.toFixed(1)} ms); after it ${made.n - firstMade.n}\tsolves 2-4 ${again.slice(0, 3).map((t) => t.toFixed(1)).join(' ')} ms\tGCs per solve (count/ms, M: mark-compact) ${gcOf.map(gcCell).join(' ')}\tprofile window ${from}-${until} µs`);
    const ms = median(again);
    console.log(`SOLVE\t${label}\tpoisson3D_${n}\t${dt}\tfirst ${firstMs.toFixed(1)} ms (from ${startedAt})\tagain ${ms.toFixed(1)} ms (median of ${runs}, min ${Math.min(...again).toFixed(1)}; each ${again.map((t) => t.toFixed(1)).join(' ')})\t${r.method} + ${r.preconditioner}\t${r.iterations} it\t${r.reason}\ttrue ${trueResidual(A64, r.x, b).toExponential(2)}\t(first: ${first.iterations} it)\t${r.preconditionerDetail ?? ''}`);
    // the same method and preconditioner through rt.cg: what 'auto' adds beyond the solve itself
    const ts: number[] = [];
    let j;
    for (let i = 0; i < runs; i++) {
      const t2 = performance.now();
      j = await rt.cg(h, bd, { path: 'webgpu', preconditioner: 'jacobi' });
      ts.push(performance.now() - t2);
    }
    console.log(`SOLVE\t${label}\tpoisson3D_${n}\t${dt}\trt.cg + jacobi ${median(ts).toFixed(1)} ms\t${j!.iterations} it\t${j!.reason}\ttrue ${trueResidual(A64, j!.x, b).toExponential(2)}`);
    const goal = dt === 'f64' ? cupy.get(`poisson3D_${n}/f64`) : undefined;
    // rt.solve with 'chebyshev' on a fresh handle whose upload and structure a Jacobi solve made (untimed):
    // its first solve pays the plan (the Lanczos bounds), the next ones reuse it
    // twice: the second plan's pipelines are compiled already
    for (const round of dt === 'f64' ? [1, 2] : []) {
      const h2 = rt.upload(A);
      await solve(h2, bd, { path: 'webgpu', method: 'cg', preconditioner: 'jacobi' });
      const t5 = performance.now();
      let c = await solve(h2, bd, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
      const firstCheb = performance.now() - t5;
      const cs: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t6 = performance.now();
        c = await solve(h2, bd, { path: 'webgpu', method: 'cg', preconditioner: 'chebyshev' });
        cs.push(performance.now() - t6);
      }
      if (goal) {
        for (const [what, t] of [['first solve of the handle, plan included', firstCheb], ['repeated', median(cs)]] as const) {
          goals.push(`RATIO\t${label} rt.solve cg + 'chebyshev' (handle ${round}, ${what}) vs CuPy cg\tpoisson3D_${n}\t${dt}\tours ${t.toFixed(1)} ms\tCuPy ${goal.ms.toFixed(1)} ms\t${(goal.ms / t).toFixed(2)}x\tgoal >= 2.0x: ${goal.ms / t >= 2 ? 'met' : 'MISSED'}`);
        }
      }
      console.log(`SOLVE\t${label}\tpoisson3D_${n}\t${dt}\trt.solve cg + 'chebyshev' (handle ${round}): first (plan) ${firstCheb.toFixed(1)} ms\tagain ${median(cs).toFixed(1)} ms (median of ${runs}, min ${Math.min(...cs).toFixed(1)})\t${c.iterations} it\t${c.reason}\ttrue ${trueResidual(A64, c.x, b).toExponential(2)}\t${c.preconditionerDetail ?? ''}`);
      h2.dispose();
    }
    // the resident Chebyshev-CG by degree (--cheb-degrees), through the backend with A as DIA (the fused
    // steps where the tree has them) on rt.solve's GPU interval [0.02, 2] of D⁻¹A, D⁻¹ = I/6 given as one
    // value (a tree without that reads D⁻¹ per row); 'per row': the same with D⁻¹ read per row. Median of
    // --runs after one untimed solve; b on the GPU, x read back, as rt.cg's wall time but for the host parts
    for (const degree of dt === 'f64' ? opt('--cheb-degrees', '').split(',').filter(Boolean).map(Number) : []) {
      const Md = be.upload(DIAMatrix.fromCSR(A), {});
      const dinv = new Float64Array(A.rows).fill(1 / 6);
      const Dd = be.upload(new DIAMatrix(A.rows, A.cols, 'f64', new Int32Array([0]), A.rows, dinv), {});
      const bv = be.vector('f64', b);
      for (const perRow of [false, true]) {
        if (perRow && degree !== 6) continue;
        const poly = { degree, lo: 0.02, hi: 2, ...(perRow ? {} : { dinv: 1 / 6 }) };
        const once = async () => {
          const t = performance.now();
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const r = await (be as any).cgChebyshevResident(Md, Dd, bv, { tol: 1e-8, checkEvery: 16 }, poly);
          const x = Float64Array.from(await be.read(r.x));
          be.recycle(r.x);
          return { ms: performance.now() - t, it: r.iterations as number, x };
        };
        await once();
        const ts: number[] = [];
        let last;
        for (let i = 0; i < runs; i++) ts.push((last = await once()).ms);
        const cm = median(ts);
        console.log(`CHEB\t${label}\tpoisson3D_${n}\t${dt}\tresident chebyshev(${degree})${perRow ? ' D⁻¹ per row' : ''} ${cm.toFixed(1)} ms (min ${Math.min(...ts).toFixed(1)})\t${last!.it} it\ttrue ${trueResidual(A64, last!.x, b).toExponential(2)}`);
        if (goal) goals.push(`RATIO\t${label} resident chebyshev(${degree})${perRow ? ' D⁻¹ per row' : ''} (backend, A as DIA) vs CuPy cg\tpoisson3D_${n}\t${dt}\tours ${cm.toFixed(1)} ms\tCuPy ${goal.ms.toFixed(1)} ms\t${(goal.ms / cm).toFixed(2)}x`);
      }
      for (const v of [Md, Dd, bv]) v.dispose();
    }
    // a polynomial preconditioner (SpMVs only) cuts CG's iterations and so its per-iteration fixed costs:
    // 'chebyshev' of --cheb degrees (f64 only; kept preconditioner, median of --runs after one untimed
    // solve; where the tree has it, CG and the polynomial run resident on the GPU)
    for (const degree of dt === 'f64' ? opt('--cheb', '').split(',').filter(Boolean).map(Number) : []) {
      const M = rt.preconditioner(h, { kind: 'chebyshev', degree });
      const t4 = performance.now();
      let c = await rt.cg(h, bd, { path: 'webgpu', preconditioner: M });
      const firstCheb = performance.now() - t4;
      console.log(`SETUP\t${label}\tpoisson3D_${n}\t${dt}\tchebyshev(${degree}) host setup (Lanczos) ${(M as { setupMs?: number }).setupMs?.toFixed(1)} ms\tfirst solve ${firstCheb.toFixed(1)} ms\t${c.preconditionerDetail ?? ''}`);
      const cs: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t3 = performance.now();
        c = await rt.cg(h, bd, { path: 'webgpu', preconditioner: M });
        cs.push(performance.now() - t3);
      }
      const cm = median(cs);
      console.log(`SOLVE\t${label}\tpoisson3D_${n}\t${dt}\trt.cg + chebyshev(${degree}) ${cm.toFixed(1)} ms\t${c.iterations} it\t${c.reason}\ttrue ${trueResidual(A64, c.x as Float64Array, b).toExponential(2)}`);
      if (goal) goals.push(`RATIO\t${label} rt.cg + chebyshev(${degree}) vs CuPy cg\tpoisson3D_${n}\t${dt}\tours ${cm.toFixed(1)} ms\tCuPy ${goal.ms.toFixed(1)} ms\t${(goal.ms / cm).toFixed(2)}x\tgoal >= 2.0x: ${goal.ms / cm >= 2 ? 'met' : 'MISSED'}`);
      M.dispose();
    }
    // the defaults once more, after everything above (their first 'again' solves follow the first solve's garbage and host work)
    if (dt === 'f64') {
      const later: number[] = [];
      let rl;
      for (let i = 0; i < runs; i++) {
        const t7 = performance.now();
        rl = await solve(h, bd, { path: 'webgpu' });
        later.push(performance.now() - t7);
      }
      console.log(`SOLVE\t${label}\tpoisson3D_${n}\t${dt}\trt.solve defaults, later: ${median(later).toFixed(1)} ms (median of ${runs}, min ${Math.min(...later).toFixed(1)}; each ${later.map((t) => t.toFixed(1)).join(' ')})\t${rl.method} + ${rl.preconditioner}\t${rl.iterations} it\ttrue ${trueResidual(A64, rl.x, b).toExponential(2)}`);
      if (goal) goals.push(`RATIO\t${label} rt.solve (defaults, later, ${rl.method} + ${rl.preconditioner}) vs CuPy cg\tpoisson3D_${n}\t${dt}\tours ${median(later).toFixed(1)} ms\tCuPy ${goal.ms.toFixed(1)} ms\t${(goal.ms / median(later)).toFixed(2)}x\tgoal >= 2.0x: ${goal.ms / median(later) >= 2 ? 'met' : 'MISSED'}`);
    }
    if (goal) goals.push(`RATIO\t${label} rt.solve (defaults, ${r.method} + ${r.preconditioner}) vs CuPy cg\tpoisson3D_${n}\t${dt}\tours ${ms.toFixed(1)} ms\tCuPy ${goal.ms.toFixed(1)} ms\t${(goal.ms / ms).toFixed(2)}x\tgoal >= 2.0x: ${goal.ms / ms >= 2 ? 'met' : 'MISSED'}`);
    h.dispose();
  }
}

// f32 storage refined to a true 1e-10 on poisson3D(64) (rt.cg: inner f32 CG, the residual and x in
// double-single on the GPU where the library refines there, on the host before), against the f64
// (double-single) solve to the same true residual
if (!skip.has('refine')) {
  const m = Number(opt('--refine-n', '64'));
  const A = poisson3D(m);
  const bb = new Float64Array(A.rows).fill(1);
  const target = 1e-10;
  const rows: Record<string, { ms: number; it: number; refinements: number; res: number }> = {};
  for (const dt of ['f64', 'f32'] as const) {
    const h = rt.upload(A.astype(dt));
    await rt.cg(h, bb, { tol: target, maxIter: 5, path: 'webgpu' }); // warm-up: upload, pipelines, the f32 matrix's double-single copy
    const times: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      last = await rt.cg(h, bb, { tol: target, path: 'webgpu' });
      times.push(performance.now() - t0);
    }
    rows[dt] = { ms: median(times), it: last!.iterations, refinements: last!.refinements, res: trueResidual(A, last!.x, bb) };
    console.log(`ROW\t${label}_${dt === 'f64' ? 'f64_ds' : 'f32_refine'}\tpoisson3D_${m}\t${dt}\t${rows[dt].ms.toFixed(1)}\t${last!.iterations} it, ${last!.refinements} refinements, ${last!.reason}\t${last!.relativeResidual.toExponential(2)}\t${rows[dt].res.toExponential(2)}\t-\t-\t-`);
    h.dispose();
  }
  const ok = rows.f32.res <= target && rows.f64.res <= target;
  goals.push(`RATIO\t${label} f32 + refinement vs f64 (double-single), true 1e-10\tpoisson3D_${m}\t${rows.f32.ms.toFixed(1)} ms vs ${rows.f64.ms.toFixed(1)} ms\t${(rows.f64.ms / rows.f32.ms).toFixed(2)}x\tgoal: less time than f64: ${ok && rows.f32.ms < rows.f64.ms ? 'met' : 'MISSED'}`);
}

for (const g of goals) console.log(g);
rt.dispose();
process.exit(0);
