// The demo page: the three paths race on the same problem side by side — the CPU path (WebAssembly
// SIMD on N workers), WebGPU (WGSL compute shaders) and WebGL2 (fragment shaders). One runtime forced
// onto each path (a path this browser lacks shows why in its panel); one more with backend 'auto'
// answers "what would auto choose, and why" through rt.explain.
import { componentBytes, components, isComplex, type DType, type ValueArray } from '../src/dtype.js';
import { DenseMatrix, type CSRMatrix, type FormatName } from '../src/formats/index.js';
import { diagonalSums } from '../src/formats/csr.js';
import { isSymmetric } from '../src/solvers/direct/pattern.js';
import { Prng } from '../src/generators/index.js';
import { effectiveGBs, maxRelativeError, median, spmvGflops } from '../src/metrics.js';
import { ResidualChart } from './chart.js';
import { csrFromParts, describeGenerator, drawSparsity, generate, generatorRows, SIZE_RANGES, type GeneratorKind } from './matrix.js';
import { Panel, type PanelResult } from './panel.js';
import { cgRef, gemmRef, relResidual, spmvRef, transposeRef } from './reference.js';
import { deviceOf, makeRuntime, PATHS, type Path } from './runtime.js';
import type { Explanation, MatrixHandle, PreconditionerKind, Runtime, SolveMethod } from '../src/index.js';

type Op = 'spmv' | 'solve' | 'gemm' | 'transpose';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const now = () => performance.now();
const pause = () => new Promise<void>((r) => setTimeout(r, 0));

interface DemoState {
  ready: boolean;
  busy: boolean;
  runs: number;
  matrix: { name: string; rows: number; cols: number; nnz: number; dtype: DType } | null;
  results: Partial<Record<Path, PanelResult | { error: string } | { unavailable: string }>>;
  errors: string[];
}
const demo: DemoState = { ready: false, busy: false, runs: 0, matrix: null, results: {}, errors: [] };
(window as unknown as { __demo: DemoState }).__demo = demo;

const TITLES: Record<Path, string> = {
  cpu: 'CPU — WebAssembly SIMD × workers',
  webgpu: 'WebGPU — WGSL compute shaders',
  webgl2: 'WebGL2 — fragment shaders',
};
const panels = Object.fromEntries(PATHS.map((p) => [p, new Panel($(`panel-${p}`), TITLES[p])])) as Record<Path, Panel>;
const runtimes: Record<Path, Runtime | null> = { cpu: null, webgpu: null, webgl2: null };
const unavailable: Partial<Record<Path, string>> = {};
let autoRt: Runtime | null = null;
let chart: ResidualChart | null = null;
let base: CSRMatrix | null = null;
let baseName = '';

// ---------------------------------------------------------------- controls

const ctl = {
  generator: $<HTMLSelectElement>('generator'),
  size: $<HTMLInputElement>('size'),
  sizeLabel: $<HTMLOutputElement>('size-label'),
  file: $<HTMLInputElement>('file'),
  drop: $('drop'),
  parseProgress: $<HTMLProgressElement>('parse-progress'),
  parseStatus: $('parse-status'),
  op: $<HTMLSelectElement>('op'),
  format: $<HTMLSelectElement>('format'),
  dtype: $<HTMLSelectElement>('dtype'),
  tol: $<HTMLInputElement>('tol'),
  maxIter: $<HTMLInputElement>('maxiter'),
  method: $<HTMLSelectElement>('method'),
  preconditioner: $<HTMLSelectElement>('preconditioner'),
  denseN: $<HTMLInputElement>('dense-n'),
  denseLabel: $<HTMLOutputElement>('dense-label'),
  workers: $<HTMLInputElement>('workers'),
  workersLabel: $<HTMLOutputElement>('workers-label'),
  concurrent: $<HTMLInputElement>('concurrent'),
  run: $<HTMLButtonElement>('run'),
};

function setSizeRange(): void {
  const [min, max, step, def] = SIZE_RANGES[ctl.generator.value as GeneratorKind];
  Object.assign(ctl.size, { min: String(min), max: String(max), step: String(step) });
  ctl.size.value = String(def);
  showSize();
}

