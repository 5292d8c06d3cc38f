/**
 * rt.spgemm's product into fresh arrays on Node's pool, and the pool's copy-out of such arrays (a chunk
 * of its own, loaded with the pool: off a page's first file).
 *
 * Filling a fresh array costs more than its copy: each 4 KiB page's first touch is a page fault (A·A
 * on poisson3D(64): the values' 51 MB, 12,500 faults, ≈ 25 ms of one thread's CPU). An ArrayBuffer that
 * is not shared is filled by the one thread that owns it, so the one-pass product (CpuSparseSession's
 * multiplyOnce) leaves those faults on its critical path, after the numeric pass. Here the product
 * takes two passes: once the symbolic pass has counted its entries, a worker allocates the values'
 * array and faults its pages in while the calling thread computes rows, block by block, until the
 * worker is done; the rows left are split over every thread, then the worker copies the values into
 * its warm array and hands it over (WorkerPool.copyOutSync) while the calling thread builds the row
 * pointers and columns. Rows are independent and each is written at its place, so the bits are the
 * one-pass product's whoever computes which rows.
 */
import * as C from './control.js';
import type { CpuBackend } from './backend.js';
import type { DType } from '../dtype.js';
import { CSRMatrix } from '../formats/csr.js';
import { reserveMemory } from '../memory-budget.js';
import { balancedBounds } from './partition.js';
import type { PoolJob, WorkerPool } from './pool.js';
import { ARRAY_F32, ARRAY_F64, ARRAY_I32, buildArray, touched, type OutArray } from './copy-out.js';
// types alone from spgemm.ts (the set-up chunk's: a page's split bundle would otherwise share it in a chunk
// of its own that the set-up waits for, docs/bundlers.md): its session passes what this runs
import type { NumericPass, Resident } from './spgemm.js';

/** Blocks of equal multiply-adds the rows are cut into, claimed one at a time by the threads. */
const BLOCKS = 64;
/** Rows of each operand whose spans suits() samples. */
const SAMPLES = 1024;

/**
 * Test hooks: `always`, the product taken here whatever its operands' spans; `firstJobBlocks` ≥ 0, the
 * first job's threads claim this many blocks in all, the second job splits the rows after them.
 */
export const testHooks = { always: false, firstJobBlocks: -1 };

/**
 * Whether the two-pass product pays for A on the pool (the session checks SPGEMM_POOL_FLOOR): a worker that hands arrays over (Node) and operands whose
 * rows are banded, their sampled spans (last column − first) on average within an eighth of their
 * columns. The symbolic pass costs what its accesses to B's rows and the column markers cost: a tenth
 * of the numeric pass's time on a stencil's product (A·A poisson3D(64): ≈ 4 ms, against the ≈ 25 ms
 * of faults it takes off the critical path), more than the faults where rows reach columns all over
 * (A·Aᵀ of a power-law matrix: ≈ 150 ms), where the one-pass product stays.
 */
export function suits(backend: CpuBackend, A: CSRMatrix, B: CSRMatrix): boolean {
  return !!backend.workerPool?.handsOver && (testHooks.always || (banded(A) && banded(B)));
}

function banded(M: CSRMatrix): boolean {
  const step = Math.max(1, Math.floor(M.rows / SAMPLES));
  let [span, rows] = [0, 0];
  for (let i = 0; i < M.rows; i += step, rows++) {
    const [s, e] = [M.rowPtr[i], M.rowPtr[i + 1]];
    if (e > s) span += Math.abs(M.colIdx[e - 1] - M.colIdx[s]);
  }
  return 8 * span <= rows * M.cols;
}

/**
 * The product as fresh arrays: `multiply` runs the two-pass product (CpuSparseSession's), with the
 * numeric pass given here, and `free` frees its regions; `m`×`n` and cc (2: complex) its shape and width.
 */
export function freshProduct(backend: CpuBackend, dtype: DType, m: number, n: number, cc: number, multiply: (numeric: (pass: NumericPass) => void) => Resident, free: (R: Resident) => void): CSRMatrix {
  const single = dtype === 'f32' || dtype === 'c64';
  const valuesKind = single ? ARRAY_F32 : ARRAY_F64;
  let columns: Int32Array | undefined;
  const R = multiply((pass) => {
    reserveMemory(4 * (m + 1) + pass.nnz * 4 + pass.nnz * cc * (single ? 4 : 8), `spgemm: ${pass.nnz} entries of the ${m}×${n} product`);
    columns = numericWhileFaulting(backend, pass, m, valuesKind, cc * pass.nnz);
  });
  try {
    const specs = [
      { kind: ARRAY_I32, length: m + 1, segments: [[R.ptr, m + 1]] as [number, number][] },
      { kind: ARRAY_I32, length: R.nnz, segments: [[R.idx, R.nnz]] as [number, number][] },
      { kind: valuesKind, length: cc * R.nnz, segments: [[R.val, cc * R.nnz]] as [number, number][] },
    ];
    // the values last: the worker that faulted their array in builds them (copyOutSync's last chunk),
    // waited for if late (taking its share here would fault a fresh array in again, on this thread);
    // the columns into this thread's array, faulted in during the numeric pass
    const [rowPtr, colIdx, values] = backend.copyOut(specs, true, [undefined, columns], true);
    return new CSRMatrix(m, n, dtype, rowPtr as Int32Array, colIdx as Int32Array, values as Float32Array | Float64Array);
  } finally {
    free(R);
  }
}

