// The values of a DIA matrix stored as f32 (binding 4): dia_compact.wgsl and dia_compact_cheb32.wgsl.
@group(0) @binding(4) var<storage, read> data: array<f32>;

fn dia_f32(k: u32) -> f32 { return data[k]; }