function showSize(): void {
  const kind = ctl.generator.value as GeneratorKind;
  const n = Number(ctl.size.value);
  ctl.sizeLabel.textContent = `${n} → ${generatorRows(kind, n).toLocaleString('en')} rows`;
}

let genTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleGenerate(): void {
  showSize();
  clearTimeout(genTimer);
  genTimer = setTimeout(useGenerator, 200);
}

function useGenerator(): void {
  const kind = ctl.generator.value as GeneratorKind;
  const n = Number(ctl.size.value);
  try {
    setMatrix(generate(kind, n), describeGenerator(kind, n));
  } catch (e) {
    ctl.parseStatus.textContent = `could not generate: ${(e as Error).message}`;
  }
}

function setMatrix(A: CSRMatrix, name: string): void {
  base = A;
  baseName = name;
  const pic = drawSparsity($<HTMLCanvasElement>('sparsity'), A);
  const rowLen = A.rows ? A.nnz / A.rows : 0;
  let maxRow = 0;
  for (let i = 0; i < A.rows; i++) maxRow = Math.max(maxRow, A.rowPtr[i + 1] - A.rowPtr[i]);
  $('matrix-info').textContent =
    `${name}\n${A.rows.toLocaleString('en')} × ${A.cols.toLocaleString('en')}, nnz ${A.nnz.toLocaleString('en')} (${A.dtype})\n` +
    `row length: mean ${rowLen.toFixed(1)}, max ${maxRow}\npicture: ${pic.bins}×${pic.bins} bins, ≤ ${pic.maxPerBin} entries per bin`;
  demo.matrix = { name, rows: A.rows, cols: A.cols, nnz: A.nnz, dtype: A.dtype };
  if (isComplex(A.dtype) && !isComplex(ctl.dtype.value as DType)) ctl.dtype.value = A.dtype === 'c64' ? 'c64' : 'c128';
  updateExplain();
}

// ---------------------------------------------------------------- Matrix Market files, parsed in a worker

function loadFile(file: File): void {
  ctl.parseProgress.hidden = false;
  ctl.parseProgress.value = 0;
  ctl.parseStatus.textContent = `reading ${file.name} (${(file.size / 1e6).toFixed(2)} MB)…`;
  ctl.parseStatus.dataset.state = 'parsing';
  const worker = new Worker('/parse-worker.js', { type: 'module', name: 'simdgl-parse' });
  worker.onmessage = (e: MessageEvent) => {
    const m = e.data;
    if (m.type === 'progress') {
      ctl.parseProgress.value = m.total ? m.bytes / m.total : 1;
      ctl.parseStatus.textContent = `parsing ${file.name}: ${(m.bytes / 1e6).toFixed(2)} / ${(m.total / 1e6).toFixed(2)} MB`;
      return;
    }
    worker.terminate();
    ctl.parseProgress.hidden = true;
    if (m.type === 'error') {
      ctl.parseStatus.textContent = `${file.name}: ${m.message}`;
      ctl.parseStatus.dataset.state = 'error';
      return;
    }
    const A = csrFromParts(m);
    const h = m.header as { format: string; field: string; symmetry: string };
    ctl.parseStatus.textContent = `${file.name}: ${h.format} ${h.field} ${h.symmetry}, parsed off the main thread in ${m.parseMs.toFixed(0)} ms`;
    ctl.parseStatus.dataset.state = 'done';
    setMatrix(A, file.name);
  };
  worker.onerror = (e) => {
    worker.terminate();
    ctl.parseProgress.hidden = true;
    ctl.parseStatus.textContent = `${file.name}: the parse worker failed: ${e.message}`;
    ctl.parseStatus.dataset.state = 'error';
  };
  worker.postMessage({ file });
}

// ---------------------------------------------------------------- explain and device report

function matrixFor(dtype: DType): CSRMatrix | null {
  if (!base) return null;
  if (isComplex(base.dtype) && !isComplex(dtype)) return null;
  return base.dtype === dtype ? base : base.astype(dtype);
}

