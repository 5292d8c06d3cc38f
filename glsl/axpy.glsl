#version 300 es
// y <- alpha*x + y
#include "blas1_common.glsl"

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  vec4 x = texelFetch(u_x, texelAt(t, u_xShift), 0);
  vec4 y = texelFetch(u_y, texelAt(t, u_yShift), 0);
  E alpha = e_scalar(u_alpha);
  E res[EPT];
  for (int r = 0; r < EPT; r++) res[r] = e_add(e_mul(alpha, e_unpack(x, r)), e_unpack(y, r));
  o_y = maskTail(e_pack(res), t);
}
