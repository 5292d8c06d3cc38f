// y = alpha*y + x, one thread per element. P.n = elements. P.m = 1 (GPU-resident solvers,
// scalars.wgsl): alpha is S[P.k], and nothing is written once the stop flag S[7].x is set.
@group(0) @binding(1) var<storage, read> x: array<E>;
@group(0) @binding(2) var<storage, read_write> y: array<E>;
@group(0) @binding(3) var<storage, read> S: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 256u + lid;
  if (i >= P.n) { return; }
  var alpha = P.alpha;
  if (P.m == 1u) {
    if (S[7u].x != 0.0) { return; }
    alpha = S[P.k];
  }
  y[i] = e_add(e_mul(e_scalar(alpha), y[i]), x[i]);
}
