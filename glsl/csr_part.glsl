// Sums of CSR rows: rowPtr RGBA32I (4 per texel, padded with nnz past the last row), colIdx R32I
// and values R32F/RG32F/RGBA32F (one entry per texel). Used by csr_row (rows), by the first pass of
// the segmented kernel (rowPtr = segment bounds) and by the remainder of hyb.
uniform highp isampler2DArray u_rowPtr;
uniform highp isampler2DArray u_colIdx;
uniform highp sampler2DArray u_values;
uniform int u_rowPtrShift;
uniform int u_entryShift;

int rowPtrAt(int i) {
  return packedIntAt(u_rowPtr, u_rowPtrShift, i);
}

// acc[r] += sum over row EPT*t + r
void csrAccumulate(int t, inout E acc[EPT]) {
  int i0 = EPT * t;
  int a = rowPtrAt(i0);
  for (int r = 0; r < EPT; r++) {
    int b = rowPtrAt(i0 + r + 1);
    E s = acc[r];
    for (int k = a; k < b; k++) {
      ivec3 e = texelAt(k, u_entryShift);
      E v = e_conj(e_load(texelFetch(u_values, e, 0)), u_conj);
      int c = texelFetch(u_colIdx, e, 0).r;
      s = e_add(s, e_mul(v, elemAt(u_x, u_xShift, c)));
    }
    acc[r] = s;
    a = b;
  }
}
