// The DIA SpMV row of dia.wgsl and dia_compact.wgsl, which differ only in how the values are stored:
// the kernel defines fn dia_value(k: u32) -> E, the value in slot k of the data. A[i, i + off_d] =
// value(d*pitch + i). Offsets in a storage buffer (binding 3, all diagonals in one dispatch). P.m =
// diagonals, P.k = pitch, P.w = columns. Neighbouring threads read neighbouring data and x: coalesced
// on every diagonal. Branch-free: a column outside the matrix reads a clamped x and select drops its
// product, so the loads of all diagonals can be in flight at once. dot_main: the same, fused with
// p^H q (spmv_dot.wgsl); cheb_main: a Chebyshev step fused with the product (spmv_cheb.wgsl).
#include "spmv.wgsl"
#include "row_entries.wgsl"
#include "spmv_cheb.wgsl"

@group(0) @binding(3) var<storage, read> offsets: array<i32>;

fn row_acc(i: u32) -> E {
  let w = i32(P.w);
  var acc = e_zero();
  for (var d = 0u; d < P.m; d++) {
    let c = i32(i) + offsets[d];
    let p = e_mul(e_conj(dia_value(d * P.k + i), P.conj), x[u32(clamp(c, 0, w - 1))]);
    acc = e_add(acc, select(e_zero(), p, (c >= 0) & (c < w)));
  }
  return acc;
}

fn row(i: u32) -> E {
  let v = finish(row_acc(i), i);
  y[i] = v;
  return v;
}
