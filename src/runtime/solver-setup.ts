/**
 * The solver layer's set-up, as the runtime calls it: rt.solve's and explain('solve')'s choice, the
 * structure pass, the preconditioners' host set-up, AMG's set-up and the CPU path's SpGEMM sessions, the
 * direct solvers' symbolic phase. A chunk of its own in a page's bundle, imported by createRuntime beside
 * the kernels and waited for (solver-setup-chunk.ts; docs/bundlers.md says why).
 */
export { chooseDirect, chooseDirectAgain, chooseSolve, directResidualBound, factorFitsBudget, factorizeAboveCap, sampledRowNotDominant, looseNormsOf, planAgain, planAgainAfterMs, seedScaledLooseNorms, seedSymmetricAbsNorms } from '../solvers/solve.js';
export { fusedChebyshevDegree } from '../solvers/precond/chebyshev-degree.js';
export { checkPreconditionerOptions, planPreconditioner, structuralRefusal } from '../solvers/precond/index.js';
export { diaCopyWithStructure, solveStructure } from '../solvers/structure.js';
export { cpuSymbolicKernels } from '../cpu/symbolic.js';
export { cpuLdlKernels } from '../cpu/ldl.js';
export { sparseProduct, spgemm } from '../solvers/amg/spgemm.js';
export { CpuSparseSession } from '../cpu/spgemm.js';
export { cpuDenseInverse } from '../cpu/coarse-inverse.js';
export { estimateFactorCost, firstNonFinite, nonFiniteEntry, planFactor } from '../solvers/direct/plan.js';
// rt.solve's driver (solve-run.ts) reads these here (solverSetup.get()) rather than importing their
// modules: imported by both chunks, esbuild's split put them in chunks of their own that createRuntime
// waited for, a round trip after this one's (docs/bundlers.md)
export { pathLanczosBounds } from '../solvers/precond/chebyshev.js';
export { amgCycleChunk } from '../solvers/amg/cycle-chunk.js';

// The chunks that build on this one are imported from here, so that a bundler knows this chunk's modules
// are loaded before them and leaves them out (webpack copies a module that two chunks of the page's first
// script share into each, where the copies are under its 20 KB split size: the direct solvers' chunk took
// 9.8 KB of the symbolic phase, the Krylov methods 2 KB). Not rt.solve's driver: createRuntime fetches it
// beside this chunk (solve-chunk.ts says why)
export const importDirect = () => import('./direct.js');
export const importKrylov = () => import('../solvers/true-residual.js');
