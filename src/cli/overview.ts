import { availableParallelism, cpus } from 'node:os';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { poisson3D } from '../generators/poisson.js';
import type { CSRMatrix } from '../formats/csr.js';
import type { PathId } from '../path.js';
import { effectiveGBs, maxRelativeError, spmvGflops, timeMedianMs } from '../metrics.js';
import { jsCsrSpmv } from '../host-spmv.js';
import { randomVector } from './compare.js';
import { timeResidentSpmv } from './timing.js';
import { dawnOption } from './software-vulkan.js';

/** One SpMV measurement of the overview: y = A·x with resident vectors, checked against f64. */
export interface OverviewRow {
  label: string;
  /** where it ran: 'js', or a path id */
  path: 'js' | PathId;
  threads: number;
  format: string;
  ms: number;
  gflops: number;
  gbs: number;
  maxRelError: number;
}

export interface Overview {
  matrix: { name: string; rows: number; nnz: number; dtype: 'f64' };
  machine: { cpu: string; cores: number; kernels: string };
  rows: OverviewRow[];
  /** the runtime's own choice for this matrix (rt.explain), with its reasons */
  choice: { path: PathId; format: string; reasons: string[] };
  /** rt.cg(rt.upload(A), b) with the defaults */
  cg: { path: PathId; format: string; iterations: number; ms: number; relativeResidual: number; converged: boolean };
  /** what was left out and why, said once */
  notes: string[];
}

const DEFAULT_N = 64;

/**
 * What `npm start` shows: SpMV on the 3-D Poisson matrix (the embedded default) as a plain JavaScript
 * loop, on the CPU path on one thread and on every core, and on every GPU path this machine has; the
 * runtime's own choice with its reason; and a CG solve with the defaults.
 */
export async function overview(options: { n?: number; minMs?: number; onStep?: (what: string) => void } = {}): Promise<Overview> {
  const n = options.n ?? DEFAULT_N;
  const minMs = options.minMs ?? 300;
  const step = options.onStep ?? (() => {});
  const A = poisson3D(n);
  const x = randomVector('f64', A.cols, 7) as Float64Array;
  const ref = new Float64Array(A.rows);
  jsCsrSpmv(A, x, ref);
  const rows: OverviewRow[] = [];
  const notes: string[] = [];
  const bytesOf = (matrixBytes: number): number => matrixBytes + (A.rows + A.cols) * 8;

  step('JavaScript CSR loop');
  const yJs = new Float64Array(A.rows);
  const jsMs = await timeMedianMs(() => jsCsrSpmv(A, x, yJs), minMs, 3, 200);
  rows.push(row('plain JavaScript CSR loop', 'js', 1, 'csr', jsMs, A, bytesOf(A.storageBytes()), yJs, ref));

  const cores = availableParallelism();
  const one = await createRuntime({ backend: 'cpu', workers: 1 });
  const all = await createRuntime({ workers: 'auto', webgpu: await dawnOption() });
  try {
    const caps = all.capabilities();
    if (!caps.simd) notes.push('this engine lacks WebAssembly SIMD: the CPU path runs its plain build');
    if (caps.threads < cores) notes.push(`the CPU path runs on ${caps.threads} of ${cores} cores: ${caps.notes.join('; ')}`);
    step('CPU path, 1 thread');
    rows.push(await measure(one, 'cpu', `CPU path, 1 thread`, 1, A, x, ref, minMs));
    if (caps.threads > 1) {
      step(`CPU path, ${caps.threads} threads`);
      rows.push(await measure(all, 'cpu', `CPU path, ${caps.threads} threads`, caps.threads, A, x, ref, minMs));
    }
    for (const id of ['webgpu', 'webgl2'] as const) {
      const p = caps.paths[id];
      if (!p.available) {
        notes.push(`${id === 'webgpu' ? 'WebGPU' : 'WebGL2 (a browser API: npm run demo shows it)'} path not shown: ${p.reason ?? 'unavailable'}`);
        continue;
      }
      step(`${id} path`);
      const software = p.limits?.software === true;
      const name = id === 'webgpu' ? 'WebGPU' : 'WebGL2';
      const label = software ? `${name} path (software adapter)` : `${name} path${p.device ? ` (${shortDevice(p.device)})` : ''}`;
      rows.push(await measure(all, id, label, 1, A, x, ref, minMs));
      if (software) notes.push(`the ${name} adapter here is a software renderer on the CPU (${shortDevice(p.device ?? '')}): it shows the path works, not a GPU's speed, and 'auto' never picks it`);
    }

    step('the runtime’s choice');
    const h = all.upload(A);
    // the GPU paths' automatic calibration runs in the background: their estimates wait for it here
    await all.autoCalibrated();
    const e = all.explain('spmv', h);
    // the chosen path's reason first; paths that are unavailable are said once, in the notes
    const chosen = all.pathById(e.path)?.label ?? e.path;
    const reasons = e.reasons.filter((r) => !/ path unavailable: /.test(r)).sort((a, b) => Number(b.startsWith(chosen)) - Number(a.startsWith(chosen)));
    const choice = { path: e.path, format: e.format, reasons };

    step('CG');
    const b = new Float64Array(A.rows).fill(1);
    const t0 = performance.now();
    const r = await all.cg(h, b);
    const cgMs = performance.now() - t0;
    h.dispose();
    return {
      matrix: { name: `poisson3D_${n}`, rows: A.rows, nnz: A.nnz, dtype: 'f64' },
      machine: { cpu: cpus()[0]?.model?.trim() || 'unknown CPU', cores, kernels: caps.wasm === 'simd' ? 'WebAssembly SIMD' : 'plain WebAssembly' },
      rows,
      choice,
      cg: { path: r.path, format: e.format, iterations: r.iterations, ms: cgMs, relativeResidual: r.relativeResidual, converged: r.converged },
      notes,
    };
  } finally {
    one.dispose();
    all.dispose();
  }
}

