/**
 * The symbolic kernels' transposition of a real square CSR (SymbolicKernels.columns, assembly/symbolic.ts
 * sym_columns) checked against a reference written here: every column's rows ascending, each entry's
 * value the one A holds at (row, column), and the pattern symmetry (off-diagonal entries with a stored
 * mirror, and stored diagonal entries) counted from a set of the stored positions. On the shared real
 * matrices up to 30 000 entries, random patterns with and without a diagonal, empty rows and columns, 1×1 and 0×0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../src/cpu/backend.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { randomMatrix } from '../src/generators/random.js';
import { Prng } from '../src/generators/prng.js';
import type { SymbolicKernels } from '../src/solvers/direct/symbolic.js';
import { loadShared, sharedMatrixNames } from './matrices.js';

let backend: CpuBackend;
let sk: SymbolicKernels;
beforeAll(async () => {
  backend = await CpuBackend.create();
  sk = cpuSymbolicKernels(backend);
});
afterAll(() => backend.dispose());

/** A's entries as a map from `row,column` to value, read row by row from the CSR. */
function entries(A: CSRMatrix): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < A.rows; i++) for (let p = A.rowPtr[i]; p < A.rowPtr[i + 1]; p++) m.set(`${i},${A.colIdx[p]}`, A.values[p]);
  return m;
}

function check(A: CSRMatrix): void {
  const n = A.rows;
  const { C, symmetry } = sk.columns(A);
  const E = entries(A);
  expect(C.n).toBe(n);
  expect(C.complex).toBe(false);
  expect(C.colPtr.length).toBe(n + 1);
  expect(C.colPtr[0]).toBe(0);
  expect(C.colPtr[n]).toBe(A.nnz);
  const seen = new Set<string>();
  for (let j = 0; j < n; j++) {
    for (let p = C.colPtr[j]; p < C.colPtr[j + 1]; p++) {
      const i = C.rowIdx[p];
      if (p > C.colPtr[j]) expect(i).toBeGreaterThan(C.rowIdx[p - 1]);
      const key = `${i},${j}`;
      expect(E.has(key)).toBe(true);
      expect(C.values[p]).toBe(E.get(key));
      seen.add(key);
    }
  }
  expect(seen.size).toBe(E.size);
  let off = 0;
  let mirrored = 0;
  let diagonal = 0;
  for (const key of E.keys()) {
    const [i, j] = key.split(',').map(Number);
    if (i === j) diagonal++;
    else {
      off++;
      if (E.has(`${j},${i}`)) mirrored++;
    }
  }
  expect(symmetry.diagonal).toBe(diagonal);
  expect(symmetry.symmetry).toBe(off === 0 ? 1 : mirrored / off);
}

/** A random square f64 CSR of n rows, about `perRow` entries a row, the diagonal stored with probability `diag`. */
function random(n: number, perRow: number, diag: number, seed: number): CSRMatrix {
  const rng = new Prng(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    if (rng.next() < diag) rows.push(i), cols.push(i), vals.push(rng.next() + 1);
    for (let t = 0; t < perRow; t++) {
      const j = Math.floor(rng.next() * n);
      if (j === i) continue;
      rows.push(i), cols.push(j), vals.push(rng.next() - 0.5);
    }
  }
  return CSRMatrix.fromTriplets(n, n, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
}

describe('SymbolicKernels.columns: the transposition and pattern symmetry', () => {
  it('the shared real matrices up to 30 000 entries (west0479 among them)', () => {
    let checked = 0;
    for (const name of sharedMatrixNames()) {
      const A = loadShared(name);
      if (A.dtype !== 'f64' || A.rows !== A.cols || A.nnz > 30000) continue;
      check(A);
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it('random patterns with a full, a partial and no stored diagonal, with empty rows and columns', () => {
    for (let seed = 1; seed <= 12; seed++) {
      check(random(40 + 7 * seed, 1 + (seed % 4), [1, 0.5, 0][seed % 3], seed));
      check(randomMatrix({ rows: 60, meanRowLength: 3, seed }));
    }
    // rows 3 and 5 empty, column 0 empty
    check(CSRMatrix.fromTriplets(6, 6, 'f64', Int32Array.of(0, 1, 2, 4, 4), Int32Array.of(1, 2, 1, 4, 2), Float64Array.of(1, -2, 3, 4, 5)));
    // a symmetric pattern with unsymmetric values: symmetry 1
    check(CSRMatrix.fromTriplets(3, 3, 'f64', Int32Array.of(0, 1, 1, 2), Int32Array.of(1, 0, 2, 1), Float64Array.of(1, 2, 3, 4)));
  });

  it('1×1 and 0×0', () => {
    check(CSRMatrix.fromTriplets(1, 1, 'f64', Int32Array.of(0), Int32Array.of(0), Float64Array.of(-3)));
    check(CSRMatrix.fromTriplets(1, 1, 'f64', new Int32Array(0), new Int32Array(0), new Float64Array(0)));
    check(CSRMatrix.fromTriplets(0, 0, 'f64', new Int32Array(0), new Int32Array(0), new Float64Array(0)));
  });
});