function updateExplain(): void {
  const box = $('explain');
  const A = matrixFor(ctl.dtype.value as DType);
  const rt = autoRt ?? runtimes.cpu;
  if (!A || !rt) {
    box.textContent = A ? '—' : 'a complex matrix needs a complex dtype (c64 or c128)';
    return;
  }
  let ex: Explanation;
  try {
    ex = rt.explain('spmv', A);
  } catch (e) {
    box.textContent = `explain failed: ${(e as Error).message}`;
    return;
  }
  const est = (k: keyof Explanation['estimates']) => (ex.estimates?.[k] ? `${ex.estimates[k]!.ms.toPrecision(3)} ms in ${ex.estimates[k]!.format}` : 'not available');
  box.innerHTML = '';
  const head = document.createElement('div');
  head.innerHTML = `SpMV would run on <b>${ex.path.toUpperCase()}</b> in <b>${ex.format}</b>`;
  const ul = document.createElement('ul');
  for (const r of ex.reasons ?? []) {
    const li = document.createElement('li');
    li.textContent = r;
    ul.append(li);
  }
  const es = document.createElement('div');
  es.textContent = `estimates — CPU: ${est('cpu')}; WebGPU: ${est('webgpu')}; WebGL2: ${est('webgl2')}`;
  box.append(head, ul, es);
  box.dataset.path = ex.path;
}

/** One block per path: the CPU build and threads, each GPU path's device and limits, or why it is missing. */
function deviceReport(): void {
  const lines: string[] = [];
  const yes = (b: unknown) => (b ? 'yes' : 'no');
  const cpuRt = runtimes.cpu;
  lines.push('CPU path (WebAssembly)');
  if (cpuRt) {
    const c = cpuRt.capabilities();
    lines.push(`  kernels               ${c.wasm === 'simd' ? 'SIMD build (128-bit)' : 'plain build (no SIMD)'}`);
    lines.push(`  SIMD                  ${yes(c.simd)}`);
    lines.push(`  threads               ${c.threads}${c.workers ? ' (worker pool running)' : ''}   hardwareConcurrency ${navigator.hardwareConcurrency ?? '?'}`);
    lines.push(`  shared memory         ${yes(c.sharedMemory)}`);
    lines.push(`  cross-origin isolated ${yes(c.crossOriginIsolated ?? globalThis.crossOriginIsolated)}`);
    for (const n of c.notes) lines.push(`  note: ${n}`);
  } else {
    lines.push(`  unavailable: ${unavailable.cpu}`);
  }
  for (const path of ['webgpu', 'webgl2'] as const) {
    const rt = runtimes[path];
    lines.push('', `${path === 'webgpu' ? 'WebGPU path (WGSL compute)' : 'WebGL2 path (fragment shaders)'}`);
    if (!rt) {
      lines.push(`  available             no — ${unavailable[path] ?? 'unknown reason'}`);
      continue;
    }
    const p = rt.capabilities().paths[path];
    lines.push(`  available             ${p.lost ? `lost — ${p.reason}` : 'yes'}`);
    lines.push(`  device                ${p.device ?? 'unknown'}${p.vendor ? ` (${p.vendor})` : ''}`);
    // the path's own figures: buffer/texture limits, float extensions, subgroups, software adapter…
    for (const [k, v] of Object.entries(p.limits ?? {})) lines.push(`  ${k.padEnd(21)} ${typeof v === 'boolean' ? yes(v) : v}`);
  }
  lines.push('', `browser: ${navigator.userAgent}`);
  $('device-report').textContent = lines.join('\n');
  const iso = globalThis.crossOriginIsolated;
  $('isolation').textContent = iso
    ? typeof SharedArrayBuffer === 'function'
      ? 'cross-origin isolated: SharedArrayBuffer and the worker pool are available'
      : 'cross-origin isolated, but this browser has no SharedArrayBuffer: the CPU path runs on one thread'
    : 'NOT cross-origin isolated: the CPU path runs on one thread (serve with COOP same-origin + COEP require-corp, e.g. npm run demo)';
}

/** Each panel's device line (the CPU one changes with the workers slider). */
function showDevices(): void {
  for (const path of PATHS) {
    const rt = runtimes[path];
    if (rt) {
      const d = deviceOf(path, rt);
      panels[path].setDevice(d.device, d.software);
    }
  }
}

