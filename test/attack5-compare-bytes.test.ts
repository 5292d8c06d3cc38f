/**
 * Fifth adversarial pass, `simdgl compare`'s bandwidth figure for the CPU rows: the bytes a product
 * streams are those of the CPU path's copy — f64 DIA values that are all exactly f32 kept as f32
 * (src/cpu/spmv-plan.ts) count 4 bytes each, not 8 (poisson3D's DIA f64 GB/s read 1.64× too high);
 * values that are not f32 count 8, and other formats and dtypes are unchanged.
 */
import { describe, expect, it } from 'vitest';
import { compare, type CompareRow } from '../src/cli/compare.js';
import { convert } from '../src/formats/index.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';

/** The bytes a row's figures stand for: GB/s × seconds. */
const bytesOf = (r: CompareRow) => (r as { gbs: number }).gbs * 1e9 * ((r as { kernelMs: number }).kernelMs / 1e3);

describe('compare: bytes of the CPU rows', () => {
  it('DIA f64 of exact-f32 values counts 4 bytes a value; not f32, CSR and f32 DIA as stored', async () => {
    const P = poisson3D(5);
    const off = new CSRMatrix(P.rows, P.cols, 'f64', P.rowPtr, P.colIdx, Float64Array.from(P.values, (v, k) => (k === 0 ? v + 0.1 : v)));
    for (const [name, A, compact] of [['exact', P, true], ['not f32', off, false]] as const) {
      const rows: CompareRow[] = [];
      for await (const r of compare([{ name, load: () => A }], { formats: ['dia', 'csr'], dtypes: ['f64', 'f32'], minMs: 1 })) rows.push(r);
      for (const r of rows.filter((r) => r.impl === 'wasm-simd' || r.impl === 'wasm-plain')) {
        const M = convert(A.astype(r.dtype), r.format as 'dia' | 'csr');
        const eb = r.dtype === 'f64' ? 8 : 4;
        const held = M.format === 'dia' && r.dtype === 'f64' && compact ? M.storageBytes() - 4 * M.data.length : M.storageBytes();
        expect(bytesOf(r) / (held + (A.rows + A.cols) * eb), `${name} ${r.format} ${r.dtype} ${r.impl}`).toBeCloseTo(1, 9);
      }
    }
  });
});
