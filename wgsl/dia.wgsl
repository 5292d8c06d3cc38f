// DIA SpMV (seed 002), one thread per row: A[i, i + off_d] = data[d*pitch + i]. Offsets in a storage
// buffer (binding 3, all diagonals in one dispatch), data binding 4. P.m = diagonals, P.k = pitch,
// P.w = columns. Neighbouring threads read neighbouring data and x: coalesced on every diagonal.
// Branch-free: a column outside the matrix reads a clamped x and select drops its product, so the
// loads of all diagonals can be in flight at once.
#include "spmv.wgsl"

@group(0) @binding(3) var<storage, read> offsets: array<i32>;
@group(0) @binding(4) var<storage, read> data: array<E>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 128u + lid;
  if (i >= P.n) { return; }
  let w = i32(P.w);
  var acc = e_zero();
  for (var d = 0u; d < P.m; d++) {
    let c = i32(i) + offsets[d];
    let p = e_mul(e_conj(data[d * P.k + i], P.conj), x[u32(clamp(c, 0, w - 1))]);
    acc = e_add(acc, select(e_zero(), p, (c >= 0) & (c < w)));
  }
  y[i] = finish(acc, i);
}
