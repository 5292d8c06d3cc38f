// The AMG setup's strength of connection and aggregation (src/solvers/amg/aggregate.ts has the plain
// JavaScript they are tested against), on the pool.
//
// amg_diagonal: over rows [rowStart, rowEnd) of a canonical CSR A (f64), D⁻¹ (0 where the diagonal is
// not positive or not stored) and √|aᵢᵢ| (the strength test's factor); the chunk's count of rows whose
// diagonal is not positive at `out` (the pool offsets it by 16 bytes a chunk).
//
// The aggregation: PyAMG's standard aggregation on the symmetric strength (|aᵢⱼ| ≥ θ·√|aᵢᵢ|·√|aⱼⱼ|,
// j ≠ i, aᵢⱼ ≠ 0), its two sequential passes in blocks of consecutive rows (bb: block b is rows
// [bb[b], bb[b + 1]); a chunk runs blocks [rowStart, rowEnd)), each seeing only its own rows; the
// blocks are a function of the rows alone, not of the threads, so the result is the same on any
// pool. amg_aggregate_roots (pass 1): a node whose strong neighbours in the block are all free, and
// none in an earlier block, becomes a root, and it and they an aggregate (block-local numbers,
// counts[b] of them; a node with no strong neighbour at all is isolated); amg_aggregate_offset adds offsets[b] to the block's aggregated nodes;
// amg_aggregate_join (pass 2, over rows): a free node joins the pass-1 aggregate of its first strong
// neighbour, in any block, that has one — it reads pass 1's result only (its own marks are negative),
// so its rows run in any order; amg_aggregate_rest (pass 3): a node still free becomes a root with its
// free strong neighbours in the block (block-local numbers after REST, counts[b]);
// amg_aggregate_final numbers pass 3's aggregates from bases[b] and decodes the marks. With one block
// this is PyAMG's aggregation node for node, its numbers too.

const FREE: i32 = -1;
const ISOLATED: i32 = -2;
// a node that joined aggregate a in pass 2 holds −(a + 3) until the end of the block, so that pass 2
// still tells pass-1 aggregates (≥ 0) from its own (PyAMG reads a copy made after pass 1)
const JOINED: i32 = -3;

export function amg_diagonal(ap: usize, ai: usize, av: usize, dinv: usize, sd: usize, out: usize, rowStart: i32, rowEnd: i32): void {
  let bad = 0;
  for (let i = rowStart; i < rowEnd; i++) {
    let d: f64 = 0;
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    // columns ascend: the search stops at the first column ≥ i
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const c = load<i32>(ai + (<usize>k << 2));
      if (c < i) continue;
      if (c == i) d = load<f64>(av + (<usize>k << 3));
      break;
    }
    if (!(d > 0)) bad++;
    store<f64>(dinv + (<usize>i << 3), d > 0 ? 1 / d : 0);
    store<f64>(sd + (<usize>i << 3), Math.sqrt(Math.abs(d)));
  }
  store<i32>(out, bad);
}

// @ts-ignore: decorator
@inline function strong(ai: usize, av: usize, sd: usize, si: f64, i: i32, k: i32, lo: i32, hi: i32): i32 {
  const j = load<i32>(ai + (<usize>k << 2));
  if (j == i || j < lo || j >= hi) return -1;
  const a = Math.abs(load<f64>(av + (<usize>k << 3)));
  return a != 0 && a >= si * load<f64>(sd + (<usize>j << 3)) ? j : -1;
}

/** Pass-3 aggregates are block-local numbers from here until amg_aggregate_final. */
const REST: i32 = 0x40000000;

