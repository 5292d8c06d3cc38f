import type { HeldSolve } from '../solvers/direct/lu.js';
import type { HeldResidual } from '../solvers/direct/factor.js';
import type { Csc } from '../solvers/direct/pattern.js';
import type { CpuBackend } from './backend.js';
import { DisposedError } from '../errors.js';
import { Layout, putF64, putI32, type Region, type WasmHeap } from './memory.js';

/** A held region nobody disposed gives its memory back when its holder is collected. */
const unreleased = new FinalizationRegistry<Region>((region) => region.dispose());

/**
 * A kept factor's solve whose data lives in one region of the runtime's memory: `bytes` allocated
 * (counted in the operation's budget), `put` writes the factor there once, `run` solves with it from
 * b (m entries at byte offset `b`) into x (m at `x`).
 */
export interface SolveLayout {
  bytes: number;
  m: number;
  b: number;
  x: number;
  put(ptr: number): void;
  run(ptr: number): void;
}

/**
 * Float64Array views of fixed places of the heap (the first not empty), made again only when the
 * memory's growth detached them (an unshared memory's: they read 0 entries then; a shared memory's
 * views stay valid): a view, or reading memory.buffer, costs a measurable part of a small solve.
 */
function f64Views(heap: WasmHeap, places: [number, number][]): () => Float64Array[] {
  let views: Float64Array[] = [];
  return () => {
    if (views.length === 0 || views[0].length === 0) {
      const buffer = heap.memory.buffer;
      views = places.map(([at, length]) => new Float64Array(buffer, at, length));
    }
    return views;
  };
}

/** A region of `bytes` written by `put`, and what `make` builds on it, with the region's bytes and a dispose() freeing it (as does the holder's collection). */
function held<T extends object>(heap: WasmHeap, bytes: number, put: (ptr: number) => void, make: (R: Region) => T): T & { bytes: number; dispose(): void } {
  const R = heap.alloc(bytes);
  try {
    put(R.ptr);
  } catch (e) {
    R.dispose();
    throw e;
  }
  const holder = Object.assign(make(R), {
    bytes: R.bytes,
    dispose: () => {
      unreleased.unregister(holder);
      R.dispose();
    },
  });
  unreleased.register(holder, R, holder);
  return holder;
}

/** The layout's factor held: one copy in now, none per solve (b copied in, x out). */
export function holdSolve(heap: WasmHeap, layout: SolveLayout): HeldSolve {
  return held(heap, layout.bytes, layout.put, (R) => {
    const views = f64Views(heap, [[R.ptr + layout.b, Math.max(1, layout.m)], [R.ptr + layout.x, layout.m]]);
    return {
      solve: (b: Float64Array, x: Float64Array) => {
        if (R.isDisposed) throw new DisposedError(heap.closed ? 'runtime' : 'held factor');
        const [bv, xv] = views();
        bv.set(b);
        layout.run(R.ptr);
        x.set(xv);
      },
    };
  });
}

/** The layout's solve once, its region a temporary (the factor copied in for this call only). */
export function solveOnce(heap: WasmHeap, layout: SolveLayout, b: Float64Array, x: Float64Array): void {
  heap.temporary(layout.bytes, (region) => {
    layout.put(region.ptr);
    putF64(heap, region.ptr + layout.b, b);
    layout.run(region.ptr);
    const at = (region.ptr + layout.x) >> 3;
    x.set(heap.words.f64.subarray(at, at + layout.m));
  });
}

/**
 * A's rows (`At`: the columns of Aᵀ) held in the runtime's memory with b, x, r and w, for the solve's
 * residual (assembly/residual.ts direct_residual): b and x copied in, r, the row sums w (where asked for) and the five sums out.
 */
export function holdResidual(B: Pick<CpuBackend, 'heap' | 'kernels'>, At: Csc): HeldResidual {
  const { n, colPtr, rowIdx, values } = At;
  const c = At.complex ? 2 : 1;
  const nnz = colPtr[n];
  const m = c * n;
  // b, x, r, out, w (f64); values (f64), rowPtr, colIdx (i32)
  const { at, bytes } = Layout.of([8 * m, 8 * m, 8 * m, 8 * 5, 8 * n, 8 * c * nnz, 4 * (n + 1), 4 * nnz]);
  const put = (ptr: number): void => {
    putF64(B.heap, ptr + at[5], values.subarray(0, c * nnz));
    putI32(B.heap, ptr + at[6], colPtr.subarray(0, n + 1));
    putI32(B.heap, ptr + at[7], rowIdx.subarray(0, nnz));
  };
  return held(B.heap, bytes, put, (R) => {
    const p = at.map((a) => R.ptr + a);
    const views = f64Views(B.heap, [[p[3], 5], [p[0], m], [p[1], m], [p[2], m], [p[4], n]]);
    return {
      residual: (b: Float64Array, x: Float64Array, r: Float64Array, w: Float64Array | null) => {
        if (R.isDisposed) throw new DisposedError(B.heap.closed ? 'runtime' : 'held matrix');
        const [out, bv, xv, rv, wv] = views();
        bv.set(b);
        xv.set(x);
        B.kernels.direct_residual(n, c, p[6], p[7], p[5], p[0], p[1], p[2], w ? p[4] : 0, p[3]);
        r.set(rv);
        w?.set(wv);
        return out;
      },
    };
  });
}
