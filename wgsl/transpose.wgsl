// Dense B = A^T (A^H with P.conj = -1), A P.n x P.m row-major: a 16x16 tile goes through workgroup
// memory (one padding column against bank conflicts), so reads and writes are both coalesced.
@group(0) @binding(1) var<storage, read> A: array<E>;
@group(0) @binding(2) var<storage, read_write> B: array<E>;

var<workgroup> tile: array<E, 272>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let rows = P.n;
  let cols = P.m;
  let r = wid.y * 16u + l.y;
  let c = wid.x * 16u + l.x;
  if (r < rows && c < cols) { tile[l.y * 17u + l.x] = e_conj(A[r * cols + c], P.conj); }
  workgroupBarrier();
  let orow = wid.x * 16u + l.y;
  let ocol = wid.y * 16u + l.x;
  if (orow < cols && ocol < rows) { B[orow * rows + ocol] = tile[l.x * 17u + l.y]; }
}
