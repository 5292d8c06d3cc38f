// What the SpMV kernels share: x, y, alpha, beta and the output step y = alpha*acc + beta*y.
#include "common.glsl"
#include "dtype.glsl"

uniform highp sampler2DArray u_x;
uniform highp sampler2DArray u_y;
uniform int u_xShift;
uniform int u_yShift;
uniform vec4 u_alpha;   // one element of the dtype (see dtype.glsl)
uniform vec4 u_beta;
uniform int u_useBeta;  // 0: beta = 0, y is not read (it may hold NaN)
uniform float u_conj;   // -1.0: conjugate the matrix values (op = H on complex data), else 1.0
// 1: write the plain sums (the first pass of a two-pass kernel), alpha and beta are the second
// pass's. Applying alpha twice, even alpha = 1, would differ: a complex (Inf + 0i)·(1 + 0i) is
// Inf + NaN·i, and a second product makes its real part NaN too.
uniform int u_partialSums;
out vec4 o_y;

// The output texel t from the row sums of its EPT rows.
vec4 finish(int t, E acc[EPT]) {
  if (u_partialSums != 0) return maskTail(e_pack(acc), t);
  E res[EPT];
  vec4 yt = u_useBeta != 0 ? texelFetch(u_y, texelAt(t, u_yShift), 0) : vec4(0.0);
  E alpha = e_scalar(u_alpha);
  E beta = e_scalar(u_beta);
  for (int r = 0; r < EPT; r++) {
    E v = e_mul(alpha, acc[r]);
    if (u_useBeta != 0) v = e_add(v, e_mul(beta, e_unpack(yt, r)));
    res[r] = v;
  }
  return maskTail(e_pack(res), t);
}
