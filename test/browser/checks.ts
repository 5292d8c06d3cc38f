// The names of the in-page checks, shared by the page (test/browser/page.ts) and the Node side
// (test/browser.test.ts), which turns each into one vitest test. No DOM here.

export const GENERATED = [
  'poisson2D-30',
  'poisson3D-10',
  'random-uniform-2000',
  'random-powerlaw-3000',
  'rect-300x700',
  'rect-701x257',
  'sparse-empty-rows',
  'tiny-1x1',
  'tiny-5x3',
] as const;

/** Real (non-complex) matrices of ../shared/matrices; complex ones wait for c64 (part 2). */
export const SHARED = ['t1', 'bcsstk01', '494_bus', 'ash219', 'west0479', 'olm1000', 'dwt_992', 'bcsstk13', 'rajat01', 'Groebner_id2003_aug'] as const;

export const BASIC_CHECKS = [
  'capabilities',
  'unavailable has a reason',
  'tiling: csr over several layers',
  'tiling: ell over several layers',
  'tiling: limit error',
  'resident data is not re-uploaded',
  'async readback',
  'blas1: axpy aypx scal copy',
  'beta = 0 does not read y',
  'x aliasing y',
  'typed errors and dispose',
  'in a worker (OffscreenCanvas)',
] as const;

export function generatedChecks(): string[] {
  return GENERATED.flatMap((g) => [`csr ${g}`, `ell ${g}`]);
}

export function sharedChecks(): string[] {
  return SHARED.flatMap((m) => [`csr mm:${m}`, `ell mm:${m}`]);
}

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}
