// Second pass of every reduction: one workgroup sums the P.n partials into out[P.m] (several
// reductions can share one result buffer and one read-back).
#include "reduce.wgsl"
@group(0) @binding(1) var<storage, read> partials: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  var acc = vec4<f32>(0.0);
  for (var i = lid; i < P.n; i += 256u) { acc = q_add(acc, partials[i]); }
  let s = tree_sum(lid, acc);
  if (lid == 0u) { out[P.m] = s; }
}
