/**
 * The f64 view of an f32 DIA matrix that f32 CG's head runs over (src/cpu/refine.ts wideView): its
 * uniform 4-row groups, flagged by the pool (dia_uniform_groups_f32), are compactUniform's for the same
 * values in f64 (uploadMatrix's flags of a compact f64 copy, tested against their definition in
 * test/dia-compact) — flags, consts, ±0 told apart, none at most half uniform or with a NaN constant —
 * on 1–3 threads and the plain build; disposing the view frees its flags and leaves A usable.
 */
import { describe, expect, it } from 'vitest';
import { wideView } from '../src/cpu/refine.js';
import { compactUniform } from '../src/cpu/spmv-plan.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { bandedMatrix } from './banded.js';
import { cpuBackends, key, SETUPS } from './cpu-setups.js';

const backends = cpuBackends();

/** poisson2D(m) in f32 with the pairs (i, i + 1), i in `at`, set to w (groups that are not uniform). */
function perturbed(m: number, at: number[], w: number): CSRMatrix {
  const P = poisson2D(m).astype('f32');
  const values = Float32Array.from(P.values);
  for (const i of at) for (const [r, c] of [[i, i + 1], [i + 1, i]]) for (let k = P.rowPtr[r]; k < P.rowPtr[r + 1]; k++) if (P.colIdx[k] === c) values[k] = w;
  return new CSRMatrix(P.rows, P.cols, 'f32', P.rowPtr, P.colIdx, values);
}

/** n rows on offsets −7, −1, 0, 1, 7: 4 on the diagonal, −1 off it, offset 7 stored zeros (one −0 at row 201 when sign < 0), and NaN on offset −7 when `nan`. */
function zeros(n: number, sign: number, nan = false): DIAMatrix {
  const A = bandedMatrix(n, [-7, -1, 0, 1, 7], 'f32', (i, o) => (o === 7 ? (i === 201 ? 0 * sign : 0) : o === 0 ? 4 : o === -7 && nan ? NaN : -1));
  return DIAMatrix.fromCSR(A, { maxFill: Infinity });
}

describe('wideView: the uniform groups of an f32 DIA matrix for the f64 head', () => {
  for (const s of SETUPS) {
    it(`flags and constants as compactUniform's of the same values in f64; none where it finds none; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      const cases: [string, DIAMatrix][] = [
        ['poisson3D(32)', DIAMatrix.fromCSR(poisson3D(32).astype('f32'))],
        ['poisson2D(41): rows not a multiple of 4', DIAMatrix.fromCSR(poisson2D(41).astype('f32'))],
        ['perturbed', DIAMatrix.fromCSR(perturbed(40, [85, 86, 300, 1203, 1559], -0.5))],
        ['stored zeros, one −0', zeros(400, -1)],
        ['stored zeros, +0', zeros(400, 1)],
        ['a diagonal of NaN', zeros(400, 1, true)],
        ['poisson3D(14): too few', DIAMatrix.fromCSR(poisson3D(14).astype('f32'))],
        ['1 row: no group', DIAMatrix.fromCSR(poisson2D(1).astype('f32'))],
        ['7 rows: one group', zeros(7, 1)],
      ];
      for (const [name, D] of cases) {
        const D64 = new DIAMatrix(D.rows, D.cols, 'f64', D.offsets, D.pitch, Float64Array.from(D.data));
        const u = compactUniform(D64, new Float32Array(D.data.length));
        const M = B.upload(D);
        const before = Float32Array.from(M.regions.data.view('f32', D.data.length));
        const view = await wideView(B, M);
        try {
          expect(view.matrix.dtype, name).toBe('f64');
          expect(view.matrix.params.uniform === 1, name).toBe(u !== null);
          if (u) {
            expect(Array.from(view.matrix.regions.uni.view('u8', u.flags.length)), name).toEqual(Array.from(u.flags));
            expect(Array.from(view.matrix.regions.consts.view('f64', u.consts.length)), name).toEqual(Array.from(u.consts));
          }
          if (name === 'stored zeros, one −0') expect(Array.from(view.matrix.regions.uni.view('u8', 52).subarray(49, 52))).toEqual([1, 0, 1]);
        } finally {
          view.dispose();
        }
        // A's own values untouched, A still usable after the view's flags are freed
        expect(Array.from(M.regions.data.view('f32', D.data.length)), name).toEqual(Array.from(before));
        expect(M.disposed).toBe(false);
        M.dispose();
      }
    });
  }
});
