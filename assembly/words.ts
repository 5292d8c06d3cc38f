// Word access into the runtime's memory by element index, and the tree walk the direct solvers'
// kernels share (amd.ts, symbolic.ts, ldl.ts, lu.ts). Not re-exported by index.ts: nothing here is a
// kernel of its own.

// @ts-ignore: decorator
@inline export function ld(a: usize, i: i32): i32 {
  return load<i32>(a + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline export function st(a: usize, i: i32, v: i32): void {
  store<i32>(a + (<usize>i << 2), v);
}

// @ts-ignore: decorator
@inline export function ldf(a: usize, i: i32): f64 {
  return load<f64>(a + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline export function stf(a: usize, i: i32, v: f64): void {
  store<f64>(a + (<usize>i << 3), v);
}

// dst's value d = src's value s, each c f64 words (1 real, 2 complex)
// @ts-ignore: decorator
@inline export function copyValue(dst: usize, d: i32, src: usize, s: i32, c: i32): void {
  stf(dst, c * d, ldf(src, c * s));
  if (c == 2) stf(dst, 2 * d + 1, ldf(src, 2 * s + 1));
}

/** Postorders the subtree at root j into post[k..] (children lists head/next, consumed; stack of n + 1); returns the next k. */
export function treeDfs(j: i32, k: i32, head: usize, next: usize, post: usize, stack: usize): i32 {
  let top = 0;
  st(stack, 0, j);
  while (top >= 0) {
    const p = ld(stack, top);
    const i = ld(head, p);
    if (i == -1) {
      top--;
      st(post, k++, p);
    } else {
      st(head, p, ld(next, i));
      st(stack, ++top, i);
    }
  }
  return k;
}

// y[Xi[p]] −= Xx[p]·yj for p in [p, e): a sparse column of a triangular factor taken off y (real; the
//   solves of lu.ts and btf.ts)
// @ts-ignore: decorator
@inline export function colSub(y: usize, Xi: usize, Xx: usize, p: i32, e: i32, yj: f64): void {
  for (; p < e; p++) {
    const i = ld(Xi, p);
    stf(y, i, ldf(y, i) - ldf(Xx, p) * yj);
  }
}

// *at −= v·(yr + i·yi) for the complex numbers at `at` and `v` (re, im), in one f64x2 each: v·yr + swap(v)·(−yi, yi)
//   is (vr·yr − vi·yi, vi·yr + vr·yi) with the scalar code's roundings (a + (−b) is a − b, and a sum
//   does not depend on its order of two): the same bits as the plain build.
//   (yr: splat(yr), yi: (−yi, yi))
// @ts-ignore: decorator
@inline function csub(at: usize, v: usize, yr: v128, yi: v128): void {
  const w = v128.load(v);
  const t = f64x2.add(f64x2.mul(w, yr), f64x2.mul(v128.shuffle<f64>(w, w, 1, 0), yi));
  v128.store(at, f64x2.sub(v128.load(at), t));
}

// colSub for complex interleaved y and Xx: y[Xi[p]] −= Xx[p]·(yr + i·yi), in f64x2 in the SIMD build
//   (csub: the same bits as the scalar loop)
// @ts-ignore: decorator
@inline export function colSubC(y: usize, Xi: usize, Xx: usize, p: i32, e: i32, yr: f64, yi: f64): void {
  if (ASC_FEATURE_SIMD) {
    const vr = f64x2.splat(yr);
    const vi = f64x2.replace_lane(f64x2.splat(yi), 0, -yi);
    for (; p < e; p++) csub(y + (<usize>ld(Xi, p) << 4), Xx + (<usize>p << 4), vr, vi);
  }
  for (; p < e; p++) {
    const i = ld(Xi, p);
    const xr = ldf(Xx, 2 * p);
    const xi = ldf(Xx, 2 * p + 1);
    stf(y, 2 * i, ldf(y, 2 * i) - (xr * yr - xi * yi));
    stf(y, 2 * i + 1, ldf(y, 2 * i + 1) - (xr * yi + xi * yr));
  }
}
