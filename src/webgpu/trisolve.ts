/**
 * Sparse triangular solves on the WebGPU path (SolverOps.triangular, src/solvers/ops.ts): the
 * IC(0)/ILU(0)/SSOR preconditioners' x = T⁻¹·b with T resident (CSR, 1/T[i,i] beside it), in one of
 * two ways (wgsl/trisolve.wgsl):
 *   level-scheduled  one dispatch per level of the schedule the solver layer computed on the host
 *                    (a thread per row of the level; all levels recorded into one command buffer):
 *                    exact, and cheap while the levels are few;
 *   Jacobi sweeps    x ← D⁻¹(b − (T − D)·x) a fixed number of times from x = D⁻¹b, each sweep one
 *                    pass over T: exact once the sweeps reach the number of levels, otherwise an
 *                    approximation (a fixed linear operator, so still a valid preconditioner), for
 *                    factors with more levels than dispatches are worth.
 * 'auto' picks per matrix by the cost of each on this path (TRISOLVE_COST): levels × a dispatch
 * against sweeps × (a dispatch + a pass over T), the level schedule whenever it is exact at no more
 * cost than the sweeps. `method` says which ran.
 */
import { isComplex, type DType } from '../dtype.js';
import { ShapeError, UnsupportedError } from '../errors.js';
import type { CSRMatrix } from '../formats/csr.js';
import type { TriangularOptions, TriangularSolver } from '../solvers/ops.js';
import type { Engine } from './engine.js';
import { floatsPerElement, streamBytes, writeStream } from './encoding.js';
import type { WebGpuVector } from './resident.js';

/** How to solve: chosen per matrix ('auto'), or forced (tests, benchmarks). */
export interface WebGpuTriangularOptions extends TriangularOptions {
  method?: 'auto' | 'levels' | 'jacobi';
  /** Jacobi sweeps (default TRISOLVE_SWEEPS) */
  sweeps?: number;
}

/** Jacobi sweeps by default: the error of the level-free solve shrinks about geometrically per sweep. */
export const TRISOLVE_SWEEPS = 12;

/**
 * The cost figures of the choice, from the H100 (bench/device/results-2026-11-25, call 7): a level
 * costs ≈ 20 µs (the lower triangle of poisson3D(128), 382 levels: 8.5 ms f64; of poisson2D(1024),
 * 2,047 levels: 35 ms), a sweep streams at ≈ 2,000 GB/s (12 sweeps: 2.2 and 0.37 ms).
 */
export const TRISOLVE_COST = { dispatchMs: 0.02, bandwidthGBs: 2000 };

/** What the solver needs from the backend. */
export interface TrisolveHost {
  readonly engine: Engine;
  readonly bindingLimit: number;
  live(): void;
  /** checks that v is a live vector of this backend with dtype dt and length n */
  check(where: string, v: WebGpuVector, dt: DType, n: number): void;
}

/** The inverse diagonal 1/T[i,i] (complex: conj(d)/|d|²), 1 for a unit diagonal; a zero pivot is refused. */
function inverseDiagonal(T: CSRMatrix, unit: boolean): Float64Array {
  const c = isComplex(T.dtype) ? 2 : 1;
  const out = new Float64Array(T.rows * c);
  for (let i = 0; i < T.rows; i++) {
    if (unit) {
      out[i * c] = 1;
      continue;
    }
    let re = 0;
    let im = 0;
    let found = false;
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      if (T.colIdx[k] !== i) continue;
      re += T.values[k * c];
      if (c === 2) im += T.values[k * c + 1];
      found = true;
    }
    const m = re * re + im * im;
    if (!found || !(m > 0) || !Number.isFinite(m)) {
      throw new ShapeError(`WebGPU triangular: T[${i}, ${i}] is ${found ? (c === 2 ? `${re}${im < 0 ? '' : '+'}${im}i` : re) : 'not stored'}: a non-unit triangular factor needs a finite nonzero diagonal`);
    }
    out[i * c] = re / m;
    if (c === 2) out[i * c + 1] = -im / m;
  }
  return out;
}

/** Checks that the schedule lists every row once, levels in order, and that T is triangular as said. */
function checkSchedule(T: CSRMatrix, o: TriangularOptions): void {
  const { levelPtr, rows } = o.levels;
  const n = T.rows;
  if (T.cols !== n) throw new ShapeError(`WebGPU triangular: T must be square, it is ${T.rows}×${T.cols}`);
  if (rows.length !== n || levelPtr.length < 1 || levelPtr[0] !== 0 || levelPtr[levelPtr.length - 1] !== n) {
    throw new ShapeError(`WebGPU triangular: the level schedule must list each of the ${n} rows once (rows has ${rows.length}, levelPtr ends at ${levelPtr[levelPtr.length - 1]})`);
  }
  const level = new Int32Array(n).fill(-1);
  for (let l = 0; l + 1 < levelPtr.length; l++) {
    for (let t = levelPtr[l]; t < levelPtr[l + 1]; t++) {
      const i = rows[t];
      if (!(i >= 0 && i < n) || level[i] !== -1) throw new ShapeError(`WebGPU triangular: the level schedule lists row ${i} twice or out of range`);
      level[i] = l;
    }
  }
  for (let i = 0; i < n; i++) {
    for (let k = T.rowPtr[i]; k < T.rowPtr[i + 1]; k++) {
      const j = T.colIdx[k];
      if (j === i) continue;
      if (o.lower ? j > i : j < i) throw new ShapeError(`WebGPU triangular: T[${i}, ${j}] is stored, but T is said to be ${o.lower ? 'lower' : 'upper'} triangular`);
      if (level[j] >= level[i]) throw new ShapeError(`WebGPU triangular: row ${i} (level ${level[i]}) needs row ${j} of level ${level[j]}: not a level schedule of T`);
    }
  }
}

