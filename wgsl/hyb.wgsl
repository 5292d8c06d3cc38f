// HYB SpMV, one thread per row: the ELL part (ell_part.wgsl) plus the row's run of the COO remainder,
// kept as CSR over all rows (bindings 5-7: rest_ptr, rest_col, rest_val; rows sorted on upload).
// dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "ell_part.wgsl"
#include "row_entries.wgsl"

@group(0) @binding(5) var<storage, read> rest_ptr: array<u32>;
@group(0) @binding(6) var<storage, read> rest_col: array<u32>;
@group(0) @binding(7) var<storage, read> rest_val: array<E>;

fn row(i: u32) -> E {
  var acc = ell_row(i);
  let end = rest_ptr[i + 1u];
  for (var k = rest_ptr[i]; k < end; k++) {
    acc = e_add(acc, e_mul(e_conj(rest_val[k], P.conj), x[rest_col[k]]));
  }
  let v = finish(acc, i);
  y[i] = v;
  return v;
}
