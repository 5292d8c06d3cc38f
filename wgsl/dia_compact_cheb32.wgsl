// The fused Chebyshev steps in f32 (cheb32.wgsl) over a DIA matrix stored as f32 (dia_compact.wgsl).
#include "cheb32.wgsl"
#include "dia_compact_values.wgsl"
