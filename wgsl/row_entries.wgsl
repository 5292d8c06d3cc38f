// The entry points of an SpMV kernel with one thread per output row, written once: main (y = A*x)
// and dot_main (the same, fused with p^H q: spmv_dot.wgsl). The kernel defines fn row(i: u32) -> E,
// which writes y[i] and returns it.
#include "spmv_dot.wgsl"

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
