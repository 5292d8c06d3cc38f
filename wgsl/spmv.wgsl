// What the SpMV kernels share: x (binding 1) and the output (spmv_out.wgsl). P.n = output rows.
@group(0) @binding(1) var<storage, read> x: array<E>;
#include "spmv_out.wgsl"
