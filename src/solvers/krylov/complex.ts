/** Complex scalars of the Krylov recurrences as [re, im] pairs (real problems carry im = 0). */
export type C = [number, number];

export const abs = (a: C): number => Math.hypot(a[0], a[1]);
export const add = (a: C, b: C): C => [a[0] + b[0], a[1] + b[1]];
export const sub = (a: C, b: C): C => [a[0] - b[0], a[1] - b[1]];
export const neg = (a: C): C => [-a[0], -a[1]];
export const conj = (a: C): C => [a[0], -a[1]];
export const mul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
// a/b through |b|², and by Smith's method where |b|² over- or underflows (from |b| ≈ 1e±145: NaN or 0
// for a finite quotient); in range the textbook formula keeps the rounding as it was (BiCGSTAB on young1c
// c128: 742 iterations, the WebGPU path's 738; by Smith's everywhere 602, off the GPU's by more than the
// 10% test/webgpu-cg allows); a divisor that is not finite gives NaN, as the textbook formula does
export const div = (a: C, b: C): C => {
  if (!(Number.isFinite(b[0]) && Number.isFinite(b[1]))) return [NaN, NaN];
  const d2 = b[0] * b[0] + b[1] * b[1];
  if (d2 > 1e-290 && d2 < 1e290) return [(a[0] * b[0] + a[1] * b[1]) / d2, (a[1] * b[0] - a[0] * b[1]) / d2];
  if (Math.abs(b[1]) <= Math.abs(b[0])) {
    const t = b[1] / b[0];
    const d = b[0] + b[1] * t;
    return [(a[0] + a[1] * t) / d, (a[1] - a[0] * t) / d];
  }
  const t = b[0] / b[1];
  const d = b[0] * t + b[1];
  return [(a[0] * t + a[1]) / d, (a[1] * t - a[0]) / d];
};
