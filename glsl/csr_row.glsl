#version 300 es
// CSR SpMV, one fragment per output texel (EPT rows, seed 000 kernel 1): y = alpha*A*x + beta*y.
// Also the first pass of the segmented long-row kernel: there rowPtr holds the segment bounds, the
// "rows" are segments and the output is the vector of plain partial sums (u_partialSums).
#include "spmv_common.glsl"
#include "csr_part.glsl"

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  for (int r = 0; r < EPT; r++) acc[r] = e_zero();
  csrAccumulate(t, acc);
  o_y = finish(t, acc);
}
