import { transpose_starts } from './scan';
// Sparse × sparse product C = A·B (spgemm_*), Gustavson's row-by-row algorithm in two passes over
// rows [rowStart, rowEnd): spgemm_count stores each row's number of distinct columns at cp[i + 1]
// (spgemm_row_pointers turns them into row pointers) and its multiply-adds at fl[i] (f64: the
// numeric pass's chunks are balanced by them), then spgemm_f64 / spgemm_c128 fill the
// rows, columns in ascending order. Values are f64 (c128 as pairs); the caller widens f32/c64 and
// real operands of a complex product. Rows are independent, so any split gives the same bits.
// Without `order` (spgemm_f64), a row's columns may stay in the order the product first reached
// them: for an intermediate only another product reads (the A·P of R·(A·P)).
// With `append`, the numeric pass needs no symbolic pass: each chunk appends its rows from entry 0 of
// its own arrays (their addresses at slot + 4 and slot + 8, sized for the chunk's multiply-adds) and
// stores each row's count at cp[i + 1], as spgemm_count does.
// With spgemm_shifts' flags of A's rows at `sa` and of B's at `sb` (0: none), a row whose A row and
// reached B rows are the previous row's shifted by one column (sameAsPrevious: a stencil's interior
// rows) takes its count from that row (spgemm_count) or its replay record (spgemm_f64, ordered) with no
// comparison of B's rows: poisson3D(64)'s A·A on one thread, count 11 → 4 ms (+ 2 for the flags).
// With `addB` (count) and a scale vector `sc` (spgemm_f64), the product is B + diag(sc)·A·B for a
// square A: the smoothed prolongator P = T − ω·D⁻¹·A·T of the AMG setup in one pass (row i of T is
// added after row i of the scaled product).
//
// Each chunk has a workspace of its own: `slot` points at a u32 holding its address (the pool offsets
// the slot argument by 16 bytes per chunk). It holds a marker per column of B (the last row that
// reached it: which columns are new to a row), 16-byte aligned; then, for ordering a row, a bitmap of
// B's columns (n/8 bytes) under a summary (a bit per 64-bit word of the bitmap), both all zero
// between rows; then the memo of the last row ordered (below); then, for the numeric pass, a dense
// accumulator (n f64, or c128 pairs), 16-byte aligned. A row's columns are put in order by setting
// their bits and walking the summary's words over the row's span: linear in the row's length plus
// span/4096, where sorting a power-law A·Aᵀ's rows (columns spread over all of B's) was n·log n with a
// mispredicted branch per comparison, most of its numeric pass.
// The memo keeps the last ordered row of at most MEMO_MAX columns as offsets from its row index, in
// first-reach order and sorted: a row whose first-reach offsets are the same (a stencil's interior
// rows: the same pattern shifted by one) takes the sorted offsets plus its index, the same columns
// the sort would give. That halved the ordering of poisson3D(64)'s A·A (25 columns a row).

/** Bytes of the marker array, 16-byte aligned: the summary starts here. */
// @ts-ignore: decorator
@inline function markerBytes(n: i32): usize {
  return ((<usize>n << 2) + 15) & ~(<usize>15);
}

/** 64-bit words of the summary (a bit per bitmap word). */
// @ts-ignore: decorator
@inline function summaryWords(n: i32): usize {
  return (<usize>n + 4095) >>> 12;
}

/** Bytes of the summary and the bitmap, 16-byte aligned: the accumulator starts here. */
// @ts-ignore: decorator
@inline function bitmapBytes(n: i32): usize {
  return ((summaryWords(n) + ((<usize>n + 63) >>> 6)) * 8 + 15) & ~(<usize>15);
}

/**
 * Bytes of a chunk's workspace for a product with n columns, cc f64 a value (the layout above): the
 * markers, the summary and bitmap, the memo and replay records, the accumulator.
 */
export function spgemm_workspace(n: i32, cc: i32): f64 {
  return aligned16(4 * <f64>n) + aligned16(8 * (Math.ceil(<f64>n / 4096) + Math.ceil(<f64>n / 64))) + <f64>MEMO_BYTES + 8 * <f64>cc * <f64>n;
}

// @ts-ignore: decorator
@inline function aligned16(b: f64): f64 {
  return Math.ceil(b / 16) * 16;
}

/** Longest row the memo keeps. */
const MEMO_MAX = 64;

/** Most entries of A's row and multiply-adds of a row the replay record keeps. */
const RECORD_A = 32;
const RECORD_FLOPS = 256;

/** Replay records kept (least recently met evicted). */
const RECORDS: i32 = 8;
/** Bytes of the records' header: keepNow's 16, then the slot met last. */
const RECORDS_HEADER: usize = 32;
/** Bytes of a record's slot: its row's length (−1: none), A's row length, the row last met (its age), 4 unused; A's offsets, B's rows' lengths, their offsets, each multiply-add's position, the sorted offsets. */
const SLOT_BYTES: usize = 16 + 4 * (2 * RECORD_A + 2 * RECORD_FLOPS + MEMO_MAX);

