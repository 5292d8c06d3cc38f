// The output of the SpMV kernels: y (binding 2) and the step y[i] = alpha*acc + beta*y[i].
@group(0) @binding(2) var<storage, read_write> y: array<E>;

fn finish(acc: E, i: u32) -> E {
  var v = e_mul(e_scalar(P.alpha), acc);
  if (P.use_beta != 0u) { v = e_add(v, e_mul(e_scalar(P.beta), y[i])); }
  return v;
}
