// CSR-vector with subgroup shuffles (where the device offers 'subgroups'): TPR threads per row stride
// through it (coalesced col_idx/vals), then a butterfly of subgroupShuffleXor sums the TPR lanes, no
// workgroup memory and no barrier. Needs TPR <= the subgroup size (the backend checks it) and the
// lanes of a subgroup being consecutive invocations (so the TPR lanes of a row share a subgroup).
#include "spmv.wgsl"
#include "csr_part.wgsl"

override TPR: u32 = 4u;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let lane = lid % TPR;
  let i = group_index(wid, nwg) * (256u / TPR) + lid / TPR;
  var acc = e_zero();
  if (i < P.n) {
    let end = row_ptr[i + 1u];
    for (var k = row_ptr[i] + lane; k < end; k += TPR) { acc = e_add(acc, product(k)); }
  }
  for (var s = TPR / 2u; s > 0u; s >>= 1u) { acc = e_add(acc, subgroupShuffleXor(acc, s)); }
  if (lane == 0u && i < P.n) { y[i] = finish(acc, i); }
}
