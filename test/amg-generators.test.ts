import { describe, expect, it } from 'vitest';
import { diffusion2D, diffusion3D } from '../src/generators/diffusion.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { OptionError, ShapeError } from '../src/errors.js';
import { solveStructure } from '../src/solvers/structure.js';
import type { CSRMatrix } from '../src/formats/csr.js';

/** the entry (i, j) of a canonical CSR, 0 when not stored */
function at(A: CSRMatrix, i: number, j: number): number {
  for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) if (A.colIdx[k] === j) return A.values[k];
  return 0;
}

describe('diffusion generators', () => {
  it("'constant' is the Poisson matrix, entry for entry", () => {
    for (const [D, P] of [
      [diffusion2D({ n: 9, coefficients: 'constant' }), poisson2D(9)],
      [diffusion3D({ n: 6, coefficients: 'constant' }), poisson3D(6)],
    ]) {
      expect([...D.rowPtr]).toEqual([...P.rowPtr]);
      expect([...D.colIdx]).toEqual([...P.colIdx]);
      expect([...D.values]).toEqual([...P.values]);
    }
  });

  it('jumping: harmonic-mean faces, symmetric M-matrix, the two values of k where the checkerboard says', () => {
    const n = 8;
    const A = diffusion3D({ n, coefficients: 'jumping', contrast: 100, blocks: 2 });
    const s = solveStructure(A);
    expect([s.hermitian, s.positiveDiagonal, s.laplacianLike]).toEqual([true, true, true]);
    const id = (x: number, y: number, z: number) => x + n * (y + n * z);
    // cells (3,0,0) and (4,0,0) lie in blocks of k = 1 and k = 100: the face between them is 2·100/101
    expect(at(A, id(3, 0, 0), id(4, 0, 0))).toBeCloseTo(-200 / 101, 14);
    expect(at(A, id(0, 0, 0), id(1, 0, 0))).toBe(-1);
    expect(at(A, id(4, 0, 0), id(5, 0, 0))).toBe(-100);
    // a corner cell of k = 1: three boundary faces of 1 and three interior faces of 1
    expect(at(A, id(0, 0, 0), id(0, 0, 0))).toBe(6);
  });

  it('anisotropic: the last axis is weighted by the anisotropy; a coefficient function is sampled at cell centres', () => {
    const A = diffusion2D({ n: 5, coefficients: 'anisotropic', anisotropy: 0.01 });
    expect(at(A, 12, 13)).toBe(-1);
    expect(at(A, 12, 17)).toBe(-0.01);
    expect(at(A, 12, 12)).toBeCloseTo(2.02, 14);
    const seen: number[][] = [];
    diffusion2D({ n: 2, coefficients: (x, y) => (seen.push([x, y]), 1) });
    expect(seen).toEqual([[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]);
  });

  it('bad input: typed errors naming what is wrong', () => {
    expect(() => diffusion2D({ n: 0 })).toThrow(ShapeError);
    expect(() => diffusion3D({ n: 4, contrast: -1 })).toThrow(/contrast must be a positive number/);
    expect(() => diffusion3D({ n: 4, blocks: 0 })).toThrow(/blocks must be a positive integer/);
    expect(() => diffusion2D({ n: 4, coefficients: () => 0 })).toThrow(/coefficient at cell 0 is 0/);
    expect(() => diffusion2D({ n: 4, coefficients: 'wavy' as never })).toThrow(/coefficients must be/);
    expect(() => diffusion2D({ n: 4, size: 2 } as never)).toThrow(OptionError);
  });
});