// ---------------------------------------------------------------- the operations

function randomValues(dtype: DType, n: number, seed: number): ValueArray {
  const len = n * components(dtype);
  const p = new Prng(seed);
  const a = componentBytes(dtype) === 4 ? new Float32Array(len) : new Float64Array(len);
  for (let i = 0; i < len; i++) a[i] = 2 * p.next() - 1;
  return a;
}

const elemBytes = (dt: DType) => componentBytes(dt) * components(dt);
/**
 * The format the operation runs in on this runtime's path (rt.explain): a GPU path runs a format it
 * has no kernel for as another one, which the handle's own format would not say.
 */
function formatOnPath(rt: Runtime, h: MatrixHandle): string {
  const ex = rt.explain('spmv', h);
  return ex.format === h.format ? ex.format : `${ex.format} (uploaded as ${h.format})`;
}

type FormatArg = FormatName | 'auto';
interface SpmvProblem { A: CSRMatrix; x: ValueArray; yRef: Float64Array; dtype: DType; format: FormatArg }
interface SolveProblem {
  A: CSRMatrix; ref: CSRMatrix; b: ValueArray; b64: Float64Array; xRef: Float64Array | null; noReference: string | null; dtype: DType; format: FormatArg; tol: number; maxIter: number;
  method: SolveMethod | 'auto'; preconditioner: PreconditionerKind | 'auto';
}
interface DenseProblem { n: number; A: DenseMatrix; B: DenseMatrix; ref: Float64Array; dtype: DType }

async function runSpmv(rt: Runtime, panel: Panel, p: SpmvProblem): Promise<PanelResult> {
  const { A, x, dtype } = p;
  panel.running('uploading', 0);
  const t0 = now();
  const h = rt.upload(A, { format: p.format });
  const xv = rt.vector(x, dtype);
  const yv = rt.vector(A.rows, dtype);
  const tUp = now();
  try {
    await rt.spmv(h, xv, { y: yv });
    const y = await yv.read();
    const totalMs = now() - t0;
    const maxError = maxRelativeError(y, p.yRef);
    // timing: batches of R products and one read-back (which waits for the GPU), minus a read-back alone
    const first = Math.max(0.02, totalMs - (tUp - t0));
    const R = Math.max(1, Math.min(500, Math.ceil(60 / first)));
    const batches = 5;
    const times: number[] = [];
    const reads: number[] = [];
    for (let b = 0; b < batches; b++) {
      panel.running(`timing: batch ${b + 1}/${batches} of ${R} products`, b / batches);
      await pause();
      let t = now();
      for (let r = 0; r < R; r++) await rt.spmv(h, xv, { y: yv });
      await yv.read();
      times.push(now() - t);
      t = now();
      await yv.read();
      reads.push(now() - t);
    }
    const kernelMs = Math.max(1e-4, (median(times) - median(reads)) / R);
    const bytes = h.storageBytes + (A.rows + A.cols) * elemBytes(dtype);
    return {
      kernelMs,
      totalMs,
      gflops: spmvGflops(A.nnz, isComplex(dtype), kernelMs / 1e3),
      gbs: effectiveGBs(bytes, kernelMs / 1e3),
      maxError,
      rows: [
        ['format on this path', formatOnPath(rt, h)],
        ['upload (convert + copy)', `${(tUp - t0).toFixed(2)} ms`],
        ['stored bytes', h.storageBytes.toLocaleString('en')],
        ['products timed', `${batches} × ${R}`],
      ],
    };
  } finally {
    h.dispose();
    xv.dispose();
    yv.dispose();
  }
}

