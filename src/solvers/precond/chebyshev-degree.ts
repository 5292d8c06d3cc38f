/**
 * The degree of rt.solve's Chebyshev polynomial where a GPU path runs CG with the polynomial resident,
 * each step fused into A's SpMV (src/webgpu/cg.ts residentChebyshevCg), chosen from the path's own cost
 * figures rather than a constant tuned for one GPU.
 *
 * A CG iteration there is degree − 1 fused steps (A's SpMV and the three-term update: the SpMV's bytes
 * plus two vectors, one dispatch each) and passes whose number does not depend on the degree: CG's own
 * SpMV with its dot, x/r's update (six vector passes), the polynomial's first step (two), p's update
 * (three) and two scalar kernels — FIXED_VECTOR_PASSES vectors beyond an SpMV, FIXED_DISPATCHES
 * dispatches. CG's iterations on rt.solve's interval [λmax/100, λmax] fall as 1/d + ITERATION_FLOOR:
 * poisson3D(128), f64, degrees 3, 4, 6, 8, 10: 108, 82, 56, 43, 36 iterations, 308·(1/d + 1/60) within
 * one iteration each (bench/device/results-2026-11-28-thirteenth/lead/gpu-degrees). The degree taken
 * minimises (F + (d − 1)·S)·(1/d + ITERATION_FLOOR) over [MIN, MAX]: a GPU whose fixed per-iteration
 * cost (dispatches, dots, scalar steps) is large against an SpMV gets a higher degree, one whose SpMV
 * is dear a lower one.
 */

/** What one product and one vector pass cost on the path, in ms (its SpMV estimate: calibrated or its defaults). */
export interface FusedChebyshevCosts {
  /** A's SpMV kernel (its bytes at the path's rate), without the dispatch */
  spmvMs: number;
  /** one pass over a vector of A's rows (its bytes at the same rate) */
  vectorMs: number;
  /** the fixed cost of one dispatch */
  dispatchMs: number;
}

/** Vector passes of a Chebyshev-CG iteration beyond its own SpMV that do not depend on the degree. */
export const FIXED_VECTOR_PASSES = 11;
/** Dispatches of a Chebyshev-CG iteration that do not depend on the degree. */
export const FIXED_DISPATCHES = 6;
/** Vector passes of a fused step beyond its SpMV's (the step's previous iterate and r). */
export const STEP_VECTOR_PASSES = 2;
/** CG's iterations ∝ 1/d + ITERATION_FLOOR (see the module's comment). */
export const ITERATION_FLOOR = 1 / 60;
/** The degrees measured (3–10 on poisson3D(128)): the choice stays within them. */
export const MIN_FUSED_DEGREE = 3;
export const MAX_FUSED_DEGREE = 10;

/** The model's time of a solve at degree d, up to a factor common to every degree. */
export function fusedChebyshevCost(c: FusedChebyshevCosts, d: number): number {
  const step = c.spmvMs + STEP_VECTOR_PASSES * c.vectorMs + c.dispatchMs;
  const fixed = c.spmvMs + FIXED_VECTOR_PASSES * c.vectorMs + FIXED_DISPATCHES * c.dispatchMs;
  return (fixed + (d - 1) * step) * (1 / d + ITERATION_FLOOR);
}

/** The degree of least fusedChebyshevCost in [MIN_FUSED_DEGREE, MAX_FUSED_DEGREE] (the lower one on a tie), and why in words. */
export function fusedChebyshevDegree(c: FusedChebyshevCosts): { degree: number; why: string } {
  let degree = MIN_FUSED_DEGREE;
  for (let d = MIN_FUSED_DEGREE + 1; d <= MAX_FUSED_DEGREE; d++) if (fusedChebyshevCost(c, d) < fusedChebyshevCost(c, degree)) degree = d;
  const step = c.spmvMs + STEP_VECTOR_PASSES * c.vectorMs + c.dispatchMs;
  const fixed = c.spmvMs + FIXED_VECTOR_PASSES * c.vectorMs + FIXED_DISPATCHES * c.dispatchMs;
  const ms = (v: number) => `${v.toPrecision(2)} ms`;
  const why =
    `degree ${degree}: a CG iteration's fixed passes (its SpMV and dot, updates, scalar steps: ${ms(fixed)}) cost ${(fixed / step).toFixed(2)} fused steps (${ms(step)}) by the path's figures ` +
    `(SpMV ${ms(c.spmvMs)}, a vector pass ${ms(c.vectorMs)}, a dispatch ${ms(c.dispatchMs)}), and CG's iterations fall as 1/degree + 1/60 (poisson3D(128)): degree ${degree} of ${MIN_FUSED_DEGREE}–${MAX_FUSED_DEGREE} costs the least`;
  return { degree, why };
}
