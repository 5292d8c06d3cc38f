// DIA SpMV of a real f64 (double-single) matrix whose values are all integers in [-128, 127] (a
// stencil's, a graph Laplacian's): one byte a value (binding 4, four to a word: slot k is byte k % 4 of
// word k / 4), sign-extended and widened on load to (v, 0) — the same value, so the same products as
// dia.wgsl and dia_compact.wgsl from a quarter of dia_compact's value bytes (src/webgpu/spmv.ts). One
// thread per row as dia.wgsl (dia_row.wgsl).
#include "dia_row.wgsl"

@group(0) @binding(4) var<storage, read> data: array<u32>;

fn dia_value(k: u32) -> E {
  let v = bitcast<i32>(data[k >> 2u] << (24u - 8u * (k & 3u))) >> 24u;
  return e_scalar(vec4<f32>(f32(v), 0.0, 0.0, 0.0));
}
