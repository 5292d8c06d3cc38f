#version 300 es
// HYB SpMV (seed 001): the ELL part, then the remainder of the rows longer than the ELL width.
// The remainder (HYB's row-sorted COO part) is stored as a CSR over all rows: a per-row pointer
// array (rowPtr, rows + 1 entries; rows without a remainder have an empty range) into the COO
// column indices and values, which keep their order. Both passes run in one fragment, so y is
// written once and alpha multiplies the whole row sum (one rounding, as in CSR).
#include "spmv_common.glsl"
#include "ell_part.glsl"
#include "csr_part.glsl"

void main() {
  int t = outTexel();
  if (t >= u_outTexels) { o_y = vec4(0.0); return; }
  E acc[EPT];
  for (int r = 0; r < EPT; r++) acc[r] = e_zero();
  ellAccumulate(t, acc);
  csrAccumulate(t, acc);
  o_y = finish(t, acc);
}
