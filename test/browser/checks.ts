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
  'long-rows-600',
  'tiny-1x1',
  'tiny-5x3',
] as const;

/** Matrices of data/matrices: real ones run in every dtype (complexified for c64/c128). */
export const SHARED_REAL = ['t1', 'bcsstk01', '494_bus', 'ash219', 'west0479', 'olm1000', 'dwt_992', 'bcsstk13', 'rajat01', 'Groebner_id2003_aug'] as const;
/** Complex matrices of data/matrices: c64 and c128 only. */
export const SHARED_COMPLEX = ['qc324', 'young1c'] as const;

/**
 * The SpMV kernels under test: csr = csr_row, csr_seg = the segmented long-row kernel (forced), sell =
 * SELL-C-σ with the default C and σ (one pass where σ = 1, else the gather pass too), sell_c3 = C = 3,
 * σ = 6 (slices re-laid at 4 lanes on upload, sorted rows: always the gather pass).
 */
export const KERNELS = ['csr', 'csr_seg', 'ell', 'sell', 'sell_c3', 'dia', 'hyb'] as const;
export const GPU_DTYPES = ['f32', 'c64', 'f64', 'c128'] as const;
export const COMPLEX_DTYPES = ['c64', 'c128'] as const;

export type Kernel = (typeof KERNELS)[number];
export type GpuDType = (typeof GPU_DTYPES)[number];

/**
 * The bound asserted for double-single (f64, c128) results, relative to the scale of each output
 * component (|α|·Σ|a||x| + |β|·|y0|, the usual rounding-error scale; a plain |err|/|y| is meaningless
 * where a row sum cancels). Measured on the shared matrices: see the check details.
 */
export const DS_BOUND = 1e-12;

export const BASIC_CHECKS = [
  'capabilities',
  'unavailable has a reason',
  'double-single arithmetic',
  'tiling: limit error',
  'resident data is not re-uploaded',
  'async readback',
  'beta = 0 does not read y',
  'x aliasing y',
  'sell: one pass where positions are rows, a gather pass otherwise',
  'csr auto picks the segmented kernel for long rows',
  'typed errors and dispose',
  'context loss: a pending read rejects',
  'context loss and restore',
  'context loss and restore (canvas element)',
  'in a worker (OffscreenCanvas)',
] as const;

export function dtypeChecks(): string[] {
  return GPU_DTYPES.flatMap((d) => [
    `blas1 ${d}`,
    `dot ${d}`,
    `nrm2 ${d}`,
    `op T/H ${d}`,
    `dia chunked ${d}`,
    ...KERNELS.map((k) => `tiling: ${k} ${d}`),
  ]);
}

export function generatedChecks(): string[] {
  return GENERATED.flatMap((g) => KERNELS.flatMap((k) => GPU_DTYPES.map((d) => `${k} ${d} ${g}`)));
}

export function sharedChecks(): string[] {
  return [
    ...SHARED_REAL.flatMap((m) => KERNELS.flatMap((k) => GPU_DTYPES.map((d) => `${k} ${d} mm:${m}`))),
    ...SHARED_COMPLEX.flatMap((m) => KERNELS.flatMap((k) => COMPLEX_DTYPES.map((d) => `${k} ${d} mm:${m}`))),
  ];
}

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}
