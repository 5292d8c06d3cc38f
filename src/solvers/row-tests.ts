/**
 * The per-row and per-pair tests of rt.solve's structure passes (structure.ts: over a CSR, a DIA copy,
 * the rows a DIA conversion writes; uniform-structure.ts: a DIA copy's uniform row groups), one rule
 * each: a stencil's row sum and its mirrors are exact only up to rounding, so each test has a relative
 * slack of 1e-12. A module of its own: the pool's start-up chunk takes the uniform pass, the solver
 * set-up's chunk the others.
 */

/**
 * Whether real entries a and its mirror m are equal to 1e-12 relative: |a − m| ≤ 1e-12·max(|a|, |m|),
 * NaN and ±Infinity never (a − m is NaN). Not by squares: beyond |a| ≈ 1e154 they overflow
 * (Infinity ≤ Infinity) and below ≈ 1e-154 underflow (0 ≤ 0), which took any pair for a mirror — a
 * nonsymmetric A·1e160 or A·1e-170 was read as symmetric, and rt.solve ran CG (to maxIter) where
 * GMRES converges.
 */
export function mirrored(a: number, m: number): boolean {
  return Math.abs(a - m) <= 1e-12 * Math.max(Math.abs(a), Math.abs(m));
}

/** Whether a row with diagonal entry d and −Σⱼ≠ᵢ aᵢⱼ = `off` is Laplacian-like: off ≤ d (to 1e-12 relative; NaN passes, as `finite` says). */
export function laplacianRow(d: number, off: number): boolean {
  return !(off > d * (1 + 1e-12));
}

/** Whether a row with |aᵢᵢ| = `dAbs` and Σⱼ≠ᵢ |aᵢⱼ| = `offAbs` is diagonally dominant: dAbs ≥ offAbs (to 1e-12 relative; NaN passes). */
export function dominantRow(dAbs: number, offAbs: number): boolean {
  return !(dAbs < offAbs * (1 - 1e-12));
}
