/**
 * Sizes and disposal (the tenth attack pass). A matrix that declares more than the memory can hold is
 * refused from its sizes before any pass over it: rt.solve on an uploaded empty 10⁸×10⁸ matrix took 3 s
 * and 2.9 GB (structure pass, copies) before the WebAssembly memory's own error, method 'direct' ran
 * its symbolic phase into a crash of Node (V8's heap: nested dissection made each of 3·10⁷ isolated
 * nodes a part of its own), `simdgl compare` on a 60-byte file declaring it ran 130 s at 8.3 GB. A
 * resident b disposed before a solve read it was named 'memory region', and A disposed right after
 * the call was solved anyway — its copy on the path made after dispose() and never freed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D } from '../src/generators/poisson.js';
import { DisposedError, MemoryLimitError } from '../src/errors.js';
import { setMemoryBudget } from '../src/memory-budget.js';
import { compare, fileSource, type CompareRow } from '../src/cli/compare.js';
import { denseSolve, toDense, trueResidual } from './solve-reference.js';

/** An n×n matrix with no entries (a size line and nothing else) */
function empty(n: number): CSRMatrix {
  return new CSRMatrix(n, n, 'f64', new Int32Array(n + 1), new Int32Array(0), new Float64Array(0));
}

describe('a declared size the memory cannot hold is refused before any work', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ backend: 'cpu', workers: 1, maxMemoryMB: 64 });
  });
  afterAll(() => rt?.dispose());

  it("rt.solve / rt.cg of 3·10⁶ unknowns in a 64 MiB runtime: MemoryLimitError naming b, x and r; nothing held after", async () => {
    const h = rt.upload(empty(3e6));
    const b = new Float64Array(3e6).fill(1);
    const before = rt.memoryInUse;
    for (const solve of [() => rt.solve(h, b), () => rt.cg(h, b), () => rt.solve(h, b, { method: 'gmres', preconditioner: 'jacobi' })]) {
      const err = await solve().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(MemoryLimitError);
      expect((err as Error).message).toMatch(/^(solve|cg): b, x and r needs at least 69 MiB, over the memory budget of 64 MiB/);
      // a call that throws has changed nothing: no copy of A, no vectors left in the runtime's memory
      expect(rt.memoryInUse).toBe(before);
    }
    h.dispose();
  });

  it("rt.factor: MemoryLimitError naming the symbolic phase, before it runs; rt.solve's method 'direct' refused too", async () => {
    const h = rt.upload(empty(3e6));
    for (const A of [h, empty(3e6)]) {
      const err = await rt.factor(A).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(MemoryLimitError);
      expect((err as Error).message).toMatch(/^factor: 3000000 rows' symbolic phase needs at least 81 MiB, over the memory budget of 64 MiB/);
    }
    await expect(rt.solve(h, new Float64Array(3e6).fill(1), { method: 'direct' })).rejects.toThrow(MemoryLimitError);
    h.dispose();
  });

  it('nested dissection orders isolated nodes among connected parts: the factor solves as dense LU does', async () => {
    // 3000 rows: every third one joined to its neighbours in a path, the others isolated (a diagonal entry only)
    const n = 3000;
    const rows: number[][] = Array.from({ length: n }, () => []);
    const vals: number[][] = Array.from({ length: n }, () => []);
    for (let i = 0; i < n; i++) {
      rows[i].push(i);
      vals[i].push(4 + (i % 7));
      if (i % 3 === 0 && i + 3 < n) {
        rows[i].push(i + 3);
        vals[i].push(-1);
        rows[i + 3].push(i);
        vals[i + 3].push(-1);
      }
    }
    const rowPtr = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i] + rows[i].length;
    const order = rows.map((r) => r.map((c, k) => [c, k]).sort((a, b) => a[0] - b[0]));
    const A = new CSRMatrix(n, n, 'f64', rowPtr, Int32Array.from(order.flatMap((r) => r.map(([c]) => c))), Float64Array.from(order.flatMap((r, i) => r.map(([, k]) => vals[i][k]))));
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
    const F = await rt.factor(A, { ordering: 'nd' });
    expect(F.info.ordering).toBe('nd');
    const x = (await F.solve(b)).x;
    expect(trueResidual(A, x, b)).toBeLessThan(1e-14);
    F.dispose();
    // and a small one against dense LU, isolated nodes first and last
    const small = new CSRMatrix(6, 6, 'f64', Int32Array.of(0, 1, 3, 6, 8, 9, 10), Int32Array.of(0, 1, 2, 1, 2, 3, 2, 3, 4, 5), Float64Array.of(2, 4, -1, -1, 4, -1, -1, 4, 3, 5));
    const bs = Float64Array.of(1, 2, 3, 4, 5, 6);
    const xs = (await (await rt.factor(small, { ordering: 'nd' })).solve(bs)).x;
    const ref = denseSolve(toDense(small).a, bs);
    for (let i = 0; i < 6; i++) expect(xs[i]).toBeCloseTo(ref[i], 14);
  });
});

