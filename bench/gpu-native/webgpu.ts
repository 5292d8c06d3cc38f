/**
 * The library's WebGPU path on real hardware (issue 10): SpMV per kernel × dtype on the matrices of a
 * GPU dump (the same CSR and x that cusparse.py reads, written by dump.ts), gemm f32, the cost of a
 * dispatch, and CG on poisson3D_128 on the WebGPU path against the CPU path's worker pool.
 *
 *   node webgpu.mjs DUMP [--min-ms 200] [--gemm 4096] [--cg poisson3D_128] [--threads 16] > webgpu.tsv
 *
 * SpMV: WebGpuBackend (src/webgpu, unmodified) with every kernel it has for the matrix; GPU ms = median
 * of timestamp queries around one product (kernelTime); wall ms = a batch of products ended by one
 * read, per product. Every product is checked against an f64 product of the values and x as the dtype
 * holds them: err = max |y − ref| / Σ|a||x| (f32 ≤ 1e-4, double-single ≤ 1e-12, else WRONG). GB/s by
 * DESIGN.md: the format's arrays in the dtype (double-single = 8 bytes a value) + x + y.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { create as createDawn } from 'webgpu';
import { WebGpuBackend } from '../../src/webgpu/index.js';
import { CSRMatrix } from '../../src/formats/csr.js';
import { convert } from '../../src/formats/index.js';
import { DenseMatrix } from '../../src/formats/dense.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { median } from '../../src/metrics.js';
import type { DType } from '../../src/dtype.js';

const args = process.argv.slice(2);
const opt = (k: string, d?: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const dump = args[0];
const minMs = Number(opt('--min-ms', '200'));
const gemmN = Number(opt('--gemm', '4096'));
const cgMatrix = opt('--cg', 'poisson3D_128') === 'none' ? '' : opt('--cg', 'poisson3D_128');
const threads = Number(opt('--threads', '16'));

// Dawn rounds timestamps to 100 µs steps unless told not to (a browser's defence against timing
// attacks); a benchmark needs them exact.
const gpu = createDawn(['disable-dawn-features=timestamp_quantization']) as unknown as GPU;
const be = await WebGpuBackend.create({ gpu, powerPreference: 'high-performance' });
if (!('upload' in be)) {
  console.log(`# WebGPU unavailable: ${be.reason}`);
  process.exit(1);
}
const caps = be.capabilities();
console.log(`# adapter ${caps.adapter} | subgroups ${caps.subgroups} (min size ${caps.subgroupMinSize}) | timestamps ${caps.timestampQuery} | maxStorageBufferBindingSize ${caps.maxStorageBufferBindingSize}`);

function loadDumped(dir: string): { name: string; A: CSRMatrix; x: Float64Array } {
  const info = JSON.parse(readFileSync(path.join(dir, 'info.json'), 'utf8'));
  const bin = (f: string) => {
    const b = readFileSync(path.join(dir, f));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  };
  const A = new CSRMatrix(info.rows, info.cols, 'f64', new Int32Array(bin('rowptr.bin')), new Int32Array(bin('colidx.bin')), new Float64Array(bin('values.bin')));
  return { name: info.name, A, x: new Float64Array(bin('x.bin')) };
}

/** f64 product and Σ|a||x| per row, of the values and x rounded to the dtype. */
function reference(A: CSRMatrix, x: Float64Array, dtype: DType): { ref: Float64Array; bound: Float64Array } {
  const r = (v: number) => (dtype === 'f32' ? Math.fround(v) : v);
  const ref = new Float64Array(A.rows);
  const bound = new Float64Array(A.rows);
  for (let i = 0; i < A.rows; i++) {
    let s = 0;
    let b = 0;
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const p = r(A.values[k]) * r(x[A.colIdx[k]]);
      s += p;
      b += Math.abs(p);
    }
    ref[i] = s;
    bound[i] = b;
  }
  return { ref, bound };
}

function formatBytes(m: { storageBytes(): number }, dtype: DType, rows: number, cols: number): number {
  return m.storageBytes() + (rows + cols) * (dtype === 'f32' ? 4 : 8);
}

