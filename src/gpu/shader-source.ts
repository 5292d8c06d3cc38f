/**
 * The GLSL sources (shaders.generated.ts), imported the first time the WebGL2 path is about to run a
 * kernel, not when a runtime probes the path: a page whose work stays on the CPU never loads them (a
 * bundler makes them a chunk of their own). Whoever makes a GpuBackend awaits loadGlsl() before its
 * first kernel: the path through Path.prepare, a program with GpuBackend.loadShaders().
 */
import type * as Glsl from './shaders.generated.js';

let sources: typeof Glsl | null = null;
let loading: Promise<void> | null = null;

/** Imports the GLSL sources once; later calls return the same promise. */
export function loadGlsl(): Promise<void> {
  loading ??= import('./shaders.generated.js').then((m) => {
    sources = m;
  });
  return loading;
}

/** The GLSL sources; an error naming the bug when a program is built before loadGlsl() resolved. */
export function glslSources(): typeof Glsl {
  if (!sources) throw new Error('simdgl internal error: a WebGL2 program was built before its GLSL sources were loaded (Path.prepare / GpuBackend.loadShaders)');
  return sources;
}

/** Whether the GLSL sources are loaded (tests: a CPU-only runtime never loads them). */
export function glslLoaded(): boolean {
  return sources !== null;
}
