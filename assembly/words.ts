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
