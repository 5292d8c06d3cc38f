/**
 * Fifth adversarial pass, compact f64 DIA storage (src/cpu/spmv-plan.ts: f64 values all exactly f32
 * kept as f32, widened on load): special values that are f32 (±0, f32 subnormals and extremes, ±Inf)
 * give the f64 storage's products bit for bit (sign of zero included); NaN (any payload), f64
 * subnormals and values one f64 ulp off an f32 keep f64 storage; the caller's arrays changed after
 * rt.upload (to values f32 cannot hold) reach nothing; rt.explain('solve') says when the Krylov
 * solve's products read compact values (it said nothing of them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CpuBackend } from '../src/cpu/backend.js';
import { uploadMatrix } from '../src/cpu/spmv-plan.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson3D } from '../src/generators/poisson.js';
import { createRuntime } from '../src/runtime/runtime.js';

let B: CpuBackend;
beforeAll(async () => {
  B = await CpuBackend.create({ threads: 2, inlineThreshold: 0 });
});
afterAll(() => B.dispose());

const F32_SPECIALS = [0, -0, 2 ** -149, -(2 ** -149), 2 ** -126, 3.4028234663852886e38, -3.4028234663852886e38, Infinity, -Infinity, 1, -2.5, 2 ** 60, 2 ** -100];
const NOT_F32 = [NaN, new Float64Array(new BigUint64Array([0x7ff8000000000001n]).buffer)[0], -NaN, 5e-324, 2 ** -150, 1 + 2 ** -52, 3.4028235677973366e38, 0.1];

/** A tridiagonal-plus-band n×n f64 DIA matrix whose values are drawn from `pool` by index. */
function diaOf(n: number, offsets: number[], picks: number[], pool: number[]): DIAMatrix {
  const pitch = n;
  const data = new Float64Array(offsets.length * pitch);
  for (let k = 0; k < data.length; k++) data[k] = pool[picks[k % picks.length] % pool.length];
  return new DIAMatrix(n, n, 'f64', Int32Array.from(offsets), pitch, data);
}

async function product(H: DIAMatrix, compact: boolean, x0: Float64Array) {
  const M = uploadMatrix(B.heap, H, B.threads, 'auto', compact);
  const x = B.vector('f64', H.cols);
  const y = B.vector('f64', H.rows);
  try {
    x.view().set(x0);
    await B.spmv(M, x, y, { alpha: [1, 0], beta: [0, 0], op: 'N' });
    return { compact: M.params.compact === 1, y: Array.from(y.view() as Float64Array) };
  } finally {
    for (const v of [x, y, M]) v.dispose();
  }
}

/** Same bits, NaN included (any NaN equals any NaN: neither path promises a payload). */
const sameBits = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]) || (Number.isNaN(v) && Number.isNaN(b[i])));

describe('compact f64 DIA storage: special values', () => {
  it('property: values all f32 (±0, subnormals, extremes, ±Inf) are kept compact, and the products are the f64 storage’s bit for bit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 70 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.array(fc.double({ noNaN: false }), { minLength: 1, maxLength: 8 }), async (n, picks, xs) => {
        const H = diaOf(n, [-2, -1, 0, 1, 5], picks, F32_SPECIALS);
        const x0 = Float64Array.from({ length: n }, (_, i) => xs[i % xs.length]);
        const [c, f] = [await product(H, true, x0), await product(H, false, x0)];
        expect(c.compact).toBe(true);
        expect(sameBits(c.y, f.y)).toBe(true);
      }),
      { seed: 51, numRuns: 150 },
    );
  });

  it('one NaN (any payload), f64 subnormal or value an ulp off an f32 keeps f64 storage', async () => {
    for (const bad of NOT_F32) {
      const H = diaOf(9, [-1, 0, 1], [1, 4, 9], F32_SPECIALS);
      H.data[13] = bad;
      const x0 = Float64Array.from({ length: 9 }, (_, i) => i - 4);
      const [c, f] = [await product(H, true, x0), await product(H, false, x0)];
      expect(c.compact, String(bad)).toBe(false);
      expect(sameBits(c.y, f.y)).toBe(true);
    }
  });

  it('rt.upload: the caller’s values changed to ones f32 cannot hold after the upload reach nothing', async () => {
    const rt = await createRuntime({ workers: 1, backend: 'cpu' });
    try {
      const A = poisson3D(6);
      const H = DIAMatrix.fromCSR(A);
      const h = rt.upload(H, { format: 'dia' });
      const x = Float64Array.from({ length: A.rows }, (_, i) => (i % 7) - 3);
      const y0 = await rt.spmv(h, x);
      H.data.fill(0.1);
      A.values.fill(0.1);
      expect(Array.from(await rt.spmv(h, x))).toEqual(Array.from(y0));
      expect(rt.explain('spmv', h).reasons.join(' ')).toMatch(/exactly f32/);
    } finally {
      rt.dispose();
    }
  });
});

describe("rt.explain('solve') and compact DIA", () => {
  it('names the compact values where a Krylov solve runs DIA on the CPU, not where its values are not f32 or it factorizes', async () => {
    const rt = await createRuntime({ workers: 1, backend: 'cpu' });
    try {
      const A = poisson3D(10);
      const off = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, Float64Array.from(A.values, (v, k) => (k === 3 ? v + 0.1 : v)));
      const say = (M: CSRMatrix, method?: 'cg' | 'direct') => rt.explain('solve', rt.upload(M, { format: 'dia' }), { method }).text;
      expect(say(A, 'cg')).toMatch(/exactly f32, so DIA keeps them as f32/);
      expect(say(off, 'cg')).not.toMatch(/exactly f32/);
      expect(say(A, 'direct')).not.toMatch(/exactly f32/);
    } finally {
      rt.dispose();
    }
  });
});
