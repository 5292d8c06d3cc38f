// Sparse triangular solve (sptrsv_<dt>): x[i] = (b[i] − Σ T[i,j]·x[j]) · invDiag[i] (invDiag = 0: a unit
// diagonal). T holds the strict triangle only, its rows stored in the order they are solved: stored row k
// is row rowOf[k] of T, its column indices unchanged, so x, b and invDiag keep the matrix's numbering
// while the factor streams from memory. Sums are accumulated in f64 whatever the storage precision.
//
// The rows come in blocks, claimed one at a time from a counter by every thread that runs the kernel
// (src/cpu/sptrsv.ts), so one pool job solves the whole system: a block of a level waits, spinning,
// until every block of the level group before it is done, then counts itself done in its own group.
// A group is one level split into blocks, or one block of consecutive small levels, which its thread
// solves in order. Blocks are claimed in order and a claimed block's predecessors are all claimed by
// threads already running, so a thread that never arrives holds nothing up, and one thread alone
// (inline) solves every block in order. The pool's range arguments (start, end) are unused.
//
// The schedule, i32 words at `sched`: [0] the claim counter, [1] the number of blocks, [2] of groups; from word 4, per
// block: its first and end stored rows, its group; then per group its number of blocks; then per group
// the blocks done (the counter and these are zeroed before each solve).

@inline function fetchAdd(a: usize, v: i32): i32 {
  if (ASC_FEATURE_THREADS) return atomic.add<i32>(a, v);
  const o = load<i32>(a);
  store<i32>(a, o + v);
  return o;
}

@inline function loadSync(a: usize): i32 {
  if (ASC_FEATURE_THREADS) return atomic.load<i32>(a);
  return load<i32>(a);
}

/** The next block for this thread once its predecessors are done (its record's address), or 0 when none is left. */
@inline function claimBlock(sched: usize): usize {
  const blocks = load<i32>(sched, 4);
  const k = fetchAdd(sched, 1);
  if (k >= blocks) return 0;
  const rec = sched + 16 + <usize>k * 12;
  const g = load<i32>(rec, 8);
  if (g > 0) {
    const groups = sched + 16 + <usize>blocks * 12;
    const want = load<i32>(groups + (<usize>(g - 1) << 2));
    const done = groups + (<usize>load<i32>(sched, 8) << 2) + (<usize>(g - 1) << 2);
    while (loadSync(done) < want) {}
  }
  return rec;
}

@inline function blockDone(sched: usize, rec: usize): void {
  const blocks = load<i32>(sched, 4);
  const done = sched + 16 + <usize>blocks * 12 + (<usize>load<i32>(sched, 8) << 2);
  fetchAdd(done + (<usize>load<i32>(rec, 8) << 2), 1);
}

export function sptrsv_f64(ptr: usize, idx: usize, val: usize, invDiag: usize, rowOf: usize, b: usize, x: usize, sched: usize, start: i32, end: i32): void {
  for (let rec = claimBlock(sched); rec; rec = claimBlock(sched)) {
    for (let k = load<i32>(rec), e = load<i32>(rec, 4); k < e; k++) {
      const i = load<i32>(rowOf + (<usize>k << 2));
      const k1 = load<i32>(ptr + (<usize>k << 2), 4);
      let s = load<f64>(b + (<usize>i << 3));
      for (let p = load<i32>(ptr + (<usize>k << 2)); p < k1; p++) {
        s -= load<f64>(val + (<usize>p << 3)) * load<f64>(x + (<usize>load<i32>(idx + (<usize>p << 2)) << 3));
      }
      store<f64>(x + (<usize>i << 3), invDiag ? s * load<f64>(invDiag + (<usize>i << 3)) : s);
    }
    blockDone(sched, rec);
  }
}

export function sptrsv_f32(ptr: usize, idx: usize, val: usize, invDiag: usize, rowOf: usize, b: usize, x: usize, sched: usize, start: i32, end: i32): void {
  for (let rec = claimBlock(sched); rec; rec = claimBlock(sched)) {
    for (let k = load<i32>(rec), e = load<i32>(rec, 4); k < e; k++) {
      const i = load<i32>(rowOf + (<usize>k << 2));
      const k1 = load<i32>(ptr + (<usize>k << 2), 4);
      let s = <f64>load<f32>(b + (<usize>i << 2));
      for (let p = load<i32>(ptr + (<usize>k << 2)); p < k1; p++) {
        s -= <f64>load<f32>(val + (<usize>p << 2)) * <f64>load<f32>(x + (<usize>load<i32>(idx + (<usize>p << 2)) << 2));
      }
      store<f32>(x + (<usize>i << 2), <f32>(invDiag ? s * <f64>load<f32>(invDiag + (<usize>i << 2)) : s));
    }
    blockDone(sched, rec);
  }
}

export function sptrsv_c128(ptr: usize, idx: usize, val: usize, invDiag: usize, rowOf: usize, b: usize, x: usize, sched: usize, start: i32, end: i32): void {
  for (let rec = claimBlock(sched); rec; rec = claimBlock(sched)) {
    for (let k = load<i32>(rec), e = load<i32>(rec, 4); k < e; k++) {
      const i = load<i32>(rowOf + (<usize>k << 2));
      const k1 = load<i32>(ptr + (<usize>k << 2), 4);
      const bi = b + (<usize>i << 4);
      let sr = load<f64>(bi), si = load<f64>(bi, 8);
      for (let p = load<i32>(ptr + (<usize>k << 2)); p < k1; p++) {
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
    blockDone(sched, rec);
  }
}

export function sptrsv_c64(ptr: usize, idx: usize, val: usize, invDiag: usize, rowOf: usize, b: usize, x: usize, sched: usize, start: i32, end: i32): void {
  for (let rec = claimBlock(sched); rec; rec = claimBlock(sched)) {
    for (let k = load<i32>(rec), e = load<i32>(rec, 4); k < e; k++) {
      const i = load<i32>(rowOf + (<usize>k << 2));
      const k1 = load<i32>(ptr + (<usize>k << 2), 4);
      const bi = b + (<usize>i << 3);
      let sr = <f64>load<f32>(bi), si = <f64>load<f32>(bi, 4);
      for (let p = load<i32>(ptr + (<usize>k << 2)); p < k1; p++) {
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
    blockDone(sched, rec);
  }
}