async function timeKernel(run: () => void): Promise<{ gpuMs: number; wallMs: number }> {
  // warm-up (pipelines, bind groups), then GPU timestamps around single products
  for (let i = 0; i < 3; i++) run();
  const first = (await be.kernelTime(run)) ?? NaN;
  const reps = Math.max(10, Math.min(200, Math.ceil(minMs / Math.max(first, 0.01))));
  const ts: number[] = [];
  for (let i = 0; i < Math.min(reps, 50); i++) ts.push((await be.kernelTime(run)) ?? NaN);
  // wall: a batch of products ended by one 4-byte read, after one untimed batch (its bind groups, one
  // per parameter slot, are made once: a solver loop reuses them too)
  const probe = be.vector('f32', 1);
  for (let i = 0; i < reps; i++) run();
  await be.read(probe);
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) run();
  await be.read(probe);
  const wallMs = (performance.now() - t0) / reps;
  probe.dispose();
  return { gpuMs: median(ts), wallMs };
}

const kernelsFor = (A: CSRMatrix) => {
  const list: Array<{ label: string; format: 'csr' | 'sell' | 'ell' | 'dia' | 'hyb'; kernel?: 'row' | 'vector' | 'adaptive' | 'sell'; tpr?: number }> = [
    { label: 'csr_auto', format: 'csr' },
    { label: 'csr_row', format: 'csr', kernel: 'row' },
    { label: 'csr_vector', format: 'csr', kernel: 'vector' },
    { label: 'csr_vector2', format: 'csr', kernel: 'vector', tpr: 2 },
    { label: 'csr_vector8', format: 'csr', kernel: 'vector', tpr: 8 },
    { label: 'csr_adaptive', format: 'csr', kernel: 'adaptive' },
    { label: 'csr_sell', format: 'csr', kernel: 'sell' },
    { label: 'sell32_s1', format: 'sell' },
    { label: 'ell', format: 'ell' },
    { label: 'dia', format: 'dia' },
    { label: 'hyb', format: 'hyb' },
  ];
  return list;
};

console.log('ROW\tmatrix\tkernel\tdtype\trows\tnnz\teff_bytes\tgpu_ms\twall_ms\tGBps\terr_bound_ratio\tstatus');
const dirs = readdirSync(dump).filter((d) => d.startsWith('mat__')).sort();
for (const d of dirs) {
  const { name, A, x } = loadDumped(path.join(dump, d));
  for (const dtype of ['f32', 'f64'] as DType[]) {
    const { ref, bound } = reference(A, x, dtype);
    const Ad = A.astype(dtype);
    for (const k of kernelsFor(A)) {
      let host;
      try {
        host = k.format === 'csr' ? Ad : convert(Ad, k.format, k.format === 'sell' ? { sliceHeight: 32, sortWindow: 1, maxFill: 3 } : { maxFill: 3 });
      } catch (e) {
        console.log(`# ${name} ${k.label} ${dtype}: skipped (${(e as Error).message.slice(0, 80)})`);
        continue;
      }
      let M;
      try {
        M = be.upload(host as Parameters<typeof be.upload>[0], k.kernel ? { kernel: k.kernel, ...(k.tpr ? { threadsPerRow: k.tpr } : {}) } : {});
      } catch (e) {
        console.log(`# ${name} ${k.label} ${dtype}: upload refused (${(e as Error).message.slice(0, 120)})`);
        continue;
      }
      const xv = be.vector(dtype, dtype === 'f32' ? Float32Array.from(x) : x);
      const yv = be.vector(dtype, A.rows);
      const run = () => be.spmv(M, xv, yv);
      const t = await timeKernel(run);
      // check after poisoning y
      be.scal(Number.NaN, yv);
      run();
      const y = await be.read(yv);
      let worst = 0;
      for (let i = 0; i < A.rows; i++) {
        const e = Math.abs(y[i] - ref[i]);
        const r = bound[i] > 0 ? e / bound[i] : e;
        worst = Number.isNaN(r) ? Infinity : Math.max(worst, r);
      }
      const ok = worst <= (dtype === 'f32' ? 1e-4 : 1e-12);
      const bytes = formatBytes(host as { storageBytes(): number }, dtype, A.rows, A.cols);
      const label = k.label === 'csr_auto' ? `csr_auto:${M.kernel}` : k.label;
      console.log(
        `ROW\t${name}\t${label}\t${dtype}\t${A.rows}\t${A.nnz}\t${bytes}\t${t.gpuMs.toFixed(5)}\t${t.wallMs.toFixed(5)}\t${(bytes / 1e6 / t.gpuMs).toFixed(1)}\t${worst.toExponential(2)}\t${ok ? 'OK' : 'WRONG'}`,
      );
      M.dispose();
      xv.dispose();
      yv.dispose();
    }
  }
}

