// DIA SpMV (seed 002), one thread per row: A[i, i + off_d] = data[d*pitch + i]. Offsets in a storage
// buffer (binding 3, all diagonals in one dispatch), data binding 4. P.m = diagonals, P.k = pitch,
// P.w = columns. Neighbouring threads read neighbouring data and x: coalesced on every diagonal.
// Branch-free: a column outside the matrix reads a clamped x and select drops its product, so the
// loads of all diagonals can be in flight at once. dot_main: the same, fused with p^H q
// (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "spmv_dot.wgsl"

@group(0) @binding(3) var<storage, read> offsets: array<i32>;
@group(0) @binding(4) var<storage, read> data: array<E>;

fn row(i: u32) -> E {
  let w = i32(P.w);
  var acc = e_zero();
  for (var d = 0u; d < P.m; d++) {
    let c = i32(i) + offsets[d];
    let p = e_mul(e_conj(data[d * P.k + i], P.conj), x[u32(clamp(c, 0, w - 1))]);
    acc = e_add(acc, select(e_zero(), p, (c >= 0) & (c < w)));
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
