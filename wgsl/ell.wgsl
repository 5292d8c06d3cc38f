// ELL SpMV, one thread per row.
#include "spmv.wgsl"
#include "ell_part.wgsl"

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 128u + lid;
  if (i >= P.n) { return; }
  y[i] = finish(ell_row(i), i);
}
