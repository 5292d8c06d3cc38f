// Shared by every kernel (inlined by scripts/build-shaders.mjs through the dt_*.wgsl preludes).
//
// One parameter block for all kernels, binding 0 of group 0; each kernel says what n, m, k, w mean.
// Storage buffers hold plain arrays of E (dt_*.wgsl), indices as i32. Dispatches are 2-D grids of
// workgroups (at most 65,535 per dimension): group_index() gives the linear workgroup number.
struct Params {
  n: u32,
  m: u32,
  k: u32,
  w: u32,
  alpha: vec4<f32>,  // one element of the dtype, in the order of E
  beta: vec4<f32>,
  one: f32,          // 1.0 and 8193.0: double-single guards, see ds.wgsl
  split: f32,
  conj: f32,         // -1.0: conjugate the matrix values (op = 'H' on complex data), else 1.0
  use_beta: u32,     // 0: beta = 0 and y is not read (it may hold NaN)
}
@group(0) @binding(0) var<uniform> P: Params;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

#include "ds.wgsl"
