#version 300 es
// Second pass of SELL-C-σ when positions are not rows (σ > 1, or C not a multiple of 4): row i takes
// its sum from the first pass at its position u_pos[i] and applies alpha and beta. The first pass
// stored the sum as the dtype's element (double-single hi + lo exactly), so alpha multiplies the
// whole row sum once, as in the one-pass kernels.
#include "spmv_common.glsl"

uniform highp isampler2DArray u_pos;    // RGBA32I: row -> position in the first pass's output
uniform highp sampler2DArray u_partial; // the first pass's row sums, in position order
uniform int u_posShift;
uniform int u_partialShift;

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  for (int r = 0; r < EPT; r++) acc[r] = elemAt(u_partial, u_partialShift, packedIntAt(u_pos, u_posShift, EPT * t + r));
  o_y = finish(t, acc);
}
