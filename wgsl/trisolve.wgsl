// Sparse triangular solve x = T^-1 b (src/webgpu/trisolve.ts), T in CSR (bindings 3-5, the diagonal
// may be stored or not: entries with column == row are skipped) and dinv = 1 / T[i,i] (binding 6; 1
// for a unit diagonal). One thread per row: x[i] = dinv[i] * (b[i] - sum_{j != i} T[i,j] * y[j]).
// main, level-scheduled (P.n rows of one level, listed in rows[P.m ..], binding 7): y = x itself,
//   whose rows of earlier levels the dispatches before have written; one dispatch per level.
// sweep_main, one Jacobi sweep over all P.n rows: y = the previous sweep (binding 8), or 0 when
//   P.w = 1 (the first sweep: x = dinv * b). On a triangular T the sweeps reach the exact solution
//   after as many sweeps as the matrix has levels; fewer give an approximation.
@group(0) @binding(1) var<storage, read> b: array<E>;
@group(0) @binding(2) var<storage, read_write> x: array<E>;
@group(0) @binding(3) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(4) var<storage, read> col_idx: array<u32>;
@group(0) @binding(5) var<storage, read> vals: array<E>;
@group(0) @binding(6) var<storage, read> dinv: array<E>;

@group(0) @binding(7) var<storage, read> rows: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = group_index(wid, nwg) * 128u + lid;
  if (t >= P.n) { return; }
  let i = rows[P.m + t];
  var acc = b[i];
  let end = row_ptr[i + 1u];
  for (var k = row_ptr[i]; k < end; k++) {
    let c = col_idx[k];
    if (c != i) { acc = e_add(acc, -e_mul(vals[k], x[c])); }
  }
  x[i] = e_mul(dinv[i], acc);
}

@group(0) @binding(8) var<storage, read> prev: array<E>;

@compute @workgroup_size(128)
fn sweep_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wid, nwg) * 128u + lid;
  if (i >= P.n) { return; }
  var acc = b[i];
  if (P.w == 0u) {
    let end = row_ptr[i + 1u];
    for (var k = row_ptr[i]; k < end; k++) {
      let c = col_idx[k];
      acc = e_add(acc, select(-e_mul(vals[k], prev[c]), e_zero(), c == i));
    }
  }
  x[i] = e_mul(dinv[i], acc);
}
