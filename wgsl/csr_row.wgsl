// CSR SpMV, one thread per row (seed 000 kernel 1): for matrices whose rows are short and even.
// dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "csr_part.wgsl"
#include "spmv_dot.wgsl"

fn row(i: u32) -> E {
  var acc = e_zero();
  let end = row_ptr[i + 1u];
  for (var k = row_ptr[i]; k < end; k++) { acc = e_add(acc, product(k)); }
  let v = finish(acc, i);
  y[i] = v;
  return v;
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 128u + lid;
  if (i < P.n) { row(i); }
}

@compute @workgroup_size(128)
fn dot_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  var d = vec4<f32>(0.0);
  for (var i = group_index(wid, nwg) * 128u + lid; i < P.n; i += dot_stride(nwg)) { d = q_add(d, e_dot(x[i], row(i), -1.0)); }
  dot_out(wid, nwg, lid, d);
}
