/**
 * Probe (helper host16b): rt.upload's passes over an 'auto' CSR copy of poisson3D(64), fresh copies,
 * alternating f64 and f32 (DTYPES=f64 for one): validateCanonical + the features' scan + looseAbsNorms
 * one after the other ("separate") against validateCanonicalScanning's one pass with the features and
 * loose norms read from it ("fused"); each pass alone. Medians of the last 10 of 12 rounds.
 *   npx esbuild bench/device/results-2026-11-28-sixteenth/host16b/upload-pass-probe.ts --bundle --platform=node --format=esm --outfile=/tmp/vs.mjs && node /tmp/vs.mjs
 */
import { poisson3D } from '../../../../src/generators/poisson.js';
import { CSRMatrix, markPrivateCanonical, validateCanonical } from '../../../../src/formats/csr.js';
import { validateCanonicalScanning } from '../../../../src/formats/diagonal-scan.js';
import { matrixFeatures } from '../../../../src/runtime/features.js';
import { looseAbsNorms } from '../../../../src/solvers/solve.js';
const A0 = poisson3D(64);
const As = { f64: A0, f32: A0.astype('f32') };
const t = (f: () => unknown) => { const s = performance.now(); f(); return performance.now() - s; };
const res: Record<string, number[]> = {};
const add = (k: string, v: number) => (res[k] ??= []).push(v);
const dts = (process.env.DTYPES ?? 'f64,f32').split(',') as ('f64' | 'f32')[];
for (let r = 0; r < 12; r++) for (const dt of dts) {
  const B = As[dt];
  const copy = () => new CSRMatrix(B.rows, B.cols, B.dtype, B.rowPtr.slice(), B.colIdx.slice(), B.values.slice());
  const A1 = copy();
  const sep = t(() => { validateCanonical(A1); markPrivateCanonical(A1); matrixFeatures(A1, true); looseAbsNorms(A1); });
  const A2 = copy();
  const fused = t(() => { const v = validateCanonicalScanning(A2); markPrivateCanonical(A2); v.keep(); matrixFeatures(A2, true); looseAbsNorms(A2); });
  const A3 = copy();
  const v3 = t(() => validateCanonical(A3));
  const A4 = copy(); markPrivateCanonical(A4);
  const f4 = t(() => matrixFeatures(A4, true));
  const l4 = t(() => looseAbsNorms(copy()));
  if (r >= 2) { add(`${dt} separate`, sep); add(`${dt} fused`, fused); add(`${dt} validate alone`, v3); add(`${dt} features alone`, f4); add(`${dt} loose alone+copy`, l4); }
}
const med = (x: number[]) => x.slice().sort((a, b) => a - b)[x.length >> 1];
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(20), 'median', med(v).toFixed(2), 'min', Math.min(...v).toFixed(2));
