#version 300 es
// Second pass of the segmented (long-row) CSR kernel, the idea of seed 000 kernel 2: the first pass
// (csr_row over segment bounds) left one partial sum per segment of at most L entries; here row i
// sums its partials segPtr[i] .. segPtr[i+1]-1 in order and applies alpha and beta.
#include "spmv_common.glsl"

uniform highp isampler2DArray u_segPtr;
uniform highp sampler2DArray u_partial;
uniform int u_segPtrShift;
uniform int u_partialShift;

int segPtrAt(int i) {
  return packedIntAt(u_segPtr, u_segPtrShift, i);
}

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  int i0 = EPT * t;
  int a = segPtrAt(i0);
  for (int r = 0; r < EPT; r++) {
    int b = segPtrAt(i0 + r + 1);
    E s = e_zero();
    for (int k = a; k < b; k++) s = e_add(s, elemAt(u_partial, u_partialShift, k));
    acc[r] = s;
    a = b;
  }
  o_y = finish(t, acc);
}
