#version 300 es
// B = A^T (u_conj = -1: A^H) as a gather: output element (i, j) of B is element (j, i) of A, one
// fetch each. Output texel c of row i holds B(i, EPT*c + r) = A(EPT*c + r, i), i.e. it reads EPT
// rows of A at the one texel column i >> LOG_EPT. Every output position is computed from its own
// coordinates (no tile is moved as a block, so no block coordinates can be left unswapped).
#include "gemm_common.glsl"

uniform highp sampler2DArray u_a;
uniform float u_conj;
out vec4 o_c;

void main() {
  int c = outCol();
  int i = outRow();
  if (i >= u_outRows) { o_c = vec4(0.0); return; }
  E res[EPT];
  for (int r = 0; r < EPT; r++) {
    int j = EPT * c + r;
    res[r] = j < u_outCols ? e_conj(denseElem(u_a, j, i), u_conj) : e_zero();
  }
  o_c = maskCols(e_pack(res), c);
}
