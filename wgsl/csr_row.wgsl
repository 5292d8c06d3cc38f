// CSR SpMV, one thread per row (seed 000 kernel 1): for matrices whose rows are short and even.
#include "spmv.wgsl"
#include "csr_part.wgsl"

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 128u + lid;
  if (i >= P.n) { return; }
  var acc = e_zero();
  let end = row_ptr[i + 1u];
  for (var k = row_ptr[i]; k < end; k++) { acc = e_add(acc, product(k)); }
  y[i] = finish(acc, i);
}
