/**
 * The GLSL sources (shaders.generated.ts), imported the first time the WebGL2 path is about to run a
 * kernel, not when a runtime probes the path: a page whose work stays on the CPU never loads them.
 * Whoever makes a GpuBackend awaits them before its first kernel: the path through Path.prepare, a
 * program through GpuBackend.loadShaders().
 */
import { lazyModule } from '../lazy-module.js';
import type * as Glsl from './shaders.generated.js';

const glsl = lazyModule<typeof Glsl>(() => import('./shaders.generated.js'), 'the GLSL sources of a WebGL2 program');

export const loadGlsl = glsl.load;
export const glslSources = glsl.get;
/** whether the GLSL sources are loaded (tests: a CPU-only runtime never loads them) */
export const glslLoaded = glsl.loaded;