async function runSolve(rt: Runtime, panel: Panel, path: Path, p: SolveProblem): Promise<PanelResult> {
  panel.running('uploading', 0);
  const t0 = now();
  const h = rt.upload(p.A, { format: p.format });
  const tUp = now();
  let paused = 0;
  let lastPaint = now();
  const goal = Math.log(p.tol > 0 ? p.tol : 1e-16);
  try {
    const tSolve = now();
    // setup (the preconditioner's factors) is inside the solve's time, as a user would see it
    const res = await rt.solve(h, p.b, {
      method: p.method,
      preconditioner: p.preconditioner,
      tol: p.tol,
      maxIter: p.maxIter,
      onIteration: (it, r) => {
        chart?.push(path, it, r);
        const t = now();
        if (t - lastPaint < 100) return;
        // let the page paint the progress, and keep that time out of the solve time
        panel.running(`iteration ${it}: residual ${r.toExponential(2)}`, r > 0 ? Math.log(r) / goal : 1);
        return pause().then(() => {
          lastPaint = now();
          paused += lastPaint - t;
        });
      },
    });
    const solveMs = now() - tSolve - paused;
    const totalMs = tUp - t0 + solveMs;
    chart?.set(path, res.history);
    const n = p.A.rows;
    const cplx = isComplex(p.dtype);
    const flops = res.iterations * ((cplx ? 8 : 2) * p.A.nnz + (cplx ? 40 : 10) * n);
    const bytes = res.iterations * (h.storageBytes + 15 * n * elemBytes(p.dtype));
    const x64 = Float64Array.from(res.x);
    return {
      kernelMs: solveMs,
      totalMs,
      gflops: flops / (solveMs / 1e3) / 1e9,
      gbs: effectiveGBs(bytes, solveMs / 1e3),
      maxError: p.xRef ? maxRelativeError(x64, p.xRef) : undefined,
      residual: relResidual(p.ref, x64, p.b64),
      rows: [
        ['method', res.method],
        ['preconditioner', res.preconditionerDetail],
        ['iterations', String(res.iterations) + (res.refinements ? ` (${res.refinements} refinement${res.refinements > 1 ? 's' : ''} in f64)` : '')],
        ['stopped because', res.converged ? 'converged' : `${res.reason} (not converged)`],
        ['true residual (f64)', res.relativeResidual.toExponential(2)],
        ['recurrence residual', res.recurrenceResidual.toExponential(2)],
        ['format on this path', formatOnPath(rt, h)],
      ],
      message: p.xRef ? '' : `${p.noReference} system: the error column compares nothing; see the true residual`,
    };
  } finally {
    h.dispose();
  }
}

async function runDense(rt: Runtime, panel: Panel, op: 'gemm' | 'transpose', p: DenseProblem): Promise<PanelResult> {
  const call = async () => (op === 'gemm' ? await rt.gemm(p.A, p.B) : await rt.transpose(p.A)).values;
  panel.running('running', undefined);
  await pause();
  const t0 = now();
  const out = await call();
  const totalMs = now() - t0;
  const maxError = maxRelativeError(out, p.ref);
  const reps = Math.max(3, Math.min(50, Math.ceil(300 / Math.max(1, totalMs))));
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    panel.running(`timing ${r + 1}/${reps}`, r / reps);
    await pause();
    const t = now();
    await call();
    times.push(now() - t);
  }
  const kernelMs = median(times);
  const n = p.n;
  const eb = elemBytes(p.dtype);
  const cplx = isComplex(p.dtype);
  return {
    kernelMs,
    totalMs,
    gflops: op === 'gemm' ? ((cplx ? 8 : 2) * n ** 3) / (kernelMs / 1e3) / 1e9 : undefined,
    gbs: effectiveGBs((op === 'gemm' ? 3 : 2) * n * n * eb, kernelMs / 1e3),
    maxError,
    rows: [['size', `${n}×${n} ${p.dtype}`]],
    message: 'dense operations take host matrices: kernel time includes the copy in and out',
  };
}

// ---------------------------------------------------------------- the race

