/**
 * The CPU path's grouped CSR layouts (src/cpu/csr-layout.ts) through the runtime: which matrices get
 * i16 offsets from the diagonal ('csr16') or uniform groups over i32 columns ('csrg'), and that their
 * products (CSR op N, CSC op T) match the f64 reference and give the same bits on 1 and 3 workers. The
 * kernels themselves (csr16_* and csrg_* against csr_*, bit for bit, over aligned and cut row ranges,
 * edge-case rows, uniform groups and both ends of the i16 range) are tested in kernels-pointer.test.ts.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { csrLayoutOf, OFFSETS16_MIN_NNZ } from '../src/cpu/csr-layout.js';
import { checkAgainst, referenceSpmv, csrTriplets } from './reference.js';
import { mulberry32 } from './random.js';
import type { CpuMatrix } from '../src/cpu/resident.js';

/** rows × rows, 3 to 6 entries per row at distinct sorted columns within ±band of the diagonal. */
function banded(rows: number, band: number, seed: number): CSRMatrix {
  const r = mulberry32(seed);
  const ptr = new Int32Array(rows + 1);
  const cols: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = new Set<number>();
    const len = 3 + Math.floor(r() * 4);
    while (row.size < len) row.add(Math.min(rows - 1, Math.max(0, i + Math.floor((2 * r() - 1) * band))));
    cols.push(...[...row].sort((a, b) => a - b));
    ptr[i + 1] = cols.length;
  }
  const values = Float64Array.from(cols, () => 2 * r() - 1);
  return new CSRMatrix(rows, rows, 'f64', ptr, Int32Array.from(cols), values);
}

/** A stencil reaching ±33 000 rows (beyond i16): its interior rows all have the same offsets. */
function wideStencil(rows: number, seed: number): CSRMatrix {
  const r = mulberry32(seed);
  const ptr = new Int32Array(rows + 1);
  const cols: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (const d of [-33000, -1, 0, 1, 33000]) if (i + d >= 0 && i + d < rows) cols.push(i + d);
    ptr[i + 1] = cols.length;
  }
  return new CSRMatrix(rows, rows, 'f64', ptr, Int32Array.from(cols), Float64Array.from(cols, () => 2 * r() - 1));
}

/** A copy of A with the first (or last) entry of row i moved to column j (j must keep the row sorted). */
function moved(A: CSRMatrix, i: number, j: number, last: boolean): CSRMatrix {
  const idx = A.colIdx.slice();
  idx[last ? A.rowPtr[i + 1] - 1 : A.rowPtr[i]] = j;
  return new CSRMatrix(A.rows, A.cols, A.dtype, A.rowPtr, idx, A.values);
}