/** Bytes of the memo (keepNow's 16-byte header, the first-reach offsets, the sorted offsets), then of the replay records. */
const MEMO_BYTES: usize = 16 + 8 * MEMO_MAX + RECORDS_HEADER + <usize>RECORDS * SLOT_BYTES;

/**
 * Whether to keep the row at hand in the memo or replay record whose 16-byte header is at `h` (its
 * row's length, −1: none; the rows that met a kept row again; the rows kept; the rows not kept since
 * the last): every row while at least one in 8 kept is met again (a stencil's: its rows near a
 * boundary never repeat, the interior ones do), else one row in 256 — a power-law A·Aᵀ's rows never
 * repeat, and keeping each cost it 30 % of its numeric pass.
 */
// @ts-ignore: decorator
@inline function keepNow(h: usize): bool {
  const kept = load<i32>(h, 8);
  if (kept >= 8 && load<i32>(h, 4) * 8 < kept) {
    const skipped = load<i32>(h, 12) + 1;
    if (skipped < 256) {
      store<i32>(h, skipped, 12);
      return false;
    }
  }
  store<i32>(h, 0, 12);
  store<i32>(h, kept + 1, 8);
  return true;
}

/** Counts a row that met the kept row again (keepNow). */
// @ts-ignore: decorator
@inline function metAgain(h: usize): void {
  store<i32>(h, load<i32>(h, 4) + 1, 4);
}

/** Rows shorter than this are sorted (insertion sort) rather than walked. */
const SORTED_BELOW = 16;

/** Whether a row of `len` columns in [lo, hi] is ordered through the bitmap (else sorted): its span's summary words are few for its length. */
// @ts-ignore: decorator
@inline function walkable(len: i32, lo: i32, hi: i32): bool {
  return (<u32>hi >>> 12) - (<u32>lo >>> 12) < <u32>(4 * len + 4);
}

/**
 * Puts the columns ci[start..end) of row i (distinct, all in [lo, hi]) in ascending order: from the
 * memo when the previous row ordered had the same first-reach offsets, else as sortColumns does,
 * keeping the row in the memo when it is short enough.
 */
function orderColumns(sum: usize, bits: usize, memo: usize, i: i32, ci: usize, start: i32, end: i32, lo: i32, hi: i32): void {
  const len = end - start;
  const row = ci + (<usize>start << 2);
  const first = memo + 16;
  const sorted = first + (<usize>MEMO_MAX << 2);
  if (load<i32>(memo) == len) {
    let k = 0;
    while (k < len && load<i32>(row + (<usize>k << 2)) - i == load<i32>(first + (<usize>k << 2))) k++;
    if (k == len) {
      for (k = 0; k < len; k++) store<i32>(row + (<usize>k << 2), load<i32>(sorted + (<usize>k << 2)) + i);
      metAgain(memo);
      return;
    }
  }
  if (len > MEMO_MAX || !keepNow(memo)) {
    sortColumns(sum, bits, ci, start, end, lo, hi);
    return;
  }
  for (let k = 0; k < len; k++) store<i32>(first + (<usize>k << 2), load<i32>(row + (<usize>k << 2)) - i);
  sortColumns(sum, bits, ci, start, end, lo, hi);
  for (let k = 0; k < len; k++) store<i32>(sorted + (<usize>k << 2), load<i32>(row + (<usize>k << 2)) - i);
  store<i32>(memo, len);
}

/**
 * Puts the columns ci[start..end) (distinct, all in [lo, hi]) in ascending order: through the bitmap
 * (their bits set, then the summary's words over [lo, hi] and each nonzero bitmap word walked, the
 * bits cleared behind) where walkable, else by introsort.
 */
function sortColumns(sum: usize, bits: usize, ci: usize, start: i32, end: i32, lo: i32, hi: i32): void {
  if (end - start < SORTED_BELOW || !walkable(end - start, lo, hi)) {
    introsort(ci + (<usize>start << 2), 0, end - start - 1, 2 * (32 - clz<i32>(end - start)));
    return;
  }
  for (let k = start; k < end; k++) {
    const c = <u32>load<i32>(ci + (<usize>k << 2));
    const p = bits + (<usize>(c >>> 6) << 3);
    store<u64>(p, load<u64>(p) | (<u64>1 << <u64>(c & 63)));
    const q = sum + (<usize>(c >>> 12) << 3);
    store<u64>(q, load<u64>(q) | (<u64>1 << <u64>((c >>> 6) & 63)));
  }
  let k = start;
  for (let s = <usize>(<u32>lo >>> 12); s <= <usize>(<u32>hi >>> 12); s++) {
    let w = load<u64>(sum + (s << 3));
    if (w == 0) continue;
    store<u64>(sum + (s << 3), 0);
    do {
      const wi = (s << 6) | <usize>ctz(w);
      w &= w - 1;
      const p = bits + (wi << 3);
      let x = load<u64>(p);
      store<u64>(p, 0);
      do {
        store<i32>(ci + (<usize>k << 2), <i32>((wi << 6) | <usize>ctz(x)));
        k++;
        x &= x - 1;
      } while (x);
    } while (w);
  }
}

