#version 300 es
// Later passes of dot/nrm2: fragment b sums the double-single complex partials b*BLOCK ..
// b*BLOCK + BLOCK - 1 of the previous pass, until one texel is left (read back as the result).
#include "common.glsl"
#include "ds.glsl"

#define BLOCK 16
uniform highp sampler2DArray u_x;
uniform int u_xShift;
uniform int u_inTexels;
out vec4 o_y;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  vec2 re = vec2(0.0);
  vec2 im = vec2(0.0);
  int k0 = t * BLOCK;
  int k1 = min(k0 + BLOCK, u_inTexels);
  for (int k = k0; k < k1; k++) {
    vec4 p = texelFetch(u_x, texelAt(k, u_xShift), 0);
    re = ds_add(re, p.xy);
    im = ds_add(im, p.zw);
  }
  o_y = vec4(re, im);
}
