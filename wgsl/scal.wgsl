// y = alpha*y; P.w = 1 when alpha is zero: zeros are written by selection, so NaN in y does not
// survive (as on the CPU path). P.n = elements.
@group(0) @binding(2) var<storage, read_write> y: array<E>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  if (P.w != 0u) { y[i] = e_zero(); } else { y[i] = e_mul(e_scalar(P.alpha), y[i]); }
}
