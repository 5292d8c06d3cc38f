// The workgroup tree reduction of complex double-single partials (re hi, re lo, im hi, im lo) that
// dot, cg_update and reduce_final share: 256 values in workgroup memory, halved per step; the sum
// ends in red[0]. Double-single all the way, so f32 and c64 sums carry about 48 bits.
var<workgroup> red: array<vec4<f32>, 256>;

fn tree_sum(lid: u32, v: vec4<f32>) -> vec4<f32> {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s >>= 1u) {
    if (lid < s) { red[lid] = q_add(red[lid], red[lid + s]); }
    workgroupBarrier();
  }
  return red[0];
}
