/**
 * The WGSL sources (wgsl.generated.ts), imported the first time the WebGPU path is about to run a
 * kernel, not when a runtime probes the path: a page whose work stays on the CPU never loads them
 * (a bundler makes them a chunk of their own). WebGpuBackend.create() loads them unless told to defer
 * (the path defers; its first operation awaits loadWgsl() through Path.prepare).
 */
import type * as Wgsl from './wgsl.generated.js';

let sources: typeof Wgsl | null = null;
let loading: Promise<void> | null = null;

/** Imports the WGSL sources once; later calls return the same promise. */
export function loadWgsl(): Promise<void> {
  loading ??= import('./wgsl.generated.js').then((m) => {
    sources = m;
  });
  return loading;
}

/** The WGSL sources; an error naming the bug when a kernel is built before loadWgsl() resolved. */
export function wgslSources(): typeof Wgsl {
  if (!sources) throw new Error('simdgl internal error: a WebGPU kernel was built before its WGSL sources were loaded (Path.prepare / loadWgsl)');
  return sources;
}

/** Whether the WGSL sources are loaded (tests: a CPU-only runtime never loads them). */
export function wgslLoaded(): boolean {
  return sources !== null;
}