// per-dispatch overhead: 2000 axpy calls on short vectors, one read at the end
{
  const a = be.vector('f32', new Float32Array(1024).fill(1));
  const b = be.vector('f32', 1024);
  const n = 2000;
  const walls: number[] = [];
  for (let rep = 0; rep < 7; rep++) {
    await be.read(b);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) be.axpy(1e-3, a, b);
    await be.read(b);
    walls.push(((performance.now() - t0) / n) * 1e3);
  }
  const gpu = ((await be.kernelTime(() => { for (let i = 0; i < n; i++) be.axpy(1e-3, a, b); })) ?? NaN) / n * 1e3;
  console.log(`DISPATCH\taxpy_1024\twall_us_per_call\t${median(walls).toFixed(2)}\tgpu_us_per_call\t${gpu.toFixed(2)}`);
  a.dispose();
  b.dispose();
}

// gemm f32 n×n
if (gemmN > 0) {
  const n = gemmN;
  const mk = (seed: number) => {
    const v = new Float32Array(n * n);
    let s = seed;
    for (let i = 0; i < v.length; i++) v[i] = ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
    return new DenseMatrix(n, n, 'f32', v);
  };
  const A = be.uploadDense(mk(1));
  const B = be.uploadDense(mk(2));
  const C = be.denseMatrix('f32', n, n);
  for (let i = 0; i < 2; i++) be.gemm(A, B, C);
  const ts: number[] = [];
  for (let i = 0; i < 10; i++) ts.push((await be.kernelTime(() => be.gemm(A, B, C))) ?? NaN);
  const ms = median(ts);
  console.log(`GEMM\tf32\t${n}\tgpu_ms\t${ms.toFixed(4)}\tTFLOPs\t${((2 * n ** 3) / ms / 1e9).toFixed(2)}`);
  A.dispose();
  B.dispose();
  C.dispose();
}
be.dispose();

// CG to 1e-8: the WebGPU path against the CPU path's worker pool, through the public runtime
if (cgMatrix) {
  const A = cgMatrix === 'poisson3D_128' ? poisson3D(128) : poisson3D(64);
  const b = new Float64Array(A.rows).fill(1);
  // webgpu: the GPU-resident CG (residuals read every 16 iterations); webgpu_every1: the host loop
  // (checkEvery: 1, two read-backs per iteration), as before the resident CG
  for (const [label, make, checkEvery] of [
    ['webgpu', () => createRuntime({ backend: 'webgpu', workers: 1, webgpu: { gpu } }), undefined],
    ['webgpu_every1', () => createRuntime({ backend: 'webgpu', workers: 1, webgpu: { gpu } }), 1],
    [`cpu_${threads}t`, () => createRuntime({ backend: 'cpu', workers: threads }), undefined],
  ] as const) {
    const rt = await make();
    const h = rt.upload(A, { format: 'auto' });
    const path = label.startsWith('webgpu') ? 'webgpu' : 'cpu';
    await rt.cg(h, b, { tol: 1e-8, maxIter: 5, path, checkEvery }); // warm-up: upload, pipelines
    const runs: number[] = [];
    let last;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      last = await rt.cg(h, b, { tol: 1e-8, path, checkEvery });
      runs.push(performance.now() - t0);
    }
    console.log(`CG\t${label}\t${cgMatrix}\tms\t${median(runs).toFixed(1)}\titerations\t${last!.iterations}\trelres\t${last!.relativeResidual.toExponential(2)}\tformat\t${rt.explain('spmv', h).estimates[path]?.format}`);
    rt.dispose();
  }
}
process.exit(0);
