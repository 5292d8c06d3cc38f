/**
 * The CPU path's cache tiles (src/cpu/tiles.ts) through the runtime: which CSR matrices get them, and
 * that a tiled product matches the f64 reference and gives the same bits on 1 and 3 workers. The kernel
 * itself (small tiles, band ranges, edge-case rows) is tested in kernels-pointer.test.ts.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { randomMatrix } from '../src/generators/random.js';
import { poisson3D } from '../src/generators/poisson.js';
import { useCacheTiles, cacheTiles, colBits, nextTouchX, TOUCH_TRIALS, TILES_MIN_X_BYTES } from '../src/cpu/tiles.js';
import { checkAgainst, referenceSpmv, csrTriplets } from './reference.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { isComplex } from '../src/dtype.js';
import { makeHarness, disposeAll } from './kernel-harness.js';
import { loadShared, sharedMatrixNames } from './matrices.js';
import type { CpuMatrix } from '../src/cpu/resident.js';


describe('CPU cache tiles', () => {
  // 300 000 columns: x is 2.3 MiB in f64 and 1.1 MiB in f32, beyond TILES_MIN_X_BYTES
  const scattered = randomMatrix({ rows: 120_000, cols: 300_000, meanRowLength: 6, distribution: 'powerlaw', seed: 3 });
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    for (const rt of runtimes) await rt.dispose();
  });

  it('are used for scattered columns beyond cache, not for banded, small or complex matrices', () => {
    expect(300_000 * 4).toBeGreaterThan(TILES_MIN_X_BYTES);
    expect(useCacheTiles(scattered)).toBe(true);
    expect(useCacheTiles(scattered.astype('f32'))).toBe(true);
    expect(useCacheTiles(scattered.astype('c128'))).toBe(false);
    expect(useCacheTiles(poisson3D(64))).toBe(false); // x 2 MiB, but a 7-point stencil reads it in a window
    expect(useCacheTiles(randomMatrix({ rows: 5000, distribution: 'powerlaw', seed: 4 }))).toBe(false);
  });

  it('keep every entry once, in tiles of at most W columns', () => {
    const T = cacheTiles(scattered);
    expect(T.tilePtr[T.tilePtr.length - 1]).toBe(scattered.nnz);
    expect(T.bandPtr[T.bands]).toBe(T.tileCol.length);
    // two equal bands of at most 65536 rows (f64: 512 KiB of accumulators) in tiles of 16384 columns (14 bits)
    expect([T.R, T.bands, T.W, colBits(T.W)]).toEqual([60_032, 2, 16384, 14]);
    let outside = 0;
    for (let t = 0; t < T.tileCol.length; t++) {
      for (let e = T.tilePtr[t]; e < T.tilePtr[t + 1]; e++) if ((T.rc[e] & 0x3fff) >= T.W || T.rc[e] >>> 14 >= T.R) outside++;
    }
    expect(outside).toBe(0);
    expect(() => cacheTiles(scattered, { R: 262145, W: 16384 })).toThrow(/at most 65536 columns and 262144 rows for 16384/);
  });

  it('read x first or not as the first products of each matrix measure', () => {
    for (const [fasterWith, times] of [[0, [9, 5, 9, 5, 9, 5]], [1, [5, 9, 5, 9, 5, 9]], [1, [7, 7, 7, 7, 7, 7]], [0, [6, 5, 6, 7, 9, 5]]] as const) {
      const params: Record<string, number> = { tiled: 1, touchX: -1 };
      expect(nextTouchX(params)).toEqual({ touchX: 1 }); // warm-up: with the reads, untimed
      const tried: number[] = [];
      for (let k = 0; k < TOUCH_TRIALS; k++) {
        const { touchX, record } = nextTouchX(params);
        tried.push(touchX);
        record!(times[k]);
      }
      expect(tried).toEqual([1, 0, 1, 0, 1, 0]);
      // medians: with the reads of times 0, 2, 4; without of 1, 3, 5 (a tie keeps the reads)
      expect(params.touchX, String(times)).toBe(fasterWith);
      expect(nextTouchX(params)).toEqual({ touchX: fasterWith });
    }
    // a matrix that does not run in tiles is never timed
    expect(nextTouchX({ grouped: 16 })).toEqual({ touchX: 0 });
  });

  it('give the same bits while the runtime tries both ways, and keep one', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 2 });
    runtimes.push(rt);
    const M = rt.upload(scattered, { format: 'keep' });
    const params = (M.copies.get('cpu:csr') as CpuMatrix).params;
    expect(params).toMatchObject({ tiled: 1, touchX: -1 });
    const x = new Float64Array(scattered.cols).map((_, i) => Math.cos(i));
    const first = Float64Array.from(await rt.spmv(M, x));
    for (let k = 0; k < TOUCH_TRIALS + 1; k++) {
      const y = Float64Array.from(await rt.spmv(M, x));
      for (let i = 0; i < y.length; i++) if (!Object.is(y[i], first[i])) expect.fail(`product ${k + 2}: y[${i}] = ${y[i]}, first ${first[i]}`);
    }
    expect([0, 1]).toContain(params.touchX);
  });

  it("are what 'auto' chooses for them on the CPU, and explain says so", async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    runtimes.push(rt);
    const e = rt.explain('spmv', scattered);
    expect(e.estimates.cpu?.format).toBe('csr');
    expect(e.features.cacheTiles).toBe(true);
    expect(JSON.stringify(e)).toMatch(/columns scattered: CSR in cache tiles/);
    expect(rt.upload(scattered).format).toBe('csr'); // the default upload chooses the same
  });

  it('createRuntime({ cacheTiles }) turns them off or sets their shape; a bad value is a RangeError', async () => {
    const x = new Float64Array(scattered.cols).map((_, i) => Math.sin(i));
    const ref = referenceSpmv(csrTriplets(scattered), x, null, 1, 0);
    const run = async (cacheTiles: 'auto' | false | { rows: number; cols: number }, workers: number) => {
      const rt = await createRuntime({ backend: 'cpu', workers, cacheTiles });
      runtimes.push(rt);
      const M = rt.upload(scattered, { format: 'keep' });
      const y = Float64Array.from(await rt.spmv(M, x));
      expect(checkAgainst(y, ref, 'double', false)).toBeNull();
      return { rt, y, params: (M.copies.get('cpu:csr') as CpuMatrix).params };
    };
    const off = await run(false, 2);
    expect(off.params.tiled).toBeUndefined(); // row by row
    // so is the CSR a COO upload derives for its products, while the default derives it in tiles
    const derived = async (rt: Runtime) => {
      const M = rt.upload(scattered, { format: 'coo' });
      expect(checkAgainst(Float64Array.from(await rt.spmv(M, x)), ref, 'double', false)).toBeNull();
      return (M.copies.get('cpu:coo') as CpuMatrix).derive('csr', () => expect.fail('no CSR was derived')).params;
    };
    expect((await derived(off.rt)).tiled).toBeUndefined();
    expect(off.rt.explain('spmv', scattered).features.cacheTiles).toBe(false);
    expect(off.rt.upload(scattered).format).toBe('jds'); // 'auto' then takes the next fastest
    // bands cut evenly, one per worker (120 000 rows: 2 × 60 000)
    const auto = await run('auto', 2);
    expect(auto.params).toMatchObject({ tiled: 1, R: 60_032, W: 16384, bands: 2 });
    expect(await derived(auto.rt)).toMatchObject({ tiled: 1, R: 60_032 });
    const small = await run({ rows: 3000, cols: 1000 }, 3);
    expect(small.params).toMatchObject({ tiled: 1, R: 3000, bands: Math.ceil(scattered.rows / 3000) });
    // a row's entries are added in column order whatever the shape: the same bits
    // and a band higher than 16 bits of row can count, with 12 bits of column
    const tall = await run({ rows: 100_000, cols: 4096 }, 1);
    expect(tall.params).toMatchObject({ tiled: 1, R: 100_000, W: 4096, bands: 2 });
    for (const [shape, { y }] of [['3000 × 1000', small], ['100000 × 4096', tall]] as const) {
      for (let i = 0; i < scattered.rows; i++) if (!Object.is(y[i], auto.y[i])) expect.fail(`y[${i}]: ${y[i]} in ${shape} tiles, ${auto.y[i]} in the default`);
    }
    const bads = [true, 'on', null, { rows: 0, cols: 8 }, { rows: 8, cols: 65537 }, { rows: 8 }, { rows: 8, cols: 8, depth: 2 }, { rows: 1.5, cols: 8 }, { rows: 65537, cols: 65536 }, { rows: 262145, cols: 16384 }];
    await expect(createRuntime({ cacheTiles: { rows: 262145, cols: 16384 } })).rejects.toThrow(
      'createRuntime: cacheTiles.rows must be an integer in [1, 262144] with cols 16384, got 262145',
    );
    for (const bad of bads) {
      await expect(createRuntime({ cacheTiles: bad as never }), JSON.stringify(bad)).rejects.toThrow(/createRuntime: cacheTiles/);
      await expect(createRuntime({ cacheTiles: bad as never })).rejects.toBeInstanceOf(RangeError);
    }
  });

  for (const dtype of ['f64', 'f32'] as const) {
    it(`${dtype}: the runtime's CSR product matches the reference, the same bits on 1 and 3 workers`, async () => {
      const A = scattered.astype(dtype) as CSRMatrix;
      const x = new Float64Array(A.cols).map((_, i) => Math.sin(i));
      const y0 = new Float64Array(A.rows).map((_, i) => Math.cos(i));
      const Arr = dtype === 'f32' ? Float32Array : Float64Array;
      const xr = Arr.from(x), yr = Arr.from(y0);
      const outs: Float64Array[] = [];
      for (const workers of [1, 3]) {
        const rt = await createRuntime({ backend: 'cpu', workers });
        runtimes.push(rt);
        const M = rt.upload(A, { format: 'keep' });
        outs.push(Float64Array.from(await rt.spmv(M, xr, { alpha: 1.5, beta: -0.5, y: Arr.from(yr) })));
      }
      const ref = referenceSpmv(csrTriplets(A), xr, yr, 1.5, -0.5);
      expect(checkAgainst(outs[0], ref, dtype === 'f32' ? 'single' : 'double', false)).toBeNull();
      for (let i = 0; i < A.rows; i++) if (!Object.is(outs[0][i], outs[1][i])) expect.fail(`y[${i}]: ${outs[0][i]} on 1 worker, ${outs[1][i]} on 3`);
      // op = T runs on the CSR of Aᵀ (its x, A.rows elements, stays under the tiles threshold): still right
      const rt = runtimes[runtimes.length - 1];
      const xt = Arr.from(y0);
      const yt = Float64Array.from(await rt.spmv(rt.upload(A, { format: 'keep' }), xt, { op: 'T', alpha: 2 }));
      const refT = referenceSpmv(csrTriplets(A), xt, null, 2, 0, 'T');
      expect(checkAgainst(yt, refT, dtype === 'f32' ? 'single' : 'double', false)).toBeNull();
    });
  }
});

// the kernel on every shared matrix, in tiles small enough that each matrix spans many bands and tiles
for (const flavor of ['simd', 'plain'] as const) {
  describe(`tiles kernel on the shared matrices (${flavor})`, () => {
    for (const name of sharedMatrixNames()) {
      it(name, async () => {
        const h = await makeHarness(flavor);
        const base = loadShared(name);
        for (const dtype of ['f64', 'f32'] as const) {
          const Arr = dtype === 'f32' ? Float32Array : Float64Array;
          // tiles are real-only: a complex matrix is tested through its real part (the same structure)
          const A = isComplex(base.dtype)
            ? new CSRMatrix(base.rows, base.cols, dtype, base.rowPtr, base.colIdx, new Arr(base.nnz).map((_, k) => base.values[2 * k]))
            : base.astype(dtype);
          const x = new Arr(A.cols).map((_, i) => Math.sin(i + 1));
          const y0 = new Arr(A.rows).map((_, i) => Math.cos(i));
          const ref = referenceSpmv(csrTriplets(A), x, y0, 0.75, 2);
          for (const shape of [{ R: 64, W: 128 }, { R: 1000, W: 3000 }]) {
            const T = cacheTiles(A, shape);
            const regs = [T.bandPtr, T.tilePtr, T.tileCol, T.rc, T.values, x].map((a) => h.put(a));
            const y = h.put(y0), work = h.zeros(A.rows * Arr.BYTES_PER_ELEMENT + 8);
            const [bp, tp, tc, rc, val, xp] = regs.map((r) => r.ptr);
            h.kernel(`tiles_${dtype}`)(bp, tp, tc, rc, val, xp, y.ptr, work.ptr, shape.R, shape.W, A.rows, A.cols, 1, 0.75, 2, 0, T.bands);
            const got = h.get(y, dtype, A.rows);
            expect(checkAgainst(got, ref, dtype === 'f32' ? 'single' : 'double', false), `${name} ${dtype} ${shape.R}×${shape.W}`).toBeNull();
            disposeAll(...regs, y, work);
          }
        }
      });
    }
  });
}
