// The tentative prolongator of smoothed aggregation for one candidate b on scalar nodes, every node
// aggregated (the constant's case; src/solvers/amg/tentative.ts fitOne is the JavaScript it matches
// bit for bit), made where the smoothed prolongator's product reads it (src/cpu/spgemm.ts
// smoothedTentative):
//
// amg_tentative_norms (one thread: each aggregate's sum runs over its rows in ascending order, as
// fitOne's): norm[a] = √(Σ b[i]² over the nodes of aggregate a), 0 where that is not positive; returns
// the nodes in no aggregate (agg < 0: the caller then takes the general route).
//
// amg_tentative_fill (rows [rowStart, rowEnd), any split): T's row i, its one entry (column agg[i],
// value b[i] / norm[agg[i]], 0 where the norm is 0) and row pointer (i), the product's scale
// sc[i] = w·sc[i] (sc holds D⁻¹ on entry: −ω·D⁻¹), and the chunk's longest row of A at `out` (the pool
// offsets it by 16 bytes a chunk).

export function amg_tentative_norms(agg: usize, b: usize, norm: usize, n: i32, count: i32): i32 {
  memory.fill(norm, 0, <usize>count << 3);
  let outside = 0;
  for (let i = 0; i < n; i++) {
    const a = load<i32>(agg + (<usize>i << 2));
    if (a < 0) {
      outside++;
      continue;
    }
    const x = load<f64>(b + (<usize>i << 3));
    const p = norm + (<usize>a << 3);
    store<f64>(p, load<f64>(p) + x * x);
  }
  for (let a = 0; a < count; a++) {
    const p = norm + (<usize>a << 3);
    const r = Math.sqrt(load<f64>(p));
    store<f64>(p, r > 0 ? r : 0);
  }
  return outside;
}

export function amg_tentative_fill(agg: usize, b: usize, norm: usize, ap: usize, w: f64, sc: usize, tp: usize, ti: usize, tv: usize, out: usize, rowStart: i32, rowEnd: i32): void {
  let widest = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    const q = <usize>i << 2;
    const p = <usize>i << 3;
    const a = load<i32>(agg + q);
    const r = load<f64>(norm + (<usize>a << 3));
    store<i32>(tp + q, i);
    store<i32>(ti + q, a);
    store<f64>(tv + p, r > 0 ? load<f64>(b + p) / r : 0);
    store<f64>(sc + p, w * load<f64>(sc + p));
    const len = load<i32>(ap + q, 4) - load<i32>(ap + q);
    if (len > widest) widest = len;
  }
  // the last row's end pointer
  if (rowEnd > rowStart) store<i32>(tp + (<usize>rowEnd << 2), rowEnd);
  store<i32>(out, widest);
}
