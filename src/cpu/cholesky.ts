import { largestFront, supernodalSchedule, type OrderedMatrix, type SupernodalFactor, type SupernodalNumeric, type SupernodalSchedule, type SupernodalSymbolic } from '../solvers/direct/supernodal.js';
import { throwIfAborted } from '../next-task.js';
import type { CpuBackend } from './backend.js';
import { Layout, type Region } from './memory.js';
import { DisposedError } from '../errors.js';
import { balancedBounds } from './partition.js';

/** Raised inside the operation when the pool changed size after the schedule was made: made again. */
class StaleSchedule extends Error {}

/** A factor nobody disposed gives its memory back when it is collected. */
const unreleased = new FinalizationRegistry<Region>((region) => region.dispose());

/**
 * The supernodal Cholesky's numeric phase on the CPU path (assembly/cholesky.ts): the symbolic
 * structure, A, L and one workspace per thread's run go into the runtime's memory; the subtrees of the
 * schedule run on the pool's threads at once, then the top of the tree on the calling thread. L and
 * the structure the solve reads stay there, in a region the factor holds until it is disposed (or
 * collected); the rest is freed.
 */
export function cpuSupernodalNumeric(B: CpuBackend): SupernodalNumeric {
  return async (sym, A, signal) => {
    for (;;) {
      const threads = B.workerPool?.chunks ?? 1;
      try {
        return await run(B, sym, supernodalSchedule(sym, threads), threads, A, signal);
      } catch (e) {
        if (!(e instanceof StaleSchedule)) throw e;
      }
    }
  };
}

const DESC_WORDS = 17;
const TABLE_WORDS = 6;
/** A front above the subtrees whose Schur complement takes this many flops has it split over the pool. */
const SPLIT_SCHUR_FLOPS = 1e6;

/** One kernel call of the factorization: its arguments before the range, and the range (or pool bounds). */
interface Step {
  kernel: string;
  args: number[];
  range: Int32Array;
  /** the workspace key whose status word it may set */
  key: number;
}

/**
 * The calls that run the schedule: the subtrees on the pool, then the top in runs of supernodes, each
 * large front in three calls (open, Schur complement over the pool, close).
 */
function steps(sym: SupernodalSymbolic, plan: SupernodalSchedule, threads: number): Step[] {
  const { super: sup, rowPtr } = sym;
  const ns = sup.length - 1;
  const out: Step[] = [];
  if (threads > 1 && plan.top > 0) out.push({ kernel: 'chol_supernodes', args: [], range: plan.ranges[0], key: -1 });
  let run = plan.top;
  for (let p = plan.top; p < ns; p++) {
    const s = plan.order[p];
    const k = sup[s + 1] - sup[s];
    const m = rowPtr[s + 1] - rowPtr[s];
    if (threads < 2 || (m - k) ** 2 * k < SPLIT_SCHUR_FLOPS) continue;
    if (p > run) out.push({ kernel: 'chol_supernodes', args: [], range: Int32Array.of(run, p), key: run });
    // column blocks J0.. of the complement, block J costing as many blocks as lie below it
    const panels = (m + 3) >> 2;
    const J0 = k >> 2;
    const blocks = panels - J0;
    const bounds = balancedBounds(blocks, threads, (i) => i * blocks - (i * (i - 1)) / 2, 1).map((v) => v + J0);
    out.push({ kernel: 'chol_front_open', args: [p], range: Int32Array.of(s, s + 1), key: p });
    out.push({ kernel: 'chol_front_schur', args: [p, s], range: bounds, key: p });
    out.push({ kernel: 'chol_front_close', args: [p], range: Int32Array.of(s, s + 1), key: p });
    run = p + 1;
  }
  if (ns > run) out.push({ kernel: 'chol_supernodes', args: [], range: Int32Array.of(run, ns), key: run });
  return out;
}

