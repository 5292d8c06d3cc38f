import { supernodalSchedule, type OrderedMatrix, type SupernodalNumeric, type SupernodalSchedule, type SupernodalSymbolic } from '../solvers/direct/supernodal.js';
import type { CpuBackend } from './backend.js';

/** Raised inside the operation when the pool changed size after the schedule was made: made again. */
class StaleSchedule extends Error {}

/**
 * The supernodal Cholesky's numeric phase on the CPU path (assembly/cholesky.ts): the symbolic
 * structure, A's permuted lower triangle, L and one workspace per thread's run go into one region of
 * the runtime's memory; the subtrees of the schedule run on the pool's threads at once, then the top
 * of the tree on the calling thread. L's blocks are copied out and the region freed.
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

async function run(B: CpuBackend, sym: SupernodalSymbolic, plan: SupernodalSchedule, threads: number, A: OrderedMatrix): Promise<Float64Array | number> {
  const { n, super: sup, rowPtr, rows, valPtr } = sym;
  const ns = sup.length - 1;
  const lxLength = valPtr[ns];
  // the layout: 16-byte aligned pieces of one region
  let bytes = 0;
  const place = (b: number): number => {
    const at = bytes;
    bytes += Math.ceil(b / 16) * 16;
    return at;
  };
  const DESC_WORDS = 16;
  const TABLE_WORDS = 6;
  const desc = place(4 * DESC_WORDS);
  const table = place(4 * TABLE_WORDS * plan.groups.length);
  const ints: [number, ArrayLike<number>][] = [plan.order, sup, rowPtr, rows, valPtr, plan.childPtr, plan.children, A.colPtr, A.rowIdx, A.perm, A.pinv].map((a) => [place(4 * a.length), a]);
  const updAddr = place(4 * ns);
  const ax = place(8 * A.colPtr[n]);
  const lx = place(8 * lxLength);
  const ws = plan.groups.map((g) => ({
    front: place(8 * g.front * g.front),
    panels: place(8 * 4 * ((g.front + 3) >> 2) * g.width),
    rel: place(4 * n),
    relc: place(4 * g.front),
    stack: place(8 * g.stack),
  }));
  const region = B.heap.alloc(bytes);
  try {
    const base = region.ptr;
    const u8 = region.view('u8');
    const i32 = (at: number, length: number) => new Int32Array(u8.buffer, u8.byteOffset + at, length);
    for (const [at, a] of ints) i32(at, a.length).set(a);
    const upd = new Uint32Array(u8.buffer, u8.byteOffset + updAddr, ns);
    for (let s = 0; s < ns; s++) upd[s] = plan.updOffset[s] < 0 ? 0 : base + ws[plan.groupOf[s]].stack + 8 * plan.updOffset[s];
    new Float64Array(u8.buffer, u8.byteOffset + ax, A.colPtr[n]).set(A.values.subarray(0, A.colPtr[n]));
    new Uint32Array(u8.buffer, u8.byteOffset + desc, DESC_WORDS).set([...ints.map(([at]) => base + at), base + updAddr, base + ax, base + lx, plan.groups.length, base + table]);
    const t = new Uint32Array(u8.buffer, u8.byteOffset + table, TABLE_WORDS * plan.groups.length);
    plan.groups.forEach((g, q) => t.set([g.start, base + ws[q].front, base + ws[q].panels, base + ws[q].rel, base + ws[q].relc, 0xffffffff], TABLE_WORDS * q));
    await B.runRanges('chol_supernodes', () => {
      if ((B.workerPool?.chunks ?? 1) !== threads) throw new StaleSchedule();
      return [base + desc];
    }, plan.ranges);
    // the first failed pivot: the subtrees are independent, and the top runs after them all
    const status = new Int32Array(region.view('u8').buffer, base + table, TABLE_WORDS * plan.groups.length);
    let bad = -1;
    for (let q = 0; q < plan.groups.length; q++) {
      const c = status[TABLE_WORDS * q + 5];
      if (c >= 0 && (bad < 0 || c < bad)) bad = c;
    }
    if (bad >= 0) return bad;
    return new Float64Array(region.view('u8').buffer, base + lx, lxLength).slice();
  } finally {
    region.dispose();
  }
}
