import { checkOptions, optionKeys } from '../options-check.js';
import { CSRMatrix } from '../formats/csr.js';
import { ShapeError } from '../errors.js';
import { checkGeneratedSize } from './size.js';

/**
 * The diffusion coefficient of {@link diffusion2D} / {@link diffusion3D}: 'constant' (1: the Poisson
 * matrix), 'jumping' (a checkerboard of `blocks`^d blocks alternating between 1 and `contrast`),
 * 'anisotropic' (1 along x, `anisotropy` along the last axis; y too in 3-D is 1), or a function of the
 * cell centre's coordinates in (0, 1)^d returning a positive number.
 */
export type DiffusionCoefficients = 'constant' | 'jumping' | 'anisotropic' | ((x: number, y: number, z: number) => number);

/** Options of {@link diffusion2D} and {@link diffusion3D}. */
export interface DiffusionOptions {
  /** cells per side: n^d rows */
  n: number;
  /** the coefficient field (default 'jumping') */
  coefficients?: DiffusionCoefficients;
  /** 'jumping': the ratio of the two coefficients (default 1e4) */
  contrast?: number;
  /** 'jumping': blocks per side of the checkerboard (default 4) */
  blocks?: number;
  /** 'anisotropic': the coefficient along the last axis (default 1e-3) */
  anisotropy?: number;
}

const KEYS = optionKeys<DiffusionOptions>({ n: true, coefficients: true, contrast: true, blocks: true, anisotropy: true });

/**
 * −∇·(k∇u) on the unit square, cell-centred finite volumes on n×n cells with u = 0 on the boundary:
 * the flux through a face weighs the two cells' k by their harmonic mean (a boundary face by the cell's
 * own k), scaled so the constant coefficient 1 gives poisson2D's matrix. Symmetric positive definite, an
 * M-matrix (off-diagonals ≤ 0, diagonally dominant); where k jumps by orders of magnitude or differs
 * by direction, Jacobi and IC(0) need many more iterations while AMG should not.
 *
 * @throws {@link ShapeError} when n is not a positive integer.
 * @throws RangeError for a contrast, anisotropy or blocks out of range, or a coefficient function returning k ≤ 0 or a non-finite value.
 * @throws {@link OptionError} for an option key it does not know.
 *
 * @example
 * ```js
 * import { diffusion2D, poisson2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = diffusion2D({ n: 8, coefficients: 'jumping', contrast: 100 });
 * assert.deepEqual([A.rows, A.nnz], [64, poisson2D(8).nnz]);
 * assert.deepEqual([...diffusion2D({ n: 5, coefficients: 'constant' }).values], [...poisson2D(5).values]);
 * ```
 */
export function diffusion2D(options: DiffusionOptions): CSRMatrix {
  return diffusion('diffusion2D', 2, options);
}

/**
 * −∇·(k∇u) on the unit cube, n×n×n cells, as {@link diffusion2D} in 3-D: the constant coefficient
 * gives poisson3D's matrix.
 *
 * @throws {@link ShapeError} when n is not a positive integer.
 * @throws RangeError for a contrast, anisotropy or blocks out of range, or a coefficient function returning k ≤ 0 or a non-finite value.
 * @throws {@link OptionError} for an option key it does not know.
 *
 * @example
 * ```js
 * import { diffusion3D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const A = diffusion3D({ n: 16, coefficients: (x, y, z) => (z > 0.5 ? 1000 : 1) });  // two layers
 * assert.equal(A.rows, 4096);
 * const T = A.transpose();
 * assert.deepEqual([...T.values], [...A.values]);                                     // symmetric
 * ```
 */
export function diffusion3D(options: DiffusionOptions): CSRMatrix {
  return diffusion('diffusion3D', 3, options);
}

function diffusion(where: string, d: 2 | 3, o: DiffusionOptions): CSRMatrix {
  checkOptions(where, o, KEYS);
  const n = o.n;
  if (!Number.isInteger(n) || n < 1) throw new ShapeError(`${where}: n must be a positive integer, got ${n}`);
  const contrast = o.contrast ?? 1e4;
  const blocks = o.blocks ?? 4;
  const aniso = o.anisotropy ?? 1e-3;
  if (!(contrast > 0 && Number.isFinite(contrast))) throw new RangeError(`${where}: contrast must be a positive number, got ${contrast}`);
  if (!(aniso > 0 && Number.isFinite(aniso))) throw new RangeError(`${where}: anisotropy must be a positive number, got ${aniso}`);
  if (!(Number.isInteger(blocks) && blocks >= 1)) throw new RangeError(`${where}: blocks must be a positive integer, got ${blocks}`);
  const c = o.coefficients ?? 'jumping';
  const cells = n ** d;
  checkGeneratedSize(where, cells, cells * (2 * d + 1), 8 * cells + 4 * (cells + 1) + 12 * cells * (2 * d + 1));
  // k of each cell; per-axis scale for 'anisotropic'
  const k = new Float64Array(cells);
  const axis = [1, 1, 1];
  if (c === 'anisotropic') axis[d - 1] = aniso;
  for (let i = 0; i < cells; i++) {
    const [x, y, z] = [i % n, Math.floor(i / n) % n, Math.floor(i / (n * n))];
    let v = 1;
    if (c === 'jumping') v = (Math.floor((x * blocks) / n) + Math.floor((y * blocks) / n) + (d === 3 ? Math.floor((z * blocks) / n) : 0)) % 2 ? contrast : 1;
    else if (typeof c === 'function') v = c((x + 0.5) / n, (y + 0.5) / n, d === 3 ? (z + 0.5) / n : 0);
    else if (c !== 'constant' && c !== 'anisotropic') throw new RangeError(`${where}: coefficients must be 'constant', 'jumping', 'anisotropic' or a function, got ${JSON.stringify(c)}`);
    if (!(v > 0 && Number.isFinite(v))) throw new RangeError(`${where}: the coefficient at cell ${i} is ${v}; it must be positive and finite`);
    k[i] = v;
  }
  const strides = [1, n, n * n];
  const rowPtr = new Int32Array(cells + 1);
  const colIdx = new Int32Array(cells * (2 * d + 1));
  const values = new Float64Array(cells * (2 * d + 1));
  let m = 0;
  const coord = [0, 0, 0];
  for (let i = 0; i < cells; i++) {
    coord[0] = i % n;
    coord[1] = Math.floor(i / n) % n;
    coord[2] = Math.floor(i / (n * n));
    let diag = 0;
    // neighbours below i first (descending axis), the diagonal, then above (ascending): canonical order
    for (let a = d - 1; a >= 0; a--) {
      const w = axis[a] * (coord[a] > 0 ? harmonic(k[i], k[i - strides[a]]) : k[i]);
      diag += w;
      if (coord[a] > 0) {
        colIdx[m] = i - strides[a];
        values[m++] = -w;
      }
    }
    const at = m++;
    for (let a = 0; a < d; a++) {
      const w = axis[a] * (coord[a] < n - 1 ? harmonic(k[i], k[i + strides[a]]) : k[i]);
      diag += w;
      if (coord[a] < n - 1) {
        colIdx[m] = i + strides[a];
        values[m++] = -w;
      }
    }
    colIdx[at] = i;
    values[at] = diag;
    rowPtr[i + 1] = m;
  }
  return new CSRMatrix(cells, cells, 'f64', rowPtr, colIdx.slice(0, m), values.slice(0, m));
}

/** 2ab/(a + b): the coefficient of a face between cells of a and b, so that a = b gives a */
function harmonic(a: number, b: number): number {
  return (2 * a * b) / (a + b);
}
