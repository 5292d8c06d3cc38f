// DIA SpMV (seed 002), one thread per row (dia_row.wgsl): the values as E, data binding 4.
#include "dia_row.wgsl"

@group(0) @binding(4) var<storage, read> data: array<E>;

// Branch-free: a column outside the matrix reads a clamped x and select drops its product, so the loads
// of all diagonals can be in flight at once.
fn row_acc(i: u32) -> E {
  let w = i32(P.w);
  var acc = e_zero();
  for (var d = 0u; d < P.m; d++) {
    let c = i32(i) + offsets[d];
    let p = e_mul(e_conj(data[d * P.k + i], P.conj), x[u32(clamp(c, 0, w - 1))]);
    acc = e_add(acc, select(e_zero(), p, (c >= 0) & (c < w)));
  }
  return acc;
}
