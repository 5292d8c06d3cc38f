import { availableParallelism, cpus, freemem, totalmem, arch, platform, release } from 'node:os';
import { createRuntime } from '../runtime/runtime.js';

export interface InfoReport {
  cpu: { model: string; cores: number; simd: boolean; kernels: string; threads: number; sharedMemory: boolean; notes: string[] };
  node: { version: string; v8: string; platform: string; memoryMB: { total: number; free: number } };
  gpu: { available: boolean; reason: string };
}

/**
 * The device report, like the device queries of the source theses: what the CPU path has (cores,
 * WebAssembly SIMD, threads on shared memory) and why there is no GPU path in Node.
 */
export async function deviceInfo(): Promise<InfoReport> {
  const rt = await createRuntime({ workers: 'auto' });
  try {
    const c = rt.capabilities() as ReturnType<typeof rt.capabilities> & { gpu?: { available: boolean; reason?: string | null } };
    const gpuAvailable = c.gpu?.available ?? false;
    const hint = 'WebGL2 is a browser API, so the GPU path runs in browsers only (try npm run demo)';
    const reason = c.gpu?.reason ? `${c.gpu.reason}; ${hint}` : hint;
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
      gpu: { available: gpuAvailable, reason: gpuAvailable ? '' : reason },
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
    'GPU path (WebGL2)',
    `  Available:           ${r.gpu.available ? 'yes' : 'no'}`,
  ];
  if (!r.gpu.available) lines.push(`  Reason:              ${r.gpu.reason}`);
  return lines.join('\n');
}
