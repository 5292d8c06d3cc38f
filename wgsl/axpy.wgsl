// y = alpha*x + y, one thread per element. P.n = elements.
@group(0) @binding(1) var<storage, read> x: array<E>;
@group(0) @binding(2) var<storage, read_write> y: array<E>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  y[i] = e_add(e_mul(e_scalar(P.alpha), x[i]), y[i]);
}
