// The fused CG step: x = x + alpha*p, r = r - alpha*q and the partials of |r|^2 of the new r, in one
// pass over the four vectors (reduce_final or cg_scalars sums them). P.m = 0: alpha in P.alpha,
// -alpha in P.beta; P.m = 1 (GPU-resident CG, cg_scalars.wgsl): alpha and -alpha in S[4], S[5], and
// nothing is written once the stop flag S[7].x is set.
// jacobi_main (resident CG with the Jacobi preconditioner, P.m = 1): also z = dinv*r (binding 7, the
// inverse diagonal; binding 8, z) and the partials of r^H z after those of |r|^2 (partials[groups + g]).
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> p: array<E>;
@group(0) @binding(2) var<storage, read> q: array<E>;
@group(0) @binding(3) var<storage, read_write> x: array<E>;
@group(0) @binding(4) var<storage, read_write> r: array<E>;
@group(0) @binding(5) var<storage, read_write> partials: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> S: array<vec4<f32>>;

// alpha, -alpha and the element count (0 once the resident solve stopped)
fn coefficients() -> array<E, 2> {
  if (P.m == 1u) { return array<E, 2>(e_scalar(S[4u]), e_scalar(S[5u])); }
  return array<E, 2>(e_scalar(P.alpha), e_scalar(P.beta));
}
fn live_n() -> u32 {
  if (P.m == 1u && S[7u].x != 0.0) { return 0u; }
  return P.n;
}
fn step(i: u32, c: array<E, 2>) -> E {
  x[i] = e_add(x[i], e_mul(c[0], p[i]));
  let ri = e_add(r[i], e_mul(c[1], q[i]));
  r[i] = ri;
  return ri;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  let c = coefficients();
  let n = live_n();
  var acc = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < n; i += P.k) {
    let ri = step(i, c);
    acc = q_add(acc, e_dot(ri, ri, -1.0));
  }
  let s = tree_sum(lid, acc);
  if (lid == 0u) { partials[g] = s; }
}

@group(0) @binding(7) var<storage, read> dinv: array<E>;
@group(0) @binding(8) var<storage, read_write> z: array<E>;

@compute @workgroup_size(256)
fn jacobi_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  let c = coefficients();
  let n = live_n();
  var rr = vec4<f32>(0.0);
  var rz = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < n; i += P.k) {
    let ri = step(i, c);
    let zi = e_mul(dinv[i], ri);
    z[i] = zi;
    rr = q_add(rr, e_dot(ri, ri, -1.0));
    rz = q_add(rz, e_dot(ri, zi, -1.0));
  }
  let s = tree_sum(lid, rr);
  if (lid == 0u) { partials[g] = s; }
  workgroupBarrier();
  let t = tree_sum(lid, rz);
  if (lid == 0u) { partials[nwg.x * nwg.y + g] = t; }
}
