import { isComplex } from '../dtype.js';
import { inverseDiagonal } from '../solvers/precond/jacobi.js';
import type { CpuBackend } from './backend.js';
import type { CpuMatrix, CpuVector } from './resident.js';
import type { Region } from './memory.js';
import { POOL_FLOOR } from './dispatch.js';
import * as blas from './blas1.js';
import { cpuTriangular } from './sptrsv.js';
import type * as Refine from './refine.js';
import { lazyModule } from '../lazy-module.js';
import type { Preconditioner, SolverOps } from '../solvers/ops.js';
import type { SparseMatrix } from '../formats/index.js';
import { ROUND } from '../formats/common.js';

/**
 * The pool's iterative refinement (refine.ts), imported by a page's first solve that refines — every
 * f64 solve to a true residual, an f32 DIA matrix's refined solve: a chunk of its own in a page's bundle
 * (docs/bundlers.md). Once loaded, a refinement starts without an await, keeping its place among the
 * operations started after it.
 */
export const cpuRefinementChunk = lazyModule<typeof Refine>(() => import('./refine.js'), 'the CPU path\'s refinement');
function withRefine<T>(f: (R: typeof Refine) => Promise<T>): Promise<T> {
  return cpuRefinementChunk.loaded() ? f(cpuRefinementChunk.get()) : cpuRefinementChunk.load().then(() => f(cpuRefinementChunk.get()));
}

/** Whether the pool's f32 refinement (refine.ts cpuRefinement) takes A: f32 values in DIA, square. */
export function refinesOnPool(M: CpuMatrix): boolean {
  return M.dtype === 'f32' && M.format === 'dia' && M.rows === M.cols;
}

/**
 * The CPU path's SolverOps: resident vectors in the runtime's memory, operations on the pool.
 * dispose() frees what the ops hold themselves (the Jacobi diagonal).
 */
