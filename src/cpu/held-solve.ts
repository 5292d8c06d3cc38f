import type { HeldSolve } from '../solvers/direct/lu.js';
import { DisposedError } from '../errors.js';
import type { Region, WasmHeap } from './memory.js';

/** A held factor nobody disposed gives its memory back when it is collected. */
const unreleased = new FinalizationRegistry<Region>((region) => region.dispose());

/**
 * A kept factor's solve whose data lives in one region of the runtime's memory: `bytes` allocated
 * (counted in the operation's budget), `put` writes the factor there once, `run` solves with it
 * (b in, x out). The region is freed by dispose(), or when the holder is collected undisposed.
 */
export interface SolveLayout {
  bytes: number;
  put(ptr: number): void;
  run(ptr: number, b: Float64Array, x: Float64Array): void;
}

/** The layout's factor held: one copy in now, none per solve. */
export function holdSolve(heap: WasmHeap, layout: SolveLayout): HeldSolve {
  const R = heap.alloc(layout.bytes);
  try {
    layout.put(R.ptr);
  } catch (e) {
    R.dispose();
    throw e;
  }
  const held: HeldSolve = {
    bytes: R.bytes,
    solve: (b, x) => {
      if (R.isDisposed) throw new DisposedError('held factor');
      layout.run(R.ptr, b, x);
    },
    dispose: () => {
      unreleased.unregister(held);
      R.dispose();
    },
  };
  unreleased.register(held, R, held);
  return held;
}

/** The layout's solve once, its region a temporary (the factor copied in for this call only). */
export function solveOnce(heap: WasmHeap, layout: SolveLayout, b: Float64Array, x: Float64Array): void {
  heap.temporary(layout.bytes, (region) => {
    layout.put(region.ptr);
    layout.run(region.ptr, b, x);
  });
}
