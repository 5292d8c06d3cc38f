// The demo's matrices: the generators of src/generators, an SPD power-law matrix, and the
// density-binned sparsity picture.
import { CSRMatrix, COOMatrix } from '../src/formats/index.js';
import { poisson2D, poisson3D, randomMatrix, stokes2D } from '../src/generators/index.js';

export type GeneratorKind = 'poisson2d' | 'poisson3d' | 'powerlaw' | 'stokes2d' | 'oseen2d';

/** the demo's Oseen flow: stokes2D with this wind (a Reynolds number of ≈ 28 on the unit square) */
const OSEEN_WIND: [number, number] = [20, 20];

/** rows of each generator at a slider value */
export function generatorRows(kind: GeneratorKind, size: number): number {
  return kind === 'poisson2d' ? size * size : kind === 'poisson3d' ? size ** 3 : kind === 'stokes2d' || kind === 'oseen2d' ? 2 * (size - 1) * size + size * size - 1 : size;
}

/** slider range per generator: [min, max, step, default] */
export const SIZE_RANGES: Record<GeneratorKind, [number, number, number, number]> = {
  poisson2d: [4, 1024, 4, 128],
  poisson3d: [4, 100, 1, 40],
  powerlaw: [1000, 1_000_000, 1000, 100_000],
  stokes2d: [4, 600, 4, 100],
  oseen2d: [4, 600, 4, 100],
};

export function describeGenerator(kind: GeneratorKind, size: number): string {
  if (kind === 'poisson2d') return `poisson2D(${size}) — 5-point Laplacian on a ${size}×${size} grid`;
  if (kind === 'poisson3d') return `poisson3D(${size}) — 7-point Laplacian on a ${size}³ grid`;
  if (kind === 'stokes2d') return `stokes2D(${size}) — Stokes flow on a ${size}×${size} staggered grid: a symmetric saddle point (velocities, pressures)`;
  if (kind === 'oseen2d') return `stokes2D(${size}, { wind: [${OSEEN_WIND}] }) — Oseen flow (a linearized Navier–Stokes step) on a ${size}×${size} staggered grid: a nonsymmetric saddle point`;
  return `power-law(${size}) — Pareto row lengths (exponent 1.5, mean 8), made SPD`;
}

/**
 * A symmetric positive definite matrix with power-law row lengths: R + Rᵀ plus a diagonal that makes it
 * strictly diagonally dominant, so CG converges on it and the SpMV sees the long rows of web graphs.
 */
export function powerLawSPD(n: number, seed = 42): CSRMatrix {
  const R = randomMatrix({ rows: n, meanRowLength: 4, distribution: 'powerlaw', exponent: 1.5, seed, dtype: 'f64' });
  const nnz = R.nnz;
  const ri = new Int32Array(2 * nnz + n), ci = new Int32Array(2 * nnz + n);
  const v = new Float64Array(2 * nnz + n);
  const absRow = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    for (let p = R.rowPtr[i]; p < R.rowPtr[i + 1]; p++) {
      const j = R.colIdx[p], a = R.values[p];
      ri[k] = i; ci[k] = j; v[k++] = a;
      ri[k] = j; ci[k] = i; v[k++] = a;
      absRow[i] += Math.abs(a);
      absRow[j] += Math.abs(a);
    }
  }
  for (let i = 0; i < n; i++) { ri[k] = i; ci[k] = i; v[k++] = 2 * absRow[i] + 1; }
  return new COOMatrix(n, n, 'f64', ri, ci, v).toCSR();
}

export function generate(kind: GeneratorKind, size: number): CSRMatrix {
  if (kind === 'poisson2d') return poisson2D(size);
  if (kind === 'poisson3d') return poisson3D(size);
  if (kind === 'stokes2d') return stokes2D(size);
  if (kind === 'oseen2d') return stokes2D(size, { wind: OSEEN_WIND });
  return powerLawSPD(size);
}

/** Draws the density-binned sparsity pattern of A on the canvas (darker = more entries per bin). */
export function drawSparsity(canvas: HTMLCanvasElement, A: CSRMatrix): { bins: number; maxPerBin: number } {
  const size = canvas.width;
  const ctx = canvas.getContext('2d')!;
  const bx = Math.max(1, Math.min(size, A.cols));
  const by = Math.max(1, Math.min(size, A.rows));
  const counts = new Float64Array(bx * by);
  for (let i = 0; i < A.rows; i++) {
    const r = Math.min(by - 1, Math.floor((i * by) / A.rows));
    for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
      const c = Math.min(bx - 1, Math.floor((A.colIdx[k] * bx) / A.cols));
      counts[r * bx + c]++;
    }
  }
  let max = 0;
  for (const c of counts) if (c > max) max = c;
  const img = ctx.createImageData(size, size);
  const lmax = Math.log1p(max) || 1;
  for (let py = 0; py < size; py++) {
    const r = Math.floor((py * by) / size);
    for (let px = 0; px < size; px++) {
      const c = counts[r * bx + Math.floor((px * bx) / size)];
      const o = 4 * (py * size + px);
      if (c === 0) {
        img.data[o] = img.data[o + 1] = img.data[o + 2] = 255;
      } else {
        const t = 0.25 + 0.75 * (Math.log1p(c) / lmax); // a stored entry is always visible
        img.data[o] = Math.round(255 * (1 - t) * 0.9);
        img.data[o + 1] = Math.round(255 * (1 - t) * 0.95 + 30 * t);
        img.data[o + 2] = Math.round(255 - 120 * t);
      }
      img.data[o + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
  return { bins: Math.max(bx, by), maxPerBin: max };
}

/** A CSR matrix rebuilt from the arrays the parse worker transferred. */
export function csrFromParts(p: { rows: number; cols: number; dtype: CSRMatrix['dtype']; rowPtr: Int32Array; colIdx: Int32Array; values: Float32Array | Float64Array }): CSRMatrix {
  return new CSRMatrix(p.rows, p.cols, p.dtype, p.rowPtr, p.colIdx, p.values);
}
