// The fused CG step: x = x + alpha*p, r = r - alpha*q and the partials of |r|^2 of the new r, in one
// pass over the four vectors (reduce_final finishes). P.m = 0: alpha in P.alpha, -alpha in P.beta;
// P.m = 1 (GPU-resident CG, cg_scalars.wgsl): alpha and -alpha in S[4], S[5], and nothing is written
// once the stop flag S[7].x is set.
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> p: array<E>;
@group(0) @binding(2) var<storage, read> q: array<E>;
@group(0) @binding(3) var<storage, read_write> x: array<E>;
@group(0) @binding(4) var<storage, read_write> r: array<E>;
@group(0) @binding(5) var<storage, read_write> partials: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> S: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  var alpha = e_scalar(P.alpha);
  var malpha = e_scalar(P.beta);
  var n = P.n;
  if (P.m == 1u) {
    alpha = e_scalar(S[4u]);
    malpha = e_scalar(S[5u]);
    if (S[7u].x != 0.0) { n = 0u; }
  }
  var acc = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < n; i += P.k) {
    x[i] = e_add(x[i], e_mul(alpha, p[i]));
    let ri = e_add(r[i], e_mul(malpha, q[i]));
    r[i] = ri;
    acc = q_add(acc, e_dot(ri, ri, -1.0));
  }
  let s = tree_sum(lid, acc);
  if (lid == 0u) { partials[g] = s; }
}
