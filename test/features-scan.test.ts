/**
 * matrixFeatures' one pass over the entries (src/runtime/features.ts scan) against the row lengths and
 * diagonals counted the plain way: rectangular, with empty rows (first, last, inside) and a long row.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { matrixFeatures } from '../src/runtime/features.js';
import { mulberry32 } from './random.js';

function random(rows: number, cols: number, seed: number): CSRMatrix {
  const r = mulberry32(seed);
  const ptr = new Int32Array(rows + 1);
  const idx: number[] = [];
  for (let i = 0; i < rows; i++) {
    const len = i === 0 || i === rows - 1 || r() < 0.1 ? 0 : i === rows >> 1 ? cols : 1 + Math.floor(r() * 6);
    const row = new Set<number>();
    while (row.size < len) row.add(Math.floor(r() * cols));
    idx.push(...[...row].sort((a, b) => a - b));
    ptr[i + 1] = idx.length;
  }
  return new CSRMatrix(rows, cols, 'f64', ptr, Int32Array.from(idx), new Float64Array(idx.length).fill(1));
}

describe('matrixFeatures scan', () => {
  for (const [rows, cols, seed] of [[300, 200, 1], [200, 300, 2], [257, 257, 3]]) {
    it(`${rows}×${cols}: longest row, row-length spread and diagonals as counted entry by entry`, () => {
      const A = random(rows, cols, seed);
      const lens = Array.from({ length: rows }, (_, i) => A.rowPtr[i + 1] - A.rowPtr[i]);
      const diagonals = new Set<number>();
      for (let i = 0; i < rows; i++) for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) diagonals.add(A.colIdx[k] - i);
      const mean = A.nnz / rows;
      const cv = Math.sqrt(lens.reduce((s, l) => s + (l - mean) ** 2, 0) / rows) / mean;
      for (const lazy of [false, true]) {
        const f = matrixFeatures(A, lazy);
        expect(f.maxRow).toBe(cols);
        expect(f.diagonals).toBe(diagonals.size);
        expect(f.rowCv).toBeCloseTo(cv, 12);
      }
    });
  }
});
