/**
 * explain's estimates without rt.calibrate(): the automatic calibration (src/runtime/auto-calibration.ts)
 * runs on first need, is kept per process and reused by later runtimes; the CPU estimate splits a
 * working set at the cache; and the estimates are of the right order against measured products on the
 * CPU path (1 and 2 threads) and the WebGPU path (Dawn on SwiftShader). The 2× goal itself is timed in
 * the benchmark (`npm run bench -- --only explain`): on a 2-core machine shared with other work a
 * product's time swings 2–10× from one second to the next, so a unit test holds the order of magnitude
 * (within 10×, against the least disturbed of 15 batches) and the mechanics exactly; a stand-in
 * device path with set times shows that a device's figures are those of a product in a stream, the
 * read's latency apart.
 */
import { describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { autoCalibrationCache, beyondCacheRates, CACHE_BYTES, CALL_OVERHEAD_MS, cpuCallCost, cpuCallCosts, deviceFigures } from '../src/runtime/auto-calibration.js';
import type { CpuPath } from '../src/cpu/path.js';
import { estimateSpmv, spmvBytes } from '../src/runtime/cost.js';
import { matrixFeatures } from '../src/runtime/features.js';
import { CPU_COST } from '../src/cpu/path.js';
import { loadDawn } from '../src/webgpu/device.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import type { Path, PathId } from '../src/path.js';
import type { CSRMatrix, SparseMatrix } from '../src/formats/index.js';
import { pointDawnAtSwiftShader } from './webgpu-helpers.js';

pointDawnAtSwiftShader();

/**
 * A device path that takes `productMs` + `perRowMs` × rows per product and `readMs` per read (what a
 * software renderer's read in Node waited on a loaded machine: whole 4 ms scheduler ticks), on a
 * clock of its own: `clock.now` stands in for performance.now while the test runs.
 */
function standInDevice(productMs: number, perRowMs: number, readMs: number, clock: { now: number }, calls: string[] = []): Path {
  const path = {
    id: 'webgpu',
    label: 'stand-in',
    formats: ['csr'],
    cost: { kind: 'gpu', defaults: { overheadMs: 1, bandwidthGBs: 1 }, prefers: () => ({ format: 'csr', reason: 'stand-in' }) },
    capabilities: () => ({ available: true, device: `stand-in ${productMs}/${perRowMs}/${readMs}` }),
    matrix: (A: SparseMatrix) => ({ format: 'csr', rows: A.rows, dispose() {} }),
    vector: (_: string, data: ArrayLike<number> | number) => ({ length: typeof data === 'number' ? data : data.length, dispose() {} }),
    spmv: async (A: { rows: number }) => {
      calls.push(`${productMs}`);
      clock.now += productMs + perRowMs * A.rows;
    },
    read: async (v: { length: number }) => {
      clock.now += readMs;
      return new Float64Array(v.length);
    },
  };
  return path as unknown as Path;
}

/**
 * A resident product's time on `path`: the fastest of 15 batches (a batch: `reps` products, then one
 * read) — the least disturbed by other processes, as the calibration's median of short windows is.
 */
async function measured(rt: Runtime, A: SparseMatrix, path: PathId, reps: number): Promise<{ ms: number; estimate: number }> {
  const h = rt.upload(A);
  const x = rt.vector(new Float64Array(A.cols).fill(1));
  const y = rt.vector(A.rows, 'f64');
  try {
    await rt.spmv(h, x, { y, path }); // the matrix uploaded there, kernels warm
    await y.read();
    const estimate = rt.explain('spmv', h, { x, readBack: false }).estimates[path]!.ms;
    // the fastest of 15 batches; where that is still outside the order of magnitude, more batches for up to
    // 5 s: the suite's other files load the cores for seconds at a time (SwiftShader once measured 3.0 ms
    // a product for 0.14 estimated there, and in range alone), and the estimate is of an unloaded machine
    const t: number[] = [];
    const start = performance.now();
    const inRange = () => estimate / Math.min(...t) > 0.1 && estimate / Math.min(...t) < 10;
    for (let b = 0; b < 15 || (!inRange() && performance.now() - start < 5000); b++) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) await rt.spmv(h, x, { y, path });
      await y.read();
      t.push((performance.now() - t0) / reps);
    }
    return { ms: Math.min(...t), estimate };
  } finally {
    for (const v of [h, x, y]) v.dispose();
  }
}