/** SpMV on one path of a runtime with resident vectors: a batch of products ended by one read, per product. */
async function measure(rt: Runtime, path: PathId, label: string, threads: number, A: CSRMatrix, x: Float64Array, ref: Float64Array, minMs: number): Promise<OverviewRow> {
  const h = rt.upload(A);
  const xv = rt.vector(x);
  const yv = rt.vector(A.rows);
  try {
    const format = rt.explain('spmv', h).estimates[path]?.format ?? h.format;
    const ms = await timeResidentSpmv(rt, h, xv, yv, path, minMs);
    const bytes = h.storageBytes + (A.rows + A.cols) * 8;
    return row(label, path, threads, format, ms, A, bytes, await yv.read(), ref);
  } finally {
    h.dispose();
    xv.dispose();
    yv.dispose();
  }
}

function row(label: string, path: OverviewRow['path'], threads: number, format: string, ms: number, A: CSRMatrix, bytes: number, y: ArrayLike<number>, ref: Float64Array): OverviewRow {
  return { label, path, threads, format, ms, gflops: spmvGflops(A.nnz, false, ms / 1e3), gbs: effectiveGBs(bytes, ms / 1e3), maxRelError: maxRelativeError(y, ref) };
}

function shortDevice(d: string): string {
  return d.length > 40 ? `${d.slice(0, 39)}…` : d;
}

/** The overview as a screenful of text. */
export function formatOverview(o: Overview): string {
  const js = o.rows[0].ms;
  const w = Math.max(...o.rows.map((r) => r.label.length));
  const lines = [
    `simdgl: sparse matrix–vector products and solvers on WebAssembly SIMD threads, WebGPU and WebGL2`,
    `${o.machine.cpu}, ${o.machine.cores} cores, ${o.machine.kernels}`,
    '',
    `y = A·x on ${o.matrix.name} (3-D Poisson, 7-point stencil): ${o.matrix.rows.toLocaleString('en')} rows, ${o.matrix.nnz.toLocaleString('en')} nonzeros, f64`,
    `  ${'where'.padEnd(w)}  format      ms  GFLOP/s    GB/s  vs JS  max rel err`,
    ...o.rows.map(
      (r) =>
        `  ${r.label.padEnd(w)}  ${r.format.padEnd(6)} ${r.ms.toFixed(3).padStart(7)} ${r.gflops.toFixed(2).padStart(8)} ${r.gbs.toFixed(1).padStart(7)} ${`${(js / r.ms).toFixed(1)}×`.padStart(6)}  ${r.maxRelError.toExponential(1)}`,
    ),
    '',
    `The runtime's choice (rt.explain): ${o.choice.path} path, ${o.choice.format} format`,
    ...o.choice.reasons.slice(0, 3).map((r) => `  - ${r}`),
    '',
    `CG with the defaults, rt.cg(rt.upload(A), b) with b = 1: ${o.cg.converged ? 'converged' : 'did not converge'} in ${o.cg.iterations} iterations, ` +
      `${o.cg.ms.toFixed(0)} ms on the ${o.cg.path} path (${o.cg.format}), ‖b − A·x‖/‖b‖ = ${o.cg.relativeResidual.toExponential(1)}`,
  ];
  if (o.notes.length) lines.push('', ...o.notes.map((n) => `Note: ${n}`));
  lines.push('', 'More: npx simdgl compare (every format and dtype), npx simdgl solve FILE.mtx, npx simdgl info, npm run demo (the paths side by side in a browser)');
  return lines.join('\n');
}
