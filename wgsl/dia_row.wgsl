// The DIA SpMV row of dia.wgsl, dia_compact.wgsl and dia_i8.wgsl, which differ in how the values are
// stored and so in how a row is summed: the kernel defines row_acc(i), the row's sum of A*x (dia.wgsl:
// over values of E; dia_f32_row.wgsl: over f32 values). A[i, i + off_d] is slot d*pitch + i. Offsets in
// a storage buffer (binding 3, all diagonals in one dispatch). P.m = diagonals, P.k = pitch, P.w =
// columns. Neighbouring threads read neighbouring data and x: coalesced on every diagonal. dot_main: the
// same, fused with p^H q (spmv_dot.wgsl); cheb_main: a Chebyshev step fused with the product
// (spmv_cheb.wgsl).
#include "spmv.wgsl"
#include "row_entries.wgsl"
#include "spmv_cheb.wgsl"

@group(0) @binding(3) var<storage, read> offsets: array<i32>;

fn row(i: u32) -> E {
  let v = finish(row_acc(i), i);
  y[i] = v;
  return v;
}