// The replay records (spgemm_f64, ordered products without a scale): the last RECORDS distinct rows
// computed in full whose A row, multiply-adds and columns are few enough, each as its structure —
// A's column offsets from the row index, each reached row of B's length and column offsets from its
// own index — with the sorted position of each multiply-add's column and the sorted column offsets.
// A row of the same structure (a stencil's rows again) has the same columns shifted, so it is filled
// straight into its place: no markers, accumulator, ordering or gather. Its values are summed in the
// same order from −0 (the additive identity: the full path's first product, then the others), so the
// bits are the full path's. Several records, not one: a stencil's rows cycle through a few structures
// along each grid line (poisson3D(64)'s A·A: its 125 structures, 5 along a line; rows computed in
// full 7.8 % of them with one record, 0.6 % with 8, least recently met evicted).

/** Whether row i has the structure recorded in slot `s`. */
function sameStructure(s: usize, ap: usize, ai: usize, bp: usize, bi: usize, i: i32): bool {
  if (load<i32>(s) < 0) return false;
  const k0 = load<i32>(ap + (<usize>i << 2));
  const ra = load<i32>(ap + (<usize>i << 2), 4) - k0;
  if (ra != load<i32>(s, 4)) return false;
  const aoff = s + 16;
  const blen = aoff + (<usize>RECORD_A << 2);
  let boff = blen + (<usize>RECORD_A << 2);
  for (let t = 0; t < ra; t++) {
    const j = load<i32>(ai + (<usize>(k0 + t) << 2));
    if (j - i != load<i32>(aoff + (<usize>t << 2))) return false;
    const l0 = load<i32>(bp + (<usize>j << 2));
    const l1 = load<i32>(bp + (<usize>j << 2), 4);
    if (l1 - l0 != load<i32>(blen + (<usize>t << 2))) return false;
    for (let l = l0; l < l1; l++) {
      if (load<i32>(bi + (<usize>l << 2)) - j != load<i32>(boff)) return false;
      boff += 4;
    }
  }
  return true;
}

/** Slot s of the records at `recs`. */
// @ts-ignore: decorator
@inline function slotAt(recs: usize, s: i32): usize {
  return recs + RECORDS_HEADER + <usize>s * SLOT_BYTES;
}

/** Empties the records at `recs` (keepNow's statistics, every slot). */
function clearRecords(recs: usize): void {
  memory.fill(recs, 0, RECORDS_HEADER);
  for (let s = 0; s < RECORDS; s++) {
    store<i32>(slotAt(recs, s), -1);
    store<i32>(slotAt(recs, s), -1, 8);
  }
}

/**
 * The slot whose structure row i has, or 0: the slot met last first, then (while rows meet records
 * often enough to keep them all: keepNow) the others. A slot met is stamped with i (its age).
 */
function findRecord(recs: usize, ap: usize, ai: usize, bp: usize, bi: usize, i: i32): usize {
  const last = load<i32>(recs, 16);
  let s = slotAt(recs, last);
  if (!sameStructure(s, ap, ai, bp, bi, i)) {
    const kept = load<i32>(recs, 8);
    if (kept >= 8 && load<i32>(recs, 4) * 8 < kept) return 0;
    let t = 0;
    for (; t < RECORDS; t++) {
      if (t == last) continue;
      s = slotAt(recs, t);
      if (sameStructure(s, ap, ai, bp, bi, i)) break;
    }
    if (t == RECORDS) return 0;
    store<i32>(recs, t, 16);
  }
  store<i32>(s, i, 8);
  metAgain(recs);
  return s;
}

/**
 * Records row i's structure (A's offsets, B's lengths and offsets) in the least recently met slot,
 * where its A row and multiply-adds fit, and returns that slot; else 0, the records unchanged.
 */
