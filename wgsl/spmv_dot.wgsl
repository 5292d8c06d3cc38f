// The fused SpMV + dot of the GPU-resident CG (src/webgpu/cg.ts): the `dot_main` entry point of a
// kernel with one thread per output row also sums conj(x_i)*y_i over its workgroup's rows (p^H q when
// y = A*p) into dot_part[group] (binding 9, complex double-single), so no separate pass re-reads p
// and q. A square matrix only (x and y have the same length). The threads stride over the rows
// (dot_stride), so the grid can be capped: the fewer partials, the less the one-workgroup sum of the
// resident solver's scalar kernel has to read.
#include "reduce.wgsl"
@group(0) @binding(9) var<storage, read_write> dot_part: array<vec4<f32>>;

// 128 threads a workgroup, as every row kernel
fn dot_stride(nwg: vec3<u32>) -> u32 { return nwg.x * nwg.y * 128u; }

// Every thread of the workgroup calls it (uniform control flow): v is the thread's term, or zero.
fn dot_out(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, v: vec4<f32>) {
  let s = tree_sum(lid, v);
  if (lid == 0u) { dot_part[group_index(wid, nwg)] = s; }
}
