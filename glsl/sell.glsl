#version 300 es
// SELL-C-σ SpMV (issue 11), one fragment per output texel of EPT consecutive positions (the rows in
// sorted order). The backend lays the slices out with C' = C rounded up to a multiple of 4 lanes
// (u_sliceHeight; lanes past C are padding), so the EPT positions of a fragment sit in one slice and
// read one value texel and one index texel per entry, as ELL rows do: ellRun over the slice's base,
// width and height. Rows of similar length share a slice, so the lanes of a fragment (and of its
// neighbours) run loops of similar length.
// When positions are rows (σ = 1 and C' = C) this pass writes y; otherwise it writes the row sums in
// position order (plain sums: u_partialSums) and sell_gather.glsl brings them to row order.
#include "spmv_common.glsl"
#include "ell_part.glsl"

uniform highp isampler2DArray u_slicePtr; // RGBA32I, slices + 1 entries, padded with the last
uniform int u_slicePtrShift;
uniform int u_sliceHeight;                // C', a multiple of 4

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  for (int r = 0; r < EPT; r++) acc[r] = e_zero();
  int p0 = EPT * t;
  int s = p0 / u_sliceHeight;
  int base = packedIntAt(u_slicePtr, u_slicePtrShift, s);
  int width = (packedIntAt(u_slicePtr, u_slicePtrShift, s + 1) - base) / u_sliceHeight;
  ellRun(base + p0 - s * u_sliceHeight, width, u_sliceHeight, acc);
  o_y = finish(t, acc);
}
