/**
 * The kernels a pool worker tiers up while it is idle at start-up. V8 runs a WebAssembly function's
 * first calls in its baseline code (Liftoff) and compiles the optimized one (TurboFan) in the
 * background only once the function has used up a budget of executed code; a call in flight never
 * switches (wasm has no on-stack replacement). So a solve's first SpMV or fused CG step over a large
 * matrix ran wholly in baseline code: poisson3D(64)'s first DIA product and first CG direction step
 * 4–7× their later time, and the pool's first trials of each kernel (src/cpu/dispatch.ts) measured
 * the worker's baseline code. The optimized code belongs to the module, shared by every thread's
 * instance, so worker 0 calls these kernels on a tiny problem until V8 tiers them up (before its first
 * job with rows for it: then it stops), and the caller's first large calls find them optimized.
 *
 * The set: the kernels of CG on a stencil's compact DIA copy (rt.solve's default for one, Jacobi, in
 * f64 and in f32 refined in f64; rt.cg's, without a preconditioner) and the f64 vector operations
 * every Krylov method calls, the structure check's pass over a CSR (runtime.structurePass), and the AMG
 * setup's simple loops, called once a level (a small setup that warms the others, hierarchy.ts
 * warmKernels, leaves them in baseline code: each thread's share of its rows is under the budget) — a
 * few ms of an idle worker and V8's background compilation. Others tier up on first use, as before.
 */
import type { WasmHeap } from './memory.js';
import type { CpuBackend } from './backend.js';
import type { CpuSparseSession } from './spgemm.js';
import { isPrivateCanonical, type CSRMatrix } from '../formats/csr.js';
import type { SolveStructure } from '../solvers/structure.js';
import { uniformDiaStructure } from '../solvers/uniform-structure.js';
import { uniformGroupsOf } from './uniform-f32.js';
import type { DIAMatrix } from '../formats/dia.js';
import { CpuMatrix } from './resident.js';
import { DIA_MAX_DIAGONALS, finishScan, knownScan } from '../formats/diagonal-scan.js';
import { MemoryLimitError } from '../errors.js';
import { balancedBounds } from './partition.js';

/** rows of the tiny problem (a multiple of 4: the DIA kernels' row blocks) */
const N = 256;
/** its diagonals: a 3-D 7-point stencil's offsets, sorted as the DIA kernels want them */
const OFFSETS = [-64, -8, -1, 0, 1, 8, 64];
/** calls of each kernel: past V8's tiering budget (≈ 1.8 MB of executed code) for each on N rows */
export const TIER_UP_REPS = 400;
const VECTORS = 6;
/** bytes of the same stencil as a CSR (row pointers, columns, values) and structure_real's slot, record and marks */
const CSR_BYTES = 4 * (N + 16) + OFFSETS.length * N * 12 + 16 + 32 + 2 * N;

/**
 * The AMG setup's per-level loops over the same stencil from `at` (8-byte aligned): a transpose's
 * counts, a tentative prolongator of aggregates of four rows, its smoothed product's count, the
 * aggregates' renumbering, a product's flop prefix, the Lanczos start, the pool's scans (assembly/scan.ts). Every index a kernel reads from
 * memory (the aggregates, T's columns) is written here and never by a call, so repeated calls stay inside.
 */
function amgLayout(at: number) {
  const take = (bytes: number) => {
    const p = at;
    at += (bytes + 7) & ~7;
    return p;
  };
  const [slot, counts, tp, agg, renumbered, bounds, offset, base] = [16, 4 * N, 4 * (N + 1), 4 * N, 4 * N, 8, 4, 4].map(take);
  const [norm, b, scale, Tp, Ti, Tv, markSlot, marks, cp, flops] = [2 * N, 8 * N, 8 * N, 4 * (N + 1), 4 * N, 8 * N, 16, N, 4 * (N + 1), 8 * (N + 1)].map(take);
  // tally: the scans' chunk totals; zero: their bases (never written)
  const [x, s, y, u, out, tally, zero] = [8 * N, 8 * N, 8 * N, 8 * N, 16, 16, 16].map(take);
  return { slot, counts, tp, agg, renumbered, bounds, offset, base, norm, b, scale, Tp, Ti, Tv, markSlot, marks, cp, flops, x, s, y, u, out, tally, zero, end: at };
}

