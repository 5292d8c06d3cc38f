/**
 * The supernodal Cholesky over threads: the schedule (supernodalSchedule) checked by replaying it —
 * every supernode once, a thread's run closed under children, every child before its parent, every
 * update matrix in its group's stack and never over one still waiting — and the factorization on 1
 * and 3 threads bit for bit the same, with the same failing column for a matrix that is not positive
 * definite.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../src/runtime/runtime.js';
import { CSRMatrix } from '../src/formats/csr.js';
import { poisson2D, poisson3D } from '../src/generators/poisson.js';
import { elasticity2D } from '../src/generators/elasticity.js';
import { DisposedError, NotPositiveDefiniteError } from '../src/errors.js';
import { planFactor } from '../src/solvers/direct/plan.js';
import { cpuSymbolicKernels } from '../src/cpu/symbolic.js';
import { makeHarness, type Harness } from './kernel-harness.js';
import { supernodalSchedule, supernodalSymbolic, type SupernodalSymbolic } from '../src/solvers/direct/supernodal.js';
import { loadShared } from './matrices.js';
import { matvec } from './solve-reference.js';
import { withRuntimes } from './cpu-setups.js';

/** the symbolic phase's kernels */
let harness: Harness;
beforeAll(async () => {
  harness = await makeHarness('simd');
});

function symbolicOf(A: CSRMatrix, ordering: 'amd' | 'nd'): SupernodalSymbolic {
  const { C, a } = planFactor(A, 'cholesky', ordering, cpuSymbolicKernels(harness));
  return supernodalSymbolic(a.parent, a.counts, a.supernodeStarts, C.colPtr, C.rowIdx, a.perm, a.pinv);
}

/** Fails the test with `what` unless `ok` (one expect per schedule instead of one per supernode). */
function check(ok: boolean, what: string): void {
  if (!ok) expect.fail(`schedule: ${what}`);
}

/** Replays the schedule as the kernels run it (the threads' runs, then the top) and checks it. */
function replay(sym: SupernodalSymbolic, threads: number): { groups: number; top: number } {
  const { parent, super: sup, rowPtr } = sym;
  const ns = parent.length;
  const plan = supernodalSchedule(sym, threads);
  const seen = new Uint8Array(ns);
  for (const s of plan.order) seen[s]++;
  check(seen.every((c) => c === 1), 'every supernode once');
  const u = (s: number) => rowPtr[s + 1] - rowPtr[s] - (sup[s + 1] - sup[s]);
  const done = new Uint8Array(ns);
  // live updates per group: [offset, size, supernode]
  const live: [number, number, number][][] = plan.groups.map(() => []);
  // the pool's bounds (threads + 1 of them, from 0) come first when the tree was split, then the top
  const split = threads > 1 && plan.ranges[0].length === threads + 1;
  if (split) check(plan.ranges[0][0] === 0, 'the pool bounds start at 0');
  const topStart = !split ? 0 : plan.ranges.length === 2 ? plan.ranges[1][0] : ns;
  for (const g of plan.groups) check(g.end > g.start, 'an empty group');
  plan.groups.forEach((g, gi) => {
    for (let p = g.start; p < g.end; p++) {
      const s = plan.order[p];
      check(plan.groupOf[s] === gi, `supernode ${s} not in its group`);
      for (let e = plan.childPtr[s]; e < plan.childPtr[s + 1]; e++) {
        const c = plan.children[e];
        check(parent[c] === s, `${c} listed as a child of ${s}`);
        check(done[c] === 1, `child ${c} after its parent ${s}`);
        // a thread's run holds whole subtrees: its supernodes' children are its own
        if (g.start < topStart) check(plan.groupOf[c] === gi, `child ${c} of ${s} in another thread's run`);
        if (u(c) > 0) {
          const list = live[plan.groupOf[c]];
          const at = list.findIndex((x) => x[2] === c);
          check(at >= 0, `the update of ${c} was not waiting`);
          list.splice(at, 1);
        } else check(plan.updOffset[c] === -1, `${c} has an empty update but a place`);
      }
      done[s] = 1;
      if (parent[s] < 0 || u(s) === 0) {
        check(plan.updOffset[s] === -1, `${s} has no update but a place`);
        continue;
      }
      const off = plan.updOffset[s];
      const size = u(s) ** 2;
      check(off >= 0, `${s} has no place for its update`);
      check(off + size <= g.stack, `the update of ${s} past its group's stack`);
      for (const [o, z] of live[gi]) check(off >= o + z || off + size <= o, `the update of ${s} over one still waiting`);
      live[gi].push([off, size, s]);
      check(rowPtr[s + 1] - rowPtr[s] <= g.front, `the front of ${s} larger than its group's`);
      check(sup[s + 1] - sup[s] <= g.width, `${s} wider than its group's panels`);
    }
  });
  return { groups: plan.groups.length, top: ns - topStart };
}

