// The fused CG step: x = x + alpha*p, r = r - alpha*q (P.alpha holds alpha, P.beta holds -alpha) and
// the partials of |r|^2 of the new r, in one pass over the four vectors (reduce_final finishes).
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> p: array<E>;
@group(0) @binding(2) var<storage, read> q: array<E>;
@group(0) @binding(3) var<storage, read_write> x: array<E>;
@group(0) @binding(4) var<storage, read_write> r: array<E>;
@group(0) @binding(5) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  var acc = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < P.n; i += P.k) {
    x[i] = e_add(x[i], e_mul(e_scalar(P.alpha), p[i]));
    let ri = e_add(r[i], e_mul(e_scalar(P.beta), q[i]));
    r[i] = ri;
    acc = q_add(acc, e_dot(ri, ri, -1.0));
  }
  let s = tree_sum(lid, acc);
  if (lid == 0u) { partials[g] = s; }
}
