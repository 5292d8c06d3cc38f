// First pass of dot(x, y) (conj(x).y when P.conj = -1; nrm2 = sqrt(re dot(x, x))): P.k threads in all
// stride over the P.n elements, each workgroup writes one partial (complex double-single) to
// partials[group]; reduce_final sums them.
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> x: array<E>;
@group(0) @binding(2) var<storage, read> y: array<E>;
@group(0) @binding(3) var<storage, read_write> partials: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  var acc = vec4<f32>(0.0);
  for (var i = g * 256u + lid; i < P.n; i += P.k) { acc = q_add(acc, e_dot(x[i], y[i], P.conj)); }
  let s = tree_sum(lid, acc);
  if (lid == 0u) { partials[g] = s; }
}
