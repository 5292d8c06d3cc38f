import { largestFront, supernodalSchedule, type OrderedMatrix, type SupernodalFactor, type SupernodalNumeric, type SupernodalSchedule, type SupernodalSymbolic } from '../solvers/direct/supernodal.js';
import type { CpuBackend } from './backend.js';
import type { Region } from './memory.js';
import { DisposedError } from '../errors.js';

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
  return async (sym, A) => {
    for (;;) {
      const threads = B.workerPool?.chunks ?? 1;
      try {
        return await run(B, sym, supernodalSchedule(sym, threads), threads, A);
      } catch (e) {
        if (!(e instanceof StaleSchedule)) throw e;
      }
    }
  };
}

/** 16-byte aligned pieces of a region being laid out. */
class Layout {
  bytes = 0;
  place(b: number): number {
    const at = this.bytes;
    this.bytes += Math.ceil(b / 16) * 16;
    return at;
  }
}

const DESC_WORDS = 17;
const TABLE_WORDS = 6;

async function run(B: CpuBackend, sym: SupernodalSymbolic, plan: SupernodalSchedule, threads: number, A: OrderedMatrix): Promise<SupernodalFactor | number> {
  const { n, super: sup, rowPtr, rows, valPtr } = sym;
  const ns = sup.length - 1;
  const lxLength = valPtr[ns];
  // kept: what the solve reads; work: the rest
  const kept = new Layout();
  const desc = kept.place(4 * DESC_WORDS);
  const keptInts: [number, ArrayLike<number>][] = [sup, rowPtr, rows, valPtr].map((a) => [kept.place(4 * a.length), a]);
  const lx = kept.place(8 * lxLength);
  const work = new Layout();
  const table = work.place(4 * TABLE_WORDS * plan.groups.length);
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
    new Uint32Array(buffer, k0 + desc, DESC_WORDS).set([order, supP, rowPtrP, rowsP, valPtrP, childPtr, children, colPtr, rowIdx, perm, pinv, w0 + updAddr, w0 + ax, k0 + lx, plan.groups.length, w0 + table, ns]);
    const t = new Uint32Array(buffer, w0 + table, TABLE_WORDS * plan.groups.length);
    plan.groups.forEach((g, q) => t.set([g.start, w0 + ws[q].front, w0 + ws[q].panels, w0 + ws[q].rel, w0 + ws[q].relc, 0xffffffff], TABLE_WORDS * q));
    await B.runRanges('chol_supernodes', () => {
      if ((B.workerPool?.chunks ?? 1) !== threads) throw new StaleSchedule();
      return [k0 + desc];
    }, plan.ranges);
    // the first failed pivot: the subtrees are independent, and the top runs after them all
    const status = new Int32Array(B.heap.memory.buffer, w0 + table, TABLE_WORDS * plan.groups.length);
    let bad = -1;
    for (let q = 0; q < plan.groups.length; q++) {
      const c = status[TABLE_WORDS * q + 5];
      if (c >= 0 && (bad < 0 || c < bad)) bad = c;
    }
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
