import { allocValues, components, isComplex, type DType } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { CSRMatrix } from '../../formats/csr.js';
import { allocIndex, reserveMemory, withMemoryBudget } from '../../memory-budget.js';

/**
 * C = A·B for CSR matrices: Gustavson's row-by-row product in two passes, as SciPy and CSparse do.
 * The symbolic pass counts each row's distinct columns with a marker array, so C is allocated once
 * at its exact size, checked against the memory budget before the numeric pass; the numeric pass
 * accumulates a row in a dense array indexed by column and emits its columns in ascending order
 * (canonical CSR; explicit zeros that cancel are kept, as SciPy keeps them).
 *
 * Plain TypeScript on the main thread (the AMG setup's Galerkin products). Real operands take a loop
 * of their own (no dtype branches in the inner loop), and a row's columns are put in order by an
 * insertion sort while the row is short (a stencil's or a prolongator's rows are), so no row allocates.
 *
 * `maxMemoryMB` bounds what the product allocates (default: the module's budget). The result's dtype: complex when either is, f32/c64 only when both are single precision.
 */
export function spgemm(A: CSRMatrix, B: CSRMatrix, maxMemoryMB?: number): CSRMatrix {
  if (A.cols !== B.rows) throw new ShapeError(`spgemm: A is ${A.rows}×${A.cols} and B is ${B.rows}×${B.cols}; A's columns must equal B's rows`);
  return withMemoryBudget(maxMemoryMB, () => product(A.toCSR(), B.toCSR()));
}

function productDType(a: DType, b: DType): DType {
  const complex = isComplex(a) || isComplex(b);
  const single = (a === 'f32' || a === 'c64') && (b === 'f32' || b === 'c64');
  return complex ? (single ? 'c64' : 'c128') : single ? 'f32' : 'f64';
}

function product(A: CSRMatrix, B: CSRMatrix): CSRMatrix {
  const m = A.rows;
  const n = B.cols;
  const dtype = productDType(A.dtype, B.dtype);
  const ca = components(A.dtype);
  const cb = components(B.dtype);
  const cc = components(dtype);
  const { rowPtr: ap, colIdx: ai, values: av } = A;
  const { rowPtr: bp, colIdx: bi, values: bv } = B;
  const mark = allocIndex(n, `spgemm: a column marker of ${n} entries`).fill(-1);
  const cp = allocIndex(m + 1, `spgemm: row pointers of ${m} rows`);
  // symbolic pass: distinct columns per row
  let nnz = 0;
  for (let i = 0; i < m; i++) {
    for (let k = ap[i]; k < ap[i + 1]; k++) {
      const j = ai[k];
      for (let l = bp[j]; l < bp[j + 1]; l++) {
        const c = bi[l];
        if (mark[c] !== i) {
          mark[c] = i;
          nnz++;
        }
      }
    }
    cp[i + 1] = nnz;
  }
  reserveMemory(nnz * 4 + nnz * cc * (dtype === 'f32' || dtype === 'c64' ? 4 : 8) + n * cc * 8, `spgemm: ${nnz} entries of the ${m}×${n} product`);
  const ci = new Int32Array(nnz);
  const cv = allocValues(dtype, nnz);
  const acc = new Float64Array(n * cc);
  mark.fill(-1);
  if (cc === 1) {
    numericReal(A, B, cp, ci, cv as Float64Array | Float32Array, mark, acc);
    return new CSRMatrix(m, n, dtype, cp, ci, cv);
  }
  // numeric pass (complex): scatter into acc, collect the row's columns, sort them, gather
  for (let i = 0; i < m; i++) {
    let end = cp[i];
    for (let k = ap[i]; k < ap[i + 1]; k++) {
      const j = ai[k];
      const are = av[ca * k];
      const aim = ca === 2 ? av[2 * k + 1] : 0;
      for (let l = bp[j]; l < bp[j + 1]; l++) {
        const c = bi[l];
        if (mark[c] !== i) {
          mark[c] = i;
          ci[end++] = c;
          acc[2 * c] = acc[2 * c + 1] = 0;
        }
        const bre = bv[cb * l];
        const bim = cb === 2 ? bv[2 * l + 1] : 0;
        acc[2 * c] += are * bre - aim * bim;
        acc[2 * c + 1] += are * bim + aim * bre;
      }
    }
    sortRow(ci, cp[i], end);
    for (let k = cp[i]; k < end; k++) {
      const c = ci[k];
      cv[2 * k] = acc[2 * c];
      cv[2 * k + 1] = acc[2 * c + 1];
    }
  }
  return new CSRMatrix(m, n, dtype, cp, ci, cv);
}

/** The numeric pass for real operands: the same scatter, gather and order as the general loop. */
function numericReal(A: CSRMatrix, B: CSRMatrix, cp: Int32Array, ci: Int32Array, cv: Float64Array | Float32Array, mark: Int32Array, acc: Float64Array): void {
  const { rowPtr: ap, colIdx: ai, values: av } = A;
  const { rowPtr: bp, colIdx: bi, values: bv } = B;
  for (let i = 0; i < A.rows; i++) {
    const start = cp[i];
    let end = start;
    for (let k = ap[i]; k < ap[i + 1]; k++) {
      const j = ai[k];
      const a = av[k];
      for (let l = bp[j]; l < bp[j + 1]; l++) {
        const c = bi[l];
        if (mark[c] !== i) {
          mark[c] = i;
          ci[end++] = c;
          acc[c] = a * bv[l];
        } else acc[c] += a * bv[l];
      }
    }
    sortRow(ci, start, end);
    for (let k = start; k < end; k++) cv[k] = acc[ci[k]];
  }
}

/** Puts idx[s..e) in ascending order: insertion sort for a short row, the typed-array sort otherwise. */
function sortRow(idx: Int32Array, s: number, e: number): void {
  if (e - s > 48) {
    idx.subarray(s, e).sort();
    return;
  }
  for (let k = s + 1; k < e; k++) {
    const v = idx[k];
    let j = k - 1;
    while (j >= s && idx[j] > v) {
      idx[j + 1] = idx[j];
      j--;
    }
    idx[j + 1] = v;
  }
}
