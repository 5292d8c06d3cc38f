#version 300 es
// SCAL (seed 001): y ← alpha·y, four elements per fragment.
#include "common.glsl"

uniform highp sampler2DArray u_y;
uniform int u_yShift;
uniform float u_alpha;

out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  o_y = maskTail(u_alpha * texelFetch(u_y, texelAt(t, u_yShift), 0), t);
}