export function cpuSolverOps(
  B: CpuBackend,
  M: CpuMatrix,
  preconditioner: Preconditioner,
  fused = true,
  host: SparseMatrix = M.host,
): SolverOps<CpuVector> & { dispose(): void } {
  const dt = M.dtype;
  const complex = isComplex(dt);
  const single = dt === 'f32' || dt === 'c64';
  const n = M.rows;
  let dinv: CpuVector | null = null;
  // gramSchmidt's pointers and coefficients
  let table: Region | null = null;
  // D⁻¹'s one value (in the dtype's rounding) when every entry is it (a constant-coefficient stencil;
  // real dtypes): the fused update then reads no vector of it (f64 poisson3D(64), 2 threads: 0.43
  // against 0.50 ms a call)
  let uniform: number | null = null;
  if (preconditioner === 'jacobi') {
    // from the uploaded host matrix (canonical CSR as a rule): M.host may be a DIA or ELL copy, whose
    // conversion back to CSR would cost more than the solve's first iterations. A CSR host is the
    // runtime's validated copy (or the CSR made from it): toCSR's second validation pass cost
    // ≈ 13 ms of every solve of poisson3D(64), and the diagonal needs no sorted rows
    // A DIA copy (a stencil) holds the diagonal as one contiguous run: read there, not from the CSR's entries
    const d = inverseDiagonal(M.host.format === 'dia' ? M.host : host.format === 'csr' ? host : host.toCSR());
    dinv = B.vector(dt, n);
    const dv = dinv.view();
    dv.set(d);
    if (!complex && n > 0) {
      const c = dv[0];
      let i = 1;
      while (i < n && dv[i] === c) i++;
      if (i === n) uniform = c;
    }
  }
  const spmv = (x: CpuVector, y: CpuVector, alpha: number, beta: number): Promise<void> => B.spmv(M, x, y, { alpha: [alpha, 0], beta: [beta, 0], op: 'N' });
  const precondition = dinv ? async (r: CpuVector, z: CpuVector) => void (await B.runVector(`xmy_${dt}`, () => [dinv.ptr, r.ptr, z.ptr], n)) : undefined;
  // the CG kernels over a square DIA matrix, one call each: f64's q ← A·z + β·q then p ← z + β·p
  // (x ← x + α·p first where α ≠ 0; assembly/spmv_dia.ts), f32's pNew ← z + β·p then
  // q = A·pNew (assembly/cg_fused.ts)
  const diaCg = fused && (dt === 'f64' || dt === 'f32') && M.format === 'dia' && M.rows === M.cols;
  // `scale`: z is scale·r, passed as r (the _scaled kernels form z's values on the fly)
  const diaProduct = async (beta: number, z: CpuVector, p: CpuVector, pNew: CpuVector | null, q: CpuVector, x: CpuVector | null, alpha: number, scale?: number) => {
    // f64 values kept as f32 (M.params.compact, src/cpu/spmv-plan.ts): the kernels that widen them
    // (…u: its 4-row groups of constant coefficients flagged, src/cpu/spmv-plan.ts uniformGroups)
    // (f32: …u where A's upload made its blocks' masks, src/cpu/uniform-f32.ts, which say which slots hold their diagonal's constant)
    const uniform = !single && M.params.uniform === 1;
    const masked = single && M.params.masked === 1;
    const kernel = single ? `cg_dia_${dt}${masked ? 'u' : ''}` : `${alpha === 0 ? 'cg_dia_direction' : 'cg_dia_direction_x'}${scale === undefined ? '' : '_scaled'}_${dt}${M.params.compact ? 'f32' : ''}${uniform ? 'u' : ''}`;
    const extra = uniform ? [M.ptr('uni'), M.ptr('consts')] : masked ? [M.ptr('masks'), M.ptr('table')] : [];
    const head = [M.ptr('offsets'), M.params.ndiag, M.ptr('data'), M.params.pitch, n, z.ptr, p.ptr, ...(pNew ? [pNew.ptr] : []), q.ptr, ...extra];
    const tail = scale === undefined ? [beta] : [beta, scale];
    return blas.sumPartials(await B.runReduction(kernel, () => (alpha === 0 ? [...head, ...tail] : [...head, x!.ptr, alpha, ...tail]), n))[0];
  };
  // a finite uniform D⁻¹ = c: the deferred product reads z = c·r from r, and the update stores no z
  // (the out-of-range lanes a product zeroes stay ±0 under c·0 only for finite c): the same bits, a
  // vector's write less an iteration against 7 multiplies more a row — poisson3D(64), 150 iterations on
  // 2 threads, process CPU time paired in one process at load 7–14: 0.93–0.98 of storing z
  const scaledZ = uniform !== null && Number.isFinite(uniform) ? uniform : undefined;
  // cgDeferredX's z = c·r read from r: a uniform Jacobi's c, or 1 without a preconditioner
  const deferredScale = dinv ? scaledZ : 1;
  return {
    n,
    complex,
    label: 'CPU',
    vector: (length = n) => {
      const v = B.vector(dt, length);
      v.view().fill(0);
      return v;
    },
    spmv,
    axpy: async (a, x, y) => void (await blas.axpy(B, a, x, y)),
    aypx: async (a, x, y) => void (await blas.aypx(B, a, x, y)),
    scal: async (a, x) => void (await blas.scal(B, a, x)),
    copy: async (x, y) => void (await blas.copy(B, x, y)),
    dot: (x, y) => blas.dot(B, x, y, true),
    nrm2: (x) => blas.nrm2(B, x),
    precondition,
    preconditionScale: scaledZ !== undefined && scaledZ > 0 ? scaledZ : undefined,
    sequence: (steps, o) => (o.spmv === spmv ? blas.cpuSequence(B, M, o.precondition === precondition ? dinv : (o.precondition ?? null), steps, o) : undefined),
    sequenceNow: (steps, o) => (o.spmv === spmv ? blas.cpuSequenceNow(B, M, o.precondition === precondition ? dinv : (o.precondition ?? null), steps) : undefined),
    // one pass instead of axpy, axpy, nrm2 (bench/cg.ts measures both ways)
    cgUpdate: fused
      ? async (alpha, p, q, x, r) => blas.sumPartials(await B.runReduction(`cg_update_${dt}`, () => [x.ptr, r.ptr, p.ptr, q.ptr, alpha], n))[0]
      : undefined,
    // q ← A·z + β·q by the SpMV, then this: two pool calls where aypx, SpMV and dot were three. Not in
    // f32 / c64: q formed by linearity drifts from A·p there (its two terms nearly cancel on smooth
    // modes) and slows CG: poisson3D(64) with Jacobi to 1e-5, 161 iterations against 122 with q = A·p
    cgDirection: fused && !single ? async (beta, z, p, q) => blas.sumPartials(await B.runReduction(`cg_direction_${dt}`, () => [z.ptr, p.ptr, q.ptr, beta], n))[0] : undefined,
    // f64 on DIA: that SpMV and this pass in one call, tile by tile (assembly/spmv_dia.ts
    // cg_dia_direction_f64), the same values; q's rows are read back from L1
    cgProductDirection: diaCg && !single ? (beta, z, p, q) => diaProduct(beta, z, p, null, q, null, 0) : undefined,
    // f32 on DIA: aypx, SpMV and dot in one call (assembly/cg_fused.ts cg_dia_f32), q = A·p itself:
    // poisson3D(64), 2 threads, 0.56 against 0.89 ms. f64 keeps q ← A·z + β·q (cgDirection), which
    // does not drift there
    cgDirectionProduct: diaCg && single ? (beta, z, po, pn, q) => diaProduct(beta, z, po, pn, q, null, 0) : undefined,
    // and with Jacobi (f64) x ← x + α·p moved into the product call, which reads p anyway: the update
    // then reads neither x nor p. Not in f32: there the update is no lighter for it, and x's read and
    // write slowed the product more (poisson3D(64), 2 threads, load 10–13: the iteration's two calls
    // 0.85 against 0.83 ms, medians of 250)
    // Without a preconditioner the same kernels with c = 1 (z = 1·r = r, rᵀz = ‖r‖²): the update
    // reads r and q, not x, r, p and q — the f32 solve's f64 head on poisson3D(64), 2 threads, 0.64
    // against 0.52 ms a step before (the f64 solve's with its uniform Jacobi)
    cgDeferredX:
      diaCg && !single && (dinv || !precondition)
        ? {
            product: (beta, z, p, q, x, alpha, r) => (deferredScale === undefined ? diaProduct(beta, z, p, null, q, x, alpha) : diaProduct(beta, r, p, null, q, x, alpha, deferredScale)),
            update: async (alpha, q, r, z) =>
              blas.sumPartials(
                await B.runReduction(
                  deferredScale !== undefined ? 'cg_residual_jacobi_scalar_f64' : 'cg_residual_jacobi_f64',
                  () => (deferredScale !== undefined ? [r.ptr, q.ptr, deferredScale, alpha] : [r.ptr, q.ptr, dinv!.ptr, z.ptr, alpha]),
                  n,
                ),
              ),
          }
        : undefined,
    cgUpdatePrecondition:
      fused && dinv && !complex
        ? uniform !== null
          ? async (alpha, p, q, x, r, z) => blas.sumPartials(await B.runReduction(`cg_update_jacobi_scalar_${dt}`, () => [x.ptr, r.ptr, p.ptr, q.ptr, uniform, z.ptr, alpha], n))
          : async (alpha, p, q, x, r, z) => blas.sumPartials(await B.runReduction(`cg_update_jacobi_${dt}`, () => [x.ptr, r.ptr, p.ptr, q.ptr, dinv.ptr, z.ptr, alpha], n))
        : undefined,
    // few products: no cache tiles, whose build costs more than they save over a multigrid cycle's
    // ≈ 15 applications (poisson3D(128)'s R₀, 263 552 × 2 097 152: 164 against 30 ms to upload, and
    // 15.7 against 13.3 ms a product; docs/amg.md 2026-11-27)
    // ROUND: a preconditioner's f64 matrices for an f32 solve round as IEEE does (their tiny residues are noise)
    operator: (A, o) => {
      const R = B.upload(A.astype(dt, ROUND), o?.fewProducts ? false : undefined);
      return {
        apply: (x, y, alpha, beta) => B.spmv(R, x, y, { alpha: [alpha, 0], beta: [beta, 0], op: 'N' }),
        dispose: () => R.dispose(),
      };
    },
    triangular: (T, o) => cpuTriangular(B, T.astype(dt, ROUND), o),
    // x and b − A·x in f64 on the pool, not the host (src/cpu/refine.ts): f64 / c128 in any format,
    // f32 in DIA; undefined otherwise (other f32 / c64 refine on the host). The f32 one offers CG a head
    // of iterations in f64 over the same values (wide: the f64 kernels that widen them)
    refinement: (b, x0, range) =>
      !single ? withRefine((R) => R.cpuRefinementF64(B, M, b, x0, range))
      : refinesOnPool(M) ? withRefine((R) => R.cpuRefinement(B, M, b, x0, fused ? { make: (none) => wideOps(B, M, none ? 'none' : preconditioner, host), precondition } : undefined, range))
      : undefined,
    // GMRES's Gram–Schmidt passes, each one pass over w and V (assembly/gram_schmidt.ts) where a dot and
    // an axpy per vector read w 3·nv times; from the pool's floor: below it a sequence of them runs at
    // once on this thread, awaiting nothing (GMRES(30) + Jacobi, 2 threads: 12 000 rows 44–45 ms against
    // 47–48 fused; 16 384 rows 82–87 against 62–64, 131 072 rows 651–668 against 285–292)
    gramSchmidt: n < POOL_FLOOR ? undefined : (V, w, coeffs, then) => {
      const nv = V.length;
      // a dot or a coefficient is a complex's two f64
      const parts = complex ? 2 : 1;
      return B.runWideReduction(
        `gram_schmidt_${dt}`,
        () => {
          if (!table || table.bytes < 24 * nv) {
            table?.dispose();
            table = B.heap.alloc(24 * Math.max(nv, 32));
          }
          // the pointers, then the coefficients 8-byte aligned after them
          const at = 8 * Math.ceil(nv / 2);
          const ptrs = table.view('i32', nv);
          for (let i = 0; i < nv; i++) ptrs[i] = V[i].ptr;
          if (coeffs) {
            const c = new Float64Array(table.view('u8').buffer, table.ptr + at, parts * nv);
            for (let i = 0; i < nv; i++) for (let j = 0; j < parts; j++) c[parts * i + j] = coeffs[i][j];
          }
          return [table.ptr, nv, w.ptr, coeffs ? table.ptr + at : 0, then === 'dots' ? 1 : then === 'squares' ? 2 : 0];
        },
        n,
        parts * nv,
      ).then((sums) =>
        then === 'dots' ? Array.from({ length: nv }, (_, i): [number, number] => [sums[parts * i], complex ? sums[2 * i + 1] : 0]) : then === 'squares' ? [[sums[0], 0]] : [],
      );
    },
    // one step's way for the whole iteration (CpuBackend.step), per method and kernel family; none below
    // the pool's floor, where every operation runs inline (no key to make an iteration)
    step: n < POOL_FLOOR ? undefined : (key) => B.step(`${key} ${M.format}${M.params.compact ? ' compact' : ''}${M.params.uniform ? ' uniform' : ''} ${dt}${dinv ? ' jacobi' : ''}`, n),
    release: (v) => v.dispose(),
    dispose: () => {
      dinv?.dispose();
      table?.dispose();
    },
  };
}

/** cpuSolverOps in f64 over wideView(M) (an f32 DIA matrix's head of CG iterations, src/cpu/refine.ts). */
async function wideOps(B: CpuBackend, M: CpuMatrix, preconditioner: Preconditioner, host: SparseMatrix): Promise<SolverOps<CpuVector> & { dispose(): void }> {
  return cpuSolverOps(B, cpuRefinementChunk.get().wideView(M), preconditioner, true, host);
}
