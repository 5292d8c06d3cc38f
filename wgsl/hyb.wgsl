// HYB SpMV, one thread per row: the ELL part (ell_part.wgsl) plus the row's run of the COO remainder,
// kept as CSR over all rows (bindings 5-7: rest_ptr, rest_col, rest_val; rows sorted on upload).
// dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "ell_part.wgsl"
#include "spmv_dot.wgsl"

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
