/**
 * The f64 view of an f32 DIA matrix that f32 CG's head runs over (src/cpu/refine.ts wideView): its
 * uniform 4-row groups, flagged by the pool (dia_uniform_f32), are compactUniform's for the same
 * values in f64 (uploadMatrix's flags of a compact f64 copy, tested against their definition in
 * test/dia-compact) — flags, consts, ±0 told apart, none at most half uniform or with a NaN constant —
 * on 1–3 threads and the plain build; made at A's upload (src/cpu/uniform-f32.ts) and freed with A. Made in
 * the same pass (dia_uniform_f32), the 16-row blocks' masks of the diagonals that hold their constant
 * in every row, against their definition here; and the f32 CG step over A with those masks
 * (cg_dia_f32u: those rows from the table of constants) against the step over A's slots (cg_dia_f32),
 * pn and q bit for bit, and q against an f64 product written here.
 */
import { describe, expect, it } from 'vitest';
import { wideView } from '../src/cpu/refine.js';
import { CpuMatrix } from '../src/cpu/resident.js';
import { compactUniform } from '../src/cpu/spmv-plan.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { DIAMatrix } from '../src/formats/dia.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { bandedMatrix } from './banded.js';
import { cpuBackends, key, SETUPS } from './cpu-setups.js';
import { cpuSolverOps } from '../src/cpu/solver-ops.js';
import { Prng } from '../src/generators/prng.js';
import { matvec } from './solve-reference.js';
import { kernelsOf } from './kernels-of.js';

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
        const view = wideView(M);
        {
          expect(view.dtype, name).toBe('f64');
          expect(view.params.uniform === 1, name).toBe(u !== null);
          if (u) {
            expect(Array.from(view.regions.uni.view('u8', u.flags.length)), name).toEqual(Array.from(u.flags));
            expect(Array.from(view.regions.consts.view('f64', u.consts.length)), name).toEqual(Array.from(u.consts));
          }
          if (name === 'stored zeros, one −0') expect(Array.from(view.regions.uni.view('u8', 52).subarray(49, 52))).toEqual([1, 0, 1]);
          // the masks (A's own, for the f32 steps): bit d of block b where diagonal d's 16 slots all hold the bits of its constant
          expect(M.params.masked === 1, name).toBe(u !== null);
          if (u) {
            const bits = new Int32Array(Float32Array.from(u.consts).buffer);
            const slots = new Int32Array(Float32Array.from(D.data).buffer);
            const want = Array.from({ length: D.rows >> 4 }, (_, b) => {
              let m = 0;
              for (let d = 0; d < D.offsets.length; d++) {
                let all = true;
                for (let k = 0; k < 16; k++) all &&= slots[d * D.pitch + 16 * b + k] === bits[d];
                if (all) m |= 1 << d;
              }
              return m;
            });
            expect(Array.from(M.regions.masks.view('u8', want.length)), name).toEqual(want);
            expect(Array.from(M.regions.table.view('f32', 16 * D.offsets.length)), name).toEqual(Array.from({ length: 16 * D.offsets.length }, (_, k) => Math.fround(u.consts[k >> 4])));
          }
        }
        // the flags are A's, made at its upload: the view shares A's regions, A's own values untouched, and freed with A
        expect(view.regions, name).toBe(M.regions);
        expect(Array.from(M.regions.data.view('f32', D.data.length)), name).toEqual(Array.from(before));
        const flags = [M.regions.uni, M.regions.consts, M.regions.masks, M.regions.table].filter((r) => r !== undefined);
        M.dispose();
        for (const r of flags) expect(() => r.view('u8', 1), name).toThrow(/after dispose/);
      }
    });
  }
  for (const s of SETUPS) {
    it(`the f32 step over A with its upload's masks (cg_dia_f32u): pn and q bit for bit cg_dia_f32's over A's slots, pnᵀq to f64 rounding, q within f32 sums of the f64 product; ${key(s)}`, async () => {
      const B = backends.get(key(s))!;
      const g = new Prng(5);
      const cases: [string, CSRMatrix][] = [
        // grid lines of 32 rows: whole-uniform blocks, and a line's first and last block with a ±1 diagonal not
        ['poisson3D(32)', poisson3D(32).astype('f32')],
        ['poisson3D(17): rows not a multiple of 4 or 16', poisson3D(17).astype('f32')],
        ['perturbed', perturbed(40, [85, 86, 300, 1203, 1559], -0.5)],
        ['poisson2D(41)', poisson2D(41).astype('f32')],
      ];
      for (const [name, A] of cases) {
        const M = B.upload(DIAMatrix.fromCSR(A));
        expect(M.params.masked, name).toBe(1);
        // A's slots alone: its upload's masks not taken
        const slots = cpuSolverOps(B, new CpuMatrix(M.host, M.regions, { ...M.params, masked: 0 }), 'none');
        const masked = cpuSolverOps(B, M, 'none');
        const n = A.rows;
        const z0 = Float32Array.from({ length: n }, () => g.next() * 2 - 1);
        const po0 = Float32Array.from({ length: n }, () => g.next() * 2 - 1);
        const made: ReturnType<typeof slots.vector>[] = [];
        const vec = (v?: Float32Array) => {
          const h = slots.vector();
          if (v) h.view().set(v);
          made.push(h);
          return h;
        };
        try {
          const [z, po, pn1, q1, pn2, q2] = [vec(z0), vec(po0), vec(), vec(), vec(), vec()];
          const beta = 0.37;
          const pq1 = await slots.cgDirectionProduct!(beta, z, po, pn1, q1);
          const { value: pq2, kernels } = await kernelsOf(B, () => masked.cgDirectionProduct!(beta, z, po, pn2, q2));
          expect([...kernels], name).toContain('cg_dia_f32u');
          expect(Array.from(pn2.view()), name).toEqual(Array.from(pn1.view()));
          expect(Array.from(q2.view()), name).toEqual(Array.from(q1.view()));
          // pnᵀq in f64: the same sum, in another order where the blocks start later (the first row every
          // diagonal covers, or a thread's first row, not a multiple of 16: 289 in poisson3D(17), 10 923
          // on 3 threads); bit for bit where both are
          expect(Math.abs(pq2 - pq1), name).toBeLessThanOrEqual(1e-14 * Math.abs(pq1));
          if (name === 'poisson3D(32)' && s.threads <= 2) expect(pq2, name).toBe(pq1);
          const qRef = matvec(A, Float64Array.from(pn2.view()));
          const qv = q2.view();
          for (let i = 0; i < n; i++) expect(Math.abs(qv[i] - qRef[i]), `${name} row ${i}`).toBeLessThanOrEqual(64 * 2 ** -24 * (1 + Math.abs(qRef[i])));
          // the table is what the masked rows read (the SIMD blocks'; the plain build reads the slots):
          // the main diagonal's constant moved, their q moves
          if (!s.simd) continue;
          const d0 = (M.host as DIAMatrix).offsets.indexOf(0);
          M.regions.table.view('f32', 16 * M.params.ndiag).fill(5, 16 * d0, 16 * d0 + 16);
          await masked.cgDirectionProduct!(beta, z, po, pn2, q2);
          expect(Array.from(q2.view()).some((v, i) => v !== q1.view()[i]), name).toBe(true);
        } finally {
          for (const v of made) v.dispose();
          M.dispose();
        }
      }
    });
  }
});