describe('simdgl compare: a file declaring more than the memory can hold', () => {
  afterAll(() => setMemoryBudget(undefined));

  it('4·10⁶ empty rows under a 64 MiB budget: refused from sizes at once (MemoryLimitError naming the file), nothing timed', { timeout: 60000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdgl-attack10-'));
    const file = join(dir, 'empty.mtx');
    writeFileSync(file, '%%MatrixMarket matrix coordinate real general\n4000000 4000000 0\n');
    setMemoryBudget(64);
    const rows: CompareRow[] = [];
    const run = async () => {
      for await (const row of compare([fileSource(file)], { formats: ['csr', 'ell'], minMs: 1 })) rows.push(row);
    };
    await expect(run()).rejects.toThrow(/^empty: 4000000×4000000 f32: .* take \d+ MiB, over the memory budget of the run \(--max-memory\), 64 MiB$/);
    expect(rows).toEqual([]);
  });

  it('2·10⁵ empty rows under 20 MiB: f32 and f64 run, c64 and c128 are skipped rows saying why', { timeout: 60000 }, async () => {
    setMemoryBudget(20);
    const rows: CompareRow[] = [];
    for await (const row of compare([{ name: 'e', load: () => empty(2e5) }], { formats: ['csr'], minMs: 1 })) rows.push(row);
    for (const row of rows) {
      const what = `${row.format} ${row.dtype} ${row.impl}`;
      if (row.dtype === 'f32' || row.dtype === 'f64') expect(row.skipped, what).toBeUndefined();
      else expect(row.skipped, what).toMatch(/^200000×200000 c(64|128): .* over the memory budget of the run \(--max-memory\), 20 MiB$/);
    }
    expect(new Set(rows.map((r) => r.dtype))).toEqual(new Set(['f32', 'f64', 'c64', 'c128']));
  });

  it('a matrix that fits still runs every row (poisson2D(8), the default budget)', async () => {
    setMemoryBudget(undefined);
    const rows: CompareRow[] = [];
    for await (const row of compare([{ name: 'p8', load: () => poisson2D(8) }], { formats: ['csr'], dtypes: ['f64', 'c128'], minMs: 1 })) rows.push(row);
    expect(rows.filter((r) => r.skipped)).toEqual([]);
    expect(rows.every((r) => r.maxRelError! < 1e-12)).toBe(true);
  });
});

describe('resident operands and A disposed around a solve', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createRuntime({ backend: 'cpu', workers: 1 });
  });
  afterAll(() => rt?.dispose());

  it("b or x0 disposed before the call, or right after it (before the solve read it): DisposedError naming b / x0, not 'memory region'", async () => {
    const h = rt.upload(poisson2D(4));
    const vec = (v: number) => rt.vector(new Float64Array(16).fill(v));
    const gone = vec(1);
    gone.dispose();
    await expect(rt.solve(h, gone)).rejects.toThrow(/^solve: b was used after dispose\(\)$/);
    await expect(rt.cg(h, new Float64Array(16).fill(1), { x0: gone })).rejects.toThrow(/^cg: x0 was used after dispose\(\)$/);
    await expect(rt.spmv(h, gone)).rejects.toThrow(/^spmv: x was used after dispose\(\)$/);
    for (const method of ['cg', 'bicgstab', 'gmres', 'minres'] as const) {
      const b = vec(1);
      const p = rt[method](h, b);
      b.dispose();
      const err = await p.then(() => null, (e: unknown) => e);
      expect(err, method).toBeInstanceOf(DisposedError);
      expect((err as Error).message, method).toBe(`${method}: b was used after dispose()`);
      const x0 = vec(0);
      const q = rt.solve(h, new Float64Array(16).fill(1), { method, x0 });
      x0.dispose();
      await expect(q, method).rejects.toThrow(/^solve: x0 was used after dispose\(\)$/);
    }
    // the runtime solves on
    expect((await rt.cg(h, new Float64Array(16).fill(1))).converged).toBe(true);
    h.dispose();
  });

  it('A disposed right after the call: DisposedError naming A, and no copy of A left behind (it solved, and leaked the copy)', async () => {
    const P = poisson2D(40);
    const b = new Float64Array(P.rows).fill(1);
    const before = rt.memoryInUse;
    for (const method of ['cg', 'gmres'] as const) {
      for (let k = 0; k < 3; k++) {
        const h = rt.upload(P);
        const p = rt.solve(h, b, { method });
        h.dispose();
        await expect(p).rejects.toThrow(/^solve: A \(disposed during the solve\) was used after dispose\(\)$/);
        expect(rt.memoryInUse, `${method}, call ${k}`).toBe(before);
      }
    }
    // the runtime disposed right after the call: said as that
    const other = await createRuntime({ backend: 'cpu', workers: 1 });
    const p = other.cg(other.upload(P), b);
    other.dispose();
    await expect(p).rejects.toThrow(/^runtime was used after dispose\(\)$/);
  });
});
