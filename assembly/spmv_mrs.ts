// MRS (modified row storage, Saad's MSR) SpMV: y[i] = α·(D_i·x[i] + Σ_k val[k]·x[index[k]]) + β·y[i] for
// rows [rowStart, rowEnd); val[0..n) is the diagonal (D_i used only for i < ndiag = min(rows, cols)),
// index[0..n] the row pointers of the off-diagonal part. The off-diagonal part is exactly a CSR row
// (column indices and values share the index/val arrays), so it reuses the CSR row dot products.
import { rowdot_f32, rowdot_f64, rowdot_c64, rowdot_c128, axpby_f32, axpby_f64 } from './complex';

export function mrs_f32(index: usize, val: usize, ndiag: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  const a = <f32>alpha, b = <f32>beta;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const o = <usize>i << 2;
    const k1 = load<i32>(index + o, 4);
    const d: f32 = i < ndiag ? load<f32>(val + o) * load<f32>(x + o) : 0;
    axpby_f32(y + o, d + rowdot_f32(index, val, x, k0, k1), a, b);
    k0 = k1;
  }
}

export function mrs_f64(index: usize, val: usize, ndiag: i32, x: usize, y: usize, alpha: f64, beta: f64, rowStart: i32, rowEnd: i32): void {
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 3;
    const d: f64 = i < ndiag ? load<f64>(val + o) * load<f64>(x + o) : 0;
    axpby_f64(y + o, d + rowdot_f64(index, val, x, k0, k1), alpha, beta);
    k0 = k1;
  }
}

export function mrs_c64(
  index: usize, val: usize, ndiag: i32, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const ar = <f32>alphaRe, ai = <f32>alphaIm, br = <f32>betaRe, bi = <f32>betaIm;
  const sg: f32 = conj ? -1 : 1;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 3;
    let dr: f32 = 0, di: f32 = 0;
    if (i < ndiag) {
      const vr = load<f32>(val + o), vi = sg * load<f32>(val + o, 4);
      const xr = load<f32>(x + o), xi = load<f32>(x + o, 4);
      dr = vr * xr - vi * xi;
      di = vr * xi + vi * xr;
    }
    rowdot_c64(index, val, x, k0, k1, conj, dr, di, y + o, ar, ai, br, bi);
    k0 = k1;
  }
}

export function mrs_c128(
  index: usize, val: usize, ndiag: i32, x: usize, y: usize,
  alphaRe: f64, alphaIm: f64, betaRe: f64, betaIm: f64, conj: i32, rowStart: i32, rowEnd: i32,
): void {
  const sg: f64 = conj ? -1 : 1;
  if (rowStart >= rowEnd) return;
  let k0 = load<i32>(index + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(index + (<usize>i << 2), 4);
    const o = <usize>i << 4;
    let dr: f64 = 0, di: f64 = 0;
    if (i < ndiag) {
      const vr = load<f64>(val + o), vi = sg * load<f64>(val + o, 8);
      const xr = load<f64>(x + o), xi = load<f64>(x + o, 8);
      dr = vr * xr - vi * xi;
      di = vr * xi + vi * xr;
    }
    rowdot_c128(index, val, x, k0, k1, conj, dr, di, y + o, alphaRe, alphaIm, betaRe, betaIm);
    k0 = k1;
  }
}
