// Pool passes for sums a sparse product's set-up made on one thread (src/cpu/scan.ts): each over a chunk
// of rows [start, end), the chunk's result or base at `out` (the pool offsets it by 16 bytes a chunk).
// The sums are of integers, exact in any split: the same bits as spgemm_longest, spgemm_row_pointers,
// spgemm_flops_before and spgemm_transpose_offsets (assembly/spgemm.ts) on any number of threads.

// rows_longest: the chunk's longest row (row pointers bp), an i32 at out.
export function rows_longest(bp: usize, out: usize, start: i32, end: i32): void {
  let longest = 0;
  for (let k = start; k < end; k++) longest = max(longest, load<i32>(bp + (<usize>k << 2), 4) - load<i32>(bp + (<usize>k << 2)));
  store<i32>(out, longest);
}

// product_totals: of a two-pass product's rows, the entries counted (at cp[i + 1]) and the multiply-adds
// (at fl[i]; none where fl is 0) of the chunk: f64, f64 at out.
export function product_totals(cp: usize, fl: usize, out: usize, start: i32, end: i32): void {
  let entries: i64 = 0;
  let flops: f64 = 0;
  for (let i = start; i < end; i++) {
    entries += <i64>load<i32>(cp + (<usize>i << 2), 4);
    if (fl) flops += load<f64>(fl + (<usize>i << 3));
  }
  store<f64>(out, <f64>entries);
  store<f64>(out, flops, 8);
}

// product_offsets: the chunk's row pointers (cp[i + 1], wrapping past 2³¹ − 1 as spgemm_row_pointers')
// and multiply-adds before each row (fl[i]) in place, from the rows before it (f64, f64 at out).
export function product_offsets(cp: usize, fl: usize, out: usize, start: i32, end: i32): void {
  let at = <i64>load<f64>(out);
  let before = load<f64>(out, 8);
  for (let i = start; i < end; i++) {
    const p = cp + (<usize>i << 2);
    at += <i64>load<i32>(p, 4);
    store<i32>(p, <i32>at, 4);
    if (!fl) continue;
    const q = fl + (<usize>i << 3);
    const f = load<f64>(q);
    store<f64>(q, before);
    before += f;
  }
}

// transpose_totals: Σ of the `chunks` count arrays (their addresses 16 bytes apart at slots) over the
// chunk's columns, an i32 at out.
export function transpose_totals(slots: usize, chunks: i32, out: usize, start: i32, end: i32): void {
  let at: i32 = 0;
  for (let j = start; j < end; j++) {
    for (let c = 0; c < chunks; c++) at += load<i32>(<usize>load<u32>(slots + (<usize>c << 4)) + (<usize>j << 2));
  }
  store<i32>(out, at);
}

// transpose_starts: spgemm_transpose_offsets over the chunk's columns from the entries before them (an
// i32 at out): each count array's entry becomes its chunk's first position in the column, tp[j] the
// column's start. Returns the position after the chunk's columns (spgemm_transpose_offsets' total).
export function transpose_starts(slots: usize, chunks: i32, tp: usize, out: usize, start: i32, end: i32): i32 {
  let at = load<i32>(out);
  for (let j = start; j < end; j++) {
    store<i32>(tp + (<usize>j << 2), at);
    for (let c = 0; c < chunks; c++) {
      const p = <usize>load<u32>(slots + (<usize>c << 4)) + (<usize>j << 2);
      const k = load<i32>(p);
      store<i32>(p, at);
      at += k;
    }
  }
  return at;
}