/** bytes of the region the tiny problem lives in */
export const TIER_UP_BYTES = 64 + OFFSETS.length * N * 8 + N / 4 + 64 + VECTORS * N * 8 + 64 + CSR_BYTES + amgLayout(0).end;

/**
 * Writes the tiny problem into the region at `ptr` (TIER_UP_BYTES, from `heap`) and returns the
 * calls: [kernel, arguments with the row range last]. Every pointer is inside the region.
 */
export function tierUpCalls(heap: WasmHeap, ptr: number): [string, number[]][] {
  const nd = OFFSETS.length;
  const offsets = ptr;
  const data = offsets + 64;
  const uni = data + nd * N * 8;
  const consts = uni + N / 4;
  const v = (i: number) => consts + 64 + i * N * 8;
  const out = v(VECTORS);
  const mem = heap.memory.buffer;
  new Uint8Array(mem, ptr, TIER_UP_BYTES).fill(0);
  new Int32Array(mem, offsets, nd).set(OFFSETS);
  new Float64Array(mem, consts, nd).fill(1);
  // half the row groups uniform, so both of the uniform kernels' branches run
  new Uint8Array(mem, uni, N / 4).fill(1, 0, N / 8);
  new Float64Array(mem, v(0), N).fill(1);
  const dia = [offsets, nd, data, N, N];
  // the stencil as a CSR for the structure check's pass (rt.amg's and a large solve's first step:
  // 436–477 ms of poisson3D(128)'s first pass on the H100 host's 17 threads in baseline code, 19–35
  // optimized; bench/device/results-2026-11-27-eighth/amggpu/call4)
  const ap = out + 64;
  const ai = ap + 4 * (N + 16);
  const av = ai + nd * N * 4;
  const slot = av + nd * N * 8;
  const record = slot + 16;
  const marks = record + 32;
  const rowPtr = new Int32Array(mem, ap, N + 1);
  const colIdx = new Int32Array(mem, ai, nd * N);
  const values = new Float64Array(mem, av, nd * N);
  for (let i = 0, k = 0; i < N; i++) {
    for (const o of OFFSETS) {
      if (i + o < 0 || i + o >= N) continue;
      colIdx[k] = i + o;
      values[k++] = o === 0 ? 6 : -1;
    }
    rowPtr[i + 1] = k;
  }
  new Int32Array(mem, slot, 1)[0] = record;
  // the AMG setup's loops: their first calls over poisson3D(128)'s 2 M rows ran in baseline code, 180 ms
  // of the first setup on the H100 host's 17 threads (transpose counts 59 ms against 2 once optimized,
  // the tentative prolongator's rows 35 against 2; bench/device/results-2026-11-27-ninth/amggpu/call1)
  const g = amgLayout(marks + 2 * N);
  const i32 = (p: number, n: number) => new Int32Array(mem, p, n);
  i32(g.slot, 1)[0] = g.counts;
  i32(g.markSlot, 1)[0] = g.marks;
  const nc = N / 4;
  for (const p of [g.agg, g.Ti, g.renumbered]) i32(p, N).set(Int32Array.from({ length: N }, (_, i) => i >> 2));
  i32(g.bounds, 2)[1] = N;
  i32(g.offset, 1)[0] = 1;
  new Float64Array(mem, g.b, N).fill(1);
  return [
    ['dia_f64f32', [...dia, v(0), v(1), 1, 0, 0, N]],
    ['cg_dia_direction_scaled_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, 0.5, 1, out, 0, N]],
    ['cg_dia_direction_x_scaled_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, v(3), 0.5, 0.5, 1, out, 0, N]],
    ['cg_dia_direction_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, 0.5, out, 0, N]],
    ['cg_dia_direction_x_f64f32u', [...dia, v(0), v(1), v(2), uni, consts, v(3), 0.5, 0.5, out, 0, N]],
    ['cg_update_f64', [v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['cg_residual_jacobi_scalar_f64', [v(0), v(1), 1, 0.5, out, 0, N]],
    ['dot_f64', [v(0), v(1), out, 0, N]],
    ['nrm2_f64', [v(0), out, 0, N]],
    ['axpy_f64', [v(0), v(1), 0.5, 0, N]],
    ['xmy_f64', [v(0), v(1), v(2), 0, N]],
    ['copy_f64', [v(0), v(1), 0, N]],
    ['cg_dia_f32', [...dia, v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['cg_dia_f32u', [...dia, v(0), v(1), v(2), v(3), uni, consts, 0.5, out, 0, N]],
    ['cg_update_f32', [v(0), v(1), v(2), v(3), 0.5, out, 0, N]],
    ['nrm2_f32', [v(0), out, 0, N]],
    ['refine_residual_dia_f32', [...dia, v(0), v(1), v(2), out, 0, N]],
    ['refine_add_f32', [v(0), v(1), v(2), out, 0, N]],
    ['structure_real', [ap, ai, av, N, 1, marks, slot, 0, N]],
    ['spgemm_transpose_count', [ap, ai, N, g.slot, 0, N]],
    ['spgemm_transpose_offsets', [g.slot, 1, N, g.tp]],
    ['amg_tentative_norms', [g.agg, g.b, g.norm, N, nc]],
    ['amg_tentative_fill', [g.agg, g.b, g.norm, ap, 0.5, g.scale, g.Tp, g.Ti, g.Tv, g.out, 0, N]],
    ['prolong_count', [ap, ai, g.Ti, nc, g.markSlot, g.cp, 0, N]],
    ['amg_aggregate_offset', [g.renumbered, g.bounds, g.offset, 0, 1]],
    ['amg_aggregate_final', [g.renumbered, g.bounds, g.base, 0, 1]],
    ['spgemm_flops_before', [g.flops, N]],
    ['lanczos_start', [g.x, N]],
    ['rows_longest', [ap, g.tally, 0, N]],
    ['product_totals', [g.cp, g.flops, g.tally, 0, N]],
    ['product_offsets', [g.cp, g.flops, g.zero, 0, N]],
    ['transpose_totals', [g.slot, 1, g.tally, 0, N]],
    ['transpose_starts', [g.slot, 1, g.tp, g.zero, 0, N]],
    ['lanczos_scale', [g.s, g.x, g.u, g.y, 0, N]],
  ];
}

/** Entries from which poolStructure runs (smaller: the JavaScript pass costs less than A's copy). */
const STRUCTURE_POOL_MIN = 1 << 16;

/**
 * solveStructure's pass over a real canonical CSR A on the pool (assembly/structure.ts: realStructure's
 * results, and for a runtime-private A without one the format choice's scan, kept as realStructure
 * keeps it), A copied to the pool for it (and freed) — or into `open`, a session about to hold A (an
 * AMG setup's, which then reads that copy: its owner disposes it); undefined for a small A (the
 * JavaScript pass costs less than the copy) and where the copy would pass the memory budget. In this
 * chunk, loaded as a pool of several threads starts, rather than with the runtime: a page's first
 * bundle stays within webpack's size hint, and the pass needs a pool to pay.
 * Where the CPU copy of A's handle `h` flagged uniform 4-row groups, that copy's pass instead
 * (src/solvers/uniform-structure.ts), on this thread.
 */
export function poolStructure(B: CpuBackend, A: CSRMatrix, session: CpuSparseSession | (() => CpuSparseSession), h?: { copies: Map<string, unknown> }): SolveStructure | undefined {
  // `session`: one about to hold A, or the maker of one for this pass alone (the set-up chunk's class,
  // not imported here: a page's split bundle would put spgemm.ts in a chunk the set-up waits for)
  const open = typeof session === 'function' ? undefined : session;
  const copy = h?.copies.get('cpu:dia');
  // the handle's CPU copy where its upload flagged uniform 4-row groups (a stencil's DIA: a compact f64
  // copy's, compactUniform, or an f32 one's, uniform-f32.ts): read from their constants, without A's copy
  // to the heap and the wait for the worker (poisson3D(64), warm, load 3.8–5.0: 5–9 ms against 9–38) —
  // not for a session about to hold A (an AMG setup reads the pass's copy of A)
  const M = copy instanceof CpuMatrix && !copy.disposed && copy.rows === A.rows && copy.cols === A.cols && !open ? copy : null;
  const u = M ? uniformGroupsOf(M) : null;
  if (M && u) return uniformDiaStructure(M.host as DIAMatrix, A.nnz, u);
  if (A.nnz < STRUCTURE_POOL_MIN) return undefined;
  const S = open ?? (session as () => CpuSparseSession)();
  try {
    return pass(B, A, S, S.resident(A));
  } catch (e) {
    if (e instanceof MemoryLimitError) return undefined;
    throw e;
  } finally {
    if (!open) S.dispose();
  }
}

function pass(B: CpuBackend, A: CSRMatrix, S: CpuSparseSession, at: number[]): SolveStructure {
  const n = A.rows;
  const ap = A.rowPtr;
  const chunks = S.chunksFor(A.nnz);
  const bounds = chunks === 1 ? Int32Array.of(0, n) : balancedBounds(n, chunks, (i) => ap[i] + i);
  const scan = isPrivateCanonical(A) && !knownScan(A);
  const marks = scan ? Math.max(0, A.rows + A.cols - 1) : 0;
  const regions = [16 * chunks, 24 * chunks, marks || 8, 4 * DIA_MAX_DIAGONALS].map((bytes) => B.heap.alloc(bytes));
  const [slots, records, seen, found] = regions;
  try {
    const slotView = slots.view('i32', 4 * chunks);
    for (let c = 0; c < chunks; c++) slotView[4 * c] = records.ptr + 24 * c;
    // an empty chunk's record is not written
    records.view('u8').fill(0);
    if (scan) seen.view('u8', marks).fill(0);
    B.runChunksSync('structure_real', [...at, n, A.rows === A.cols ? 1 : 0, scan ? seen.ptr : 0, slots.ptr], bounds, 6);
    const ints = records.view('i32', 6 * chunks);
    const sums = records.view('f64', 3 * chunks);
    let [flags, zeroDiagonals, maxRow, unmatched, sumSq] = [0, 0, 0, 0, 0];
    for (let c = 0; c < chunks; c++) {
      flags |= ints[6 * c];
      zeroDiagonals += ints[6 * c + 1];
      maxRow = Math.max(maxRow, ints[6 * c + 2]);
      unmatched += ints[6 * c + 3];
      sumSq += sums[3 * c + 2];
    }
    if (scan) {
      const diagonals = B.kernel('structure_marks')(seen.ptr, marks, found.ptr, DIA_MAX_DIAGONALS);
      finishScan(A, 0, Array.from(found.view('i32', Math.min(diagonals, DIA_MAX_DIAGONALS))), { diagonals, maxRow, sumSq }, true);
    }
    return {
      n,
      nnz: A.nnz,
      hermitian: A.rows === A.cols && (flags & 1) === 0 && unmatched === 0,
      positiveDiagonal: (flags & 16) === 0,
      zeroDiagonals,
      finite: (flags & 2) === 0,
      laplacianLike: (flags & 4) === 0,
      diagonallyDominant: (flags & 8) === 0,
    };
  } finally {
    for (const r of regions) r.dispose();
  }
}
