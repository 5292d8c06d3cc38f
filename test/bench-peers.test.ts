/** The SpMV benchmark peers compute the same y as the plain JS loop, and the native one skips cleanly without gcc. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mathjsSpmv } from '../bench/peers/mathjs.js';
import { nativeAvailable, nativeCsrSpmv } from '../bench/peers/native.js';
import { thingSparseSpmv } from '../bench/peers/thing-sparse.js';
import type { PeerResult } from '../bench/peers/common.js';
import { jsCsrSpmv } from '../src/host-spmv.js';
import type { CSRMatrix } from '../src/formats/csr.js';
import { randomMatrix } from '../src/generators/random.js';
import { maxRelativeError } from '../src/metrics.js';

const quick = { minMs: 5, minReps: 2 };
const hasGcc = !spawnSync('gcc', ['--version']).error;

function setup(dtype: 'f32' | 'f64', rows = 500, cols = rows) {
  // powerlaw rows: empty rows, long rows, uneven chunks — the cases a partition or a sparse result gets wrong
  const A = randomMatrix({ rows, cols, meanRowLength: 6, distribution: 'powerlaw', seed: 11, dtype });
  const x = dtype === 'f32' ? new Float32Array(cols) : new Float64Array(cols);
  for (let j = 0; j < cols; j++) x[j] = Math.sin(j + 1);
  const ref = new Float64Array(rows);
  jsCsrSpmv(A, x, ref);
  return { A, x, ref };
}

function expectClose(r: PeerResult, A: CSRMatrix, ref: Float64Array, tol: number) {
  if ('skipped' in r) throw new Error(`unexpectedly skipped: ${r.skipped}`);
  expect(r.ms).toBeGreaterThan(0);
  expect(r.y.length).toBe(A.rows);
  expect(maxRelativeError(r.y, ref)).toBeLessThan(tol);
}

describe('native C peer', () => {
  it.skipIf(!hasGcc).each([
    ['f64', 1, 1e-13],
    ['f64', 2, 1e-13],
    ['f64', 3, 1e-13], // more threads than cores: still one nnz-balanced chunk each
    ['f32', 2, 1e-5],
  ] as const)('%s on %i thread(s) matches the JS loop', async (dtype, threads, tol) => {
    const { A, x, ref } = setup(dtype);
    expectClose(await nativeCsrSpmv(A, x, threads, { minMs: 5 }), A, ref, tol);
  });

  it.skipIf(!hasGcc)('handles a rectangular matrix and more threads than rows', async () => {
    const { A, x, ref } = setup('f64', 3, 40);
    expectClose(await nativeCsrSpmv(A, x, 8, { minMs: 1 }), A, ref, 1e-13);
  });

  it('returns { skipped } when gcc is not on PATH', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'simdgl-nogcc-')); // a PATH with no compiler in it
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: empty };
    delete env.SIMDGL_GCC;
    const avail = await nativeAvailable({ env });
    expect(avail).toEqual({ skipped: expect.stringMatching(/^gcc not found/) });
    const { A, x } = setup('f64', 10);
    expect(await nativeCsrSpmv(A, x, 2, { env })).toEqual({ skipped: expect.stringMatching(/^gcc not found/) });
  });

  it('skips complex dtypes', async () => {
    const A = randomMatrix({ rows: 4, dtype: 'c128', seed: 1 });
    expect(await nativeCsrSpmv(A, new Float64Array(8), 1)).toHaveProperty('skipped');
  });
});

describe('@thi.ng/sparse peer', () => {
  it('f64 matches the JS loop', async () => {
    const { A, x, ref } = setup('f64');
    expectClose(await thingSparseSpmv(A, x, quick), A, ref, 1e-14);
  });
  it('skips f32 and non-square', async () => {
    expect(await thingSparseSpmv(setup('f32').A, new Float32Array(500), quick)).toHaveProperty('skipped');
    expect(await thingSparseSpmv(setup('f64', 3, 5).A, new Float64Array(5), quick)).toHaveProperty('skipped');
  });
});

describe('mathjs peer', () => {
  it('f64 matches the JS loop (square and rectangular)', async () => {
    for (const [rows, cols] of [[500, 500], [60, 90]]) {
      const { A, x, ref } = setup('f64', rows, cols);
      expectClose(await mathjsSpmv(A, x, quick), A, ref, 1e-14);
    }
  });
  it('skips f32', async () => {
    expect(await mathjsSpmv(setup('f32').A, new Float32Array(500), quick)).toHaveProperty('skipped');
  });
});
