#version 300 es
// y = alpha·A·x + beta·y with A in CSR, f32 (seed 000, kernel 1: one work-item per row).
// One fragment per output texel, i.e. four consecutive rows 4t..4t+3, each a sequential loop over
// its entries. The four rows' entries are contiguous in CSR, so a fragment streams one run of the
// values/colIdx textures. Rows past the matrix have rowPtr = nnz (empty), see encoding.ts.
// Very long rows make a fragment run long (part 2: a split long-row kernel, seed 000 kernel 2).
#include "common.glsl"

uniform highp isampler2DArray u_rowPtr;  // RGBA32I: texel t = rowPtr[4t .. 4t+3], padded with nnz
uniform highp isampler2DArray u_colIdx;  // R32I, entry k at texel k
uniform highp sampler2DArray u_values;   // R32F, entry k at texel k
uniform highp sampler2DArray u_x;        // RGBA32F vector (cols)
uniform highp sampler2DArray u_y;        // RGBA32F vector (rows), read only when beta != 0
uniform int u_rowPtrShift;
uniform int u_entryShift;                // layout of colIdx and values (same length)
uniform int u_xShift;
uniform int u_yShift;
uniform float u_alpha;
uniform float u_beta;

out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  ivec4 a = texelFetch(u_rowPtr, texelAt(t, u_rowPtrShift), 0);
  ivec4 b = ivec4(a.yzw, texelFetch(u_rowPtr, texelAt(t + 1, u_rowPtrShift), 0).x);
  vec4 acc = vec4(0.0);
  for (int r = 0; r < 4; r++) {
    float s = 0.0;
    for (int k = a[r]; k < b[r]; k++) {
      ivec3 e = texelAt(k, u_entryShift);
      float v = texelFetch(u_values, e, 0).r;
      int c = texelFetch(u_colIdx, e, 0).r;
      s += v * elementAt(u_x, u_xShift, c);
    }
    acc[r] = s;
  }
  vec4 y = u_alpha * acc;
  // beta = 0: y is not read at all (BLAS semantics: it may hold NaN)
  if (u_beta != 0.0) y += u_beta * texelFetch(u_y, texelAt(t, u_yShift), 0);
  o_y = maskTail(y, t);
}
