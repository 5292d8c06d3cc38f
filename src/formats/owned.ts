import { reserveMemory, spareBuffer } from '../memory-budget.js';
import { FormatError, InputTypeError, UnsupportedError } from '../errors.js';
import { COOMatrix } from './coo.js';
import { CSCMatrix } from './csc.js';
import { CSRMatrix, validateCanonical } from './csr.js';
import { validateCanonicalScanning } from './diagonal-scan.js';
import { DenseMatrix } from './dense.js';
import { DIAMatrix } from './dia.js';
import { ELLMatrix } from './ell.js';
import { HYBMatrix } from './hyb.js';
import { JDSMatrix } from './jds.js';
import { FORMATS, type FormatName, type SparseMatrix } from './index.js';
import { MRSMatrix } from './mrs.js';
import { SELLMatrix } from './sell.js';
import { shownTyped, shownValue } from '../shown-value.js';

/**
 * A validated private copy of a matrix, for data that kernels will trust: every field read once, every
 * array copied into a plain new typed array of its own type, the constructor's checks and validate()
 * run on the copy. The caller may then reassign fields or rewrite, shorten, detach or resize the
 * original's arrays (JavaScript cannot stop it: `readonly` is TypeScript's alone) without any effect
 * on the copy; the kernels' bounds rest on the copy alone. FormatError/ShapeError when invalid.
 */
export function ownedCopy(m: SparseMatrix): SparseMatrix {
  switch (m?.format) {
    case 'coo': return new COOMatrix(m.rows, m.cols, m.dtype, copy(m.rowIdx), copy(m.colIdx), copy(m.values)).validate();
    case 'csr': return ownedCopyCanonical(m).matrix;
    case 'csc': return new CSCMatrix(m.rows, m.cols, m.dtype, copy(m.colPtr), copy(m.rowIdx), copy(m.values)).validate();
    case 'mrs': return new MRSMatrix(m.rows, m.cols, m.dtype, copy(m.index), copy(m.values)).validate();
    case 'dia': return new DIAMatrix(m.rows, m.cols, m.dtype, copy(m.offsets), m.pitch, copy(m.data)).validate();
    case 'ell': return new ELLMatrix(m.rows, m.cols, m.dtype, m.width, m.stride, copy(m.colIdx), copy(m.values)).validate();
    case 'jds': return new JDSMatrix(m.rows, m.cols, m.dtype, copy(m.perm), copy(m.jdPtr), copy(m.colIdx), copy(m.values)).validate();
    case 'sell': return new SELLMatrix(m.rows, m.cols, m.dtype, m.sliceHeight, m.sortWindow, copy(m.perm), copy(m.slicePtr), copy(m.colIdx), copy(m.values)).validate();
    case 'hyb': return new HYBMatrix(m.rows, m.cols, m.dtype, part(m.ell, 'ell'), part(m.coo, 'coo')).validate();
    case 'dense': return new DenseMatrix(m.rows, m.cols, m.dtype, copy(m.values)).validate();
    default: throw notAMatrix(m);
  }
}

/**
 * ownedCopy, and whether the copy is a canonical CSR: a CSR's validation tests that in the same pass.
 * `scanning`: the format features' scan and the loose norms' findings from that pass too
 * (validateCanonicalScanning), kept by `keepScan` once the copy is marked runtime-private. `shared`: a CSR's arrays of SHARED_MIN_BYTES or more on SharedArrayBuffers, which the CPU pool's
 * workers read (cpu/copy-in.ts: an AMG setup's copy of A into the kernels' memory on every thread).
 */
export function ownedCopyCanonical(m: SparseMatrix, shared = false, scanning = false): { matrix: SparseMatrix; canonical: boolean; keepScan?: () => void } {
  if (m?.format !== 'csr') return { matrix: ownedCopy(m), canonical: false };
  const matrix = new CSRMatrix(m.rows, m.cols, m.dtype, copy(m.rowPtr, shared), copy(m.colIdx, shared), copy(m.values, shared));
  if (!scanning) return { matrix, canonical: validateCanonical(matrix) };
  const { canonical, keep } = validateCanonicalScanning(matrix);
  return { matrix, canonical, keepScan: keep };
}

