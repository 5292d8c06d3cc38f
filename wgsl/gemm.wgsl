// Dense C = alpha*A*B + beta*C (row-major, P.n x P.k times P.k x P.m), tiled through workgroup memory
// (seeds 003/004): a 16x16 workgroup computes a 64x64 tile of C, each thread a 4x4 register block
// (rows ty + 16i, columns tx + 16j: shared reads without bank conflicts, coalesced writes); K in
// steps of 8 through the shared tiles As (64x8) and Bs (8x64).
@group(0) @binding(1) var<storage, read> A: array<E>;
@group(0) @binding(2) var<storage, read> B: array<E>;
@group(0) @binding(3) var<storage, read_write> C: array<E>;

const BK: u32 = 8u;
var<workgroup> As: array<E, 512>;
var<workgroup> Bs: array<E, 512>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let M = P.n;
  let K = P.k;
  let N = P.m;
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let tid = l.y * 16u + l.x;
  var acc: array<E, 16>;
  for (var t = 0u; t < 16u; t++) { acc[t] = e_zero(); }
  for (var k0 = 0u; k0 < K; k0 += BK) {
    for (var h = 0u; h < 2u; h++) {
      let e = tid + 256u * h;
      let ar = row0 + e / BK;
      let ak = k0 + e % BK;
      var av = e_zero();
      if (ar < M && ak < K) { av = A[ar * K + ak]; }
      As[e] = av;
      let bk = k0 + e / 64u;
      let bc = col0 + e % 64u;
      var bv = e_zero();
      if (bk < K && bc < N) { bv = B[bk * N + bc]; }
      Bs[e] = bv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk++) {
      var a: array<E, 4>;
      var b: array<E, 4>;
      for (var i = 0u; i < 4u; i++) { a[i] = As[(l.y + 16u * i) * BK + kk]; }
      for (var j = 0u; j < 4u; j++) { b[j] = Bs[kk * 64u + l.x + 16u * j]; }
      for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) { acc[i * 4u + j] = e_add(acc[i * 4u + j], e_mul(a[i], b[j])); }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let r = row0 + l.y + 16u * i;
    for (var j = 0u; j < 4u; j++) {
      let c = col0 + l.x + 16u * j;
      if (r < M && c < N) {
        var v = e_mul(e_scalar(P.alpha), acc[i * 4u + j]);
        if (P.use_beta != 0u) { v = e_add(v, e_mul(e_scalar(P.beta), C[r * N + c])); }
        C[r * N + c] = v;
      }
    }
  }
}
