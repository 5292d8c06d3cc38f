// DIA SpMV of a real f64 (double-single) matrix whose values are all integers in [-128, 127] (a
// stencil's, a graph Laplacian's): one byte a value (binding 4, four to a word: slot k is byte k % 4 of
// word k / 4), sign-extended to f32 on load and the row summed over them by dia_f32_row.wgsl — a
// quarter of dia_compact's value bytes, and a value of at most 8 bits needs no split of its own in
// the exact product (two_prod_short) (src/webgpu/spmv.ts). One thread per row as dia.wgsl
// (dia_row.wgsl).
#include "dia_row.wgsl"
#include "dia_f32_row.wgsl"
#include "dia_i8_values.wgsl"

fn dia_prod(v: f32, b: f32) -> vec2<f32> { return two_prod_short(v, b); }
