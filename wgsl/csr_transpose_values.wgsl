// The values of a CSR matrix R known to be the transpose of a CSR matrix Q already on the GPU (an AMG
// level's restriction R = P^T, uploaded with P in one batch: its values, a third of its bytes, are not
// sent again). One thread per row j of R (P.n rows): for each entry k, column i = rc[k], the entry of
// Q's row i in column j is found and its words copied (P.w 32-bit words per element: 1 for f32, 2 for
// an f64 double-single pair or a c64 pair, 4 for c128), bit for bit (integer copies: no f32 load may
// flush a subnormal lo word). Where Q's row i has no column j (R is not Q^T), the value is 0 and
// flags[0] gets bit 2 set: the batch refuses the upload.
@group(0) @binding(1) var<storage, read> rp: array<i32>;
@group(0) @binding(2) var<storage, read> rc: array<i32>;
@group(0) @binding(3) var<storage, read> qp: array<i32>;
@group(0) @binding(4) var<storage, read> qc: array<i32>;
@group(0) @binding(5) var<storage, read> qv: array<u32>;
@group(0) @binding(6) var<storage, read_write> rv: array<u32>;
@group(0) @binding(7) var<storage, read_write> flags: array<atomic<u32>>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let j = group_index(wid, nwg) * 128u + lid;
  if (j >= P.n) { return; }
  let w = P.w;
  for (var k = rp[j]; k < rp[j + 1u]; k++) {
    let i = rc[k];
    var at = -1;
    for (var q = qp[i]; q < qp[i + 1]; q++) {
      if (qc[q] == i32(j)) { at = q; break; }
    }
    if (at < 0) {
      for (var t = 0u; t < w; t++) { rv[u32(k) * w + t] = 0u; }
      atomicOr(&flags[0], 2u);
    } else {
      for (var t = 0u; t < w; t++) { rv[u32(k) * w + t] = qv[u32(at) * w + t]; }
    }
  }
}
