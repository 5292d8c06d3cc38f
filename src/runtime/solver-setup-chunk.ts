import { lazyModule } from '../lazy-module.js';
import type { CpuBackend } from '../cpu/backend.js';
import type { CpuSparseSession } from '../cpu/spgemm.js';
import type * as Setup from './solver-setup.js';

/**
 * The solver layer's set-up (solver-setup.ts), imported once, by createRuntime beside the kernels' fetch
 * and compile, and waited for there: a chunk of its own in a page's bundle (docs/bundlers.md), off the
 * page's first script. The methods that answer synchronously (explain('solve'), rt.preconditioner,
 * rt.amg, rt.spgemm, estimateFactorCost) call it through the functions below, which a runtime only
 * reaches once createRuntime has resolved.
 */
export const solverSetup = lazyModule<typeof Setup>(() => import('./solver-setup.js'), "the solver layer's set-up");

export const chooseDirect: typeof Setup.chooseDirect = (...a) => solverSetup.get().chooseDirect(...a);
export const chooseDirectAgain: typeof Setup.chooseDirectAgain = (...a) => solverSetup.get().chooseDirectAgain(...a);
export const planAgain: typeof Setup.planAgain = (...a) => solverSetup.get().planAgain(...a);
export const planAgainAfterMs: typeof Setup.planAgainAfterMs = (...a) => solverSetup.get().planAgainAfterMs(...a);
export const chooseSolve: typeof Setup.chooseSolve = (...a) => solverSetup.get().chooseSolve(...a);
export const factorFitsBudget: typeof Setup.factorFitsBudget = (...a) => solverSetup.get().factorFitsBudget(...a);
export const factorizeAboveCap: typeof Setup.factorizeAboveCap = (...a) => solverSetup.get().factorizeAboveCap(...a);
export const looseNormsOf: typeof Setup.looseNormsOf = (...a) => solverSetup.get().looseNormsOf(...a);
export const fusedChebyshevDegree: typeof Setup.fusedChebyshevDegree = (...a) => solverSetup.get().fusedChebyshevDegree(...a);
export const seedScaledLooseNorms: typeof Setup.seedScaledLooseNorms = (...a) => solverSetup.get().seedScaledLooseNorms(...a);
export const checkPreconditionerOptions: typeof Setup.checkPreconditionerOptions = (...a) => solverSetup.get().checkPreconditionerOptions(...a);
export const planPreconditioner: typeof Setup.planPreconditioner = (...a) => solverSetup.get().planPreconditioner(...a);
export const structuralRefusal: typeof Setup.structuralRefusal = (...a) => solverSetup.get().structuralRefusal(...a);
export const solveStructure: typeof Setup.solveStructure = (...a) => solverSetup.get().solveStructure(...a);
export const diaCopyWithStructure: typeof Setup.diaCopyWithStructure = (...a) => solverSetup.get().diaCopyWithStructure(...a);
export const cpuSymbolicKernels: typeof Setup.cpuSymbolicKernels = (...a) => solverSetup.get().cpuSymbolicKernels(...a);
export const cpuLdlKernels: typeof Setup.cpuLdlKernels = (...a) => solverSetup.get().cpuLdlKernels(...a);
export const sparseProduct: typeof Setup.sparseProduct = (...a) => solverSetup.get().sparseProduct(...a);
export const spgemm: typeof Setup.spgemm = (...a) => solverSetup.get().spgemm(...a);
export const cpuDenseInverse: typeof Setup.cpuDenseInverse = (...a) => solverSetup.get().cpuDenseInverse(...a);
export const estimateFactorCost: typeof Setup.estimateFactorCost = (...a) => solverSetup.get().estimateFactorCost(...a);
export const planFactor: typeof Setup.planFactor = (...a) => solverSetup.get().planFactor(...a);
/** A new SpGEMM session on the CPU path's pool (`new CpuSparseSession(backend)`). */
export const cpuSparseSession = (backend: CpuBackend): CpuSparseSession => new (solverSetup.get().CpuSparseSession)(backend);