describe('the automatic calibration', () => {
  it('measures the CPU on the first explain, keeps the figures for the process, and later runtimes reuse them', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    const e = rt.explain('spmv', poisson2D(30));
    expect(e.calibrated).toBe(true);
    expect(e.reasons.join('\n')).not.toMatch(/default figures/);
    const cpuKeys = [...autoCalibrationCache().keys()].filter((k) => k.startsWith('cpu:'));
    expect(cpuKeys).toHaveLength(1);
    const figures = autoCalibrationCache().get(cpuKeys[0])!;
    expect(figures.overheadMs).toBeGreaterThan(CALL_OVERHEAD_MS);
    expect(figures.bandwidthGBs).toBeGreaterThan(0.5); // any machine that runs WebAssembly SIMD
    expect(figures.bandwidthGBs).toBeLessThan(1000);
    // a second runtime in the process: the same figures, not measured again (the call's fixed cost,
    // measured in the background since the first explain, in both)
    await rt.autoCalibrated();
    const rt2 = await createRuntime({ backend: 'cpu', workers: 2 });
    const e2 = rt2.explain('spmv', poisson2D(30));
    expect(autoCalibrationCache().get(cpuKeys[0])).toBe(figures);
    expect(e2.estimates.cpu!.ms).toBe(rt.explain('spmv', poisson2D(30)).estimates.cpu!.ms);
    // a calibration given to createRuntime wins over the automatic one
    const given = { cpu: { overheadMs: 1, bandwidthGBs: 1, threads: 1 } };
    const rt3 = await createRuntime({ backend: 'cpu', calibration: given });
    expect(rt3.explain('spmv', poisson2D(30)).estimates.cpu!.overheadMs).toBe(1);
    for (const r of [rt, rt2, rt3]) r.dispose();
  });

  it('splits a working set beyond cache between the cached and the memory rate', () => {
    const f = matrixFeatures(poisson2D(8));
    const cpu = { id: 'cpu', cost: CPU_COST } as const;
    const base = { overheadMs: 0, bandwidthGBs: 20 };
    const bytes = 3 * CACHE_BYTES;
    const big = { ...f, rows: bytes / 16, cols: bytes / 16, nnz: 0, diagonals: 0 }; // DIA with no diagonals: x and y only
    expect(estimateSpmv(base, cpu, 'dia', big, 8, { matrix: true, x: true, readBack: false }).kernelMs).toBeCloseTo(bytes / 20e6, 9);
    const split = estimateSpmv({ ...base, memoryGBs: 5, cacheBytes: CACHE_BYTES }, cpu, 'dia', big, 8, { matrix: true, x: true, readBack: false });
    expect(split.kernelMs).toBeCloseTo(CACHE_BYTES / 20e6 + (2 * CACHE_BYTES) / 5e6, 9);
    // within cache the memory rate plays no part
    const small = estimateSpmv({ ...base, memoryGBs: 5, cacheBytes: CACHE_BYTES }, cpu, 'dia', f, 8, { matrix: true, x: true, readBack: false });
    expect(small.kernelMs).toBeCloseTo(small.bytes / 20e6, 12);
  });

  it('measures the rate beyond cache at the octave of the first matrix that large, never above the cached rate', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    const A = poisson2D(1200); // 1.44 M rows: 6.9 M entries, 105 MB as CSR with x and y: octave 27
    const e = rt.explain('spmv', A);
    const f = [...autoCalibrationCache().entries()].find(([k]) => k.startsWith('cpu:'))![1];
    const rates = [...beyondCacheRates().values()][0];
    expect([...rates.keys()]).toEqual([27]);
    const memoryGBs = rates.get(27)!;
    expect(memoryGBs).toBeGreaterThan(0);
    expect(memoryGBs).toBeLessThanOrEqual(f.bandwidthGBs);
    // the estimate takes the first CACHE_BYTES at the cached rate, the rest at that octave's
    const { bytes } = e.estimates.cpu!;
    expect(e.estimates.cpu!.kernelMs).toBeCloseTo((CACHE_BYTES / f.bandwidthGBs + (bytes - CACHE_BYTES) / memoryGBs) / 1e6, 9);
    // a matrix of another octave measures its own; one within the cache measures nothing more
    rt.explain('spmv', poisson2D(600)); // 26 MB: octave 25
    rt.explain('spmv', poisson2D(100));
    expect([...rates.keys()].sort()).toEqual([25, 27]);
    rt.dispose();
  });
});

describe("a device path's automatic calibration", () => {
  it("takes a product's time in a stream of products, the read's latency apart", async () => {
    const [productMs, perRowMs, readMs] = [0.05, 2e-5, 4];
    const clock = { now: 0 };
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock.now);
    try {
      const p = standInDevice(productMs, perRowMs, readMs, clock);
      const r = deviceFigures(p);
      expect(r.figures).toBeNull();
      await r.done;
      const f = deviceFigures(p).figures!;
      // a read per 4 products would have put readMs / 4 = 1 ms into the fixed cost, and the kernel's
      // 0.18 ms under half of it (the default rate kept): the line through the two Poisson products'
      // times gives the fixed cost (here the stand-in's productMs, to the bytes' share of rowPtr) and the rate
      const [S, P] = [poisson2D(32), poisson2D(96)];
      const bytes = (A: CSRMatrix) => Object.values(spmvBytes(matrixFeatures(A), 'csr', 8)).reduce((a, b) => a + b);
      const ms = (A: CSRMatrix) => productMs + perRowMs * A.rows;
      const slope = (ms(P) - ms(S)) / (bytes(P) - bytes(S));
      const overheadMs = ms(S) - slope * bytes(S);
      expect(overheadMs).toBeGreaterThan(0.9 * productMs);
      expect(overheadMs).toBeLessThan(1.1 * productMs);
      expect(f.overheadMs).toBeCloseTo(overheadMs, 9);
      expect(f.bandwidthGBs).toBeCloseTo(bytes(P) / 1e6 / (ms(P) - overheadMs), 6);
    } finally {
      now.mockRestore();
    }
  });
});

