/**
 * Exact residuals for the attack tests: every double taken as an integer times a power of two (BigInt),
 * so ‖b − A·x‖/‖b‖ is computed without rounding at any scale, subnormal and near f64's largest alike
 * (rounded only at the end: a few ulps).
 */
import type { CSRMatrix } from '../src/formats/csr.js';

/** v = m·2^e exactly (v finite). */
export function exact(v: number): [bigint, number] {
  if (v === 0) return [0n, 0];
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, v);
  const hi = dv.getUint32(0);
  const lo = dv.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased > 0) m |= 1n << 52n;
  const e = (biased > 0 ? biased : 1) - 1075;
  return [hi >>> 31 ? -m : m, e];
}

/** A BigInt's magnitude as a double times 2^-shift (shift ≥ 0 drops low bits; the result ≈ |s|/2^shift). */
function scaled(s: bigint, shift: number): number {
  const a = s < 0n ? -s : s;
  return Number(a >> BigInt(shift));
}

/**
 * The exact ‖b − A·x‖₂/‖b‖₂ (real or interleaved complex CSR; x and b finite), the components' squares
 * summed exactly and rounded once at the end; ‖r‖₂ alone where b = 0.
 */
export function exactRelativeResidual(A: CSRMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  const v = A.values;
  // each component of r as terms m·2^e
  const comps: [bigint, number][][] = [];
  for (let i = 0; i < A.rows; i++) {
    for (let part = 0; part < c; part++) {
      const terms: [bigint, number][] = [exact(b[c * i + part])];
      for (let k = A.rowPtr[i]; k < A.rowPtr[i + 1]; k++) {
        const j = A.colIdx[k];
        if (c === 1) terms.push(product(v[k], x[j], -1));
        else if (part === 0) terms.push(product(v[2 * k], x[2 * j], -1), product(v[2 * k + 1], x[2 * j + 1], 1));
        else terms.push(product(v[2 * k], x[2 * j + 1], -1), product(v[2 * k + 1], x[2 * j], -1));
      }
      comps.push(terms);
    }
  }
  const all = comps.flat().filter(([m]) => m !== 0n);
  if (all.length === 0) return 0;
  const e0 = Math.min(...all.map(([, e]) => e));
  const sum = (terms: [bigint, number][]): bigint => terms.reduce((s, [m, e]) => (m === 0n ? s : s + (m << BigInt(e - e0))), 0n);
  let r2 = 0n;
  for (const t of comps) r2 += sum(t) ** 2n;
  let b2 = 0n;
  for (let i = 0; i < b.length; i++) b2 += sum([exact(b[i])]) ** 2n;
  // ‖r‖ and ‖b‖ each from their top 1000 bits (an even shift), the powers of two apart: any ratio kept
  const root = (s2: bigint): [number, number] => {
    const bits = 2 * Math.floor(Math.max(0, s2.toString(2).length - 1000) / 2);
    return [Math.sqrt(scaled(s2, bits)), bits / 2];
  };
  const [r, er] = root(r2);
  if (b2 === 0n) return times2(r, er + e0);
  const [bn, eb] = root(b2);
  return times2(r / bn, er - eb);
}

/** v·2^e, in two factors: e reaches −2148 (products of subnormals), where 2^e alone is 0 */
function times2(v: number, e: number): number {
  const half = Math.trunc(e / 2);
  return v * 2 ** half * 2 ** (e - half);
}

function product(a: number, x: number, sign: 1 | -1): [bigint, number] {
  const [m1, e1] = exact(a);
  const [m2, e2] = exact(x);
  return [BigInt(sign) * m1 * m2, e1 + e2];
}
