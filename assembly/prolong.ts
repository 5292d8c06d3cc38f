// The smoothed prolongator P = T + diag(sc)·A·T of the AMG setup (src/cpu/prolong.ts) for a tentative
// prolongator T with one entry in every row (one near-null-space vector on scalar nodes, every node
// aggregated: the constant's case), in two passes over rows [rowStart, rowEnd): prolong_count
// stores each row's number of columns at cp[i + 1] (the caller's prefix sum makes them row
// pointers), prolong_f64 fills the rows, columns ascending. T is its columns ti and values tv, one a
// row. Row i gathers, for each entry aᵢⱼ of A, T's entry of row j: no row of T to walk, no
// multiply-adds to count, and a row's few distinct columns (at most A's row length + 1, first reached
// nearly in order) are kept ascending by insertion as they come. The sums are spgemm_f64's with a
// scale vector, term for term ((scᵢ·aᵢⱼ)·tⱼ by A's entries, then tᵢ, each column from its first
// term), so P has the same bits as the general product.
//
// Each chunk's workspace (its address a u32 at `slot`, which the pool offsets by 16 bytes a chunk):
// a marker per column of T (the last row that reached it), then an accumulator of nc f64.

/** Bytes before the accumulator: nc i32 markers, 8-byte aligned. */
// @ts-ignore: decorator
@inline function markBytes(nc: i32): usize {
  return ((<usize>nc << 2) + 7) & ~(<usize>7);
}

export function prolong_count(ap: usize, ai: usize, ti: usize, nc: i32, slot: usize, cp: usize, rowStart: i32, rowEnd: i32): void {
  const mark = <usize>load<u32>(slot);
  memory.fill(mark, 0xff, <usize>nc << 2);
  for (let i = rowStart; i < rowEnd; i++) {
    let count = 0;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k <= k1; k++) {
      const j = <usize>(k == k1 ? i : load<i32>(ai + (<usize>k << 2)));
      const m = mark + (<usize>load<i32>(ti + (j << 2)) << 2);
      if (load<i32>(m) != i) {
        store<i32>(m, i);
        count++;
      }
    }
    store<i32>(cp + (<usize>i << 2), count, 4);
  }
}

export function prolong_f64(ap: usize, ai: usize, av: usize, ti: usize, tv: usize, sc: usize, nc: i32, slot: usize, cp: usize, ci: usize, cv: usize, rowStart: i32, rowEnd: i32): void {
  const mark = <usize>load<u32>(slot);
  const acc = mark + markBytes(nc);
  memory.fill(mark, 0xff, <usize>nc << 2);
  for (let i = rowStart; i < rowEnd; i++) {
    const start = load<i32>(cp + (<usize>i << 2));
    let end = start;
    const s = load<f64>(sc + (<usize>i << 3));
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    // A's row scaled by s, then T's row i with weight 1 (spgemm_f64's a = 1.0: p = tᵢ)
    for (let k = load<i32>(ap + (<usize>i << 2)); k <= k1; k++) {
      const j = <usize>(k == k1 ? i : load<i32>(ai + (<usize>k << 2)));
      const c = load<i32>(ti + (j << 2));
      const t = load<f64>(tv + (j << 3));
      const p = k == k1 ? t : s * load<f64>(av + (<usize>k << 3)) * t;
      const x = acc + (<usize>c << 3);
      const m = mark + (<usize>c << 2);
      if (load<i32>(m) != i) {
        store<i32>(m, i);
        let q = end++;
        while (q > start && load<i32>(ci + (<usize>(q - 1) << 2)) > c) {
          store<i32>(ci + (<usize>q << 2), load<i32>(ci + (<usize>(q - 1) << 2)));
          q--;
        }
        store<i32>(ci + (<usize>q << 2), c);
        store<f64>(x, p);
      } else store<f64>(x, load<f64>(x) + p);
    }
    for (let k = start; k < end; k++) store<f64>(cv + (<usize>k << 3), load<f64>(acc + (<usize>load<i32>(ci + (<usize>k << 2)) << 3)));
  }
}
