#version 300 es
// First pass of dot(x, y) (and nrm2 = sqrt(dot(x, x))): fragment b sums the products of the input
// texels b*BLOCK .. b*BLOCK + BLOCK - 1 (a linear run, the order of the tiled layout) into one
// partial, always in double-single and always complex-shaped: (re hi, re lo, im hi, im lo). f32 and
// c64 products are exact there (two_prod), so the f32 dot has only the double-single summation error.
// Components past the vectors' length are 0 in every vector, so they add nothing.
#include "common.glsl"
#include "dtype.glsl"

#define BLOCK 16
uniform highp sampler2DArray u_x;
uniform highp sampler2DArray u_y;
uniform int u_xShift;
uniform int u_yShift;
uniform int u_inTexels;
uniform float u_conj; // -1.0: conjugate x (dotc), else 1.0
out vec4 o_y;

#if defined(DT_F32)
vec4 product(float x, float y) { return vec4(two_prod(x, y), 0.0, 0.0); }
#elif defined(DT_C64)
vec4 product(vec2 x, vec2 y) {
  float xi = u_conj * x.y;
  vec2 re = ds_add(two_prod(x.x, y.x), ds_neg(two_prod(xi, y.y)));
  vec2 im = ds_add(two_prod(x.x, y.y), two_prod(xi, y.x));
  return vec4(re, im);
}
#elif defined(DT_F64)
vec4 product(vec2 x, vec2 y) { return vec4(ds_mul(x, y), 0.0, 0.0); }
#else
vec4 product(vec4 x, vec4 y) { return e_mul(e_conj(x, u_conj), y); }
#endif

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  vec2 re = vec2(0.0);
  vec2 im = vec2(0.0);
  int k0 = t * BLOCK;
  int k1 = min(k0 + BLOCK, u_inTexels);
  for (int k = k0; k < k1; k++) {
    vec4 x = texelFetch(u_x, texelAt(k, u_xShift), 0);
    vec4 y = texelFetch(u_y, texelAt(k, u_yShift), 0);
    for (int r = 0; r < EPT; r++) {
      vec4 p = product(e_unpack(x, r), e_unpack(y, r));
      re = ds_add(re, p.xy);
      im = ds_add(im, p.zw);
    }
  }
  o_y = vec4(re, im);
}
