// DIA SpMV of a real f64 (double-single) matrix whose values are all exactly f32 (a stencil's, a graph
// Laplacian's): the values stored as f32 (binding 4, 4 bytes where E takes 8), the row summed over
// them by dia_f32_row.wgsl (src/webgpu/spmv.ts). One thread per row as dia.wgsl (dia_row.wgsl).
#include "dia_row.wgsl"
#include "dia_f32_row.wgsl"
#include "dia_compact_values.wgsl"

fn dia_prod(v: f32, b: f32) -> vec2<f32> { return two_prod(v, b); }