/** The smallest private copy ownedCopyCanonical puts on a SharedArrayBuffer: below it one thread copies it in as fast as a pool job. */
export const SHARED_MIN_BYTES = 1 << 20;

/**
 * A fresh SharedArrayBuffer of `bytes`. V8 (Node 20) does not count a SharedArrayBuffer's memory toward
 * the external memory that makes it collect garbage: 40 dropped buffers of 51 MB held 2.1 GB resident
 * (0.2 GB as ArrayBuffers). An ArrayBuffer of the same size, dropped at once and never touched (no
 * pages), counts it, so uploads in a loop collect as often as they did with unshared copies (0.25 GB).
 */
function sharedBuffer(bytes: number): SharedArrayBuffer {
  void new ArrayBuffer(bytes);
  return new SharedArrayBuffer(bytes);
}

/**
 * A itself when it is one of simdgl's sparse matrices (a format this library knows, with its
 * methods), else the typed error saying what it got and, with `where`, where.
 */
export function sparseMatrix(A: unknown, where?: string): SparseMatrix {
  if (!FORMATS.includes((A as { format?: FormatName } | null)?.format as FormatName) || typeof (A as SparseMatrix).toCSR !== 'function') throw notAMatrix(A, where);
  return A as SparseMatrix;
}

/**
 * The error for something passed as a matrix that is not one: an unknown format name is an
 * UnsupportedError; an object without one (a SciPy-like dict, an ndarray, a number[][]) an
 * InputTypeError saying what it got, what is accepted, and which `from` reads it.
 */
export function notAMatrix(m: unknown, where?: string): Error {
  const at = where ? `${where}: ` : '';
  const format = (m as { format?: unknown } | null)?.format;
  if (typeof format === 'string') return new UnsupportedError(`${at}unknown matrix format ${shownValue(format)}, expected one of ${FORMATS.join(', ')}`);
  const keys = m !== null && typeof m === 'object' ? Object.keys(m) : [];
  const has = (...k: string[]) => k.every((x) => keys.includes(x));
  const hint = Array.isArray(m) ? '; for rows of numbers use DenseMatrix.from(rows)'
    : has('indptr', 'indices', 'data') ? '; for SciPy-style arrays use CSRMatrix.from({ indptr, indices, data, shape }) or CSCMatrix.from'
    : has('row', 'col', 'data') ? '; for SciPy-style triplets use COOMatrix.from({ row, col, data, shape })'
    : has('data', 'shape') ? '; for an ndarray use DenseMatrix.from({ data, shape, stride, offset })'
    : '';
  return new InputTypeError(`${at}expected a matrix (a CSRMatrix, COOMatrix, … of simdgl, format one of ${FORMATS.join(', ')}), got ${shownTyped(m)}${hint}`);
}

/** A copy of HYB's ELL or COO part, which must be of that format. */
function part<T extends ELLMatrix | COOMatrix>(m: T, format: T['format']): T {
  if (m?.format !== format) throw new FormatError(`HYB ${format} part has format ${shownValue(m?.format)}, expected ${format}`);
  return ownedCopy(m) as T;
}

/**
 * A plain copy of a typed array (whatever its buffer: resizable, shared; a detached one has length 0
 * and copies as empty), in a spare buffer of the operation where it has one of that size and kind
 * (withMemoryBudget's `spare`); `shared`, on a SharedArrayBuffer from SHARED_MIN_BYTES; anything else
 * passes unchanged for the constructor to reject.
 */
function copy<T>(a: T, shared = false): T {
  for (const C of [Int32Array, Float64Array, Float32Array]) {
    if (a instanceof C) {
      reserveMemory(a.byteLength, `a private copy of ${a.length} ${C.name} entries`);
      const onShared = shared && a.byteLength >= SHARED_MIN_BYTES;
      const spare = a.length === 0 ? null : spareBuffer(a.byteLength, onShared);
      if (spare || onShared) {
        // (this TypeScript lib's typed-array constructors name ArrayBuffer alone; they take a SharedArrayBuffer)
        const to = new C((spare ?? sharedBuffer(a.byteLength)) as ArrayBuffer);
        to.set(a);
        return to as T;
      }
      return (a.length === 0 ? new C(0) : new C(a)) as T;
    }
  }
  return a;
}