describe('supernodalSchedule', () => {
  it('replays correctly on 1 to 16 threads; grids split into one run per thread and a small top', () => {
    for (const [A, ordering] of [[poisson2D(60), 'nd'], [elasticity2D(24), 'nd'], [poisson3D(12), 'nd'], [loadShared('bcsstk13'), 'amd'], [poisson2D(30), 'amd']] as const) {
      const sym = symbolicOf(A, ordering);
      for (const threads of [1, 2, 3, 4, 16]) {
        const { groups, top } = replay(sym, threads);
        if (threads === 1) expect(groups).toBe(1);
        else if (ordering === 'nd') {
          // a small tree has too few subtrees worth a thread of their own for 16
          if (threads <= 4) expect(groups).toBe(threads + 1);
          else expect(groups).toBeGreaterThanOrEqual(4);
          expect(top).toBeLessThan(sym.parent.length / 10);
        }
      }
    }
  });
});

describe('factorization on 1 and 3 threads', () => {
  let one: Runtime;
  let three: Runtime;
  withRuntimes([1, 3], (made) => ([one, three] = made));

  it('the same bits, a true residual ≤ 1e-12, and refactor equal to fresh', async () => {
    for (const A of [poisson2D(80), elasticity2D(30), poisson3D(14), loadShared('bcsstk13')]) {
      const b = matvec(A, Float64Array.from({ length: A.rows }, (_, i) => Math.sin(i + 1)));
      const F1 = await one.factor(A, { kind: 'cholesky' });
      const F3 = await three.factor(A, { kind: 'cholesky' });
      expect([F1.info.method, F3.info.method]).toEqual(['supernodal', 'supernodal']);
      const x1 = (await F1.solve(b, { refine: 0 })).x;
      const s3 = await F3.solve(b, { refine: 0 });
      expect(Array.from(s3.x)).toEqual(Array.from(x1));
      expect(s3.relativeResidual).toBeLessThanOrEqual(1e-12);
      await F3.refactor(A);
      expect(Array.from((await F3.solve(b, { refine: 0 })).x)).toEqual(Array.from(x1));
      // disposed, not left to the collector: freed during the next test, they would upset its byte counts
      F1.dispose();
      F3.dispose();
    }
  });

  it('the factor lives in the runtime memory: solves at once are serialized, dispose and refactor free it', async () => {
    const A = poisson2D(60);
    const before = three.cpuBackend.heap.liveBytes;
    const F = await three.factor(A, { kind: 'cholesky' });
    expect(F.info.method).toBe('supernodal');
    const held = three.cpuBackend.heap.liveBytes - before;
    expect(held).toBeGreaterThanOrEqual(8 * F.info.fillNnz);
    const bs = [1, 2, 3].map((s) => matvec(A, Float64Array.from({ length: A.rows }, (_, i) => Math.cos(s * i))));
    const one = [];
    for (const b of bs) one.push(Array.from((await F.solve(b)).x));
    const together = await Promise.all(bs.map((b) => F.solve(b)));
    expect(together.map((r) => Array.from(r.x))).toEqual(one);
    // a refactor queued behind solves waits for them; the old factor's memory is freed
    const [r1, , r2] = await Promise.all([F.solve(bs[0]), F.refactor(A), F.solve(bs[0])]);
    expect(Array.from(r1.x)).toEqual(one[0]);
    expect(Array.from(r2.x)).toEqual(one[0]);
    expect(three.cpuBackend.heap.liveBytes - before).toBe(held);
    const pending = F.solve(bs[1]);
    F.dispose();
    await expect(pending).rejects.toBeInstanceOf(DisposedError);
    expect(three.cpuBackend.heap.liveBytes).toBe(before);
  });

  it('a pivot that is not positive: the same column on every thread count', async () => {
    for (const [A, shift] of [[poisson2D(80), 0.05], [poisson3D(12), 2.7]] as const) {
      const S = new CSRMatrix(A.rows, A.cols, 'f64', A.rowPtr, A.colIdx, A.values.map((v) => (v > 0 ? v - shift : v)));
      const col = async (rt: Runtime) => {
        try {
          await rt.factor(S, { kind: 'cholesky' });
        } catch (e) {
          expect(e).toBeInstanceOf(NotPositiveDefiniteError);
          return (e as NotPositiveDefiniteError).column;
        }
        throw new Error('factorized an indefinite matrix');
      };
      expect(await col(three)).toBe(await col(one));
    }
  });
});
