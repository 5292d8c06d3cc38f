/** The runtime's format choice, cost model and explain (Node: the CPU path only). */
import { describe, expect, it, vi } from 'vitest';
import { createRuntime } from '../src/runtime/runtime.js';
import { matrixFeatures, chooseFormat } from '../src/runtime/features.js';
import { spmvBytes, estimateSpmv } from '../src/runtime/cost.js';
import { WEBGL2_COST, WebGl2Path } from '../src/gpu/path.js';
import { WEBGPU_COST } from '../src/webgpu/path.js';
import { SOFTWARE_RENDERER_COST } from '../src/device-path.js';
import { CPU_COST } from '../src/cpu/path.js';
import { explainSpmv, formatOn } from '../src/runtime/explain.js';
import type { FormatName } from '../src/formats/index.js';
import { convert, CSRMatrix, FORMATS } from '../src/formats/index.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { randomMatrix } from '../src/generators/random.js';
import { loadShared } from './matrices.js';

describe('matrix features and format choice', () => {
  it('computes features that match their definitions', () => {
    const A = poisson2D(10); // 100 rows, 5-point stencil: 460 entries on 5 diagonals
    const f = matrixFeatures(A);
    expect(f).toMatchObject({ rows: 100, cols: 100, nnz: 460, maxRow: 5, diagonals: 5 });
    expect(f.meanRow).toBeCloseTo(4.6, 12);
    expect(f.diaFill).toBeCloseTo((5 * 100) / 460, 12);
    expect(f.ellFill).toBeCloseTo((5 * 100) / 460, 12);
  });

  it('predicts the storage of every format exactly for CSR, ELL, DIA and SELL (its default C and σ)', () => {
    const power = randomMatrix({ rows: 3000, meanRowLength: 6, distribution: 'powerlaw', seed: 4 });
    for (const A of [poisson3D(6), randomMatrix({ rows: 300, meanRowLength: 5, seed: 3 }), loadShared('west0479'), power]) {
      for (const dtype of ['f32', 'f64'] as const) {
        const B = A.astype(dtype);
        const f = matrixFeatures(B);
        const bytes = dtype === 'f32' ? 4 : 8;
        for (const format of ['csr', 'ell', 'dia', 'sell'] as const) {
          const M = convert(B, format, { maxFill: 1e9 });
          // SELL's slice pointers are not counted: ⌈rows / C⌉ + 1 ints beside rows of perm
          const extra = format === 'sell' ? (Math.ceil(B.rows / f.sellC) + 1) * 4 : 0;
          expect(spmvBytes(f, format, bytes).matrix + extra, `${format} ${dtype}`).toBe(M.storageBytes());
        }
      }
    }
  });

  it('chooses DIA for banded stencils, ELL for uniform rows, SELL or JDS on the CPU and HYB on the GPU for irregular ones', () => {
    expect(chooseFormat(matrixFeatures(poisson3D(16)), 'cpu').format).toBe('dia');
    const uniform = randomMatrix({ rows: 2000, meanRowLength: 0, seed: 1 }); // all rows empty → csr
    expect(chooseFormat(matrixFeatures(uniform), 'cpu').format).toBe('csr');
    const power = randomMatrix({ rows: 5000, meanRowLength: 8, distribution: 'powerlaw', seed: 2 });
    const fp = matrixFeatures(power);
    expect(fp.rowCv).toBeGreaterThan(0.3);
    expect(fp.xBytes).toBe(5000 * 8);
    expect(chooseFormat(fp, 'cpu')).toMatchObject({ format: 'sell', reason: expect.stringMatching(/irregular rows \(cv .*x = 39 KiB fits in cache: SELL-4-4096 \(1\.\d\d slots per entry\) measured fastest/) });
    expect(fp.cacheTiles).toBe(false); // x of 39 KiB
    expect(chooseFormat({ ...fp, xBytes: 8e6 }, 'cpu')).toMatchObject({ format: 'jds', reason: expect.stringMatching(/beyond cache: JDS measured fastest, ahead of SELL-4-4096/) });
    // beyond cache with scattered columns: CSR in cache tiles (the power-law matrix of 1 M rows, scaled down)
    const big = matrixFeatures(randomMatrix({ rows: 200_000, meanRowLength: 8, distribution: 'powerlaw', seed: 2 }));
    expect(big.cacheTiles).toBe(true);
    expect(chooseFormat(big, 'cpu')).toMatchObject({ format: 'csr', reason: expect.stringMatching(/beyond cache, columns scattered: CSR in cache tiles measured fastest, ahead of JDS/) });
    expect(chooseFormat({ ...big, rowCv: 0.1 }, 'cpu')).toMatchObject({ format: 'csr', reason: expect.stringMatching(/CSR \(in cache tiles/) });
    expect(chooseFormat(big, 'gpu').reason).not.toMatch(/tiles/);
    // rows of random but similar lengths (cv < 0.3) that ELL would pad too much stay CSR
    const mild = { ...fp, rowCv: 0.2, ellFill: 3, diagonals: 5000, diaFill: 100 };
    expect(chooseFormat(mild, 'cpu').format).toBe('csr');
    // rows of equal length spread over many diagonals: ELL has no padding, DIA would have much
    const f = { ...matrixFeatures(poisson2D(30)), diagonals: 500, diaFill: 40 };
    expect(chooseFormat(f, 'cpu').format).toBe('ell');
    const skew = { ...f, ellFill: 9, rowCv: 1.4, hybEllShare: 0.8 };
    expect(chooseFormat(skew, 'gpu').format).toBe('hyb');
    expect(chooseFormat(skew, 'cpu').format).toBe('sell');
  });

  it('the estimate adds the transfers that are not resident', () => {
    const f = matrixFeatures(poisson3D(8));
    const cal = { overheadMs: 0.1, bandwidthGBs: 10, uploadGBs: 1, readbackGBs: 1 };
    const webgl2 = { id: 'webgl2', cost: WEBGL2_COST } as const;
    const cpu = { id: 'cpu', cost: { kind: 'cpu', defaults: cal } } as const;
    const resident = estimateSpmv(cal, webgl2, 'dia', f, 8, { matrix: true, x: true, readBack: false });
    const cold = estimateSpmv(cal, webgl2, 'dia', f, 8, { matrix: false, x: false, readBack: true });
    expect(resident.transferMs).toBe(0);
    expect(cold.transfers).toEqual(['upload the matrix', 'upload x', 'read y back']);
    expect(cold.ms - resident.ms).toBeCloseTo(cold.transferMs, 12);
    expect(resident.ms).toBeCloseTo(0.1 + resident.bytes / 1e7, 12);
    // the row-per-fragment CSR shader reaches a quarter of the streaming bandwidth (measured on an H100)
    const csr = estimateSpmv(cal, webgl2, 'csr', f, 8, { matrix: true, x: true, readBack: false });
    expect(csr.kernelMs).toBeCloseTo(csr.bytes / 1e7 / 0.25, 12);
    const onCpu = estimateSpmv(cal, cpu, 'csr', f, 8, { matrix: false, x: false, readBack: true });
    expect(onCpu.kernelMs).toBeCloseTo(onCpu.bytes / 1e7, 12);
  });
});

describe('rt.explain and rt.upload({ format: "auto" })', () => {
  it('explains the CPU choice in Node, says why the GPU is out, and uses a calibration once measured', async () => {
    const rt = await createRuntime({ workers: 2 });
    const A = poisson3D(20);
    const e = rt.explain('spmv', A);
    // the CPU figures come from the automatic calibration (test/explain-estimate.test.ts)
    expect(e).toMatchObject({ op: 'spmv', path: 'cpu', format: 'dia', calibrated: true });
    expect(e.estimates.cpu!.ms).toBeGreaterThan(0);
    expect(e.estimates.webgl2).toBeUndefined();
    expect(e.reasons.join('\n')).toMatch(/WebGL2 path unavailable/);
    const cal = await rt.calibrate();
    expect(cal.cpu.bandwidthGBs).toBeGreaterThan(0.1);
    expect(cal.cpu.overheadMs).toBeGreaterThan(0);
    expect(cal.cpu.threads).toBe(2);
    expect(rt.explain('spmv', A).calibrated).toBe(true);
    const h = rt.upload(A, { format: 'auto' });
    expect(h.format).toBe('dia');
    expect(rt.explain('spmv', h, { format: 'ell' }).format).toBe('ell');
    // a saved calibration is used as is
    const rt2 = await createRuntime({ calibration: cal });
    expect(rt2.explain('spmv', A).calibrated).toBe(true);
    expect(() => rt.explain('gemm' as 'spmv', A)).toThrow(/'spmv' and 'solve' are explained, not "gemm"/);
    rt.dispose();
    rt2.dispose();
  });

  it('every format the runtime may choose runs correctly (spot check against CSR)', async () => {
    const rt = await createRuntime();
    const A = poisson3D(10);
    const x = new Float64Array(A.cols).map((_, i) => Math.cos(i));
    const ref = await rt.spmv(rt.upload(A, { format: 'csr' }), x);
    for (const format of FORMATS.filter((f) => f !== 'dense')) {
      const y = await rt.spmv(rt.upload(A, { format }), x);
      for (let i = 0; i < y.length; i++) expect(Math.abs(y[i] - ref[i])).toBeLessThanOrEqual(1e-12);
    }
    rt.dispose();
  });
});

describe('the WebGL2 path’s formats and the kernel explain names', () => {
  // kernelFor and formats read no device: a path over an empty backend stands for one on a real context
  const webgl2 = new WebGl2Path({} as never);
  const power = randomMatrix({ rows: 3000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.8, seed: 4 });

  it('runs a matrix the caller gives as SELL with the sell shader, and says which pass structure it takes', () => {
    for (const [A, passes] of [[poisson2D(20), /one pass, positions are rows/], [power, /then sell_gather back to row order/]] as const) {
      for (const dtype of ['f32', 'f64'] as const) {
        const f = matrixFeatures(A.astype(dtype));
        expect(formatOn(webgl2, f, 'sell')).toEqual({ format: 'sell', reason: 'format given by the caller' });
        const S = convert(A.astype(dtype), 'sell');
        expect([S.sliceHeight, S.sortWindow]).toEqual([f.sellC, f.sellSigma]); // what the runtime's conversion builds
        expect(webgl2.kernelFor('sell', f)).toMatch(new RegExp(`^sell shader \\(SELL-${f.sellC}-${f.sellSigma}: `));
        expect(webgl2.kernelFor('sell', f)).toMatch(passes);
      }
    }
  });

  it('explain names the shader each path runs, also for the formats the rules pick', () => {
    const long = randomMatrix({ rows: 2000, meanRowLength: 4, distribution: 'powerlaw', exponent: 1.2, seed: 9 });
    const f = matrixFeatures(long);
    expect(f.maxRow).toBeGreaterThan(256);
    expect(webgl2.kernelFor('csr', f)).toMatch(/^csr_segmented shader/);
    expect(webgl2.kernelFor('csr', matrixFeatures(poisson2D(8)))).toBe('csr_row shader');
    // the path's figures on hardware (its `cost` getter asks the device whether it is a software renderer)
    const path = { id: webgl2.id, label: webgl2.label, formats: webgl2.formats, cost: WEBGL2_COST, kernelFor: webgl2.kernelFor.bind(webgl2) };
    const candidate = { path, calibration: WEBGL2_COST.defaults, available: true as const, resident: { matrix: true, x: true } };
    for (const format of [undefined, 'sell', 'ell'] as const) {
      const e = explainSpmv({ features: matrixFeatures(power), elementBytes: 8, calibrated: false, candidates: [candidate], readBack: false, format });
      const line = e.reasons.find((r) => r.startsWith('WebGL2: '));
      expect(line).toContain(`runs the ${webgl2.kernelFor(e.format, e.features)}`);
      if (format) expect(e.format).toBe(format);
    }
  });
});

describe('the WebGPU path’s own format and cost figures', () => {
  const webgpu = (software: boolean) => ({ id: 'webgpu' as const, label: 'WebGPU', formats: ['csr', 'ell', 'dia', 'hyb', 'sell'] as FormatName[], cost: software ? SOFTWARE_RENDERER_COST : WEBGPU_COST });

  it('runs a banded matrix of 8-byte or larger elements as DIA, every other as CSR (its upload picks the kernel), unless the caller names a format it has', () => {
    const P = poisson3D(10);
    // poisson2D(10) with two corner entries: two more diagonals of one entry each, DIA stores 1.5 slots an entry
    const Q = poisson2D(10).toCSR();
    const rows: number[] = [0, 99];
    const cols: number[] = [99, 0];
    const vals: number[] = [-1, -1];
    for (let i = 0; i < Q.rows; i++) for (let k = Q.rowPtr[i]; k < Q.rowPtr[i + 1]; k++) (rows.push(i), cols.push(Q.colIdx[k]), vals.push(Q.values[k]));
    const corners = CSRMatrix.fromTriplets(100, 100, 'f64', Int32Array.from(rows), Int32Array.from(cols), Float64Array.from(vals));
    const cases: [CSRMatrix, FormatName][] = [
      [P, 'dia'],
      [P.astype('c64'), 'dia'],
      [P.astype('c128'), 'dia'],
      [P.astype('f32'), 'csr'],
      [corners, 'csr'],
      [randomMatrix({ rows: 2000, meanRowLength: 8, distribution: 'powerlaw', seed: 5 }), 'csr'],
    ];
    for (const [A, format] of cases) {
      const f = matrixFeatures(A);
      expect(formatOn(webgpu(false), f).format).toBe(format);
      expect(formatOn(webgpu(false), f, 'ell').format).toBe('ell');
    }
    expect(matrixFeatures(corners).diaFill).toBeGreaterThan(1.25);
  });

  it('a software adapter is never estimated faster than the CPU path', () => {
    const f = matrixFeatures(poisson3D(40));
    const resident = { matrix: true, x: true, readBack: false };
    const cpu = estimateSpmv(CPU_COST.defaults, { id: 'cpu', cost: CPU_COST }, 'dia', f, 8, resident);
    const soft = estimateSpmv(SOFTWARE_RENDERER_COST.defaults, { id: 'webgpu', cost: SOFTWARE_RENDERER_COST }, 'csr', f, 8, resident);
    const gpu = estimateSpmv(WEBGPU_COST.defaults, { id: 'webgpu', cost: WEBGPU_COST }, 'csr', f, 8, resident);
    expect(soft.ms).toBeGreaterThan(10 * cpu.ms);
    expect(gpu.ms).toBeLessThan(cpu.ms);
  });
});

describe('upload measures a matrix once', () => {
  it('the converted copy takes the features of the matrix it came from: explain and the first product rebuild no CSR', async () => {
    const rt = await createRuntime({ workers: 1 });
    try {
      for (const A of [poisson3D(6), loadShared('bcsstk01'), convert(poisson2D(12), 'coo')]) {
        const h = rt.upload(A);
        const toCSR = vi.spyOn(h.host, 'toCSR');
        const f = rt.explain('spmv', h).features;
        await rt.spmv(h, new Float64Array(A.cols).fill(1));
        expect(toCSR).not.toHaveBeenCalled();
        const own = matrixFeatures(A.toCSR());
        const sell = h.host.format === 'sell' ? { sellC: h.host.sliceHeight, sellSigma: h.host.sortWindow, sellSlots: h.host.colIdx.length } : {};
        expect(f).toEqual({ ...own, ...sell });
      }
    } finally {
      rt.dispose();
    }
  });
});
