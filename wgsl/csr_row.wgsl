// CSR SpMV, one thread per row (seed 000 kernel 1): for matrices whose rows are short and even.
// dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "csr_part.wgsl"
#include "row_entries.wgsl"

fn row(i: u32) -> E {
  var acc = e_zero();
  let end = row_ptr[i + 1u];
  for (var k = row_ptr[i]; k < end; k++) { acc = e_add(acc, product(k)); }
  let v = finish(acc, i);
  y[i] = v;
  return v;
}
