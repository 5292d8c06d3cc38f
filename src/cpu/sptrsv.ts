import { components } from '../dtype.js';
import type { CSRMatrix } from '../formats/csr.js';
import { groupedByLevel, strictRowPointers, triangularInverseDiagonal } from '../solvers/precond/levels.js';
import type { TriangularOptions, TriangularSolver } from '../solvers/ops.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { balancedBounds } from './partition.js';
import type { CpuVector } from './resident.js';

/** Least work (rows + entries) of a claimed block: below it the spin between levels costs more than a second thread saves. */
const GRAIN = 512;
/**
 * What a wait for the level group before costs on up to 4 threads, in the same units; more threads wait
 * longer, in proportion (measured: ≈ 0.6 µs against ≈ 1.2 ns a unit on the 2-core VM, ≈ 2 µs with 16
 * threads on the device's host, where 2-D stencils of 262 144 rows ran slower split than in one pass).
 */
const LEVEL_WAIT = 512;
/** Least sizes of the units tried, in rows (see unitLevels). */
const UNIT_ROWS = [512, 256, 128, 64, 32, 16, 8, 4];

/** What a plan's blocks are made of: units of consecutive rows, each unit's level, and their work (rows + entries). */
interface UnitLevels {
  /** rows [start[u], start[u + 1]) are unit u; the least size it was cut for */
  start: Int32Array;
  size: number;
  /** per unit, its level; per level, its work, its units and its largest unit's work */
  level: Int32Array;
  unitWork: Float64Array;
  work: Float64Array;
  count: Int32Array;
  widest: Float64Array;
  depth: number;
}

/** Stored rows in solve order, claimed blocks of them ([start, end, group] each) and each group's number of blocks (assembly/sptrsv.ts). */
interface BlockPlan {
  order: Int32Array;
  blocks: number[];
  groupSizes: number[];
  /** levels split over threads, of `levels` */
  split: number;
  levels: number;
  unitRows: number;
}

/**
 * Where the chain of consecutive rows breaks: cut[i] = 1 when the row solved second of i − 1 and i does
 * not read the other (a stencil's grid line starts), so a unit may begin there without waiting for the
 * unit before it.
 */
function chainBreaks(T: CSRMatrix, lower: boolean): Uint8Array {
  const n = T.rows;
  const cut = new Uint8Array(n + 1).fill(1);
  const { rowPtr, colIdx } = T;
  for (let i = 1; i < n; i++) {
    const r = lower ? i : i - 1;
    const j = lower ? i - 1 : i;
    for (let k = rowPtr[r], e = rowPtr[r + 1]; k < e; k++) if (colIdx[k] === j) cut[i] = 0;
  }
  return cut;
}

/** The first rows of units of at least `size` consecutive rows cut only where `cut` allows, and n. */
function unitStarts(cut: Uint8Array, size: number): Int32Array {
  const n = cut.length - 1;
  const bounds = [0];
  for (let i = 1; i < n; i++) if (cut[i] && i - bounds[bounds.length - 1] >= size) bounds.push(i);
  bounds.push(n);
  return Int32Array.from(bounds);
}

/**
 * Units (their first rows `start`), cut where the chain of rows breaks (a unit then spans
 * whole grid lines of a stencil: units of a fixed size that cut lines would each wait for the one
 * before, on a grid whose lines are not a power of two long). A unit depends on the units its rows
 * reach (other than itself), and its level is one more than theirs. The rows of a unit are solved in
 * natural order — reading the factor, b and x in order, as one thread alone would — while the units of
 * a level can run on different threads.
 */
function unitLevels(T: CSRMatrix, ptr: Int32Array, lower: boolean, size: number, start: Int32Array): UnitLevels {
  const n = T.rows;
  const { rowPtr, colIdx } = T;
  const units = start.length - 1;
  const unitOf = new Int32Array(n);
  for (let u = 0; u < units; u++) unitOf.fill(u, start[u], start[u + 1]);
  const level = new Int32Array(units);
  const unitWork = new Float64Array(units);
  const work = new Float64Array(units);
  const count = new Int32Array(units);
  const widest = new Float64Array(units);
  let depth = 0;
  for (let s = 0; s < units; s++) {
    const u = lower ? s : units - 1 - s;
    const first = start[u];
    const last = start[u + 1];
    let l = 0;
    // the entries of the unit's rows, which lie in one range of T's arrays
    for (let k = rowPtr[first], e = rowPtr[last]; k < e; k++) {
      const j = colIdx[k];
      if (lower ? j >= first : j < last) continue;
      const v = level[unitOf[j]];
      if (v >= l) l = v + 1;
    }
    const w = last - first + ptr[last] - ptr[first];
    level[u] = l;
    unitWork[u] = w;
    work[l] += w;
    count[l]++;
    if (w > widest[l]) widest[l] = w;
    if (l >= depth) depth = l + 1;
  }
  return { start, size, level, unitWork, work, count, widest, depth };
}

