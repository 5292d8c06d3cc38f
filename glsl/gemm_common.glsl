// What the dense kernels (gemm, gemm_naive, gemm_pack, add, transpose) share: the dense layout.
//
// A dense matrix (src/gpu/dense.ts) is an RGBA32F TEXTURE_2D_ARRAY holding its rows: row i, texel
// column c holds the elements EPT*c .. EPT*c + EPT-1 of that row in the dtype's packing (4 f32,
// 2 c64 / f64 double-single, 1 c128 per texel, dtype.glsl); a row has ceil(cols / EPT) texels, the
// slots past the last column are 0. Rows go down a layer, 2^u_rowShift rows per layer (one layer
// when the matrix has no more rows than that): row i sits at (c, i & mask, i >> u_rowShift).
// u_rowShift is the same for every dense matrix of a backend.
#include "common.glsl"
#include "dtype.glsl"

uniform int u_rowShift;
uniform int u_outRows;   // rows of the output matrix (fragments past them write 0)
uniform int u_outCols;   // columns (elements) of the output matrix (slots past them write 0)

ivec3 denseAt(int row, int c) {
  return ivec3(c, row & ((1 << u_rowShift) - 1), row >> u_rowShift);
}

// Element (row, col) of a dense matrix.
E denseElem(highp sampler2DArray m, int row, int col) {
  return e_unpack(texelFetch(m, denseAt(row, col >> LOG_EPT), 0), col & (EPT - 1));
}

// The output fragment: texel column and row (u_outLayer from common.glsl: the layer drawn).
int outCol() { return int(gl_FragCoord.x); }
int outRow() { return (u_outLayer << u_rowShift) + int(gl_FragCoord.y); }

// Float slots of texel column c that belong to columns >= u_outCols are set to 0 by selection (so NaN
// and Inf never reach the padding).
vec4 maskCols(vec4 v, int c) {
  ivec4 col = ((4 * c) + ivec4(0, 1, 2, 3)) >> (2 - LOG_EPT);
  return mix(vec4(0.0), v, lessThan(col, ivec4(u_outCols)));
}
