#version 300 es
// C = alpha*A*B + beta*C, tiled over RGBA texels: one fragment computes a 1 x EPT block of C (one
// output texel: 4 f32 / 2 c64 or f64 / 1 c128 elements of a row). Per A texel (EPT consecutive k)
// it fetches EPT texels of B (rows k, the fragment's EPT columns) and does EPT x EPT multiply-adds:
// 1 + EPT fetches per EPT^2 products (f32: 5 per 16) instead of 2 per product in gemm_naive. The k
// loop runs in blocks of 4 A texels (4*EPT values of k, unrolled): the 16 x 16 shared-memory tile
// of the CUDA/OpenCL kernels (seeds 003/004) becomes a block of fetches that neighbouring fragments
// share through the texture cache. The tail (k mod EPT) is handled separately, so B is never read
// past its last row and the A padding is never multiplied with anything.
//
// The accumulators are plain variables, one step function per packing (no arrays in the k loop:
// SwiftShader keeps a dynamically indexed array in memory, which measured 7x slower for f32).
#include "gemm_common.glsl"

uniform highp sampler2DArray u_a;
uniform highp sampler2DArray u_b;
uniform highp sampler2DArray u_c;
uniform int u_k;         // inner dimension (A cols = B rows)
uniform vec4 u_alpha;
uniform vec4 u_beta;
uniform int u_useBeta;   // 0: beta = 0, C is not read (it may hold NaN)
out vec4 o_c;

vec4 bAt(int k, int c) { return texelFetch(u_b, denseAt(k, c), 0); }

#if EPT == 4
// f32: acc holds the four output columns; a.x..a.w are A(i, 4kt..4kt+3).
#define ACC vec4
#define ACC_ZERO vec4(0.0)
ACC stepTail(vec4 a, int k0, int c, int n, ACC acc) {
  acc += a.x * bAt(k0, c);
  if (n > 1) acc += a.y * bAt(k0 + 1, c);
  if (n > 2) acc += a.z * bAt(k0 + 2, c);
  if (n > 3) acc += a.w * bAt(k0 + 3, c);
  return acc;
}
ACC stepFull(vec4 a, int k0, int c, ACC acc) {
  acc += a.x * bAt(k0, c);
  acc += a.y * bAt(k0 + 1, c);
  acc += a.z * bAt(k0 + 2, c);
  acc += a.w * bAt(k0 + 3, c);
  return acc;
}
E accElem(ACC acc, int r) { return acc[r]; }
#elif EPT == 2
// c64 / f64: acc = (column 0, column 1), each E = vec2; a.xy, a.zw are A(i, 2kt), A(i, 2kt+1).
#define ACC vec4
#define ACC_ZERO vec4(0.0)
ACC stepFull(vec4 a, int k0, int c, ACC acc) {
  vec4 b0 = bAt(k0, c);
  vec4 b1 = bAt(k0 + 1, c);
  vec2 s0 = e_add(e_add(acc.xy, e_mul(a.xy, b0.xy)), e_mul(a.zw, b1.xy));
  vec2 s1 = e_add(e_add(acc.zw, e_mul(a.xy, b0.zw)), e_mul(a.zw, b1.zw));
  return vec4(s0, s1);
}
ACC stepTail(vec4 a, int k0, int c, int n, ACC acc) {
  vec4 b0 = bAt(k0, c);
  return vec4(e_add(acc.xy, e_mul(a.xy, b0.xy)), e_add(acc.zw, e_mul(a.xy, b0.zw)));
}
E accElem(ACC acc, int r) { return r == 0 ? acc.xy : acc.zw; }
#else
// c128: one element per texel.
#define ACC vec4
#define ACC_ZERO vec4(0.0)
ACC stepFull(vec4 a, int k0, int c, ACC acc) { return e_add(acc, e_mul(a, bAt(k0, c))); }
ACC stepTail(vec4 a, int k0, int c, int n, ACC acc) { return stepFull(a, k0, c, acc); }
E accElem(ACC acc, int r) { return acc; }
#endif

void main() {
  int c = outCol();
  int i = outRow();
  if (i >= u_outRows) { o_c = vec4(0.0); return; }
  ivec3 pa = denseAt(i, 0);
  int full = u_k >> LOG_EPT;  // A texels whose EPT values of k all exist
  int kt = 0;
  ACC acc = ACC_ZERO;
  for (; kt + 4 <= full; kt += 4) {
    acc = stepFull(texelFetch(u_a, ivec3(kt, pa.y, pa.z), 0), kt << LOG_EPT, c, acc);
    acc = stepFull(texelFetch(u_a, ivec3(kt + 1, pa.y, pa.z), 0), (kt + 1) << LOG_EPT, c, acc);
    acc = stepFull(texelFetch(u_a, ivec3(kt + 2, pa.y, pa.z), 0), (kt + 2) << LOG_EPT, c, acc);
    acc = stepFull(texelFetch(u_a, ivec3(kt + 3, pa.y, pa.z), 0), (kt + 3) << LOG_EPT, c, acc);
  }
  for (; kt < full; kt++) acc = stepFull(texelFetch(u_a, ivec3(kt, pa.y, pa.z), 0), kt << LOG_EPT, c, acc);
  int rest = u_k - (full << LOG_EPT);  // 0 .. EPT-1 values of k in one last, partly used A texel
  if (rest > 0) acc = stepTail(texelFetch(u_a, ivec3(full, pa.y, pa.z), 0), full << LOG_EPT, c, rest, acc);
  E res[EPT];
  vec4 ct = u_useBeta != 0 ? texelFetch(u_c, denseAt(i, c), 0) : vec4(0.0);
  E alpha = e_scalar(u_alpha);
  E beta = e_scalar(u_beta);
  for (int r = 0; r < EPT; r++) {
    E v = e_mul(alpha, accElem(acc, r));
    if (u_useBeta != 0) v = e_add(v, e_mul(beta, e_unpack(ct, r)));
    res[r] = v;
  }
  o_c = maskCols(e_pack(res), c);
}