function recordStructure(recs: usize, ap: usize, ai: usize, bp: usize, bi: usize, i: i32): usize {
  const k0 = load<i32>(ap + (<usize>i << 2));
  const ra = load<i32>(ap + (<usize>i << 2), 4) - k0;
  if (ra > RECORD_A) return 0;
  let f = 0;
  for (let t = 0; t < ra; t++) {
    const j = <usize>load<i32>(ai + (<usize>(k0 + t) << 2)) << 2;
    f += load<i32>(bp + j, 4) - load<i32>(bp + j);
  }
  if (f > RECORD_FLOPS) return 0;
  // the least recently met slot (an empty one first: its stamp is −1 too)
  let victim = 0;
  for (let t = 1; t < RECORDS; t++) {
    if (load<i32>(slotAt(recs, t), 8) < load<i32>(slotAt(recs, victim), 8)) victim = t;
  }
  const s = slotAt(recs, victim);
  const aoff = s + 16;
  const blen = aoff + (<usize>RECORD_A << 2);
  let boff = blen + (<usize>RECORD_A << 2);
  for (let t = 0; t < ra; t++) {
    const j = load<i32>(ai + (<usize>(k0 + t) << 2));
    const l0 = load<i32>(bp + (<usize>j << 2));
    const l1 = load<i32>(bp + (<usize>j << 2), 4);
    store<i32>(aoff + (<usize>t << 2), j - i);
    store<i32>(blen + (<usize>t << 2), l1 - l0);
    for (let l = l0; l < l1; l++) {
      store<i32>(boff, load<i32>(bi + (<usize>l << 2)) - j);
      boff += 4;
    }
  }
  store<i32>(s, ra, 4);
  store<i32>(s, i, 8);
  store<i32>(recs, victim, 16);
  return s;
}

/** Fills row i (of the structure in slot s) at ci, cv from entry `start`; returns its length. */
function replay(s: usize, ap: usize, ai: usize, av: usize, bp: usize, bv: usize, i: i32, ci: usize, cv: usize, start: i32): i32 {
  const len = load<i32>(s);
  const pos = s + 16 + (<usize>(2 * RECORD_A + RECORD_FLOPS) << 2);
  const sorted = pos + (<usize>RECORD_FLOPS << 2);
  const row = ci + (<usize>start << 2);
  const vals = cv + (<usize>start << 3);
  for (let k = 0; k < len; k++) {
    store<i32>(row + (<usize>k << 2), load<i32>(sorted + (<usize>k << 2)) + i);
    store<f64>(vals + (<usize>k << 3), -0.0);
  }
  const k0 = load<i32>(ap + (<usize>i << 2));
  const k1 = load<i32>(ap + (<usize>i << 2), 4);
  let f = pos;
  for (let k = k0; k < k1; k++) {
    const j = <usize>load<i32>(ai + (<usize>k << 2)) << 2;
    const a = load<f64>(av + (<usize>k << 3));
    const l1 = load<i32>(bp + j, 4);
    for (let l = load<i32>(bp + j); l < l1; l++) {
      const x = vals + (<usize>load<i32>(f) << 3);
      store<f64>(x, load<f64>(x) + a * load<f64>(bv + (<usize>l << 3)));
      f += 4;
    }
  }
  return len;
}

/**
 * Records row i, computed in full (its columns ci[start..end), ascending), where it fits: its
 * structure, each multiply-add's place in the ordered row and the sorted offsets; returns the slot, or 0. The accumulator
 * `acc` (the row's values gathered from it already) holds each column's place meanwhile.
 */
function record(recs: usize, ap: usize, ai: usize, bp: usize, bi: usize, i: i32, ci: usize, start: i32, end: i32, acc: usize): usize {
  const len = end - start;
  if (len > MEMO_MAX) return 0;
  const s = recordStructure(recs, ap, ai, bp, bi, i);
  if (!s) return 0;
  const boff = s + 16 + (<usize>(2 * RECORD_A) << 2);
  const pos = boff + (<usize>RECORD_FLOPS << 2);
  const sorted = pos + (<usize>RECORD_FLOPS << 2);
  const row = ci + (<usize>start << 2);
  for (let k = 0; k < len; k++) {
    const c = load<i32>(row + (<usize>k << 2));
    store<i32>(acc + (<usize>c << 3), k);
    store<i32>(sorted + (<usize>k << 2), c - i);
  }
  // each multiply-add's column, j + its recorded offset, in A's row order then B's
  const k0 = load<i32>(ap + (<usize>i << 2));
  const k1 = load<i32>(ap + (<usize>i << 2), 4);
  let f: usize = 0;
  for (let k = k0; k < k1; k++) {
    const j = load<i32>(ai + (<usize>k << 2));
    const l1 = load<i32>(bp + (<usize>j << 2), 4);
    for (let l = load<i32>(bp + (<usize>j << 2)); l < l1; l++) {
      store<i32>(pos + (f << 2), load<i32>(acc + (<usize>load<i32>(bi + (<usize>l << 2)) << 3)));
      f++;
    }
  }
  store<i32>(s, len);
  return s;
}

/** Rows shifts() tests before it gives up on a matrix whose rows are rarely shifts. */
const SHIFTS_SAMPLE = 256;

