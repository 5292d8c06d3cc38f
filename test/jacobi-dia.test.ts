/**
 * Jacobi's inverse diagonal read from a DIA copy's main diagonal (the CPU path's stencils) against the
 * same from the CSR's entries and against 1/aᵢᵢ written here: bit for bit, real and complex, f64 and
 * f32, and the same refusal (zero, absent, not finite, overflowing inverse) naming the same row.
 */
import { describe, expect, it } from 'vitest';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { Prng } from '../src/generators/prng.js';
import { inverseDiagonal } from '../src/solvers/precond/jacobi.js';
import type { DType } from '../src/dtype.js';

/** A tridiagonal-plus n×n matrix with the diagonal `diag(i)` (undefined: no entry), random off-diagonals. */
function banded(n: number, dtype: DType, diag: (i: number) => number | undefined, seed: number): CSRMatrix {
  const g = new Prng(seed);
  const c = dtype === 'c128' || dtype === 'c64' ? 2 : 1;
  const ptr = [0];
  const col: number[] = [];
  const val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const o of [-5, -1, 0, 1, 3]) {
      if (i + o < 0 || i + o >= n) continue;
      const v = o === 0 ? diag(i) : g.next() - 0.5;
      if (v === undefined) continue;
      col.push(i + o);
      val.push(v);
      if (c === 2) val.push(o === 0 ? v / 4 : g.next() - 0.5);
    }
    ptr.push(col.length);
  }
  const values = dtype === 'f32' || dtype === 'c64' ? Float32Array.from(val) : Float64Array.from(val);
  return new CSRMatrix(n, n, dtype, Int32Array.from(ptr), Int32Array.from(col), values).validate();
}

const outcome = (f: () => ArrayLike<number>): number[] | string => {
  try {
    return Array.from(f());
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
};

describe('inverseDiagonal of a DIA matrix', () => {
  it('equals the CSR’s bit for bit and 1/aᵢᵢ (real), f64 and f32, real and complex, edge sizes', () => {
    for (const dtype of ['f64', 'f32', 'c128', 'c64'] as DType[]) {
      for (const n of [0, 1, 3, 17, 1000]) {
        const A = banded(n, dtype, (i) => 2 + Math.sin(i), n + 1);
        const want = outcome(() => inverseDiagonal(A));
        expect(outcome(() => inverseDiagonal(DIAMatrix.fromCSR(A))), `${dtype} n ${n}`).toEqual(want);
        if (dtype === 'f64') expect(want).toEqual(Array.from({ length: n }, (_, i) => 1 / (2 + Math.sin(i))));
      }
    }
    for (const P of [poisson2D(9), poisson3D(5)]) expect(Array.from(inverseDiagonal(DIAMatrix.fromCSR(P)))).toEqual(Array.from(inverseDiagonal(P)));
  });

  it('the same refusal naming the same row: zero, absent, not finite, an inverse that overflows', () => {
    const cases: [string, DType, (i: number) => number | undefined][] = [
      ['a zero at row 7', 'f64', (i) => (i === 7 ? 0 : 3)],
      ['absent at row 4', 'f64', (i) => (i === 4 ? undefined : 3)],
      ['NaN at row 9', 'f64', (i) => (i === 9 ? NaN : 3)],
      ['Infinity at row 2', 'c128', (i) => (i === 2 ? Infinity : 3)],
      ['1e-40 in f32 at row 5', 'f32', (i) => (i === 5 ? 1e-40 : 3)],
      ['no diagonal at all', 'f64', () => undefined],
    ];
    for (const [what, dtype, diag] of cases) {
      const A = banded(12, dtype, diag, 5);
      const want = outcome(() => inverseDiagonal(A));
      expect(typeof want, what).toBe('string');
      expect(outcome(() => inverseDiagonal(DIAMatrix.fromCSR(A))), what).toEqual(want);
    }
  });
});