async function run(B: CpuBackend, sym: SupernodalSymbolic, plan: SupernodalSchedule, threads: number, A: OrderedMatrix, signal?: AbortSignal): Promise<SupernodalFactor | number> {
  const { n, super: sup, rowPtr, rows, valPtr } = sym;
  const ns = sup.length - 1;
  const lxLength = valPtr[ns];
  // kept: what the solve reads; work: the rest
  const kept = new Layout();
  const desc = kept.place(4 * DESC_WORDS);
  const keptInts: [number, ArrayLike<number>][] = [sup, rowPtr, rows, valPtr].map((a) => [kept.place(4 * a.length), a]);
  const lx = kept.place(8 * lxLength);
  const calls = steps(sym, plan, threads);
  // the workspace table: the threads' runs by their start, every call of the top by its key (all on
  // the top's workspace)
  const topGroup = plan.top < ns ? plan.groups.length - 1 : -1;
  const keys: [number, number][] = plan.groups.map((g, q) => [g.start, q] as [number, number]).filter(([, q]) => q !== topGroup);
  for (const c of calls) if (c.key >= 0 && !keys.some(([key]) => key === c.key)) keys.push([c.key, topGroup]);
  const work = new Layout();
  const table = work.place(4 * TABLE_WORDS * keys.length);
  const workInts: [number, ArrayLike<number>][] = [plan.order, plan.childPtr, plan.children, A.colPtr, A.rowIdx, A.perm, A.pinv].map((a) => [work.place(4 * a.length), a]);
  const updAddr = work.place(4 * ns);
  const ax = work.place(8 * A.colPtr[n]);
  const ws = plan.groups.map((g) => ({
    front: work.place(8 * g.front * g.front),
    panels: work.place(8 * 4 * ((g.front + 3) >> 2) * g.width),
    rel: work.place(4 * n),
    relc: work.place(4 * g.front),
    stack: work.place(8 * g.stack),
  }));
  const K = B.heap.alloc(kept.bytes);
  let W: Region | null = null;
  try {
    W = B.heap.alloc(work.bytes);
    const k0 = K.ptr;
    const w0 = W.ptr;
    const buffer = B.heap.memory.buffer;
    for (const [at, a] of keptInts) new Int32Array(buffer, k0 + at, a.length).set(a);
    for (const [at, a] of workInts) new Int32Array(buffer, w0 + at, a.length).set(a);
    const upd = new Uint32Array(buffer, w0 + updAddr, ns);
    for (let s = 0; s < ns; s++) upd[s] = plan.updOffset[s] < 0 ? 0 : w0 + ws[plan.groupOf[s]].stack + 8 * plan.updOffset[s];
    new Float64Array(buffer, w0 + ax, A.colPtr[n]).set(A.values.subarray(0, A.colPtr[n]));
    const [order, childPtr, children, colPtr, rowIdx, perm, pinv] = workInts.map(([at]) => w0 + at);
    const [supP, rowPtrP, rowsP, valPtrP] = keptInts.map(([at]) => k0 + at);
    new Uint32Array(buffer, k0 + desc, DESC_WORDS).set([order, supP, rowPtrP, rowsP, valPtrP, childPtr, children, colPtr, rowIdx, perm, pinv, w0 + updAddr, w0 + ax, k0 + lx, keys.length, w0 + table, ns]);
    const t = new Uint32Array(buffer, w0 + table, TABLE_WORDS * keys.length);
    keys.forEach(([key, q], e) => t.set([key, w0 + ws[q].front, w0 + ws[q].panels, w0 + ws[q].rel, w0 + ws[q].relc, 0xffffffff], TABLE_WORDS * e));
    // the first failed pivot: the subtrees are independent, and the top runs after them all (and
    // stops at its first failure)
    const firstBad = (): number => {
      const status = new Int32Array(B.heap.memory.buffer, w0 + table, TABLE_WORDS * keys.length);
      let bad = -1;
      for (let e = 0; e < keys.length; e++) {
        const c = status[TABLE_WORDS * e + 5];
        if (c >= 0 && (bad < 0 || c < bad)) bad = c;
      }
      return bad;
    };
    for (const c of calls) {
      // an abort between the steps (the pool's calls yield to the event loop): K and W freed below
      throwIfAborted(signal);
      await B.runRanges(c.kernel, () => {
        if ((B.workerPool?.chunks ?? 1) !== threads) throw new StaleSchedule();
        return [k0 + desc, ...c.args];
      }, [c.range]);
      if (firstBad() >= 0) break;
    }
    const bad = firstBad();
    if (bad >= 0) {
      K.dispose();
      return bad;
    }
  } catch (e) {
    K.dispose();
    throw e;
  } finally {
    W?.dispose();
  }
  return heldFactor(B, sym, K, K.ptr + desc);
}

/**
 * The factor in region K (its descriptor at `desc`): solves through chol_solve. Disposed while a solve
 * runs, it frees K when the solve ends.
 */
function heldFactor(B: CpuBackend, sym: SupernodalSymbolic, K: Region, desc: number): SupernodalFactor {
  const n = sym.n;
  const scratch = 8 * (n + largestFront(sym));
  let running = 0;
  let disposed = false;
  const factor: SupernodalFactor = {
    sym,
    bytes: K.bytes,
    solve: async (y) => {
      if (disposed) throw new DisposedError('supernodal factor');
      running++;
      const R = B.heap.alloc(scratch);
      try {
        await B.runRanges('chol_solve', () => {
          new Float64Array(B.heap.memory.buffer, R.ptr, n).set(y);
          return [desc, R.ptr, R.ptr + 8 * n];
        }, [Int32Array.of(0, 1)]);
        y.set(new Float64Array(B.heap.memory.buffer, R.ptr, n));
      } finally {
        R.dispose();
        if (--running === 0 && disposed) K.dispose();
      }
    },
    dispose: () => {
      disposed = true;
      unreleased.unregister(factor);
      if (running === 0) K.dispose();
    },
  };
  unreleased.register(factor, K, factor);
  return factor;
}