/** How many blocks level l is split into (1: it joins a run of levels that one thread solves in order). */
function partsOf(U: UnitLevels, l: number, chunks: number, grain: number): number {
  return Math.max(1, Math.min(2 * chunks, U.count[l], Math.floor(U.work[l] / grain)));
}

/** The estimated time of a solve by these units on `chunks` threads, in work units. */
function estimate(U: UnitLevels, chunks: number, grain: number, wait: number): number {
  let t = 0;
  for (let l = 0; l < U.depth; l++) t += partsOf(U, l, chunks, grain) < 2 ? U.work[l] : Math.max(U.work[l] / chunks, U.widest[l]) + wait;
  return t;
}

/**
 * The blocks: a level split into blocks of whole units balanced by work (up to 2·chunks, so that a
 * thread that falls behind takes fewer), or runs of consecutive unsplit levels as one block each.
 */
function blockPlan(n: number, lower: boolean, U: UnitLevels, chunks: number, grain: number): BlockPlan {
  const { start, level, unitWork, depth } = U;
  const units = level.length;
  const { levelPtr, rows: byLevel } = groupedByLevel(level, depth, lower);
  // rows in solve order; the start of each unit's rows and the work before it
  const order = new Int32Array(n);
  const rowStart = new Int32Array(units + 1);
  const cost = new Float64Array(units + 1);
  for (let q = 0, k = 0; q < units; q++) {
    const u = byLevel[q];
    const first = start[u];
    const last = start[u + 1];
    for (let j = 0; j < last - first; j++) order[k++] = lower ? first + j : last - 1 - j;
    rowStart[q + 1] = k;
    cost[q + 1] = cost[q] + unitWork[u];
  }
  const blocks: number[] = [];
  const groupSizes: number[] = [];
  let split = 0;
  let run = false;
  for (let l = 0; l < depth; l++) {
    const s = levelPtr[l];
    const e = levelPtr[l + 1];
    const parts = partsOf(U, l, chunks, grain);
    if (parts < 2) {
      if (run) blocks[blocks.length - 2] = rowStart[e];
      else blocks.push(rowStart[s], rowStart[e], groupSizes.push(1) - 1);
      run = true;
      continue;
    }
    const b = balancedBounds(e - s, parts, (i) => cost[s + i] - cost[s], 1);
    const g = groupSizes.push(0) - 1;
    for (let p = 0; p < parts; p++) {
      if (b[p + 1] === b[p]) continue;
      blocks.push(rowStart[s + b[p]], rowStart[s + b[p + 1]], g);
      groupSizes[g]++;
    }
    split++;
    run = false;
  }
  return { order, blocks, groupSizes, split, levels: depth, unitRows: U.size };
}

/**
 * A triangular factor resident on the CPU path (assembly/sptrsv.ts), its strict triangle stored in the
 * order its rows are solved. With a pool, and units of rows whose levels have the work to split (see
 * unitLevels), the whole solve is one pool job: the threads claim blocks of units in level order and
 * wait only for the level before theirs (a spin on a counter, not a job per level). Otherwise — one
 * thread, a small system, or levels too narrow — one inline pass in natural row order.
 */
