import { checkOptions, optionKeys } from '../options-check.js';
import { CSRMatrix } from '../formats/csr.js';
import { ShapeError } from '../errors.js';
import { checkGeneratedSize } from './size.js';

/** Options of {@link elasticity2D}. */
export interface ElasticityOptions {
  /** Poisson's ratio ν in [0, 0.5) (default 0.3); near 0.5 the material is nearly incompressible and the matrix ill-conditioned */
  poissonRatio?: number;
}

const ELASTICITY_OPTION_KEYS = optionKeys<ElasticityOptions>({ poissonRatio: true });

/**
 * The stiffness matrix of 2-D linear elasticity (plane stress, Young's modulus 1) on the unit square
 * cut into n×n bilinear (Q1) elements, clamped on the left edge: two unknowns (x and y displacement,
 * interleaved) per free node, n·(n+1) nodes, so 2n(n+1) rows and up to 18 entries per row. Symmetric
 * positive definite, with the coupled 2×2 blocks and the conditioning a structural model has, unlike
 * a Poisson matrix. Rows are numbered node by node along x, then y.
 *
 * @throws {@link ShapeError} when n is not a positive integer.
 * @throws RangeError when poissonRatio is outside [0, 0.5).
 * @throws {@link OptionError} for an option key it does not know (TypeError when the options are not an object).
 *
 * @example
 * ```js
 * import { elasticity2D } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const K = elasticity2D(4);                             // 4×4 elements, 20 free nodes
 * assert.equal(K.rows, 40);
 * const T = K.transpose();
 * assert.deepEqual([...T.values], [...K.values]);        // symmetric
 * // a rigid translation of the free nodes is resisted only at the clamped edge: row sums vanish inside
 * const i = 2 * (2 * 4 + 3);                             // x of the node at column 4 (right edge), row 2
 * let s = 0;
 * for (let k = K.rowPtr[i]; k < K.rowPtr[i + 1]; k++) if (K.colIdx[k] % 2 === 0) s += K.values[k];
 * assert.ok(Math.abs(s) < 1e-12);
 * ```
 */
export function elasticity2D(n: number, options: ElasticityOptions = {}): CSRMatrix {
  checkOptions('elasticity2D', options, ELASTICITY_OPTION_KEYS);
  if (!Number.isInteger(n) || n < 1) throw new ShapeError(`elasticity2D: n must be a positive integer, got ${n}`);
  const nu = options.poissonRatio ?? 0.3;
  if (!(nu >= 0 && nu < 0.5)) throw new RangeError(`elasticity2D: poissonRatio must be in [0, 0.5), got ${nu}`);
  // each element's 8×8 block, less the clamped column's rows and columns: typed arrays of that bound
  // (number arrays pushed one by one crashed the process for n = 1e5, out of heap)
  const cap = 64 * n * n;
  checkGeneratedSize('elasticity2D', 2 * n * (n + 1), cap, 16 * cap);
  const Ke = elementStiffness(nu);
  // node (i, j), i = 0..n along x, j = 0..n along y; nodes with i = 0 are clamped
  const dof = (i: number, j: number, d: number) => (i === 0 ? -1 : 2 * (j * n + (i - 1)) + d);
  const rows = new Int32Array(cap);
  const cols = new Int32Array(cap);
  const vals = new Float64Array(cap);
  let t = 0;
  // local node order: (0,0), (1,0), (1,1), (0,1) of the element
  const corner = [[0, 0], [1, 0], [1, 1], [0, 1]];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const g: number[] = [];
      for (const [a, b] of corner) for (let d = 0; d < 2; d++) g.push(dof(i + a, j + b, d));
      for (let r = 0; r < 8; r++) {
        if (g[r] < 0) continue;
        for (let c = 0; c < 8; c++) {
          if (g[c] < 0) continue;
          rows[t] = g[r];
          cols[t] = g[c];
          vals[t++] = Ke[r * 8 + c];
        }
      }
    }
  }
  const m = 2 * n * (n + 1);
  return CSRMatrix.fromTriplets(m, m, 'f64', rows.subarray(0, t), cols.subarray(0, t), vals.subarray(0, t));
}

