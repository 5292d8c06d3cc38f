/**
 * The WGSL sources (wgsl.generated.ts), imported the first time the WebGPU path is about to run a
 * kernel, not when a runtime probes the path: a page whose work stays on the CPU never loads them.
 * WebGpuBackend.create() loads them unless told to defer (the path defers; its first operation
 * awaits them through Path.prepare).
 */
import { lazyModule } from '../lazy-module.js';
import type * as Wgsl from './wgsl.generated.js';

const wgsl = lazyModule<typeof Wgsl>(() => import('./wgsl.generated.js'), 'the WGSL sources of a WebGPU kernel');

export const loadWgsl = wgsl.load;
export const wgslSources = wgsl.get;
/** whether the WGSL sources are loaded (tests: a CPU-only runtime never loads them) */
export const wgslLoaded = wgsl.loaded;
