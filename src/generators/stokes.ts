import { CSRMatrix } from '../formats/csr.js';
import { ShapeError } from '../errors.js';
import { checkOptions } from '../options-check.js';
import { shownValue } from '../shown-value.js';
import { checkGeneratedSize } from './size.js';

/** Options of {@link stokes2D}. */
export interface StokesOptions {
  /**
   * A constant convecting velocity [wx, wy] (default [0, 0]): the Oseen equations −Δu + (w·∇)u + ∇p = f,
   * ∇·u = 0 — a Picard step of the steady Navier–Stokes equations, the Reynolds number being |w| on the
   * unit square — with first-order upwind differences, which keep each velocity row diagonally dominant.
   * A is then nonsymmetric (a nonsymmetric saddle point).
   */
  wind?: readonly [number, number];
}

/**
 * The 2-D Stokes equations −Δu + ∇p = f, ∇·u = 0 on the unit square with no-slip walls, discretized on
 * a staggered (MAC) grid of n×n cells, as the symmetric saddle point [[L, Bᵀ], [B, 0]]: first the
 * (n − 1)·n horizontal velocities on the interior vertical faces, then the n·(n − 1) vertical ones on
 * the interior horizontal faces (each numbered by face column, then row), then the n² − 1 cell pressures
 * (row-major; the last cell's pressure is pinned to 0 and left out, as the pressure is otherwise defined
 * up to a constant and A singular). L is each velocity component's 5-point Laplacian (4 on the diagonal,
 * −1 per neighbour, a wall neighbour dropped), B each cell's divergence (+1 on its right and top faces,
 * −1 on its left and bottom ones), all scaled by h² (h = 1/n) so the entries are integers: scale a
 * right-hand side f by h² too, and the pressure comes out scaled by h. The pressures' diagonal is
 * missing: a symmetric indefinite matrix that rt.factor's and rt.solve's 'auto' factorize LU under a
 * maximum transversal (docs/direct.md, "Saddle points").
 *
 * With `options.wind`, the convection term (w·∇)u of the Oseen equations joins each velocity row
 * (upwinded, scaled by h² as the rest): A = [[F, Bᵀ], [B, 0]] with F nonsymmetric, which rt.solve's
 * 'auto' solves by BiCGSTAB with the block-triangular 'saddle' preconditioner (docs/solvers.md).
 *
 * @throws {@link ShapeError} when n is not an integer ≥ 2.
 * @throws RangeError when wind is not two finite numbers.
 * @throws {@link OptionError} for an option key it does not know.
 *
 * @example
 * ```js
 * import { createRuntime, stokes2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = stokes2D(32);                       // 31·32 + 32·31 velocities, 32² − 1 pressures
 * assert.equal(A.rows, 2 * 31 * 32 + 32 * 32 - 1);
 * const rt = await createRuntime();
 * const h = rt.upload(A);
 * const b = new Float64Array(A.rows);
 * b.fill(1 / 32 ** 2, 0, 31 * 32);               // a uniform force along x (scaled by h²)
 * const { method, converged, x } = await rt.solve(h, b);
 * assert.deepEqual([method, converged], ['direct', true]);
 * // the flow is divergence-free: B·u = 0 in every cell
 * const Bu = (await rt.spmv(h, x)).subarray(2 * 31 * 32);
 * assert.ok(Bu.every((d) => Math.abs(d) < 1e-12));
 * rt.dispose();
 * ```
 */
export function stokes2D(n: number, options?: StokesOptions): CSRMatrix {
  checkOptions('stokes2D', options, ['wind']);
  if (!Number.isInteger(n) || n < 2) throw new ShapeError(`stokes2D: n must be an integer ≥ 2, got ${n}`);
  const wind = options?.wind ?? [0, 0];
  if (!Array.isArray(wind) || wind.length !== 2 || !wind.every((w) => Number.isFinite(w))) throw new RangeError(`stokes2D: wind must be two finite numbers [wx, wy], got ${shownValue(wind)}`);
  // upwind (w·∇)u scaled by h²: h·|w| more on the diagonal, h·w more on the upstream neighbour (h = 1/n)
  const [wx, wy] = wind;
  const diag = 4 + (Math.abs(wx) + Math.abs(wy)) / n;
  const [west, east, south, north] = [-1 - Math.max(wx, 0) / n, -1 - Math.max(-wx, 0) / n, -1 - Math.max(wy, 0) / n, -1 - Math.max(-wy, 0) / n];
  const nu = (n - 1) * n;
  const np = n * n - 1;
  const rows = 2 * nu + np;
  // each velocity: 5 of L and 2 of Bᵀ at most; each pressure: 4 of B
  const most = 2 * nu * 7 + 4 * np;
  checkGeneratedSize('stokes2D', rows, most, 4 * (rows + 1) + 12 * most);
  const U = (i: number, j: number) => (i >= 1 && i <= n - 1 && j >= 0 && j < n ? (i - 1) * n + j : -1);
  const V = (i: number, j: number) => (i >= 0 && i < n && j >= 1 && j <= n - 1 ? nu + i * (n - 1) + j - 1 : -1);
  const P = (i: number, j: number) => (i >= 0 && i < n && j >= 0 && j < n && i * n + j < np ? 2 * nu + i * n + j : -1);
  const rowPtr = new Int32Array(rows + 1);
  const colIdx = new Int32Array(most);
  const values = new Float64Array(most);
  let m = 0;
  // one row: its (column, value) pairs, sorted by column (at most 7, an insertion sort)
  const row = (r: number, cols: number[], vals: number[]) => {
    const start = m;
    for (let t = 0; t < cols.length; t++) {
      if (cols[t] < 0) continue;
      let k = m++;
      while (k > start && colIdx[k - 1] > cols[t]) {
        colIdx[k] = colIdx[k - 1];
        values[k] = values[k - 1];
        k--;
      }
      colIdx[k] = cols[t];
      values[k] = vals[t];
    }
    rowPtr[r + 1] = m;
  };
  // a face is the right (top) face of the cell behind it, +1 in that cell's divergence, and the left (bottom) face of the cell ahead, −1
  // (the first index is x's, the second y's: west, south, centre, north, east)
  for (let i = 1; i <= n - 1; i++) for (let j = 0; j < n; j++) row(U(i, j), [U(i - 1, j), U(i, j - 1), U(i, j), U(i, j + 1), U(i + 1, j), P(i - 1, j), P(i, j)], [west, south, diag, north, east, 1, -1]);
  for (let i = 0; i < n; i++) for (let j = 1; j <= n - 1; j++) row(V(i, j), [V(i - 1, j), V(i, j - 1), V(i, j), V(i, j + 1), V(i + 1, j), P(i, j - 1), P(i, j)], [west, south, diag, north, east, 1, -1]);
  for (let c = 0; c < np; c++) {
    const i = Math.floor(c / n);
    const j = c % n;
    row(2 * nu + c, [U(i, j), U(i + 1, j), V(i, j), V(i, j + 1)], [-1, 1, -1, 1]);
  }
  return new CSRMatrix(rows, rows, 'f64', rowPtr, colIdx.slice(0, m), values.slice(0, m));
}
