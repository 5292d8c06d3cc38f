// SELL-C-σ SpMV (Kreutzer et al. 2014), one thread per sorted row position p. Slice s = p / C holds
// C rows column-major from slice_ptr[s]: entry k of position p at slice_ptr[s] + k*C + p % C, so
// the C threads of a slice read C neighbouring slots per step (one coalesced load; C = 32 makes a
// slice one NVIDIA warp, all of whose rows run the same number of steps). Padding (column -1) reads
// x[0] and select drops its product: no branch in the loop. y[perm[p]] gets the row's sum; P.w = 0
// when perm is the identity (σ = 1), then y[p] is written without reading perm. P.m = C.
// dot_main: the same, fused with p^H q (spmv_dot.wgsl).
#include "spmv.wgsl"
#include "spmv_dot.wgsl"

@group(0) @binding(3) var<storage, read> slice_ptr: array<u32>;
@group(0) @binding(4) var<storage, read> sell_col: array<i32>;
@group(0) @binding(5) var<storage, read> sell_val: array<E>;
@group(0) @binding(6) var<storage, read> perm: array<u32>;

// the row of position p, after writing its y; returns conj(x_i)*y_i as a dot term
fn position(p: u32) -> vec4<f32> {
  let s = p / P.m;
  let s0 = slice_ptr[s];
  let width = (slice_ptr[s + 1u] - s0) / P.m;
  var slot = s0 + p % P.m;
  var acc = e_zero();
  for (var k = 0u; k < width; k++) {
    let c = sell_col[slot];
    let v = e_mul(e_conj(sell_val[slot], P.conj), x[u32(max(c, 0))]);
    acc = e_add(acc, select(e_zero(), v, c >= 0));
    slot += P.m;
  }
  var i = p;
  if (P.w != 0u) { i = perm[p]; }
  let v = finish(acc, i);
  y[i] = v;
  return e_dot(x[i], v, -1.0);
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let p = group_index(wid, nwg) * 128u + lid;
  if (p < P.n) { position(p); }
}

@compute @workgroup_size(128)
fn dot_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  var d = vec4<f32>(0.0);
  for (var p = group_index(wid, nwg) * 128u + lid; p < P.n; p += dot_stride(nwg)) { d = q_add(d, position(p)); }
  dot_out(wid, nwg, lid, d);
}
