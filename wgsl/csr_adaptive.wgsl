// Load-balanced CSR SpMV for irregular (power-law) matrices, after CSR-Adaptive (Greathouse & Daga):
// the host cuts the rows into blocks of about the same number of nonzeros (P.m blocks), one workgroup
// each. A block (r0, r1, e0, e1) of several short rows is streamed: the workgroup computes its
// e1 - e0 <= CHUNK products into workgroup memory with coalesced reads, then T = WG / (rows rounded
// up to a power of two) threads per row sum it from there and reduce their T partial sums in
// workgroup memory (the host keeps each row of a block within 16·T entries, so no thread sums a long
// row alone). A block of one long row is reduced by the whole workgroup; a row longer than one block
// is cut into pieces (r1 = -1 - slot) whose sums go to partials[slot], and csr_fixup adds them up.
#include "spmv.wgsl"
#include "csr_part.wgsl"

@group(0) @binding(6) var<storage, read> blocks: array<vec4<i32>>;
@group(0) @binding(7) var<storage, read_write> partials: array<E>;

const WG: u32 = 256u;
const CHUNK: u32 = 1024u;
var<workgroup> sh: array<E, CHUNK>;
var<workgroup> red: array<E, WG>;
var<workgroup> wblk: vec4<i32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= P.m) { return; }
  if (lid == 0u) { wblk = blocks[g]; }
  let b = workgroupUniformLoad(&wblk);
  let e0 = u32(b.z);
  let e1 = u32(b.w);
  if (b.y < 0 || b.y == b.x + 1) {
    var acc = e_zero();
    for (var k = e0 + lid; k < e1; k += WG) { acc = e_add(acc, product(k)); }
    red[lid] = acc;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
      if (lid < s) { red[lid] = e_add(red[lid], red[lid + s]); }
      workgroupBarrier();
    }
    if (lid == 0u) {
      if (b.y < 0) { partials[u32(-1 - b.y)] = red[0]; } else { y[u32(b.x)] = finish(red[0], u32(b.x)); }
    }
  } else {
    for (var k = lid; k < e1 - e0; k += WG) { sh[k] = product(e0 + k); }
    workgroupBarrier();
    let nr = u32(b.y - b.x);
    let t = WG >> (32u - countLeadingZeros(nr - 1u));
    let lane = lid % t;
    let r = u32(b.x) + lid / t;
    var acc = e_zero();
    if (r < u32(b.y)) {
      let end = row_ptr[r + 1u] - e0;
      for (var k = row_ptr[r] - e0 + lane; k < end; k += t) { acc = e_add(acc, sh[k]); }
    }
    if (t > 1u) {
      red[lid] = acc;
      workgroupBarrier();
      for (var s = t / 2u; s > 0u; s >>= 1u) {
        if (lane < s) { red[lid] = e_add(red[lid], red[lid + s]); }
        workgroupBarrier();
      }
      acc = red[lid];
    }
    if (lane == 0u && r < u32(b.y)) { y[r] = finish(acc, r); }
  }
}