function problemFor(op: Op): SpmvProblem | SolveProblem | DenseProblem {
  const dtype = ctl.dtype.value as DType;
  if (op === 'gemm' || op === 'transpose') {
    const n = Number(ctl.denseN.value);
    const a = randomValues(dtype, n * n, 11);
    const b = randomValues(dtype, n * n, 12);
    const A = new DenseMatrix(n, n, dtype, a);
    const B = new DenseMatrix(n, n, dtype, b);
    const ref = op === 'gemm' ? gemmRef(n, a, b, isComplex(dtype)) : transposeRef(n, n, a, components(dtype));
    return { n, A, B, ref, dtype };
  }
  const A = matrixFor(dtype);
  if (!base || !A) throw new Error(base ? 'this matrix is complex: choose the c64 or c128 dtype' : 'no matrix yet');
  const ref = A.astype(isComplex(dtype) ? 'c128' : 'f64');
  if (op === 'spmv') {
    const x = randomValues(dtype, A.cols, 7);
    return { A, x, yRef: spmvRef(ref, x), dtype, format: ctl.format.value as FormatArg };
  }
  if (A.rows !== A.cols) throw new Error(`a linear system needs a square matrix; this one is ${A.rows}×${A.cols}`);
  const b = (componentBytes(dtype) === 4 ? new Float32Array(A.rows * components(dtype)) : new Float64Array(A.rows * components(dtype)));
  for (let i = 0; i < A.rows; i++) b[i * components(dtype)] = 1;
  const b64 = Float64Array.from(b);
  const tol = Number(ctl.tol.value);
  const maxIter = Math.floor(Number(ctl.maxIter.value));
  if (!(tol >= 0)) throw new Error(`tolerance must be a number ≥ 0, got "${ctl.tol.value}"`);
  if (!(maxIter >= 1)) throw new Error(`max iterations must be ≥ 1, got "${ctl.maxIter.value}"`);
  // the page's CG reference for a real symmetric matrix with a positive diagonal; an indefinite one (a saddle
  // point's zero diagonal) or a nonsymmetric one (an Oseen flow, a convection matrix) is measured by its true residual alone
  // (a canonical CSR read as a CSC is Aᵀ, symmetric exactly where A is)
  const symmetric = () => isSymmetric({ n: ref.rows, colPtr: ref.rowPtr, rowIdx: ref.colIdx, values: ref.values as Float64Array, complex: false });
  const noReference = isComplex(dtype) ? 'complex' : !diagonalSums(ref).every((d) => d > 0) ? 'indefinite' : !symmetric() ? 'nonsymmetric' : null;
  const xRef = noReference ? null : cgRef(ref, b64, 1e-12).x;
  const method = ctl.method.value as SolveMethod | 'auto';
  const preconditioner = ctl.preconditioner.value as PreconditionerKind | 'auto';
  return { A, ref, b, b64, xRef, noReference, dtype, format: ctl.format.value as FormatArg, tol, maxIter, method, preconditioner };
}

async function runPath(path: Path, op: Op, problem: ReturnType<typeof problemFor>): Promise<void> {
  const panel = panels[path];
  const rt = runtimes[path];
  if (!rt) {
    panel.unavailable(unavailable[path] ?? 'unavailable');
    demo.results[path] = { unavailable: unavailable[path] ?? 'unavailable' };
    return;
  }
  try {
    const r =
      op === 'spmv' ? await runSpmv(rt, panel, problem as SpmvProblem)
      : op === 'solve' ? await runSolve(rt, panel, path, problem as SolveProblem)
      : await runDense(rt, panel, op, problem as DenseProblem);
    panel.done(r);
    demo.results[path] = r;
  } catch (e) {
    const msg = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
    panel.error(msg);
    demo.results[path] = { error: msg };
  }
}

