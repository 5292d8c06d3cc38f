// The two passes of a Lanczos step on S·A·S (S = D^-1/2) for the AMG setup's spectral radius, over
// rows [rowStart, rowEnd). The sums are partial per group of LANCZOS_GROUP rows, group g's at out +
// 8·g (a chunk starts on a group's first row): the caller adds them in group order, so the sums, and
// ρ and the hierarchy made from it, are the same bits on any number of threads (a partial per chunk
// made them depend on the pool's size). Vectors are kept unnormalized: v = c·x, so a step is one
// row-parallel pass with the SpMV and one elementwise pass (no normalization pass of its own). The
// SpMV gathers u = S·x, which the elementwise pass writes with the next x (the same products sⱼ·xⱼ,
// so the same bits, as multiplying at each gather: one load and one multiply an entry fewer, and the
// pool's threads are compute-bound here).
//
// lanczos_apply: y = c·S·A·u − bp·y (u = S·x; y holds the previous vector, scaled, on entry), out = Σ c·x·y.
// lanczos_orth:  y −= a·x, u = S·y, out = Σ y².

/** Rows of a partial sum (src/cpu/spgemm.ts LANCZOS_GROUP). */
const GROUP: i32 = 1024;

export function lanczos_apply(ap: usize, ai: usize, av: usize, s: usize, x: usize, u: usize, y: usize, c: f64, bp: f64, out: usize, rowStart: i32, rowEnd: i32): void {
  let dot: f64 = 0;
  let k0 = load<i32>(ap + (<usize>rowStart << 2));
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    let s0: f64 = 0, s1: f64 = 0;
    let k = k0;
    for (; k + 2 <= k1; k += 2) {
      const j0 = <usize>load<i32>(ai + (<usize>k << 2)) << 3, j1 = <usize>load<i32>(ai + (<usize>k << 2), 4) << 3;
      s0 += load<f64>(av + (<usize>k << 3)) * load<f64>(u + j0);
      s1 += load<f64>(av + (<usize>k << 3), 8) * load<f64>(u + j1);
    }
    if (k < k1) {
      const j0 = <usize>load<i32>(ai + (<usize>k << 2)) << 3;
      s0 += load<f64>(av + (<usize>k << 3)) * load<f64>(u + j0);
    }
    k0 = k1;
    const p = <usize>i << 3;
    const yi = c * (s0 + s1) * load<f64>(s + p) - bp * load<f64>(y + p);
    store<f64>(y + p, yi);
    dot += c * load<f64>(x + p) * yi;
    if ((i + 1) % GROUP == 0 || i + 1 == rowEnd) {
      store<f64>(out + (<usize>(i / GROUP) << 3), dot);
      dot = 0;
    }
  }
}

export function lanczos_orth(x: usize, y: usize, s: usize, u: usize, a: f64, out: usize, start: i32, end: i32): void {
  let ss: f64 = 0;
  for (let i = start; i < end; i++) {
    const p = <usize>i << 3;
    const yi = load<f64>(y + p) - a * load<f64>(x + p);
    store<f64>(y + p, yi);
    store<f64>(u + p, yi * load<f64>(s + p));
    ss += yi * yi;
    if ((i + 1) % GROUP == 0 || i + 1 == end) {
      store<f64>(out + (<usize>(i / GROUP) << 3), ss);
      ss = 0;
    }
  }
}

// lanczos_start: lanczosStart (src/solvers/precond/chebyshev.ts) into x, the same linear congruential
// sequence and the same sum of squares in the same order (one thread), returned.
export function lanczos_start(x: usize, n: i32): f64 {
  let ss: f64 = 0;
  let h: i32 = 0x2545f491;
  for (let i = 0; i < n; i++) {
    h = h * 1664525 + 1013904223;
    const v: f64 = 0.5 + <f64>(<u32>h >>> 8) / 16777216;
    store<f64>(x + (<usize>i << 3), v);
    ss += v * v;
  }
  return ss;
}

// lanczos_scale: s = √s in place (s holds D⁻¹ on entry: D^-1/2), u = S·x (x: the start), y = 0,
// over [start, end).
export function lanczos_scale(s: usize, x: usize, u: usize, y: usize, start: i32, end: i32): void {
  for (let i = start; i < end; i++) {
    const p = <usize>i << 3;
    const si = Math.sqrt(load<f64>(s + p));
    store<f64>(s + p, si);
    store<f64>(u + p, load<f64>(x + p) * si);
    store<f64>(y + p, 0);
  }
}
