// CSR arrays (bindings 3-5) and one entry's product conj?(a_k)*x[col_k].
@group(0) @binding(3) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(4) var<storage, read> col_idx: array<u32>;
@group(0) @binding(5) var<storage, read> vals: array<E>;

fn product(k: u32) -> E {
  return e_mul(e_conj(vals[k], P.conj), x[col_idx[k]]);
}
