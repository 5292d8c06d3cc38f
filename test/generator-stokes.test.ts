/**
 * stokes2D: the MAC Stokes saddle point checked entry by entry against the stencils as written here
 * (each face's Laplacian row and each cell's divergence row looked up by grid position), and its
 * algebra: symmetric, the velocity block a Laplacian, Bᵀ·1 = 0 on the full (unpinned) pressure set,
 * bad sizes refused.
 */
import { describe, expect, it } from 'vitest';
import { stokes2D } from '../src/generators/stokes.js';
import { OptionError, ShapeError } from '../src/errors.js';
import { solveStructure } from '../src/solvers/structure.js';
import type { CSRMatrix } from '../src/formats/csr.js';

/** the entry (i, j) of a canonical CSR, 0 when not stored */
function at(A: CSRMatrix, i: number, j: number): number {
  for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === j) return A.values[k];
  return 0;
}

describe('stokes2D', () => {
  it.each([
    ['Stokes', 6, [0, 0]],
    ['Oseen, wind up and right', 6, [10, 3]],
    ['Oseen, wind down and left', 7, [-2.5, -40]],
  ] as const)('%s: every entry as the staggered stencils give it, and nothing else', (_, n, wind) => {
    const A = wind[0] === 0 && wind[1] === 0 ? stokes2D(n) : stokes2D(n, { wind });
    // the upwind convection (w·∇)u scaled by h² (h = 1/n): h·|w| on the diagonal, h·w more on the upstream neighbour
    const [wx, wy] = wind;
    const diag = 4 + (Math.abs(wx) + Math.abs(wy)) / n;
    const nu = (n - 1) * n;
    expect(A.rows).toBe(2 * nu + n * n - 1);
    // the unknowns by grid position; walls and the pinned pressure are absent (−1)
    const u = (i: number, j: number) => (i >= 1 && i < n && j >= 0 && j < n ? (i - 1) * n + j : -1);
    const v = (i: number, j: number) => (i >= 0 && i < n && j >= 1 && j < n ? nu + i * (n - 1) + j - 1 : -1);
    const p = (i: number, j: number) => (i >= 0 && i < n && j >= 0 && j < n && !(i === n - 1 && j === n - 1) ? 2 * nu + i * n + j : -1);
    const want = new Map<string, number>();
    const put = (r: number, c: number, x: number) => {
      if (r >= 0 && c >= 0) want.set(`${r},${c}`, (want.get(`${r},${c}`) ?? 0) + x);
    };
    for (const f of [u, v]) {
      for (let i = 0; i <= n; i++) {
        for (let j = 0; j <= n; j++) {
          if (f(i, j) < 0) continue;
          put(f(i, j), f(i, j), diag);
          for (const [a, b, w] of [[i - 1, j, wx], [i + 1, j, -wx], [i, j - 1, wy], [i, j + 1, -wy]]) put(f(i, j), f(a, b), -1 - Math.max(w, 0) / n);
        }
      }
    }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        for (const [f, s] of [[u(i, j), -1], [u(i + 1, j), 1], [v(i, j), -1], [v(i, j + 1), 1]]) {
          put(p(i, j), f, s);
          put(f, p(i, j), s);
        }
      }
    }
    expect(A.nnz).toBe(want.size);
    for (const [key, x] of want) {
      const [r, c] = key.split(',').map(Number);
      expect(at(A, r, c), key).toBeCloseTo(x, 14);
    }
  });

  it('a symmetric saddle point: the pressures’ diagonal missing, the divergence of a constant pressure’s gradient zero', () => {
    const n = 12;
    const A = stokes2D(n);
    const s = solveStructure(A);
    expect([s.hermitian, s.positiveDiagonal, s.zeroDiagonals]).toEqual([true, false, n * n - 1]);
    // Bᵀ·1 over the pinned pressures is minus the pinned cell's own column: nonzero only on its two faces
    const nu = (n - 1) * n;
    const BT1 = new Float64Array(2 * nu);
    for (let r = 0; r < 2 * nu; r++) for (let k = A.rowPtr[r]; k < A.rowPtr[r + 1]; k++) if (A.colIdx[k] >= 2 * nu) BT1[r] += A.values[k];
    const faces = [...BT1.keys()].filter((r) => BT1[r] !== 0);
    expect(faces).toEqual([(n - 2) * n + n - 1, nu + (n - 1) * (n - 1) + n - 2]);
    expect(faces.map((r) => BT1[r])).toEqual([1, 1]);
  });

  it('with a wind: a nonsymmetric saddle point whose velocity rows are diagonally dominant, B untouched', () => {
    const n = 10;
    const A = stokes2D(n, { wind: [20, -5] });
    const S = stokes2D(n);
    const s = solveStructure(A);
    expect([s.hermitian, s.zeroDiagonals, s.saddle]).toEqual([false, n * n - 1, true]);
    expect([...A.colIdx]).toEqual([...S.colIdx]);
    const nu = (n - 1) * n;
    for (let r = 0; r < A.rows; r++) {
      let off = 0;
      let d = 0;
      for (let k = A.rowPtr[r]; k < A.rowPtr[r + 1]; k++) {
        const c = A.colIdx[k];
        // the divergence rows and the pressure columns are Stokes's
        if (r >= 2 * nu || c >= 2 * nu) expect(A.values[k]).toBe(S.values[k]);
        else if (c === r) d = A.values[k];
        else off += Math.abs(A.values[k]);
      }
      if (r < 2 * nu) expect(d).toBeGreaterThanOrEqual(off);
    }
  });

  it('bad options: RangeError for a wind that is not two finite numbers, OptionError for an unknown key', () => {
    for (const wind of [[1], [1, 2, 3], [NaN, 0], [0, Infinity], 'east']) expect(() => stokes2D(4, { wind: wind as never })).toThrow(/stokes2D: wind must be two finite numbers/);
    expect(() => stokes2D(4, { wind: [1] as never })).toThrow(RangeError);
    expect(() => stokes2D(4, { reynolds: 10 } as never)).toThrow(OptionError);
  });

  it('bad sizes: ShapeError', () => {
    for (const n of [0, 1, 2.5, -3, NaN]) expect(() => stokes2D(n)).toThrow(ShapeError);
    expect(() => stokes2D(1)).toThrow(/n must be an integer ≥ 2, got 1/);
  });
});