describe('CPU grouped CSR layouts', () => {
  const B = banded(300_000, 2000, 7); // about 1.35 M entries, no uniform group
  const P = poisson3D(64); // 1.8 M entries: most 4-row groups share their offsets
  const W = wideStencil(200_000, 9);
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    for (const rt of runtimes) await rt.dispose();
  });

  it('csr16 within ±32767 of the diagonal when large or mostly uniform, csrg for uniform groups beyond, else plain', () => {
    expect(B.nnz).toBeGreaterThan(OFFSETS16_MIN_NNZ);
    expect(csrLayoutOf(B)).toBe('csr16');
    expect(csrLayoutOf(B.astype('f32'))).toBe('csr16');
    expect(csrLayoutOf(B.astype('c128'))).toBe('plain');
    expect(csrLayoutOf(banded(20_000, 2000, 8))).toBe('plain'); // in cache, no uniform group: nothing to gain
    expect(csrLayoutOf(poisson3D(24))).toBe('csr16'); // small, but most 4-row groups are uniform
    expect(csrLayoutOf(poisson3D(24).astype('c64'))).toBe('plain');
    expect(W.nnz).toBeLessThan(OFFSETS16_MIN_NNZ);
    expect(csrLayoutOf(W)).toBe('csrg');
    expect(csrLayoutOf(W.astype('f32'))).toBe('csrg');
    // the ends of the i16 range, above and below the diagonal
    expect(csrLayoutOf(moved(B, 100_000, 100_000 + 32767, true))).toBe('csr16');
    expect(csrLayoutOf(moved(B, 100_000, 100_000 + 32768, true))).toBe('plain');
    expect(csrLayoutOf(moved(B, 200_000, 200_000 - 32768, false))).toBe('csr16');
    expect(csrLayoutOf(moved(B, 200_000, 200_000 - 32769, false))).toBe('plain');
  });

  for (const dtype of ['f64', 'f32'] as const) {
    for (const [name, base, layout] of [['banded', B, 16], ['poisson3D(64)', P, 16], ['wide stencil', W, 32]] as const) {
      it(`${dtype}, ${name}: CSR and CSC products match the reference, the same bits on 1 and 3 workers; explain says so`, async () => {
        const A = base.astype(dtype) as CSRMatrix;
        const Arr = dtype === 'f32' ? Float32Array : Float64Array;
        const x = new Arr(A.cols).map((_, i) => Math.sin(i));
        const y0 = new Arr(A.rows).map((_, i) => Math.cos(i));
        const prec = dtype === 'f32' ? 'single' : 'double';
        const outs: Float64Array[] = [];
        const outsT: Float64Array[] = [];
        for (const workers of [1, 3]) {
          const rt = await createRuntime({ backend: 'cpu', workers });
          runtimes.push(rt);
          const M = rt.upload(A, { format: 'csr' });
          outs.push(Float64Array.from(await rt.spmv(M, x, { alpha: 1.5, beta: -0.5, y: Arr.from(y0) })));
          const params = (M.copies.get('cpu:csr') as CpuMatrix).params;
          expect(params.grouped).toBe(layout);
          // the stencils' interiors run in uniform groups (4 rows per SIMD step); the random band has none
          if (base === B) expect(params.uniform).toBe(0);
          else expect(params.uniform).toBeGreaterThan(A.rows / 8);
          // Aᵀ's products gather over the CSC's columns, laid out the same way
          const C = rt.upload(A, { format: 'csc' });
          outsT.push(Float64Array.from(await rt.spmv(C, y0, { op: 'T', alpha: 2 })));
          expect((C.copies.get('cpu:csc') as CpuMatrix).params.grouped).toBe(layout);
        }
        expect(checkAgainst(outs[0], referenceSpmv(csrTriplets(A), x, y0, 1.5, -0.5), prec, false)).toBeNull();
        expect(checkAgainst(outsT[0], referenceSpmv(csrTriplets(A), y0, null, 2, 0, 'T'), prec, false)).toBeNull();
        for (let i = 0; i < A.rows; i++) {
          if (!Object.is(outs[0][i], outs[1][i])) expect.fail(`y[${i}]: ${outs[0][i]} on 1 worker, ${outs[1][i]} on 3`);
          if (!Object.is(outsT[0][i], outsT[1][i])) expect.fail(`Aᵀ: y[${i}]: ${outsT[0][i]} on 1 worker, ${outsT[1][i]} on 3`);
        }
        const e = runtimes[0].explain('spmv', A);
        expect(e.features.csrLayout).toBe(layout === 16 ? 'csr16' : 'csrg');
        if (base === B) {
          expect(e.estimates.cpu?.format).toBe('csr');
          expect(JSON.stringify(e)).toMatch(/CSR \(columns as 16-bit offsets from the diagonal, 4 equal stencil rows per SIMD step\)/);
          // a complex matrix keeps plain CSR
          const Z = runtimes[0].upload(B.astype('c128'), { format: 'csr' });
          expect((Z.copies.get('cpu:csr') as CpuMatrix).params.grouped).toBe(0);
        }
      });
    }
  }
});