export function cpuTriangular(B: CpuBackend, T: CSRMatrix, o: TriangularOptions): TriangularSolver<CpuVector> {
  const n = T.rows;
  const ptr = strictRowPointers(T, o.lower);
  const invDiag = o.unitDiagonal ? null : triangularInverseDiagonal(T);
  const chunks = B.workerPool?.chunks ?? 1;
  let plan: BlockPlan | null = null;
  // one pass in natural order costs its work; the units of the best estimate are taken where it is 15 % less
  const work = ptr[n] + n;
  if (chunks > 1 && work >= B.inlineThreshold) {
    // a threshold set below them says the pool's round trips are cheaper: so are its waits
    const grain = Math.min(GRAIN, B.inlineThreshold);
    const wait = Math.min(LEVEL_WAIT * Math.max(1, chunks / 4), B.inlineThreshold);
    let best: UnitLevels | null = null;
    let bestTime = 0.85 * work;
    // units cut where the chain of rows breaks (whole grid lines), and units of a fixed size (parts of a
    // line: the lines of a 2-D stencil, one after another, have nothing else to run beside each other);
    // each from the largest units down (the fewest claims), until two sizes in a row do no better (not
    // one: units of 512 rows of poisson3D(100) straddle its planes and chain, while 128 fit them)
    const breaks = chainBreaks(T, o.lower);
    const cuts = breaks.every((c) => c === 1) ? [breaks] : [breaks, new Uint8Array(n + 1).fill(1)];
    for (const cut of cuts) {
      // fixed sizes only where whole chains leave most of a second thread's share (they did not on 3-D stencils)
      if (cut !== breaks && best && bestTime <= 0.7 * work) break;
      let worse = 0;
      let units = 0;
      for (const size of UNIT_ROWS) {
        const start = unitStarts(cut, size);
        // as many units as the last size made (no break in a chain of rows as long as a grid line): the same ones
        if (start.length === units) continue;
        units = start.length;
        const U = unitLevels(T, ptr, o.lower, size, start);
        const t = estimate(U, chunks, grain, wait);
        if (t < bestTime) [best, bestTime, worse] = [U, t, 0];
        else if (++worse === 2 && best) break;
      }
    }
    if (best) plan = blockPlan(n, o.lower, best, chunks, grain);
  }
  let order = plan?.order;
  if (!order) {
    order = new Int32Array(n);
    for (let k = 0; k < n; k++) order[k] = o.lower ? k : n - 1 - k;
  }
  const { blocks, groupSizes } = plan ?? { blocks: [0, n, 0], groupSizes: [1] };
  const nBlocks = blocks.length / 3;
  const nGroups = groupSizes.length;
  const regions: Region[] = [];
  try {
    regions.push(...storedInOrder(B, T, ptr, o.lower, order), B.heap.allocCopy(order));
    if (invDiag) regions.push(B.heap.allocCopy(invDiag));
    const words = new Int32Array(4 + 3 * nBlocks + 2 * nGroups);
    words.set([0, nBlocks, nGroups]);
    words.set(blocks, 4);
    words.set(groupSizes, 4 + 3 * nBlocks);
    regions.push(B.heap.allocCopy(words));
  } catch (e) {
    for (const r of regions) r.dispose();
    throw e;
  }
  const [rowPtr, idx, val, rowOf] = regions;
  const inv = invDiag ? regions[4] : null;
  const sched = regions[regions.length - 1];
  const kernel = `sptrsv_${T.dtype}`;
  // a slot per thread, each a range of one: the rows come from the claim counter, not from the range
  const slots = plan ? [Int32Array.from({ length: chunks + 1 }, (_, c) => c)] : [Int32Array.of(0, 1)];
  return {
    method: plan
      ? `level-scheduled (units of ≥ ${plan.unitRows} rows in ${plan.levels} levels, ${plan.split} split over ${chunks} threads, one job)`
      : `sequential (one pass in row order${chunks > 1 ? `: no units of rows with the work to split over ${chunks} threads` : ''})`,
    solve: (b, x) =>
      B.runRanges(
        kernel,
        () => {
          const words = sched.view('i32');
          words[0] = 0;
          words.fill(0, 4 + 3 * nBlocks + nGroups);
          return [rowPtr.ptr, idx.ptr, val.ptr, inv ? inv.ptr : 0, rowOf.ptr, b.ptr, x.ptr, sched.ptr];
        },
        slots,
      ),
    dispose: () => {
      for (const r of regions) r.dispose();
    },
  };
}

/**
 * T's strict triangle (row pointers `ptr`) copied into the kernels' memory with its rows in `order`: row
 * pointers, columns, values. The diagonal and any entry on the other side are left out.
 */
function storedInOrder(B: CpuBackend, T: CSRMatrix, ptr: Int32Array, lower: boolean, order: Int32Array): Region[] {
  const n = T.rows;
  const nnz = ptr[n];
  const c = components(T.dtype);
  // ILU(0)'s L in natural order: already strict, copied as it is
  if (nnz === T.nnz && order.every((i, k) => i === k)) return [B.heap.allocCopy(T.rowPtr), B.heap.allocCopy(T.colIdx), B.heap.allocCopy(T.values)];
  const out: Region[] = [];
  try {
    out.push(B.heap.alloc(4 * (n + 1)), B.heap.alloc(4 * nnz), B.heap.alloc(T.values.BYTES_PER_ELEMENT * c * nnz));
    const sp = out[0].view('i32', n + 1);
    const idx = out[1].view('i32', nnz);
    const val = out[2].view(T.values instanceof Float32Array ? 'f32' : 'f64', c * nnz);
    const { rowPtr, colIdx, values } = T;
    let p = 0;
    for (let k = 0; k < n; k++) {
      const i = order[k];
      for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) {
        const j = colIdx[q];
        if (lower ? j >= i : j <= i) continue;
        idx[p] = j;
        if (c === 1) val[p] = values[q];
        else [val[2 * p], val[2 * p + 1]] = [values[2 * q], values[2 * q + 1]];
        p++;
      }
      sp[k + 1] = p;
    }
    sp[0] = 0;
  } catch (e) {
    for (const r of out) r.dispose();
    throw e;
  }
  return out;
}
