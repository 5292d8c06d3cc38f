// The fused Chebyshev steps of spmv_cheb.wgsl with the polynomial's own vectors in f32, for a real f64
// (double-single) DIA matrix whose values are all exactly f32 (dia_i8_cheb32.wgsl, dia_compact_cheb32.wgsl
// define fn dia_f32(k: u32) -> f32, the value in slot k; src/webgpu/cg.ts residentChebyshevCg). The
// polynomial z = p(D^-1 A) D^-1 r only steers CG's search directions: CG's own SpMV, dots and updates
// stay double-single and rt.solve's residual at the end is f64, so a preconditioner rounded to f32
// (relative 1e-7, far below what it changes) costs CG no accuracy, while the double-single steps were
// bound by their arithmetic (dia_f32_row.wgsl's exact products and sums over every diagonal). Any
// dtype prelude: nothing here reads E.
// Steps: first_main z_1 = c2 * dinv * r; step_main z_{k+1} = z_k + c1*(z_k - z_{k-1}) + c2*dinv*(r - A*z_k)
// over z_{k-1} (binding 10; a thread reads and writes its own rows only); last_main the same into the
// double-single z of CG (binding 14) with the partials of r^H z after as many others as there are
// workgroups (as spmv_cheb.wgsl's last step). P.alpha = c1, P.beta = c2 (their f32 parts); flags in
// P.use_beta: 1 z_{k-1} = 0 (not read), 4 dinv per row (binding 12, double-single; else none is read:
// a constant diagonal's, folded into c2 by the host). P.m diagonals, P.k pitch, P.w columns, offsets
// binding 3. step_main and last_main do nothing once the resident solve stopped (S[7].x, binding 13).
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> zk: array<f32>;
@group(0) @binding(3) var<storage, read> offsets: array<i32>;
@group(0) @binding(9) var<storage, read_write> partials: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> z32: array<f32>;
@group(0) @binding(11) var<storage, read> rds: array<vec2<f32>>;
@group(0) @binding(12) var<storage, read> dinv: array<vec2<f32>>;
@group(0) @binding(13) var<storage, read> cheb_state: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read_write> zds: array<vec2<f32>>;

fn single(v: vec2<f32>) -> f32 { return v.x + v.y; }

// dinv * r at row i, in f32 (flag 4: dinv per row, else 1: folded into c2)
fn scaled_r(i: u32, f: u32, res: f32) -> f32 {
  if ((f & 4u) != 0u) { return single(dinv[i]) * res; }
  return res;
}

// z_{k+1} at row i; a column outside the matrix reads z_k as 0 (a clamped one may be Inf or NaN)
fn step32(i: u32, c1: f32, c2: f32, f: u32) -> f32 {
  let w = i32(P.w);
  var s = 0.0;
  for (var d = 0u; d < P.m; d++) {
    let col = i32(i) + offsets[d];
    s += dia_f32(d * P.k + i) * select(0.0, zk[u32(clamp(col, 0, w - 1))], (col >= 0) & (col < w));
  }
  let z = zk[i];
  var prev = 0.0;
  if ((f & 1u) == 0u) { prev = z32[i]; }
  return z + (c1 * (z - prev) + c2 * scaled_r(i, f, single(rds[i]) - s));
}

fn stride(nwg: vec3<u32>) -> u32 { return nwg.x * nwg.y * 128u; }

@compute @workgroup_size(128)
fn first_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c2 = P.beta.x;
  for (var i = group_index(wid, nwg) * 128u + lid; i < P.n; i += stride(nwg)) {
    z32[i] = c2 * scaled_r(i, P.use_beta, single(rds[i]));
  }
}

@compute @workgroup_size(128)
fn step_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = select(P.n, 0u, cheb_state[7u].x != 0.0);
  for (var i = group_index(wid, nwg) * 128u + lid; i < n; i += stride(nwg)) {
    z32[i] = step32(i, P.alpha.x, P.beta.x, P.use_beta);
  }
}

@compute @workgroup_size(128)
fn last_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = select(P.n, 0u, cheb_state[7u].x != 0.0);
  var rz = vec4<f32>(0.0);
  for (var i = group_index(wid, nwg) * 128u + lid; i < n; i += stride(nwg)) {
    let z = vec2<f32>(step32(i, P.alpha.x, P.beta.x, P.use_beta), 0.0);
    zds[i] = z;
    rz = q_add(rz, vec4<f32>(ds_mul(rds[i], z), 0.0, 0.0));
  }
  let s = tree_sum(lid, rz);
  if (lid == 0u) { partials[nwg.x * nwg.y + group_index(wid, nwg)] = s; }
}
