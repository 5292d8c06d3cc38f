#version 300 es
// y <- x (texel by texel: the same for every dtype)
#include "common.glsl"

uniform highp sampler2DArray u_x;
uniform int u_xShift;
out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  o_y = maskTail(texelFetch(u_x, texelAt(t, u_xShift), 0), t);
}