/**
 * The numeric pass, in one pool job where it can: the worker that builds the values in the copy-out
 * allocates their array (`kind`, `length`) and faults it in, while the calling thread does so for the
 * columns' array (where it builds the columns in the copy-out: on two threads); then every thread
 * computes blocks of rows of equal multiply-adds, claimed one at a time, until none is left. A second
 * job splits whatever rows the first left (all of them where the pool refused it) over every thread.
 * Returns the columns' array, if made.
 */
function numericWhileFaulting(backend: CpuBackend, pass: NumericPass, m: number, kind: number, length: number): Int32Array | undefined {
  const pool = backend.workerPool!;
  const chunks = pool.chunks;
  // the blocks' words (a counter, the blocks to claim, their bounds) first: views made after the last allocation
  const shared = backend.heap.alloc(4 * (BLOCKS + 3));
  const before = pass.before.view('f64', m + 1);
  const prefix = (i: number) => before[i] + i;
  const kernel = backend.kernel(pass.kernel);
  let columns: Int32Array | undefined;
  let from = 0;
  try {
    const words = shared.view('i32', BLOCKS + 3);
    const blocks = words.subarray(2);
    blocks.set(balancedBounds(m, BLOCKS, prefix, 1));
    words[0] = 0;
    words[1] = testHooks.firstJobBlocks >= 0 ? Math.min(BLOCKS, testHooks.firstJobBlocks) : BLOCKS;
    // the copy-out's split (of three arrays): the chunk that builds the values, and whether this thread builds the columns
    const copy = copyOutBounds(chunks, 3);
    const owner = copy.findIndex((b, c) => b <= 2 && copy[c + 1] > 2);
    const meanwhile = (): void => {
      // the columns' pages faulted here rather than in the copy-out, where only this thread works
      if (copy[1] > 1) columns = touched(new Int32Array(pass.nnz));
      // this thread's workspace is chunk 0's: pass.args as they are
      for (let b; (b = Atomics.add(words, 0, 1)) < words[1]; ) kernel(...pass.args, blocks[b], blocks[b + 1]);
    };
    // a chunk a late worker left the calling thread: nothing to run (it has claimed every block by then;
    // the copy-out's worker builds a fresh array)
    const bounds = Int32Array.from({ length: chunks + 1 }, (_, c) => c);
    const args = [kind, length, owner, shared.ptr, backend.kernelIndexOf(pass.kernel), ...pass.args];
    pool.runSync({ kernel: C.FRESH, args, bounds, outArg: 6 + pass.chunkArg }, (_job, start) => {
      if (start === 0) meanwhile();
    });
    from = blocks[Math.min(Atomics.load(words, 0), words[1])];
  } finally {
    shared.dispose();
  }
  if (from < m) {
    const rest = balancedBounds(m - from, chunks, (i) => prefix(from + i) - prefix(from), 1).map((b) => b + from);
    backend.runChunksSync(pass.kernel, pass.args, rest, pass.chunkArg);
  }
  return columns;
}

/** WorkerPool.copyOutSync's split of `count` arrays over `chunks`: chunk c builds arrays [bounds[c], bounds[c + 1]), each worker one of the last. */
export function copyOutBounds(chunks: number, count: number): Int32Array {
  return Int32Array.from({ length: chunks + 1 }, (_, c) => (c === 0 ? 0 : Math.min(count, Math.max(c, count - chunks + c))));
}

/**
 * WorkerPool.copyOutSync's work (here, off a page's first file: only a pool runs it), `receive(w)`
 * the next message worker w posted on its copy-out port.
 */
export function copyOutOnPool(pool: WorkerPool, receive: (w: number) => unknown, desc: number, count: number, into?: (OutArray | undefined)[], own = false): OutArray[] | null {
  const chunks = pool.chunks;
  const bounds = copyOutBounds(chunks, count);
  if (into?.some((a, k) => a && k >= bounds[1])) return null;
  const out: (OutArray | undefined)[] = new Array(count);
  const inline = (_job: PoolJob, start: number, end: number): void => {
    for (let k = start; k < end; k++) out[k] = buildArray(pool.memory.buffer, desc, k, into?.[k]);
  };
  // what a copy-out that threw on this thread left behind (a worker posts before the job is done, so
  // every earlier job's arrays are in the ports by now)
  for (let w = 0; w + 1 < chunks; w++) while (receive(w) !== undefined);
  if (!pool.runSync({ kernel: C.COPY_OUT, args: [desc], bounds, own }, inline)) return null;
  for (let c = 1; c < chunks; c++) {
    if (bounds[c + 1] === bounds[c] || out[bounds[c]]) continue;
    const built = receive(c - 1) as OutArray[] | undefined;
    if (built?.length !== bounds[c + 1] - bounds[c]) throw new Error(`internal: worker ${c - 1} handed over no arrays of its copy-out`);
    built.forEach((a, k) => (out[bounds[c] + k] = a));
  }
  return out as OutArray[];
}
