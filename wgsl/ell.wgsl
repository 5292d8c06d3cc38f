// ELL SpMV, one thread per row. dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "ell_part.wgsl"
#include "row_entries.wgsl"

fn row(i: u32) -> E {
  let v = finish(ell_row(i), i);
  y[i] = v;
  return v;
}
