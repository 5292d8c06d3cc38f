/**
 * Two AMG hierarchies compared bit for bit (Object.is: −0 and NaN bits apart): every level's ρ, D⁻¹, A,
 * P and R, and the coarsest level's solve — for the tests that build one hierarchy on several pool sizes.
 */
import { expect } from 'vitest';
import type { AmgHierarchy } from '../src/solvers/amg/hierarchy.js';
import type { CSRMatrix } from '../src/formats/csr.js';

/** The first place two arrays differ (Object.is: −0 and NaN bits apart), or null. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): string | null {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return `[${i}]: ${a[i]} against ${b[i]}`;
  return null;
}

/** expects g to be h's bits; `what` names the pair in a failure */
export function sameHierarchy(h: AmgHierarchy, g: AmgHierarchy, what: string): void {
  expect(g.levels.length, what).toBe(h.levels.length);
  // the coarsest level's solve: its dense inverse, or its sparse factor
  expect(g.coarse.kind, `${what} coarse`).toBe(h.coarse.kind);
  if (h.coarse.kind === 'dense' && g.coarse.kind === 'dense') expect(firstDifference(h.coarse.inverse, g.coarse.inverse), `${what} coarse inverse`).toBeNull();
  if (h.coarse.kind === 'sparse' && g.coarse.kind === 'sparse') {
    expect(firstDifference(h.coarse.perm, g.coarse.perm), `${what} coarse perm`).toBeNull();
    for (const part of ['rowPtr', 'colIdx', 'values'] as const) expect(firstDifference(h.coarse.L[part], g.coarse.L[part]), `${what} coarse L.${part}`).toBeNull();
  }
  h.levels.forEach((L, l) => {
    const M = g.levels[l];
    expect(M.rho, `${what} level ${l} ρ`).toBe(L.rho);
    expect(firstDifference(L.dinv, M.dinv), `${what} level ${l} D⁻¹`).toBeNull();
    for (const k of ['A', 'P', 'R'] as const) {
      const [X, Y] = [L[k], M[k]] as [CSRMatrix | undefined, CSRMatrix | undefined];
      expect(!X, `${what} level ${l} ${k}`).toBe(!Y);
      if (!X || !Y) continue;
      for (const part of ['rowPtr', 'colIdx', 'values'] as const) expect(firstDifference(X[part], Y[part]), `${what} level ${l} ${k}.${part}`).toBeNull();
    }
  });
}
