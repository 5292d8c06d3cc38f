import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createRuntime } from '../runtime/runtime.js';
import { parseMatrixMarket, readMatrixMarket, writeMatrixMarket } from '../io/index.js';
import { DenseMatrix, type CSRMatrix, type FormatName } from '../formats/index.js';
import { Prng } from '../generators/prng.js';
import { allocValues, components, elementBytes, isComplex, type DType, type ValueArray } from '../dtype.js';
import { MemoryLimitError, ShapeError } from '../errors.js';
import { runtimeMemoryDefaultMB } from '../memory-budget.js';
import { SOLVE_METHODS, type SolveMethod } from '../solvers/solve.js';
import { PRECONDITIONER_KINDS, type PreconditionerKind } from '../solvers/precond/index.js';
import { namingInput } from './exit-codes.js';

/** The CLI's --method and --preconditioner choices. */
export const CLI_METHODS = ['auto', 'direct', ...SOLVE_METHODS] as const;
export const CLI_PRECONDITIONERS = ['auto', ...PRECONDITIONER_KINDS] as const;

export interface SolveCliOptions {
  method: SolveMethod | 'auto' | 'direct';
  tol: number;
  maxIter?: number;
  preconditioner: PreconditionerKind | 'auto';
  workers: number;
  /** 'ones', 'random' or a Matrix Market file holding an n×1 (or 1×n) vector */
  rhs: string;
  dtype?: DType;
  format: FormatName | 'auto';
  onReadProgress?: (bytes: number, total: number) => void;
  onIteration?: (iteration: number, relativeResidual: number) => void;
}

export interface SolveCliResult {
  n: number;
  nnz: number;
  dtype: DType;
  format: string;
  threads: number;
  /** the method and preconditioner rt.solve ran, and the preconditioner in words */
  method: SolveMethod | 'direct';
  preconditioner: PreconditionerKind;
  preconditionerDetail: string;
  iterations: number;
  converged: boolean;
  reason: string;
  /** the method's recurrence residual at the end */
  recurrenceResidual: number;
  /** ‖b − A·x‖ / ‖b‖ recomputed in f64 from the returned x */
  trueResidual: number;
  /** refinement (correction) solves after the first */
  refinements: number;
  /** the whole solve, preconditioner setup included */
  solveMs: number;
  /** what rt.solve said of a choice that gave way to another (its directFallback, methodFallback, precisionFallback), in that order */
  notes: string[];
  /** the solution in f64 (c128 for complex) */
  x: Float64Array;
}

/** Reads a Matrix Market file as a stream (with progress), naming the file in any error. */
export async function readMatrixFile(path: string, dtype?: DType, onProgress?: (bytes: number, total: number) => void) {
  const total = statSync(path).size;
  try {
    return await readMatrixMarket(createReadStream(path), { dtype, onProgress: (b) => onProgress?.(b, total) });
  } catch (e) {
    throw namingInput(e, path);
  }
}

function rhsVector(spec: string, n: number, dtype: DType): ValueArray {
  const b = allocValues(dtype, n);
  const c = components(dtype);
  if (spec === 'ones') {
    for (let i = 0; i < n; i++) b[i * c] = 1;
    return b;
  }
  if (spec === 'random') {
    const rng = new Prng(1);
    for (let i = 0; i < b.length; i++) b[i] = rng.next() * 2 - 1;
    return b;
  }
  // a file: an n×1 or 1×n matrix, dense (array) or coordinate
  let parsed;
  try {
    parsed = readMatrixMarketSync(spec, dtype);
  } catch (e) {
    throw namingInput(e, `--rhs ${spec}`);
  }
  const M = parsed.matrix;
  if (!((M.rows === n && M.cols === 1) || (M.rows === 1 && M.cols === n))) {
    throw new ShapeError(`--rhs ${spec}: expected a vector of ${n} entries (${n}×1), the file holds a ${M.rows}×${M.cols} matrix`);
  }
  if (isComplex(M.dtype) && !isComplex(dtype)) throw new ShapeError(`--rhs ${spec}: a complex right-hand side needs a complex system (--dtype c64 or c128)`);
  const dense = M instanceof DenseMatrix ? M : DenseMatrix.fromCSR(M.toCSR());
  b.set(dense.astype(dtype).values);
  return b;
}