export function amg_aggregate_roots(ap: usize, ai: usize, av: usize, sd: usize, theta: f64, agg: usize, bb: usize, counts: usize, rowStart: i32, rowEnd: i32): void {
  for (let b = rowStart; b < rowEnd; b++) {
    const lo = load<i32>(bb + (<usize>b << 2));
    const hi = load<i32>(bb + (<usize>b << 2), 4);
    memory.fill(agg + (<usize>lo << 2), 0xff, <usize>(hi - lo) << 2);
    let count = 0;
    for (let i = lo; i < hi; i++) {
      if (load<i32>(agg + (<usize>i << 2)) != FREE) continue;
      const si = theta * load<f64>(sd + (<usize>i << 3));
      const k0 = load<i32>(ap + (<usize>i << 2));
      const k1 = load<i32>(ap + (<usize>i << 2), 4);
      let m = 0;
      let taken = false;
      for (let k = k0; k < k1; k++) {
        const j = strong(ai, av, sd, si, i, k, 0, 0x7fffffff);
        if (j < 0 || j >= hi) continue;
        // a node tied to an earlier block is left to pass 2, as a sequential pass 1 would mostly have
        // taken it into one of that block's aggregates
        if (j < lo || load<i32>(agg + (<usize>j << 2)) != FREE) {
          taken = true;
          break;
        }
        m++;
      }
      if (taken) continue;
      if (m == 0) {
        // no strong neighbour in the block: isolated when it has none anywhere
        let any = false;
        for (let k = k0; k < k1 && !any; k++) any = strong(ai, av, sd, si, i, k, 0, 0x7fffffff) >= 0;
        if (!any) store<i32>(agg + (<usize>i << 2), ISOLATED);
        continue;
      }
      store<i32>(agg + (<usize>i << 2), count);
      for (let k = k0; k < k1; k++) {
        const j = strong(ai, av, sd, si, i, k, lo, hi);
        if (j >= 0) store<i32>(agg + (<usize>j << 2), count);
      }
      count++;
    }
    store<i32>(counts + (<usize>b << 2), count);
  }
}

export function amg_aggregate_offset(agg: usize, bb: usize, offsets: usize, rowStart: i32, rowEnd: i32): void {
  for (let b = rowStart; b < rowEnd; b++) {
    const off = load<i32>(offsets + (<usize>b << 2));
    if (off == 0) continue;
    const hi = load<i32>(bb + (<usize>b << 2), 4);
    for (let i = load<i32>(bb + (<usize>b << 2)); i < hi; i++) {
      const a = load<i32>(agg + (<usize>i << 2));
      if (a >= 0) store<i32>(agg + (<usize>i << 2), a + off);
    }
  }
}

export function amg_aggregate_join(ap: usize, ai: usize, av: usize, sd: usize, theta: f64, agg: usize, rowStart: i32, rowEnd: i32): void {
  for (let i = rowStart; i < rowEnd; i++) {
    if (load<i32>(agg + (<usize>i << 2)) != FREE) continue;
    const si = theta * load<f64>(sd + (<usize>i << 3));
    const k1 = load<i32>(ap + (<usize>i << 2), 4);
    for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
      const j = strong(ai, av, sd, si, i, k, 0, 0x7fffffff);
      if (j < 0) continue;
      const a = load<i32>(agg + (<usize>j << 2));
      if (a >= 0) {
        store<i32>(agg + (<usize>i << 2), JOINED - a);
        break;
      }
    }
  }
}

export function amg_aggregate_rest(ap: usize, ai: usize, av: usize, sd: usize, theta: f64, agg: usize, bb: usize, counts: usize, rowStart: i32, rowEnd: i32): void {
  for (let b = rowStart; b < rowEnd; b++) {
    const lo = load<i32>(bb + (<usize>b << 2));
    const hi = load<i32>(bb + (<usize>b << 2), 4);
    let count = REST;
    for (let i = lo; i < hi; i++) {
      if (load<i32>(agg + (<usize>i << 2)) != FREE) continue;
      store<i32>(agg + (<usize>i << 2), count);
      const si = theta * load<f64>(sd + (<usize>i << 3));
      const k1 = load<i32>(ap + (<usize>i << 2), 4);
      for (let k = load<i32>(ap + (<usize>i << 2)); k < k1; k++) {
        const j = strong(ai, av, sd, si, i, k, lo, hi);
        if (j >= 0 && load<i32>(agg + (<usize>j << 2)) == FREE) store<i32>(agg + (<usize>j << 2), count);
      }
      count++;
    }
    store<i32>(counts + (<usize>b << 2), count - REST);
  }
}

export function amg_aggregate_final(agg: usize, bb: usize, bases: usize, rowStart: i32, rowEnd: i32): void {
  for (let b = rowStart; b < rowEnd; b++) {
    const base = load<i32>(bases + (<usize>b << 2));
    const hi = load<i32>(bb + (<usize>b << 2), 4);
    for (let i = load<i32>(bb + (<usize>b << 2)); i < hi; i++) {
      const p = agg + (<usize>i << 2);
      const a = load<i32>(p);
      if (a >= REST) store<i32>(p, base + (a - REST));
      else if (a <= JOINED) store<i32>(p, JOINED - a);
      else if (a == ISOLATED) store<i32>(p, FREE);
    }
  }
}
