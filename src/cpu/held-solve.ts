import type { HeldSolve } from '../solvers/direct/lu.js';
import type { CpuBackend } from './backend.js';
import { DisposedError } from '../errors.js';
import { putF64, type Region, type WasmHeap } from './memory.js';

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
export function f64Views(heap: WasmHeap, places: [number, number][]): () => Float64Array[] {
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
export function held<T extends object>(heap: WasmHeap, bytes: number, put: (ptr: number) => void, make: (R: Region) => T): T & { bytes: number; dispose(): void } {
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