/** The 8×8 plane-stress stiffness of a square Q1 element (any size: it cancels in 2-D), 2×2 Gauss points. */
function elementStiffness(nu: number): Float64Array {
  const f = 1 / (1 - nu * nu);
  const D = [f, f * nu, 0, f * nu, f, 0, 0, 0, (f * (1 - nu)) / 2];
  const xi = [-1, 1, 1, -1];
  const eta = [-1, -1, 1, 1];
  const g = 1 / Math.sqrt(3);
  const K = new Float64Array(64);
  for (const gx of [-g, g]) {
    for (const gy of [-g, g]) {
      // on the reference square [-1, 1]²: dN/dξ, dN/dη; with h = 2 the Jacobian is the identity
      const B = new Float64Array(3 * 8);
      for (let a = 0; a < 4; a++) {
        const dx = (xi[a] * (1 + eta[a] * gy)) / 4;
        const dy = (eta[a] * (1 + xi[a] * gx)) / 4;
        B[0 * 8 + 2 * a] = dx;
        B[1 * 8 + 2 * a + 1] = dy;
        B[2 * 8 + 2 * a] = dy;
        B[2 * 8 + 2 * a + 1] = dx;
      }
      // the upper triangle, mirrored: the matrix must be exactly symmetric, not up to rounding
      for (let r = 0; r < 8; r++) {
        for (let c = r; c < 8; c++) {
          let s = 0;
          for (let p = 0; p < 3; p++) for (let q = 0; q < 3; q++) s += B[p * 8 + r] * D[p * 3 + q] * B[q * 8 + c];
          K[r * 8 + c] += s;
          if (c !== r) K[c * 8 + r] += s;
        }
      }
    }
  }
  return K;
}

/**
 * The rigid-body modes of {@link elasticity2D}(n)'s free nodes: translation in x, translation in y
 * and the rotation (−y, x) about the square's centre, each a vector of the matrix's 2n(n+1) rows. K
 * maps them to zero except at the clamped edge's neighbours, so they are the near-null space AMG
 * needs for elasticity: pass them as `amg.nearNullSpace` with `blockSize: 2` (docs/amg.md).
 *
 * @throws {@link ShapeError} when n is not a positive integer.
 *
 * @example
 * ```js
 * import { elasticity2D, elasticity2DModes, createRuntime } from 'simdgl';
 * import assert from 'node:assert/strict';
 *
 * const K = elasticity2D(40);
 * const modes = elasticity2DModes(40);
 * assert.deepEqual([modes.length, modes[2].length], [3, K.rows]);
 * const rt = await createRuntime();
 * const h = rt.upload(K);
 * const M = rt.amg(h, { nearNullSpace: modes, blockSize: 2 });
 * const r = await rt.cg(h, new Float64Array(K.rows).fill(1), { preconditioner: M });
 * assert.ok(r.converged);
 * rt.dispose();
 * ```
 */
export function elasticity2DModes(n: number): Float64Array[] {
  if (!Number.isInteger(n) || n < 1) throw new ShapeError(`elasticity2DModes: n must be a positive integer, got ${n}`);
  const m = 2 * n * (n + 1);
  checkGeneratedSize('elasticity2DModes', m, 0, 3 * 8 * m);
  const modes = [new Float64Array(m), new Float64Array(m), new Float64Array(m)];
  // free node (i, j), i = 1..n, j = 0..n, at (i/n, j/n); its unknowns are 2·(j·n + i − 1) + {0, 1}
  for (let j = 0; j <= n; j++) {
    for (let i = 1; i <= n; i++) {
      const p = 2 * (j * n + (i - 1));
      const [x, y] = [i / n - 0.5, j / n - 0.5];
      modes[0][p] = 1;
      modes[1][p + 1] = 1;
      modes[2][p] = -y;
      modes[2][p + 1] = x;
    }
  }
  return modes;
}
