import { availableParallelism, cpus, freemem, totalmem, arch, platform, release } from 'node:os';
import { createRuntime } from '../runtime/runtime.js';
import { DEVICE_PATHS } from '../runtime/paths.js';
import type { PathId } from '../path.js';
import { dawnOption } from './software-vulkan.js';

export interface GpuPathInfo {
  path: PathId;
  label: string;
  available: boolean;
  /** why it is unavailable (empty when available) */
  reason: string;
  /** the adapter or renderer, when available */
  device: string;
}

export interface InfoReport {
  cpu: { model: string; cores: number; simd: boolean; kernels: string; threads: number; sharedMemory: boolean; notes: string[] };
  node: { version: string; v8: string; platform: string; memoryMB: { total: number; free: number } };
  /** whether any GPU path is available, and the reasons of those that are not */
  gpu: { available: boolean; reason: string };
  /** every GPU path, in the runtime's order of preference */
  gpuPaths: GpuPathInfo[];
}

/** Why a GPU path cannot run in Node, beyond what the runtime says. */
const NODE_HINTS: Partial<Record<PathId, string>> = {
  webgl2: 'WebGL2 is a browser API, so this path runs in browsers only (try npm run demo)',
};

/**
 * The device report, like the device queries of the source theses: what the CPU path has (cores,
 * WebAssembly SIMD, threads on shared memory) and, for every GPU path, its device or why it is out.
 */
export async function deviceInfo(): Promise<InfoReport> {
  const rt = await createRuntime({ workers: 'auto', webgpu: await dawnOption() });
  try {
    const c = rt.capabilities();
    const gpuPaths = DEVICE_PATHS.map(({ id, label }): GpuPathInfo => {
      const p = c.paths[id];
      const reason = p.available ? '' : [p.reason, NODE_HINTS[id]].filter(Boolean).join('; ');
      return { path: id, label, available: p.available, reason, device: p.device ?? '' };
    });
    const gpuAvailable = gpuPaths.some((g) => g.available);
    return {
      cpu: {
        model: cpus()[0]?.model?.trim() || 'unknown',
        cores: availableParallelism(),
        simd: c.simd,
        kernels: c.wasm === 'simd' ? 'SIMD build (128-bit)' : 'plain build (no SIMD)',
        threads: c.threads,
        sharedMemory: c.sharedMemory,
        notes: c.notes,
      },
      node: {
        version: process.version,
        v8: process.versions.v8,
        platform: `${platform()} ${release()} ${arch()}`,
        memoryMB: { total: Math.round(totalmem() / 2 ** 20), free: Math.round(freemem() / 2 ** 20) },
      },
      gpu: { available: gpuAvailable, reason: gpuAvailable ? '' : gpuPaths.map((g) => `${g.label}: ${g.reason}`).join('; ') },
      gpuPaths,
    };
  } finally {
    rt.dispose();
  }
}

export function formatInfo(r: InfoReport): string {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const lines = [
    'CPU path (WebAssembly)',
    `  Model:               ${r.cpu.model}`,
    `  Cores:               ${r.cpu.cores}`,
    `  SIMD:                ${yes(r.cpu.simd)}`,
    `  Kernels:             ${r.cpu.kernels}`,
    `  Threads:             ${r.cpu.threads} (worker pool on one shared WebAssembly.Memory)`,
    `  Shared memory:       ${yes(r.cpu.sharedMemory)}`,
    ...r.cpu.notes.map((n) => `  Note:                ${n}`),
    'Node',
    `  Version:             ${r.node.version} (V8 ${r.node.v8})`,
    `  Platform:            ${r.node.platform}`,
    `  Memory:              ${r.node.memoryMB.total} MiB total, ${r.node.memoryMB.free} MiB free`,
  ];
  for (const g of r.gpuPaths) {
    lines.push(`GPU path (${g.label})`, `  Available:           ${yes(g.available)}`);
    lines.push(g.available ? `  Device:              ${g.device}` : `  Reason:              ${g.reason}`);
  }
  return lines.join('\n');
}