/**
 * sh[j] = 1 where row j (of rows [rowStart, rowEnd)) is row j − 1 shifted by one column (the same
 * length, each column one more), else 0: a stencil's interior rows. Row 0: 0. Where fewer than a
 * quarter of the first SHIFTS_SAMPLE rows are, the rest are 0 untested (0 only costs a comparison
 * the flag would have saved): an AMG setup's P, R and A·P, whose pass took 7 ms of its 300.
 */
function shifts(p: usize, idx: usize, sh: usize, rowStart: i32, rowEnd: i32): bool {
  let flagged = 0;
  for (let j = rowStart; j < rowEnd; j++) {
    if (j - rowStart == SHIFTS_SAMPLE && flagged * 4 < SHIFTS_SAMPLE) {
      memory.fill(sh + <usize>j, 0, <usize>(rowEnd - j));
      return false;
    }
    let same = j > 0;
    if (same) {
      const l0 = load<i32>(p + (<usize>j << 2));
      const len = load<i32>(p + (<usize>j << 2), 4) - l0;
      const q0 = load<i32>(p + (<usize>(j - 1) << 2));
      same = l0 - q0 == len;
      for (let l = 0; same && l < len; l++) same = load<i32>(idx + (<usize>(l0 + l) << 2)) == load<i32>(idx + (<usize>(q0 + l) << 2)) + 1;
    }
    store<u8>(sh + <usize>j, <u8>same);
    flagged += <i32>same;
  }
  return true;
}

/**
 * shifts() of A's rows [rowStart, rowEnd) (of m) into sa and, where sb is another array, of the same
 * share of B's k rows into sb first: where those gave up (rarely shifts: an AMG setup's P), A's share
 * is 0 untested, as sameAsPrevious would find no row of B it reaches flagged.
 */
export function spgemm_shifts(ap: usize, ai: usize, sa: usize, bp: usize, bi: usize, sb: usize, m: i32, k: i32, rowStart: i32, rowEnd: i32): void {
  if (sb != sa && !shifts(bp, bi, sb, <i32>((<i64>rowStart * k) / m), rowEnd == m ? k : <i32>((<i64>rowEnd * k) / m))) memory.fill(sa + <usize>rowStart, 0, <usize>(rowEnd - rowStart));
  else shifts(ap, ai, sa, rowStart, rowEnd);
}

/**
 * Whether row i of A·B has row i − 1's structure (spgemm_shifts' flags of A's rows at sa and of B's at
 * sb; none where sa is 0): A's row i is its row i − 1 shifted and each row of B it reaches is the row
 * before it shifted, so the rows reached are row i − 1's, shifted, and so are the columns of the product.
 */
// @ts-ignore: decorator
@inline function sameAsPrevious(sa: usize, sb: usize, ap: usize, ai: usize, i: i32): bool {
  if (!sa || !load<u8>(sa + <usize>i)) return false;
  const k1 = load<i32>(ap + (<usize>i << 2), 4);
  for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
    if (!load<u8>(sb + <usize>load<i32>(ai + (<usize>k << 2)))) return false;
  }
  return true;
}

export function spgemm_count(ap: usize, ai: usize, bp: usize, bi: usize, n: i32, addB: i32, slot: usize, cp: usize, fl: usize, sa: usize, sb: usize, rowStart: i32, rowEnd: i32): void {
  const mark = <usize>load<u32>(slot);
  memory.fill(mark, 0xff, <usize>n << 2);
  // a row of the previous row's structure (sameAsPrevious) has its count and multiply-adds
  let count = -1;
  let flops: f64 = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    if (count >= 0 && !addB && sameAsPrevious(sa, sb, ap, ai, i)) {
      store<i32>(cp + (<usize>i << 2), count, 4);
      store<f64>(fl + (<usize>i << 3), flops);
      continue;
    }
    count = 0;
    flops = 0;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    // A's row, then (addB) B's row i as if A had a 1 on the diagonal
    for (let k = load<i32>(ap + (<usize>i << 2)); k <= k1; k++) {
      if (k == k1 && !addB) break;
      const j = <usize>(k == k1 ? i : load<i32>(ai + (<usize>k << 2))) << 2;
      const l0 = load<i32>(bp + j);
      const l1 = load<i32>(bp + j, 4);
      flops += <f64>(l1 - l0);
      for (let l = l0; l < l1; l++) {
        const m = mark + (<usize>load<i32>(bi + (<usize>l << 2)) << 2);
        if (load<i32>(m) != i) {
          store<i32>(m, i);
          count++;
        }
      }
    }
    store<i32>(cp + (<usize>i << 2), count, 4);
    store<f64>(fl + (<usize>i << 3), flops);
  }
}

/** The longest of rows [0, rows) (row pointers at bp): refuseUnfit's bound (src/cpu/spgemm.ts). */
export function spgemm_longest(bp: usize, rows: i32): i32 {
  let longest = 0;
  for (let k = 0; k < rows; k++) longest = max(longest, load<i32>(bp + (<usize>k << 2), 4) - load<i32>(bp + (<usize>k << 2)));
  return longest;
}

