// Consumer fixture: a Node ESM script that imports the installed package by name, runs SpMV on a
// pool of workers and checks the result against a plain JavaScript loop. Copied into the consumer
// project by test/package.test.ts and run as `node node-spmv.mjs dispose|no-dispose`. In the
// no-dispose variant it simply ends: the process must exit on its own (idle workers are unref'd).
import { createRuntime, poisson2D, poisson3D } from 'simdgl';

const mode = process.argv[2] ?? 'no-dispose';
const rt = await createRuntime({ workers: 2, inlineThreshold: 0 });
const caps = rt.capabilities();

// the known answer of the README: the 9×9 5-point Laplacian times ones
const tiny = Array.from(await rt.spmv(rt.upload(poisson2D(3)), new Float64Array(9).fill(1)));
const tinyExpected = [2, 1, 2, 1, 0, 1, 2, 1, 2];

// a product large enough to be split over the threads, against a plain CSR loop in f64
const A = poisson3D(16);
const x = Float64Array.from({ length: A.cols }, (_, i) => Math.sin(0.37 * i + 1));
const y = await rt.spmv(rt.upload(A), x);
let maxErr = 0;
for (let i = 0; i < A.rows; i++) {
  let s = 0;
  for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) s += A.values[k] * x[A.colIdx[k]];
  maxErr = Math.max(maxErr, Math.abs(y[i] - s));
}
// the same through resident vectors
const xv = rt.vector(x);
const yv = rt.vector(A.rows, 'f64');
await rt.spmv(rt.upload(A, { format: 'ell' }), xv, { y: yv });
const resident = await yv.read();
let residentDiff = 0;
for (let i = 0; i < A.rows; i++) residentDiff = Math.max(residentDiff, Math.abs(resident[i] - y[i]));

if (mode === 'dispose') rt.dispose();
console.log(JSON.stringify({
  mode,
  threads: caps.threads,
  workers: caps.workers,
  sharedMemory: caps.sharedMemory,
  wasm: caps.wasm,
  tinyOk: JSON.stringify(tiny) === JSON.stringify(tinyExpected),
  tiny,
  rows: A.rows,
  finite: y.every(Number.isFinite),
  maxErr,
  residentDiff,
  // how the kernels were loaded (a note says when the embedded copy stood in for the .wasm file)
  notes: caps.notes,
  webgpuReason: caps.paths.webgpu.reason,
}));
