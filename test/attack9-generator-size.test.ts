/**
 * Ninth adversarial pass, the generators on sizes from a tiny call: they allocated before checking
 * anything — poisson2D(1e6) and poisson3D(2000) were a bare RangeError ('Invalid typed array length'),
 * randomMatrix({ rows: 1e9, meanRowLength: 100 }) filled 9 GB over a minute, elasticity2D(1e5) crashed
 * the process out of heap (8 s, 3.6 GB), and randomMatrix's row pointers wrapped past 2³¹ entries. Now a
 * ShapeError where rows or entries pass what 32-bit indices address, else a MemoryLimitError where the
 * bytes they allocate pass the memory budget, before any allocation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { diffusion2D, diffusion3D, elasticity2D, elasticity2DModes, poisson2D, poisson3D, randomMatrix, stokes2D } from '../src/generators/index.js';
import { MemoryLimitError, ShapeError } from '../src/errors.js';
import { setMemoryBudget } from '../src/memory-budget.js';

afterEach(() => setMemoryBudget(undefined));

describe('generator sizes', () => {
  it('rows or entries past 2³¹ − 1: ShapeError naming them, whatever the budget (a bare RangeError, or wrapped row pointers, before)', () => {
    setMemoryBudget(2 ** 40);
    const cases: Array<[string, () => unknown]> = [
      ['poisson2D(1e6)', () => poisson2D(1e6)],
      ['poisson2D(46341)', () => poisson2D(46341)],
      ['poisson2D(30000)', () => poisson2D(30000)],
      ['poisson3D(2000)', () => poisson3D(2000)],
      ['diffusion3D(1300)', () => diffusion3D({ n: 1300 })],
      ['elasticity2D(40000)', () => elasticity2D(40000)],
      ['elasticity2DModes(1e5)', () => elasticity2DModes(1e5)],
      ['stokes2D(12000)', () => stokes2D(12000)],
      ['randomMatrix 3e7 × 100', () => randomMatrix({ rows: 3e7, meanRowLength: 100 })],
      ['randomMatrix 1e9 × 100', () => randomMatrix({ rows: 1e9, meanRowLength: 100 })],
    ];
    for (const [name, make] of cases) expect(make, name).toThrow(/rows and \d+ entries, past the 2³¹ − 1 that 32-bit indices address/);
    for (const [, make] of cases) expect(make).toThrow(ShapeError);
  });

  it('within the index range but past the budget: MemoryLimitError before anything is allocated (allocated, or crashed, before)', () => {
    setMemoryBudget(64);
    const cases: Array<[string, () => unknown]> = [
      ['poisson2D(1500)', () => poisson2D(1500)],
      ['poisson3D(140)', () => poisson3D(140)],
      ['diffusion2D(1500)', () => diffusion2D({ n: 1500 })],
      ['diffusion3D(140)', () => diffusion3D({ n: 140 })],
      ['elasticity2D(300)', () => elasticity2D(300)],
      ['elasticity2DModes(1500)', () => elasticity2DModes(1500)],
      ['stokes2D(600)', () => stokes2D(600)],
      ['randomMatrix 1e6 × 20', () => randomMatrix({ rows: 1e6, meanRowLength: 20 })],
    ];
    for (const [name, make] of cases) expect(make, name).toThrow(MemoryLimitError);
  });

  it('what fits is made as before: sizes and entries of small ones under a small budget', () => {
    setMemoryBudget(64);
    expect([poisson2D(100).rows, poisson2D(100).nnz]).toEqual([10000, 49600]);
    expect(poisson3D(40).rows).toBe(64000);
    expect(randomMatrix({ rows: 20000, meanRowLength: 8, seed: 3 }).rows).toBe(20000);
    expect(elasticity2D(60).rows).toBe(2 * 60 * 61);
    expect(elasticity2DModes(60)[2].length).toBe(2 * 60 * 61);
    expect(stokes2D(60).rows).toBe(2 * 59 * 60 + 60 * 60 - 1);
    // rows × cols past 2³¹ is fine for a sparse matrix: only rows and entries are indexed
    const wide = randomMatrix({ rows: 10, cols: 1e9, meanRowLength: 5 });
    expect([wide.rows, wide.cols]).toEqual([10, 1e9]);
  });
});
