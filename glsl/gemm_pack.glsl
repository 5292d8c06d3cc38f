#version 300 es
// Packs an element-per-texel matrix (the gemm_naive target, element in the first floats of each
// texel) into the dense layout: output texel c of row i gathers elements EPT*c .. EPT*c + EPT-1.
#include "gemm_common.glsl"

uniform highp sampler2DArray u_src;
out vec4 o_c;

void main() {
  int c = outCol();
  int i = outRow();
  if (i >= u_outRows) { o_c = vec4(0.0); return; }
  E res[EPT];
  for (int r = 0; r < EPT; r++) {
    int j = EPT * c + r;
    res[r] = j < u_outCols ? e_load(texelFetch(u_src, denseAt(i, j), 0)) : e_zero();
  }
  o_c = maskCols(e_pack(res), c);
}