/** Σ over A's m rows of the longest row of B each reaches: a lower bound on A·B's entries (refuseUnfit's). */
export function spgemm_least(ap: usize, ai: usize, bp: usize, m: i32): f64 {
  let least: f64 = 0;
  for (let i = 0; i < m; i++) {
    let widest = 0;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const j = <usize>load<i32>(ai + (<usize>k << 2)) << 2;
      widest = max(widest, load<i32>(bp + j, 4) - load<i32>(bp + j));
    }
    least += <f64>widest;
  }
  return least;
}

/**
 * The column checks of an operand's validation (rows [rowStart, rowEnd), its pointers already checked):
 * out[0] = 1 where a column is outside [0, cols), out[1] = 1 where a row's columns do not strictly
 * ascend (i32; the pool offsets `out` by 16 bytes a chunk). Branch-free: rows of a valid matrix cost
 * no mispredictions.
 */
export function spgemm_check(ap: usize, ai: usize, cols: i32, out: usize, rowStart: i32, rowEnd: i32): void {
  let outside = 0;
  let unordered = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    let prev = -1;
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const j = load<i32>(ai + (<usize>k << 2));
      outside |= <i32>(<u32>j >= <u32>cols);
      unordered |= <i32>(j <= prev);
      prev = j;
    }
  }
  store<i32>(out, outside);
  store<i32>(out, unordered, 4);
}

/** fl[i] = the multiply-adds of row i of A·B (the lengths of the rows of B that A's row i reaches), for rows [rowStart, rowEnd). */
export function spgemm_flops(ap: usize, ai: usize, bp: usize, fl: usize, rowStart: i32, rowEnd: i32): void {
  for (let i = rowStart; i < rowEnd; i++) {
    let flops: i64 = 0; // a row's may pass 2³¹
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const j = <usize>load<i32>(ai + (<usize>k << 2)) << 2;
      flops += <i64>(load<i32>(bp + j, 4) - load<i32>(bp + j));
    }
    store<f64>(fl + (<usize>i << 3), <f64>flops);
  }
}

/**
 * In place, fl[i] (row i's multiply-adds, rows [0, m)) becomes the multiply-adds of rows [0, i), and
 * fl[m] their total, which it returns: the numeric pass's split and its chunks' array sizes. A loop
 * over rows, here rather than in JavaScript, whose first calls run it unoptimized (≈ 8 ms for
 * poisson3D(64)'s 262 144 rows, against 0.3).
 */
export function spgemm_flops_before(fl: usize, m: i32): f64 {
  let total: f64 = 0;
  for (let i = 0; i < m; i++) {
    const p = fl + (<usize>i << 3);
    const f = load<f64>(p);
    store<f64>(p, total);
    total += f;
  }
  store<f64>(fl + (<usize>m << 3), total);
  return total;
}

/**
 * Row pointers in place from the counts at cp[i + 1] (rows [0, m)): cp[0] = 0, cp[i + 1] = cp[i] + count
 * of row i. Returns the entries, summed in 64 bits: past 2³¹ − 1 the pointers have wrapped and the
 * caller refuses the product.
 */
export function spgemm_row_pointers(cp: usize, m: i32): f64 {
  let total: i64 = 0;
  store<i32>(cp, 0);
  for (let i = 1; i <= m; i++) {
    const p = cp + (<usize>i << 2);
    total += <i64>load<i32>(p);
    store<i32>(p, <i32>total);
  }
  return <f64>total;
}

