// Sparse triangular solve (sptrsv_<dt>): x[i] = (b[i] − Σ T[i,j]·x[j]) · invDiag[i] for the rows
// order[start .. end), in that order. T holds the strict triangle only (the diagonal's inverse is a
// separate array, or invDiag = 0 for a unit diagonal). A range is one level of a level schedule (its
// rows depend only on earlier levels, so chunks of it run on different threads) or a run of levels in
// schedule order on one thread. Sums are accumulated in f64 whatever the storage precision.

export function sptrsv_f64(ptr: usize, idx: usize, val: usize, invDiag: usize, order: usize, b: usize, x: usize, start: i32, end: i32): void {
  for (let k = start; k < end; k++) {
    const i = load<i32>(order + (<usize>k << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    let s = load<f64>(b + (<usize>i << 3));
    for (let p = load<i32>(ptr + (<usize>i << 2)); p < k1; p++) {
      s -= load<f64>(val + (<usize>p << 3)) * load<f64>(x + (<usize>load<i32>(idx + (<usize>p << 2)) << 3));
    }
    store<f64>(x + (<usize>i << 3), invDiag ? s * load<f64>(invDiag + (<usize>i << 3)) : s);
  }
}

export function sptrsv_f32(ptr: usize, idx: usize, val: usize, invDiag: usize, order: usize, b: usize, x: usize, start: i32, end: i32): void {
  for (let k = start; k < end; k++) {
    const i = load<i32>(order + (<usize>k << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    let s = <f64>load<f32>(b + (<usize>i << 2));
    for (let p = load<i32>(ptr + (<usize>i << 2)); p < k1; p++) {
      s -= <f64>load<f32>(val + (<usize>p << 2)) * <f64>load<f32>(x + (<usize>load<i32>(idx + (<usize>p << 2)) << 2));
    }
    store<f32>(x + (<usize>i << 2), <f32>(invDiag ? s * <f64>load<f32>(invDiag + (<usize>i << 2)) : s));
  }
}

export function sptrsv_c128(ptr: usize, idx: usize, val: usize, invDiag: usize, order: usize, b: usize, x: usize, start: i32, end: i32): void {
  for (let k = start; k < end; k++) {
    const i = load<i32>(order + (<usize>k << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    const bi = b + (<usize>i << 4);
    let sr = load<f64>(bi), si = load<f64>(bi, 8);
    for (let p = load<i32>(ptr + (<usize>i << 2)); p < k1; p++) {
      const v = val + (<usize>p << 4);
      const xj = x + (<usize>load<i32>(idx + (<usize>p << 2)) << 4);
      const ar = load<f64>(v), ai = load<f64>(v, 8), xr = load<f64>(xj), xi = load<f64>(xj, 8);
      sr -= ar * xr - ai * xi;
      si -= ar * xi + ai * xr;
    }
    const xo = x + (<usize>i << 4);
    if (invDiag) {
      const d = invDiag + (<usize>i << 4);
      const dr = load<f64>(d), di = load<f64>(d, 8);
      store<f64>(xo, sr * dr - si * di);
      store<f64>(xo, sr * di + si * dr, 8);
    } else {
      store<f64>(xo, sr);
      store<f64>(xo, si, 8);
    }
  }
}

export function sptrsv_c64(ptr: usize, idx: usize, val: usize, invDiag: usize, order: usize, b: usize, x: usize, start: i32, end: i32): void {
  for (let k = start; k < end; k++) {
    const i = load<i32>(order + (<usize>k << 2));
    const k1 = load<i32>(ptr + (<usize>i << 2), 4);
    const bi = b + (<usize>i << 3);
    let sr = <f64>load<f32>(bi), si = <f64>load<f32>(bi, 4);
    for (let p = load<i32>(ptr + (<usize>i << 2)); p < k1; p++) {
      const v = val + (<usize>p << 3);
      const xj = x + (<usize>load<i32>(idx + (<usize>p << 2)) << 3);
      const ar = <f64>load<f32>(v), ai = <f64>load<f32>(v, 4), xr = <f64>load<f32>(xj), xi = <f64>load<f32>(xj, 4);
      sr -= ar * xr - ai * xi;
      si -= ar * xi + ai * xr;
    }
    const xo = x + (<usize>i << 3);
    if (invDiag) {
      const d = invDiag + (<usize>i << 3);
      const dr = <f64>load<f32>(d), di = <f64>load<f32>(d, 4);
      store<f32>(xo, <f32>(sr * dr - si * di));
      store<f32>(xo, <f32>(sr * di + si * dr), 4);
    } else {
      store<f32>(xo, <f32>sr);
      store<f32>(xo, <f32>si, 4);
    }
  }
}
