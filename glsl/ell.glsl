#version 300 es
// ELL SpMV, one fragment per output texel: EPT consecutive rows read one value texel per entry k.
#include "spmv_common.glsl"
#include "ell_part.glsl"

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  for (int r = 0; r < EPT; r++) acc[r] = e_zero();
  ellAccumulate(t, acc);
  o_y = finish(t, acc);
}
