import { allocValues, isComplex, type ValueArray } from '../../dtype.js';
import { ShapeError } from '../../errors.js';
import { diagonalSums, type CSRMatrix } from '../../formats/csr.js';
import type { DIAMatrix } from '../../formats/dia.js';

/**
 * D⁻¹ for the Jacobi preconditioner: the inverse of A's diagonal (duplicates summed), computed once
 * on the host for either path. A zero or non-finite diagonal entry is an error naming the row.
 */
export function inverseDiagonal(A: CSRMatrix | DIAMatrix): ValueArray {
  const complex = isComplex(A.dtype);
  const d = allocValues(A.dtype, A.rows);
  if (A.format === 'dia') {
    // the main diagonal is one contiguous run of DIA's data (the CPU path's copy of a stencil): no
    // pass over the CSR's entries (poisson3D(64): 0.26 M against 1.8 M); the same inverses
    const c = complex ? 2 : 1;
    const at = A.offsets.indexOf(0);
    const main = at >= 0 ? A.data.subarray(at * A.pitch * c, (at * A.pitch + A.rows) * c) : null;
    if (!main) {
      if (A.rows > 0) refuse(0, 'zero');
      return d;
    }
    if (complex) for (let i = 0; i < A.rows; i++) invertInto(d, i, main[2 * i], main[2 * i + 1], true, A.dtype);
    else for (let i = 0; i < A.rows; i++) invertReal(d, i, main[i], A.dtype);
    return d;
  }
  const s = diagonalSums(A);
  if (complex) for (let i = 0; i < A.rows; i++) invertInto(d, i, s[2 * i], s[2 * i + 1], true, A.dtype);
  else for (let i = 0; i < A.rows; i++) invertReal(d, i, s[i], A.dtype);
  return d;
}

/**
 * A's inverse diagonal 1/c where the diagonal is one real value c throughout (a constant-coefficient
 * stencil's, poisson3D's 6), else null: Jacobi's D⁻¹ is then I/c, and a Krylov method's iterates with
 * it are those without it, to rounding. Null for a complex A, and where Jacobi would refuse the diagonal
 * (a zero or non-finite entry). From a DIA copy of A where one is at hand: its main diagonal alone.
 */
export function constantInverseDiagonal(A: CSRMatrix | DIAMatrix): number | null {
  if (isComplex(A.dtype) || A.rows === 0) return null;
  const known = A.format === 'dia' ? knownConstant.get(A) : undefined;
  if (known !== undefined) return known;
  let d: ValueArray;
  try {
    d = inverseDiagonal(A);
  } catch (e) {
    if (e instanceof ShapeError) return null;
    throw e;
  }
  for (let i = 1; i < d.length; i++) if (d[i] !== d[0]) return null;
  return d[0];
}

/**
 * constantInverseDiagonal of runtime-made DIA copies (their data never change), found by the pass that
 * wrote them (src/solvers/structure.ts diaCopyWithStructure), which reads each row's diagonal entry
 * anyway: no pass of its own over the main diagonal (≈ 30 ms of poisson3D(128)'s first WebGPU solve).
 */
const knownConstant = new WeakMap<DIAMatrix, number | null>();

/** @internal Records `value`, constantInverseDiagonal(D) as the pass that wrote D found it (see knownConstant). */
export function rememberConstantInverseDiagonal(D: DIAMatrix, value: number | null): void {
  knownConstant.set(D, value);
}

/** d[i] ← 1/re, or the refusal naming row i (invertInto's checks for a real entry, without its arrays). */
function invertReal(d: ValueArray, i: number, re: number, dtype: string): void {
  d[i] = 1 / re;
  if (re === 0 || !Number.isFinite(re) || !Number.isFinite(d[i])) refuse(i, re === 0 ? 'zero' : !Number.isFinite(re) ? 'not finite' : `${re}, whose inverse overflows ${dtype}`);
}

/** d[i] ← 1/(re + i·im), or the refusal naming row i. */
function invertInto(d: ValueArray, i: number, re: number, im: number, complex: boolean, dtype: string): void {
  // 1/(re + i·im) scaled by the larger part, so that |d|² neither underflows (a tiny but nonzero
  // entry refused as zero) nor overflows; refused when it is zero, not finite, or its inverse
  // overflows the dtype (1/1e-40 in f32)
  const s = Math.max(Math.abs(re), Math.abs(im));
  const [r, t] = [re / s, im / s];
  const m = r * r + t * t;
  if (complex) {
    d[2 * i] = r / m / s;
    d[2 * i + 1] = -t / m / s;
  } else d[i] = 1 / re;
  const inverse = complex ? [d[2 * i], d[2 * i + 1]] : [d[i]];
  const why = s === 0 ? 'zero' : !Number.isFinite(s) ? 'not finite' : !inverse.every(Number.isFinite) ? `${complex ? `${re} + ${im}i` : re}, whose inverse overflows ${dtype}` : null;
  if (why) refuse(i, why);
}

function refuse(i: number, why: string): never {
  throw new ShapeError(`jacobi: the diagonal entry A[${i},${i}] is ${why}; use preconditioner: 'none'`);
}
