// Dense C = alpha*A + beta*B elementwise (P.n elements); a zero scalar means its operand is not read
// (P.w = 0: alpha is zero, P.use_beta = 0: beta is zero), so NaN there does not leak in.
@group(0) @binding(1) var<storage, read> A: array<E>;
@group(0) @binding(2) var<storage, read> B: array<E>;
@group(0) @binding(3) var<storage, read_write> C: array<E>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  var v = e_zero();
  if (P.w != 0u) { v = e_mul(e_scalar(P.alpha), A[i]); }
  if (P.use_beta != 0u) { v = e_add(v, e_mul(e_scalar(P.beta), B[i])); }
  C[i] = v;
}