async function race(): Promise<void> {
  if (demo.busy) return;
  demo.busy = true;
  ctl.run.disabled = true;
  demo.results = {};
  const op = ctl.op.value as Op;
  try {
    const live = PATHS.filter((p) => runtimes[p]);
    for (const p of live) panels[p].reset();
    $('chart-box').hidden = op !== 'solve';
    if (op === 'solve') {
      chart ??= new ResidualChart($('chart'));
      chart.clear();
    }
    for (const p of live) panels[p].running('preparing the problem and its f64 reference…');
    await pause();
    let problem;
    try {
      problem = problemFor(op);
    } catch (e) {
      for (const p of live) panels[p].error((e as Error).message);
      return;
    }
    const label = op === 'gemm' || op === 'transpose' ? `${op} ${ctl.denseN.value}×${ctl.denseN.value} ${ctl.dtype.value}` : `${op} on ${baseName}, ${ctl.dtype.value}, format ${ctl.format.value}`;
    for (const p of live) panels[p].setSubtitle(label);
    if (ctl.concurrent.checked) await Promise.all(PATHS.map((p) => runPath(p, op, problem)));
    else for (const p of PATHS) await runPath(p, op, problem);
    // the fastest path, by how much it beats the next one
    const timed = PATHS.map((p) => [p, panels[p].result?.kernelMs] as const).filter((t): t is readonly [Path, number] => t[1] !== undefined).sort((a, b) => a[1] - b[1]);
    if (timed.length > 1) panels[timed[0][0]].markWinner(timed[1][1] / timed[0][1]);
  } finally {
    demo.runs++;
    demo.busy = false;
    ctl.run.disabled = false;
    if (pendingWorkers !== null) void applyWorkers();
  }
}

// ---------------------------------------------------------------- workers

let pendingWorkers: number | null = null;
async function applyWorkers(): Promise<void> {
  const n = Number(ctl.workers.value);
  ctl.workersLabel.textContent = String(n);
  if (demo.busy) {
    pendingWorkers = n;
    return;
  }
  pendingWorkers = null;
  try {
    await runtimes.cpu?.setWorkers(n);
    await autoRt?.setWorkers(n);
  } catch (e) {
    panels.cpu.error(`setWorkers(${n}) failed: ${(e as Error).message}`);
  }
  deviceReport();
  showDevices();
  updateExplain();
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  const cores = navigator.hardwareConcurrency || 1;
  // threads need shared memory: a cross-origin isolated page in an engine with SharedArrayBuffer (not WebKitGTK)
  const shared = globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
  ctl.workers.max = String(shared ? Math.max(1, cores) : 1);
  ctl.workers.value = String(shared ? Math.min(4, cores) : 1);
  ctl.workersLabel.textContent = ctl.workers.value;
  ctl.denseLabel.textContent = ctl.denseN.value;
  document.body.dataset.op = ctl.op.value;
  setSizeRange();

  const workers = Number(ctl.workers.value);
  for (const path of PATHS) {
    // the WebGL2 path draws on a canvas of its own
    const made = await makeRuntime(path, workers, path === 'webgl2' ? document.createElement('canvas') : undefined);
    runtimes[path] = made.rt;
    if (!made.rt) {
      unavailable[path] = made.reason;
      panels[path].unavailable(made.reason);
    }
  }
  autoRt = (await makeRuntime('auto', workers, document.createElement('canvas'))).rt;
  deviceReport();
  showDevices();

  ctl.generator.addEventListener('change', () => {
    setSizeRange();
    useGenerator();
  });
  ctl.size.addEventListener('input', scheduleGenerate);
  ctl.op.addEventListener('change', () => {
    document.body.dataset.op = ctl.op.value;
  });
  ctl.dtype.addEventListener('change', updateExplain);
  ctl.format.addEventListener('change', updateExplain);
  ctl.denseN.addEventListener('input', () => (ctl.denseLabel.textContent = ctl.denseN.value));
  ctl.workers.addEventListener('input', () => (ctl.workersLabel.textContent = ctl.workers.value));
  ctl.workers.addEventListener('change', () => void applyWorkers());
  ctl.run.addEventListener('click', () => void race());
  ctl.file.addEventListener('change', () => {
    const f = ctl.file.files?.[0];
    if (f) loadFile(f);
  });
  // the whole page is a drop target; the drop box lights up
  window.addEventListener('dragover', (e) => {
    e.preventDefault();
    ctl.drop.classList.add('over');
  });
  window.addEventListener('dragleave', () => ctl.drop.classList.remove('over'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    ctl.drop.classList.remove('over');
    const f = e.dataTransfer?.files?.[0];
    if (f) loadFile(f);
  });

  useGenerator();
  ctl.run.disabled = false;
  demo.ready = true;
}

start().catch((e) => {
  demo.errors.push(String(e?.message ?? e));
  $('isolation').textContent = `the demo failed to start: ${e?.message ?? e}`;
  throw e;
});