/** Which method 'auto' takes for T on this path, by TRISOLVE_COST. */
export function chooseTriangular(T: CSRMatrix, levels: number, sweeps = TRISOLVE_SWEEPS): 'levels' | 'jacobi' {
  const bytes = T.nnz * (4 + floatsPerElement(T.dtype) * 4) + T.rows * 4 * (2 + 3 * floatsPerElement(T.dtype));
  const passMs = bytes / (TRISOLVE_COST.bandwidthGBs * 1e6);
  const levelMs = levels * TRISOLVE_COST.dispatchMs + passMs;
  const jacobiMs = sweeps * (TRISOLVE_COST.dispatchMs + passMs);
  return levels <= sweeps || levelMs <= jacobiMs ? 'levels' : 'jacobi';
}

/** A triangular factor resident on the GPU (see the file comment). */
export function webgpuTriangular(H: TrisolveHost, T: CSRMatrix, o: WebGpuTriangularOptions): TriangularSolver<WebGpuVector> {
  H.live();
  checkSchedule(T, o);
  const dt = T.dtype;
  const n = T.rows;
  const nLevels = o.levels.levelPtr.length - 1;
  const sweeps = o.sweeps ?? TRISOLVE_SWEEPS;
  if (!(Number.isInteger(sweeps) && sweeps >= 1)) throw new RangeError(`WebGPU triangular: sweeps must be a positive integer, got ${sweeps}`);
  const method = !o.method || o.method === 'auto' ? chooseTriangular(T, nLevels, sweeps) : o.method;
  if (method !== 'levels' && method !== 'jacobi') throw new UnsupportedError(`WebGPU triangular: method must be 'auto', 'levels' or 'jacobi', got ${String(method)}`);
  const E = H.engine;
  const made: GPUBuffer[] = [];
  const buf = (what: string, data: ArrayBufferView | number) => {
    const b = E.buffer(what, data, H.bindingLimit);
    made.push(b);
    return b;
  };
  // the host's encoding written straight into the mapped range
  const encoded = (what: string, data: ArrayLike<number>) => {
    const b = E.filledBuffer(what, streamBytes(dt, data.length), H.bindingLimit, (m) => writeStream(dt, data, m, false));
    made.push(b);
    return b;
  };
  let disposed = false;
  try {
    const rowPtr = buf('triangular factor row pointers', T.rowPtr);
    const colIdx = buf('triangular factor column indices', T.colIdx);
    const values = encoded('triangular factor values', T.values);
    const dinv = encoded('triangular factor inverse diagonal', inverseDiagonal(T, o.unitDiagonal));
    const rows = method === 'levels' ? buf('level schedule', o.levels.rows) : null;
    const scratch = method === 'jacobi' && sweeps > 1 ? buf('Jacobi sweep scratch', n * floatsPerElement(dt) * 4) : null;
    const factor = [
      { binding: 3, buffer: rowPtr },
      { binding: 4, buffer: colIdx },
      { binding: 5, buffer: values },
      { binding: 6, buffer: dinv },
    ];
    return {
      method: method === 'levels' ? `level-scheduled (${nLevels} levels)` : `Jacobi sweeps (${sweeps}, ${sweeps >= nLevels ? 'exact' : `approximate: ${nLevels} levels`})`,
      async solve(b, x) {
        if (disposed) throw new UnsupportedError('WebGPU triangular: the solver was disposed');
        H.live();
        H.check('WebGPU triangular: b', b, dt, n);
        H.check('WebGPU triangular: x', x, dt, n);
        if (b === x) throw new ShapeError('WebGPU triangular: x and b must be distinct vectors');
        if (method === 'levels') {
          const { levelPtr } = o.levels;
          for (let l = 0; l < nLevels; l++) {
            const count = levelPtr[l + 1] - levelPtr[l];
            E.dispatch('trisolve', dt, Math.ceil(count / 128), { n: count, m: levelPtr[l] }, [
              { binding: 1, buffer: b.buffer },
              { binding: 2, buffer: x.buffer, write: true },
              ...factor,
              { binding: 7, buffer: rows! },
            ]);
          }
        } else {
          // ping-pong so that the last sweep writes x: sweep s writes x when (sweeps − s) is odd
          for (let s = 0; s < sweeps; s++) {
            const intoX = (sweeps - s) % 2 === 1;
            const out = intoX ? x.buffer : scratch!;
            const prev = intoX ? scratch ?? x.buffer : x.buffer;
            const bindings = [{ binding: 1, buffer: b.buffer }, { binding: 2, buffer: out, write: true }, ...factor];
            if (s > 0) bindings.push({ binding: 8, buffer: prev });
            E.dispatch('trisolve', dt, Math.ceil(n / 128), { n, w: s === 0 ? 1 : 0 }, s === 0 ? [...bindings, { binding: 8, buffer: dinv }] : bindings, undefined, 'sweep_main');
          }
        }
        x.version++;
      },
      dispose() {
        if (disposed) return;
        disposed = true;
        for (const b of made) E.release(b);
      },
    };
  } catch (e) {
    for (const b of made) b.destroy();
    throw e;
  }
}