describe("the CPU call's fixed cost", () => {
  it('is the median time per call of tiny products, a window that another operation shared dropped', async () => {
    const clock = { now: 0 };
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock.now);
    try {
      let [operations, calls, disposed] = [0, 0, false];
      const cpu = { id: 'cpu', cost: { kind: 'cpu' }, capabilities: () => ({ device: 'stand-in call cost' }) } as unknown as CpuPath;
      await cpuCallCost(cpu, () => ({
        product: async () => {
          operations++;
          // every 300th call shares its window (256 calls) with another operation of 1 ms: most windows
          if (++calls % 300 === 0) [operations, clock.now] = [operations + 1, clock.now + 1];
          clock.now += 0.03;
        },
        operations: () => operations,
        dispose: () => void (disposed = true),
      }));
      expect(cpuCallCosts().get('cpu:stand-in call cost')).toBeCloseTo(0.03, 12);
      expect(disposed).toBe(true);
    } finally {
      now.mockRestore();
    }
  });

  it("replaces the assumed call overhead in a runtime's CPU estimate once measured", async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      await rt.autoCalibrated();
      const key = [...cpuCallCosts().keys()].find((k) => k.startsWith('cpu:') && !k.includes('stand-in'))!;
      const call = cpuCallCosts().get(key)!;
      expect(call).toBeGreaterThan(0);
      expect(call).toBeLessThan(1);
      expect(rt.explain('spmv', poisson2D(20)).estimates.cpu!.overheadMs).toBe(call);
    } finally {
      rt.dispose();
    }
  });
});

describe("devices' automatic calibrations", () => {
  it('run one after another, never at once (two software renderers would share the cores)', async () => {
    const clock = { now: 0 };
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock.now);
    try {
      const calls: string[] = [];
      const [a, b] = [standInDevice(0.03, 1e-5, 1, clock, calls), standInDevice(0.07, 1e-5, 1, clock, calls)];
      const [ra, rb] = [deviceFigures(a), deviceFigures(b)];
      await Promise.all([ra.done, rb.done]);
      expect(deviceFigures(a).figures).not.toBeNull();
      expect(deviceFigures(b).figures).not.toBeNull();
      // every product of the first path's measurement comes before every product of the second's
      const switches = calls.filter((c, i) => i > 0 && c !== calls[i - 1]).length;
      expect(calls.length).toBeGreaterThan(20);
      expect(switches).toBe(1);
    } finally {
      now.mockRestore();
    }
  });
});

describe('estimates against measured products (order of magnitude; the 2× goal is in the benchmark)', () => {
  const matrices = [poisson2D(100), poisson3D(30)];

  for (const workers of [1, 2]) {
    it(`CPU path, ${workers} thread(s)`, async () => {
      const rt = await createRuntime({ backend: 'cpu', workers });
      try {
        for (const A of matrices) {
          const { ms, estimate } = await measured(rt, A, 'cpu', 10);
          expect(estimate / ms, `${A.rows} rows: estimate ${estimate} ms, measured ${ms} ms`).toBeGreaterThan(0.1);
          expect(estimate / ms, `${A.rows} rows: estimate ${estimate} ms, measured ${ms} ms`).toBeLessThan(10);
        }
      } finally {
        rt.dispose();
      }
    });
  }

  it('WebGPU path (Dawn; SwiftShader here): default figures until its calibration ends, then measured ones', async () => {
    const dawn = await loadDawn();
    if (typeof dawn === 'string') throw new Error(`NO WEBGPU: the estimate test needs Dawn: ${dawn}`);
    const rt = await createRuntime({ webgpu: { gpu: dawn }, workers: 1 });
    try {
      if (!rt.capabilities().paths.webgpu.available) throw new Error(`NO WEBGPU ADAPTER: ${rt.capabilities().paths.webgpu.reason}`);
      await rt.autoCalibrated();
      const e = rt.explain('spmv', poisson2D(20));
      expect(e.calibrated).toBe(true);
      expect([...autoCalibrationCache().keys()].some((k) => k.startsWith('webgpu:'))).toBe(true);
      const { ms, estimate } = await measured(rt, poisson2D(64), 'webgpu', 2);
      expect(estimate / ms, `estimate ${estimate} ms, measured ${ms} ms`).toBeGreaterThan(0.1);
      expect(estimate / ms, `estimate ${estimate} ms, measured ${ms} ms`).toBeLessThan(10);
    } finally {
      rt.dispose();
    }
  });
});
