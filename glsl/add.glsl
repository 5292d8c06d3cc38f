#version 300 es
// C = alpha*A + beta*B on dense matrices of one shape: one fragment per texel. A zero scalar skips
// its operand (not read: NaN in it does not reach C).
#include "gemm_common.glsl"

uniform highp sampler2DArray u_a;
uniform highp sampler2DArray u_b;
uniform vec4 u_alpha;
uniform vec4 u_beta;
uniform int u_useA;
uniform int u_useB;
out vec4 o_c;

void main() {
  int c = outCol();
  int i = outRow();
  if (i >= u_outRows) { o_c = vec4(0.0); return; }
  ivec3 p = denseAt(i, c);
  vec4 at = u_useA != 0 ? texelFetch(u_a, p, 0) : vec4(0.0);
  vec4 bt = u_useB != 0 ? texelFetch(u_b, p, 0) : vec4(0.0);
  E alpha = e_scalar(u_alpha);
  E beta = e_scalar(u_beta);
  E res[EPT];
  for (int r = 0; r < EPT; r++) {
    E v = e_zero();
    if (u_useA != 0) v = e_mul(alpha, e_unpack(at, r));
    if (u_useB != 0) v = e_add(v, e_mul(beta, e_unpack(bt, r)));
    res[r] = v;
  }
  o_c = maskCols(e_pack(res), c);
}
