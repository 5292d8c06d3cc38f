/**
 * A module imported on first need, once (each GPU path's shader sources, the sparse direct solvers: a
 * bundler makes each a chunk of its own). Neutral ground: both GPU paths use it, neither imports the other.
 */
export interface LazyModule<T> {
  /** imports the module once; later calls return the same promise (after a failed import, a new one) */
  load(): Promise<void>;
  /** the module; an internal error naming `what` when it is used before load() resolved */
  get(): T;
  /** whether load() has resolved */
  loaded(): boolean;
}

export function lazyModule<T>(importer: () => Promise<T>, what: string): LazyModule<T> {
  let mod: T | null = null;
  let loading: Promise<void> | null = null;
  return {
    load: () =>
      (loading ??= importer().then(
        (m) => {
          mod = m;
        },
        (e: unknown) => {
          // a failed import (a chunk lost to the network) is tried again by the next call, not kept as the answer
          loading = null;
          throw e;
        },
      )),
    get: () => {
      if (mod === null) throw new Error(`simdgl internal error: ${what} used before it was loaded`);
      return mod;
    },
    loaded: () => mod !== null,
  };
}
