// The fused Chebyshev steps in f32 (cheb32.wgsl) over a DIA matrix stored one byte a value (dia_i8.wgsl).
#include "cheb32.wgsl"
#include "dia_i8_values.wgsl"
