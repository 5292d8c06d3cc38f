import type { PathFactory } from '../path.js';
import type { RuntimeOptions } from './options.js';

/**
 * The device paths a runtime may use, in order of preference (the first available is what 'gpu'
 * means). The CPU path is not listed: every runtime has it (runtime.ts makes it, as the home path).
 * A new path is one folder with its path.ts and one entry here. Each path's module (its backend and
 * its shaders) is imported only when a runtime tries that path, so a bundle for a CPU-only page
 * (backend: 'cpu') carries none of them in its main chunk.
 */
export const DEVICE_PATHS: readonly PathFactory<RuntimeOptions>[] = [
  {
    id: 'webgpu',
    label: 'WebGPU',
    create: async (o) => {
      const { WebGpuPath } = await import('../webgpu/path.js');
      // Node has no navigator.gpu: Dawn (the optional `webgpu` package) is loaded only when the user
      // asks for a GPU path, since it takes 100–300 ms and prints driver warnings on stderr
      const mayLoadDawn = o.backend === 'webgpu' || o.backend === 'gpu';
      const p = await WebGpuPath.create(o.webgpu, mayLoadDawn);
      return p instanceof WebGpuPath ? p : { reason: p.reason };
    },
  },
  {
    id: 'webgl2',
    label: 'WebGL2',
    create: async (o) => {
      const { WebGl2Path } = await import('../gpu/path.js');
      const p = WebGl2Path.create({ canvas: o.canvas, gl: o.gl });
      return p instanceof WebGl2Path ? p : { reason: p.reason };
    },
  },
];
