#version 300 es
// y <- alpha*y; alpha = 0 writes zeros (NaN in y does not survive, as on the CPU path)
#include "blas1_common.glsl"

uniform int u_alphaZero;

void main() {
  int t = outTexel();
  if (t >= u_outTexels || u_alphaZero != 0) { o_y = vec4(0.0); return; }
  vec4 y = texelFetch(u_y, texelAt(t, u_yShift), 0);
  E alpha = e_scalar(u_alpha);
  E res[EPT];
  for (int r = 0; r < EPT; r++) res[r] = e_mul(alpha, e_unpack(y, r));
  o_y = maskTail(e_pack(res), t);
}
