import type { PathFactory } from '../path.js';
import { WebGl2Path } from '../gpu/path.js';
import { WebGpuPath } from '../webgpu/path.js';
import type { RuntimeOptions } from './options.js';

/**
 * The device paths a runtime may use, in order of preference (the first available is what 'gpu'
 * means). The CPU path is not listed: every runtime has it (runtime.ts makes it, as the home path).
 * A new path is one folder with its path.ts and one entry here.
 */
export const DEVICE_PATHS: readonly PathFactory<RuntimeOptions>[] = [
  {
    id: 'webgpu',
    label: 'WebGPU',
    create: async (o) => {
      const p = await WebGpuPath.create(o.webgpu);
      return p instanceof WebGpuPath ? p : { reason: p.reason };
    },
  },
  {
    id: 'webgl2',
    label: 'WebGL2',
    create: async (o) => {
      const p = WebGl2Path.create({ canvas: o.canvas, gl: o.gl });
      return p instanceof WebGl2Path ? p : { reason: p.reason };
    },
  },
];