export function spgemm_f64(ap: usize, ai: usize, av: usize, bp: usize, bi: usize, bv: usize, n: i32, sc: usize, order: i32, append: i32, slot: usize, cp: usize, ci: usize, cv: usize, sa: usize, sb: usize, rowStart: i32, rowEnd: i32): void {
  const mark = <usize>load<u32>(slot);
  const sum = mark + markerBytes(n);
  const bits = sum + (summaryWords(n) << 3);
  const memo = sum + bitmapBytes(n);
  const recs = memo + 16 + 8 * MEMO_MAX;
  const acc = memo + MEMO_BYTES;
  const replays = order && !sc;
  memory.fill(memo, 0, 16);
  store<i32>(memo, -1);
  clearRecords(recs);
  memory.fill(mark, 0xff, <usize>n << 2);
  memory.fill(sum, 0, bitmapBytes(n));
  if (append) {
    ci = <usize>load<u32>(slot, 4);
    cv = <usize>load<u32>(slot, 8);
  }
  let at = 0;
  // the slot of row i − 1's structure (replayed or recorded), else 0
  let prev: usize = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    const start = append ? at : load<i32>(cp + (<usize>i << 2));
    let r: usize = 0;
    if (prev && sameAsPrevious(sa, sb, ap, ai, i)) {
      r = prev;
      store<i32>(r, i, 8);
      metAgain(recs);
    } else if (replays) r = findRecord(recs, ap, ai, bp, bi, i);
    prev = r;
    if (r) {
      at = start + replay(r, ap, ai, av, bp, bv, i, ci, cv, start);
      if (append) store<i32>(cp + (<usize>i << 2), at - start, 4);
      continue;
    }
    let end = start;
    let lo = n, hi = -1;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    const s = sc ? load<f64>(sc + (<usize>i << 3)) : 1.0;
    // A's row scaled by s, then (sc) B's row i with weight 1
    for (let k = load<i32>(ap + (<usize>i << 2)); k <= k1; k++) {
      if (k == k1 && !sc) break;
      const j = <usize>(k == k1 ? i : load<i32>(ai + (<usize>k << 2))) << 2;
      const a = k == k1 ? 1.0 : sc ? s * load<f64>(av + (<usize>k << 3)) : load<f64>(av + (<usize>k << 3));
      const l1 = load<i32>(bp + j, 4);
      for (let l = load<i32>(bp + j); l < l1; l++) {
        const c = load<i32>(bi + (<usize>l << 2));
        const x = acc + (<usize>c << 3);
        const p = a * load<f64>(bv + (<usize>l << 3));
        const m = mark + (<usize>c << 2);
        if (load<i32>(m) != i) {
          store<i32>(m, i);
          store<i32>(ci + (<usize>end << 2), c);
          end++;
          store<f64>(x, p);
          if (c < lo) lo = c;
          if (c > hi) hi = c;
        } else store<f64>(x, load<f64>(x) + p);
      }
    }
    if (order) orderColumns(sum, bits, memo, i, ci, start, end, lo, hi);
    for (let k = start; k < end; k++) store<f64>(cv + (<usize>k << 3), load<f64>(acc + (<usize>load<i32>(ci + (<usize>k << 2)) << 3)));
    if (replays && keepNow(recs)) prev = record(recs, ap, ai, bp, bi, i, ci, start, end, acc);
    if (append) store<i32>(cp + (<usize>i << 2), end - start, 4);
    at = end;
  }
}

export function spgemm_c128(ap: usize, ai: usize, av: usize, bp: usize, bi: usize, bv: usize, n: i32, append: i32, slot: usize, cp: usize, ci: usize, cv: usize, rowStart: i32, rowEnd: i32): void {
  const mark = <usize>load<u32>(slot);
  const sum = mark + markerBytes(n);
  const bits = sum + (summaryWords(n) << 3);
  const memo = sum + bitmapBytes(n);
  const acc = memo + MEMO_BYTES;
  memory.fill(memo, 0, 16);
  store<i32>(memo, -1);
  memory.fill(mark, 0xff, <usize>n << 2);
  memory.fill(sum, 0, bitmapBytes(n));
  if (append) {
    ci = <usize>load<u32>(slot, 4);
    cv = <usize>load<u32>(slot, 8);
  }
  let at = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    const start = append ? at : load<i32>(cp + (<usize>i << 2));
    let end = start;
    let lo = n, hi = -1;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const j = <usize>load<i32>(ai + (<usize>k << 2)) << 2;
      const ar = load<f64>(av + (<usize>k << 4)), aim = load<f64>(av + (<usize>k << 4), 8);
      const l1 = load<i32>(bp + j, 4);
      for (let l = load<i32>(bp + j); l < l1; l++) {
        const c = load<i32>(bi + (<usize>l << 2));
        const x = acc + (<usize>c << 4);
        const br = load<f64>(bv + (<usize>l << 4)), bim = load<f64>(bv + (<usize>l << 4), 8);
        const pr = ar * br - aim * bim, pi = ar * bim + aim * br;
        const m = mark + (<usize>c << 2);
        if (load<i32>(m) != i) {
          store<i32>(m, i);
          store<i32>(ci + (<usize>end << 2), c);
          end++;
          store<f64>(x, pr);
          store<f64>(x, pi, 8);
          if (c < lo) lo = c;
          if (c > hi) hi = c;
        } else {
          store<f64>(x, load<f64>(x) + pr);
          store<f64>(x, load<f64>(x, 8) + pi, 8);
        }
      }
    }
    orderColumns(sum, bits, memo, i, ci, start, end, lo, hi);
    for (let k = start; k < end; k++) {
      const x = acc + (<usize>load<i32>(ci + (<usize>k << 2)) << 4);
      store<f64>(cv + (<usize>k << 4), load<f64>(x));
      store<f64>(cv + (<usize>k << 4), load<f64>(x, 8), 8);
    }
    if (append) store<i32>(cp + (<usize>i << 2), end - start, 4);
    at = end;
  }
}

