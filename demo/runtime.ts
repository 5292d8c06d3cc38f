// The demo's runtimes: one forced onto each path (so a panel measures that path and nothing else) and
// one with backend 'auto' that answers "what would auto choose, and why" through rt.explain.
import { createRuntime, type Runtime } from '../src/index.js';
import type { PathCapabilities, PathId } from '../src/path.js';

/** The three panels, in the order they are shown and raced. */
export const PATHS = ['cpu', 'webgpu', 'webgl2'] as const satisfies readonly PathId[];
export type Path = (typeof PATHS)[number];

export type Made = { rt: Runtime; reason?: undefined } | { rt: null; reason: string };

/**
 * A runtime for one path ('auto': every path this page has). A GPU path that cannot run here makes
 * createRuntime throw GpuUnavailableError with the reason, which the panel then shows instead of
 * numbers; the WebGL2 path draws on `canvas`.
 */
export async function makeRuntime(path: Path | 'auto', workers: number, canvas?: HTMLCanvasElement): Promise<Made> {
  try {
    return { rt: await createRuntime({ backend: path, workers: path === 'cpu' || path === 'auto' ? workers : 1, canvas }) };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { rt: null, reason: msg.replace(/^createRuntime: (the \w+ path is unavailable: )?/, '') };
  }
}

/** What a panel says about its device: the adapter/renderer or kernel build, and whether it is software. */
export function deviceOf(path: Path, rt: Runtime): { device: string; software: boolean } {
  const caps = rt.capabilities();
  if (path === 'cpu') {
    const build = caps.wasm === 'simd' ? 'WebAssembly SIMD' : 'plain WebAssembly (no SIMD)';
    return { device: `${build}, ${caps.threads} thread${caps.threads > 1 ? 's' : ''}`, software: false };
  }
  const p: PathCapabilities = caps.paths[path];
  return { device: p.device ?? 'unknown device', software: p.limits?.software === true };
}
