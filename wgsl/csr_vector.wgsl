// CSR SpMV, TPR threads per row ("CSR-vector"): lanes stride through the row (coalesced reads of
// col_idx/vals), then a tree reduction in workgroup memory. TPR (a power of two, 2..256) is chosen
// per matrix from its mean row length; 256 / TPR rows per workgroup.
#include "spmv.wgsl"
#include "csr_part.wgsl"

override TPR: u32 = 32u;
var<workgroup> part: array<E, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let lane = lid % TPR;
  let i = group_index(wid, nwg) * (256u / TPR) + lid / TPR;
  var acc = e_zero();
  if (i < P.n) {
    let end = row_ptr[i + 1u];
    for (var k = row_ptr[i] + lane; k < end; k += TPR) { acc = e_add(acc, product(k)); }
  }
  part[lid] = acc;
  workgroupBarrier();
  for (var s = TPR / 2u; s > 0u; s >>= 1u) {
    if (lane < s) { part[lid] = e_add(part[lid], part[lid + s]); }
    workgroupBarrier();
  }
  if (lane == 0u && i < P.n) { y[i] = finish(part[lid], i); }
}
