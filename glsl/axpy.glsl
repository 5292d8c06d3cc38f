#version 300 es
// AXPY (seed 001): y ← alpha·x + y, four elements per fragment. Rendered into a fresh target.
#include "common.glsl"

uniform highp sampler2DArray u_x;
uniform highp sampler2DArray u_y;
uniform int u_xShift;
uniform int u_yShift;
uniform float u_alpha;

out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  vec4 x = texelFetch(u_x, texelAt(t, u_xShift), 0);
  vec4 y = texelFetch(u_y, texelAt(t, u_yShift), 0);
  o_y = maskTail(u_alpha * x + y, t);
}
