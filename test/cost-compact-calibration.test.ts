/**
 * The CPU's automatic calibration counts the bytes its stencil products stream as the CPU path keeps
 * them: their values are all exactly f32, stored as f32 (src/cpu/spmv-plan.ts), so 4 bytes a value —
 * counted at 8, the rate read about 1.5× high and every estimate of a matrix stored otherwise as much
 * too low. The products' times are set here (CpuPath.timeInline stubbed), so the rates follow from the
 * bytes alone; the bytes are computed from the matrices' own arrays, not by the cost model.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CpuPath } from '../src/cpu/path.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { autoCalibrationCache, beyondCacheRates, CACHE_BYTES } from '../src/runtime/auto-calibration.js';
import { convert, type DIAMatrix, type SparseMatrix } from '../src/formats/index.js';
import { poisson2D } from '../src/generators/poisson.js';

/** set times: the calibration's cached-rate matrix, its tiny one, and the stencil beyond cache */
const MS = { cached: 2, tiny: 0.1, beyond: 40 };
const timed: SparseMatrix[] = [];
const spy = vi.spyOn(CpuPath.prototype, 'timeInline').mockImplementation((A: SparseMatrix) => {
  timed.push(A);
  return A.rows === 256 * 256 ? MS.cached : A.rows <= 8 ? MS.tiny : MS.beyond;
});
afterAll(() => spy.mockRestore());

/** A DIA product's bytes: offsets, the values at 4 bytes where every one is exactly an f32 (else 8), x and y in f64. */
function streamed(D: DIAMatrix): number {
  let f32 = true;
  for (const v of D.data) if (Math.fround(v) !== v) f32 = false;
  expect(f32).toBe(true); // the calibration's stencils: integers
  return 4 * D.offsets.length + D.data.length * 4 + (D.rows + D.cols) * 8;
}

describe('the CPU calibration counts compact DIA values at 4 bytes', () => {
  it('the cached rate and the rate beyond cache', async () => {
    const rt = await createRuntime({ backend: 'cpu', workers: 1 });
    try {
      rt.explain('spmv', poisson2D(600)); // 26 MB as CSR with x and y: the rate beyond cache at octave 25
      const f = [...autoCalibrationCache().entries()].find(([k]) => k.startsWith('cpu:'))![1];
      const cached = timed.find((A) => A.rows === 256 * 256) as DIAMatrix;
      expect(cached.format).toBe('dia');
      expect(f.bandwidthGBs).toBeCloseTo(streamed(cached) / 1e6 / (MS.cached - MS.tiny), 9);
      const stencil = timed.find((A) => A.rows > 256 * 256) as DIAMatrix;
      expect(stencil.format).toBe('dia');
      const past = MS.beyond - CACHE_BYTES / 1e6 / f.bandwidthGBs;
      const memoryGBs = [...beyondCacheRates().values()][0].get(25)!;
      expect(memoryGBs).toBeCloseTo((streamed(stencil) - CACHE_BYTES) / 1e6 / past, 9);
      // the DIA the runtime runs poisson2D(600) in streams its values at 4 bytes too: the estimate's bytes
      const e = rt.explain('spmv', poisson2D(600)).estimates.cpu!;
      expect(e.bytes).toBe(streamed(convert(poisson2D(600), 'dia') as DIAMatrix));
    } finally {
      rt.dispose();
    }
  });
});
