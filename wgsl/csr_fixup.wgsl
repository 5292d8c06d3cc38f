// Second pass of csr_adaptive for rows cut into pieces: thread j sums the partials of long row
// fix[j] = (row, first slot, pieces, 0) in order and writes y[row]. P.n = number of such rows.
#include "spmv_out.wgsl"
@group(0) @binding(3) var<storage, read> fix: array<vec4<i32>>;
@group(0) @binding(4) var<storage, read> partials: array<E>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let j = group_index(wid, nwg) * 64u + lid;
  if (j >= P.n) { return; }
  let f = fix[j];
  var acc = e_zero();
  for (var s = f.y; s < f.y + f.z; s++) { acc = e_add(acc, partials[u32(s)]); }
  y[u32(f.x)] = finish(acc, u32(f.x));
}
