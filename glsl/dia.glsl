#version 300 es
// DIA SpMV (seed 002): A[i, i + off_d] = data[d*pitch + i]. The offsets are a uniform array (the
// "offsets in local memory" step of the seed), DIA_VEC4 ivec4 = 4*DIA_VEC4 diagonals per draw; the
// backend defines DIA_VEC4 from MAX_FRAGMENT_UNIFORM_VECTORS and runs more diagonals as further
// draws: each but the last writes plain row sums (u_partialSums) that the next starts from (u_prev),
// and the last applies alpha and beta once, so Inf and NaN come out as from one pass. A fragment computes EPT consecutive rows (four for f32: the
// seed's float4 step): one value texel per diagonal (pitch is a multiple of 4), and the x elements
// i0+off .. i0+off+EPT-1 from the (at most) two texels that hold them.
#include "spmv_common.glsl"

uniform highp sampler2DArray u_diaVal;
uniform int u_diaValShift;
uniform ivec4 u_offsets[DIA_VEC4];
uniform int u_ndiag;   // diagonals in this draw
uniform int u_diag0;   // index of the first of them in the data array
uniform int u_pitch;
uniform int u_cols;    // elements of x
uniform int u_xTexels; // texels of x
uniform highp sampler2DArray u_prev; // the row sums of the earlier draws, where u_addPrev = 1
uniform int u_prevShift;
uniform int u_addPrev;

vec4 xTexel(int i) {
  return (i >= 0 && i < u_xTexels) ? texelFetch(u_x, texelAt(i, u_xShift), 0) : vec4(0.0);
}

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  int i0 = EPT * t;
  for (int r = 0; r < EPT; r++) acc[r] = u_addPrev != 0 ? elemAt(u_prev, u_prevShift, i0 + r) : e_zero();
  for (int d = 0; d < u_ndiag; d++) {
    int off = u_offsets[d >> 2][d & 3];
    vec4 vt = texelFetch(u_diaVal, texelAt(((u_diag0 + d) * u_pitch + i0) >> LOG_EPT, u_diaValShift), 0);
    int c0 = i0 + off;
    int xt = c0 >> LOG_EPT;
    int sh = c0 & (EPT - 1);
    vec4 xa = xTexel(xt);
    vec4 xb = sh != 0 ? xTexel(xt + 1) : vec4(0.0);
    for (int r = 0; r < EPT; r++) {
      int c = c0 + r;
      if (c >= 0 && c < u_cols) {
        int k = sh + r;
        E xv = k < EPT ? e_unpack(xa, k) : e_unpack(xb, k - EPT);
        acc[r] = e_add(acc[r], e_mul(e_conj(e_unpack(vt, r), u_conj), xv));
      }
    }
  }
  o_y = finish(t, acc);
}