/** Quicksort of a[l..r] (median of three), insertion sort below 24 entries, heapsort past `depth` levels: O(n·log n) always. */
function introsort(a: usize, l: i32, r: i32, depth: i32): void {
  while (r - l >= 24) {
    if (depth-- == 0) {
      heapSort(a + (<usize>l << 2), r - l + 1);
      return;
    }
    const m = l + ((r - l) >> 1);
    // median of a[l], a[m], a[r] as the pivot
    const x = load<i32>(a + (<usize>l << 2)), y = load<i32>(a + (<usize>m << 2)), z = load<i32>(a + (<usize>r << 2));
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let p = l, q = r;
    while (p <= q) {
      while (load<i32>(a + (<usize>p << 2)) < pivot) p++;
      while (load<i32>(a + (<usize>q << 2)) > pivot) q--;
      if (p <= q) {
        const t = load<i32>(a + (<usize>p << 2));
        store<i32>(a + (<usize>p << 2), load<i32>(a + (<usize>q << 2)));
        store<i32>(a + (<usize>q << 2), t);
        p++;
        q--;
      }
    }
    // recurse into the smaller part, loop on the larger: the stack stays O(log n)
    if (q - l < r - p) {
      introsort(a, l, q, depth);
      l = p;
    } else {
      introsort(a, p, r, depth);
      r = q;
    }
  }
  for (let k = l + 1; k <= r; k++) {
    const v = load<i32>(a + (<usize>k << 2));
    let j = k;
    while (j > l && load<i32>(a + (<usize>(j - 1) << 2)) > v) {
      store<i32>(a + (<usize>j << 2), load<i32>(a + (<usize>(j - 1) << 2)));
      j--;
    }
    store<i32>(a + (<usize>j << 2), v);
  }
}

/** In-place heapsort of a[0..len): introsort's fallback. */
function heapSort(a: usize, len: i32): void {
  for (let s = (len >> 1) - 1; s >= 0; s--) siftDown(a, s, len);
  for (let e = len - 1; e > 0; e--) {
    const t = load<i32>(a);
    store<i32>(a, load<i32>(a + (<usize>e << 2)));
    store<i32>(a + (<usize>e << 2), t);
    siftDown(a, 0, e);
  }
}

function siftDown(a: usize, root: i32, len: i32): void {
  const v = load<i32>(a + (<usize>root << 2));
  let r = root;
  for (;;) {
    let c = 2 * r + 1;
    if (c >= len) break;
    if (c + 1 < len && load<i32>(a + (<usize>(c + 1) << 2)) > load<i32>(a + (<usize>c << 2))) c++;
    const cv = load<i32>(a + (<usize>c << 2));
    if (cv <= v) break;
    store<i32>(a + (<usize>r << 2), cv);
    r = c;
  }
  store<i32>(a + (<usize>r << 2), v);
}

// Transpose of an f64 CSR matrix (rows [rowStart, rowEnd) of it a chunk), in two passes:
// spgemm_transpose_count counts the chunk's entries per column into its array (the u32 at `slot`),
// the caller turns the counts into each chunk's first position per column (columns in order, then
// chunks in order: the transpose's rows come out ascending), and spgemm_transpose_fill places them.

export function spgemm_transpose_count(ap: usize, ai: usize, ncols: i32, slot: usize, rowStart: i32, rowEnd: i32): void {
  const cnt = <usize>load<u32>(slot);
  memory.fill(cnt, 0, <usize>ncols << 2);
  const k1 = load<i32>(ap + (<usize>rowEnd << 2));
  for (let k = load<i32>(ap + (<usize>rowStart << 2)); k < k1; k++) {
    const p = cnt + (<usize>load<i32>(ai + (<usize>k << 2)) << 2);
    store<i32>(p, load<i32>(p) + 1);
  }
}

export function spgemm_transpose_fill(ap: usize, ai: usize, av: usize, slot: usize, ti: usize, tv: usize, rowStart: i32, rowEnd: i32): void {
  const next = <usize>load<u32>(slot);
  for (let i = rowStart; i < rowEnd; i++) {
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const p = next + (<usize>load<i32>(ai + (<usize>k << 2)) << 2);
      const q = load<i32>(p);
      store<i32>(p, q + 1);
      store<i32>(ti + (<usize>q << 2), i);
      store<f64>(tv + (<usize>q << 3), load<f64>(av + (<usize>k << 3)));
    }
  }
}

/**
 * The transpose's row pointers (at tp, ncols + 1) from each chunk's counts per column (the array at the
 * u32 of each slot, 16 bytes apart), which become each chunk's first position per column: columns in
 * order, then chunks in order. One thread.
 */
export function spgemm_transpose_offsets(slots: usize, chunks: i32, ncols: i32, tp: usize): void {
  // all columns as one chunk of the pool's pass, starting from 0 held at tp[ncols] (written last)
  const last = tp + (<usize>ncols << 2);
  store<i32>(last, 0);
  store<i32>(last, transpose_starts(slots, chunks, tp, last, 0, ncols));
}
