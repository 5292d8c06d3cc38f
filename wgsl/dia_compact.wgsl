// DIA SpMV of a real f64 (double-single) matrix whose values are all exactly f32 (a stencil's, a graph
// Laplacian's): the values stored as f32 (binding 4, 4 bytes where E takes 8) and widened on load to
// (v, 0), the same value, so the same products from half the value bytes (src/webgpu/spmv.ts). One
// thread per row as dia.wgsl (dia_row.wgsl).
#include "dia_row.wgsl"

@group(0) @binding(4) var<storage, read> data: array<f32>;

fn dia_value(k: u32) -> E { return e_scalar(vec4<f32>(data[k], 0.0, 0.0, 0.0)); }
