#version 300 es
// C = alpha*A*B + beta*C, naive: one output element per fragment, and a k loop of scalar fetches
// (two texel fetches per product, nothing reused: the naive kernel of seeds 003/004). The target is
// element-per-texel (RGBA32F, width = cols of C, the element in the first 1/2/4 floats); gemm_pack
// then packs it into C's dense layout. For the naive-vs-tiled comparison.
#include "gemm_common.glsl"

uniform highp sampler2DArray u_a;
uniform highp sampler2DArray u_b;
uniform highp sampler2DArray u_c;
uniform int u_k;
uniform vec4 u_alpha;
uniform vec4 u_beta;
uniform int u_useBeta;
out vec4 o_c;

vec4 toTexel(float v) { return vec4(v, 0.0, 0.0, 0.0); }
vec4 toTexel(vec2 v) { return vec4(v, 0.0, 0.0); }
vec4 toTexel(vec4 v) { return v; }

void main() {
  int j = outCol();
  int i = outRow();
  if (i >= u_outRows || j >= u_outCols) { o_c = vec4(0.0); return; }
  E acc = e_zero();
  for (int k = 0; k < u_k; k++) acc = e_add(acc, e_mul(denseElem(u_a, i, k), denseElem(u_b, k, j)));
  E v = e_mul(e_scalar(u_alpha), acc);
  if (u_useBeta != 0) v = e_add(v, e_mul(e_scalar(u_beta), denseElem(u_c, i, j)));
  o_c = toTexel(v);
}
