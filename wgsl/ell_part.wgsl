// Row sums of an ELL matrix (column-major: entry s of row i in slot s*stride + i; P.k = stride,
// P.m = width; padding has column -1). Bindings 3 (col_idx), 4 (vals). A thread per row: neighbouring
// threads read neighbouring slots, so every step is one coalesced load. No branch on padding (a
// `break` there serialises the loads of consecutive slots): a padding slot reads x[0] and its
// product is dropped by select, so NaN or Inf in x never leaks through it.
@group(0) @binding(3) var<storage, read> ell_col: array<i32>;
@group(0) @binding(4) var<storage, read> ell_val: array<E>;

fn ell_row(i: u32) -> E {
  var acc = e_zero();
  for (var s = 0u; s < P.m; s++) {
    let slot = s * P.k + i;
    let c = ell_col[slot];
    let p = e_mul(e_conj(ell_val[slot], P.conj), x[u32(max(c, 0))]);
    acc = e_add(acc, select(e_zero(), p, c >= 0));
  }
  return acc;
}