/** The right-hand side file is small next to the matrix: parsed whole, in the system's dtype. */
function readMatrixMarketSync(path: string, dtype: DType) {
  return parseMatrixMarket(readFileSync(path), { dtype });
}

/** Vectors of n that any solve holds in the CPU path's memory at once: CG's x, r, z, p, A·p (the other methods hold more). */
const SOLVE_VECTORS = 5;

/**
 * MemoryLimitError, before the matrix is converted and b is made, where the runtime's memory (its
 * default maxMemoryMB: the budget, up to 2 GiB) cannot hold what any solve of this system needs: the
 * solver's vectors and a value and an index an entry. A 60-byte file declaring an empty 10⁸×10⁸ matrix
 * took 6 s and 3 GB to end in the WebAssembly memory's own error.
 */
function checkSolveFits(path: string, n: number, nnz: number, dtype: DType): void {
  const need = SOLVE_VECTORS * n * elementBytes(dtype) + nnz * 4;
  const limit = runtimeMemoryDefaultMB() * 1048576;
  if (need > limit) {
    throw new MemoryLimitError(
      need,
      `${path}: a solve of ${n} unknowns (${nnz} entries, ${dtype}) needs at least ${(need / 1048576).toFixed(0)} MiB of the CPU path's memory (${SOLVE_VECTORS} vectors of ${n}), over its limit of ${runtimeMemoryDefaultMB()} MiB (the memory budget, up to 2048; --max-memory lowers it)`,
    );
  }
}

/** Reads the system and solves it with rt.solve (method and preconditioner 'auto' unless given). */
export async function solveFile(path: string, o: SolveCliOptions): Promise<SolveCliResult> {
  const read = await readMatrixFile(path, o.dtype, o.onReadProgress);
  const { rows, cols, nnz } = read.matrix;
  if (rows !== cols) throw new ShapeError(`${path}: a linear system needs a square matrix, this one is ${rows}×${cols}`);
  const dtype = o.dtype ?? read.matrix.dtype;
  checkSolveFits(path, rows, nnz, dtype);
  let A: CSRMatrix;
  try {
    A = read.matrix.toCSR();
  } catch (e) {
    throw namingInput(e, path);
  }
  const b = rhsVector(o.rhs, A.rows, dtype);
  const rt = await createRuntime({ backend: 'cpu', workers: o.workers }); // the CPU path's solver (no GPU probing)
  try {
    let h;
    try {
      h = rt.upload(A.dtype === dtype ? A : A.astype(dtype), { format: o.format });
    } catch (e) {
      throw namingInput(e, path);
    }
    const t0 = performance.now();
    const r = await rt.solve(h, b, {
      method: o.method,
      tol: o.tol,
      maxIter: o.maxIter,
      preconditioner: o.preconditioner,
      onIteration: o.onIteration,
    });
    const solveMs = performance.now() - t0;
    return {
      n: A.rows,
      nnz: A.nnz,
      dtype,
      format: h.format,
      threads: rt.capabilities().threads,
      method: r.method,
      preconditioner: r.preconditioner,
      preconditionerDetail: r.preconditionerDetail,
      iterations: r.iterations,
      converged: r.converged,
      reason: r.reason,
      recurrenceResidual: r.recurrenceResidual,
      trueResidual: r.relativeResidual,
      refinements: r.refinements,
      solveMs,
      notes: [r.directFallback, r.methodFallback, r.precisionFallback].filter((n): n is string => n !== undefined),
      x: r.x,
    };
  } finally {
    rt.dispose();
  }
}

/** The solution as a Matrix Market array file (an n×1 DenseMatrix). */
export function solutionText(res: SolveCliResult, comment: string): string {
  return writeMatrixMarket(new DenseMatrix(res.n, 1, isComplex(res.dtype) ? 'c128' : 'f64', res.x), { comment });
}
