/**
 * Byte-level number scanning for the Matrix Market reader. Works on ASCII bytes in a Uint8Array so the
 * reader never builds a string per line. Every scan starts at `cur.pos`, stops at the first byte that
 * cannot continue the token, and leaves `cur.pos` there; the caller checks what follows.
 *
 * Accepted real syntax (case-insensitive): [+|-] digits [. [digits]] | [+|-] . digits, then an optional
 * exponent [e|E|d|D] [+|-] digits (d/D: Fortran double-precision output); also [+|-] inf, infinity, nan.
 */

/** Scan position shared by the scan functions (one object, so V8 keeps the field access monomorphic). */
export interface Cursor {
  pos: number;
  /** false after a failed scan (no number at `pos`) */
  ok: boolean;
  /** true when the last float scanned was written as a plain integer (no point, exponent, inf or nan) */
  isInt: boolean;
  /** true when the last float scanned is a finite decimal f64 cannot hold: it became ±Infinity, or a nonzero one became 0 */
  lost: boolean;
}

export function newCursor(): Cursor {
  return { pos: 0, ok: true, isInt: true, lost: false };
}

/** Exact powers of ten: every 10^k with k <= 22 is exactly representable in binary64. */
const POW10 = new Float64Array(23);
for (let k = 0, p = 1; k <= 22; k++, p *= 10) POW10[k] = p;

/**
 * Unsigned decimal integer (optional leading +). Returns -1 when `pos` holds no digit. Values past 2^53
 * lose exactness, which is harmless: they are rejected as out of range by every caller.
 */
export function scanUint(buf: Uint8Array, cur: Cursor): number {
  let p = cur.pos;
  if (buf[p] === 43) p++; // '+'
  let c = buf[p] - 48;
  if (c < 0 || c > 9) {
    cur.ok = false;
    return -1;
  }
  let v = 0;
  do {
    v = v * 10 + c;
    c = buf[++p] - 48;
  } while (c >= 0 && c <= 9);
  cur.pos = p;
  cur.ok = true;
  return v;
}

/**
 * A real number, correctly rounded to binary64. Sets cur.ok = false (and returns NaN) when no number
 * is at `pos`. Three paths, all correctly rounded:
 * - Clinger's fast path: at most 15 significant digits and |decimal exponent| <= 22. The significand
 *   and the power of ten are then exact doubles, so one IEEE multiply or divide rounds once.
 * - 16 to 19 digits, |exponent| <= 22 (typical of files printed with %.16e / %.17g): the product or
 *   quotient in double-double arithmetic (error < 2^-100 relative), rounded to double, accepted only
 *   when every value within the error bound rounds to the same double; otherwise:
 * - Number() on the token text.
 */
export function scanFloat(buf: Uint8Array, cur: Cursor): number {
  const start = cur.pos;
  let p = start;
  let c = buf[p];
  let neg = false;
  if (c === 45) {
    neg = true;
    c = buf[++p];
  } else if (c === 43) {
    c = buf[++p];
  }
  // value = (hi * 10^nlo + lo) * 10^scale; hi takes the first 15 significant digits, lo the next 4
  let hi = 0;
  let lo = 0;
  let nlo = 0;
  let nd = 0; // significant digits seen (leading zeros excluded)
  let scale = 0;
  let trunc = false; // digits past the 19th were dropped: only the slow path is exact
  let any = false;
  let d = c - 48;
  while (d >= 0 && d <= 9) {
    any = true;
    if (nd < 15) {
      hi = hi * 10 + d;
      if (hi !== 0) nd++;
    } else if (nd < 19) {
      lo = lo * 10 + d;
      nlo++;
      nd++;
    } else {
      scale++;
      trunc = true;
    }
    d = buf[++p] - 48;
  }
  let isInt = true;
  if (buf[p] === 46) {
    // '.'
    isInt = false;
    d = buf[++p] - 48;
    while (d >= 0 && d <= 9) {
      any = true;
      if (nd < 15) {
        hi = hi * 10 + d;
        if (hi !== 0) nd++;
        scale--;
      } else if (nd < 19) {
        lo = lo * 10 + d;
        nlo++;
        nd++;
        scale--;
      } else trunc = true;
      d = buf[++p] - 48;
    }
  }
  if (!any) return scanSpecial(buf, cur, start, p, neg);
  c = buf[p] | 32; // lower-case letters
  if (c === 101 || c === 100) {
    // exponent e/E/d/D
    isInt = false;
    let q = p + 1;
    let eneg = false;
    if (buf[q] === 45) {
      eneg = true;
      q++;
    } else if (buf[q] === 43) q++;
    d = buf[q] - 48;
    if (d < 0 || d > 9) {
      // "1e" or "1e+" is not a number; report it as such rather than stopping before the 'e'
      cur.ok = false;
      return NaN;
    }
    let e = 0;
    do {
      if (e < 100000) e = e * 10 + d;
      d = buf[++q] - 48;
    } while (d >= 0 && d <= 9);
    scale += eneg ? -e : e;
    p = q;
  }
  cur.pos = p;
  cur.ok = true;
  cur.isInt = isInt;
  cur.lost = false;
  if (!trunc) {
    if (nlo === 0) {
      if (scale === 0 || hi === 0) return neg ? -hi : hi;
      if (scale > 0 && scale <= 22) return neg ? -(hi * POW10[scale]) : hi * POW10[scale];
      if (scale < 0 && scale >= -22) return neg ? -(hi / POW10[-scale]) : hi / POW10[-scale];
    } else if (scale >= -22 && scale <= 22) {
      const v = doubleDouble(hi, lo, POW10[nlo], scale);
      if (v === v) return neg ? -v : v;
    }
  }
  // (only this path reaches the ends of the range: the fast ones hold |scale| ≤ 22)
  const v = slowParse(buf, start, p);
  cur.lost = v === Infinity || v === -Infinity || (v === 0 && nd > 0);
  return v;
}

const SPLITTER = 134217729; // 2^27 + 1, Veltkamp's splitting constant
const BOUND = 2 ** -90; // relative error bound of doubleDouble, with a wide margin over the ~2^-104 it achieves
let prodErr = 0;

/** a * b rounded; the exact rounding error goes to prodErr (Dekker's TwoProduct, no FMA in JS). */
function twoProduct(a: number, b: number): number {
  const p = a * b;
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  prodErr = ah * bh - p + ah * bl + al * bh + al * bl;
  return p;
}

/**
 * (hi * tenLo + lo) * 10^scale for 16-19 significant digits and |scale| <= 22, or NaN when the
 * exact value may lie too close to a rounding boundary to decide without more precision.
 */
function doubleDouble(hi: number, lo: number, tenLo: number, scale: number): number {
  // m = hi * tenLo + lo exactly, as s + t (t rounded at ~2^-106 relative)
  const ph = twoProduct(hi, tenLo);
  const pe = prodErr;
  const s = ph + lo;
  const bb = s - ph;
  const t = ph - (s - bb) + (lo - bb) + pe;
  let q: number;
  let r: number;
  if (scale >= 0) {
    const P = POW10[scale];
    q = twoProduct(s, P);
    r = prodErr + t * P;
  } else {
    const P = POW10[-scale];
    q = s / P;
    const h = twoProduct(q, P);
    r = (s - h - prodErr + t) / P; // s - h is exact (Sterbenz): the remainder of the division
  }
  const f = q + r;
  const g = r - (f - q); // f + g = q + r exactly (|q| >= |r|)
  const e = Math.abs(f) * BOUND;
  // rounding is monotonic: if both ends of [f+g-e, f+g+e] round to f, the exact value does too
  return f + (g + e) === f && f + (g - e) === f ? f : NaN;
}

/** inf / infinity / nan with an optional sign (already consumed up to `p`). */
function scanSpecial(buf: Uint8Array, cur: Cursor, start: number, p: number, neg: boolean): number {
  const c0 = buf[p] | 32;
  const c1 = buf[p + 1] | 32;
  const c2 = buf[p + 2] | 32;
  let v = NaN;
  let q = p + 3;
  if (c0 === 105 && c1 === 110 && c2 === 102) {
    // "inf", optionally "inity"
    v = neg ? -Infinity : Infinity;
    if (
      (buf[q] | 32) === 105 &&
      (buf[q + 1] | 32) === 110 &&
      (buf[q + 2] | 32) === 105 &&
      (buf[q + 3] | 32) === 116 &&
      (buf[q + 4] | 32) === 121
    ) {
      q += 5;
    }
  } else if (!(c0 === 110 && c1 === 97 && c2 === 110)) {
    cur.ok = false;
    cur.pos = start;
    return NaN;
  }
  cur.pos = q;
  cur.ok = true;
  cur.isInt = false;
  cur.lost = false;
  return v;
}

/**
 * Significant digits kept by the slow path. Every midpoint between adjacent binary64 values (the only
 * decimals where rounding is decided) has at most 767 significant digits, so digits past the 800th
 * can change the result only through being nonzero: one sticky '1' stands for all of them.
 */
const KEPT_DIGITS = 800;

/**
 * Number() on a bounded rewrite of the token: its first KEPT_DIGITS significant digits (plus a sticky
 * '1' when a later one is nonzero) and its decimal exponent. Correctly rounded like Number() on the
 * whole text, in time linear in the token and memory independent of its length.
 */
function slowParse(buf: Uint8Array, start: number, end: number): number {
  let p = start;
  let sign = '';
  if (buf[p] === 45 || buf[p] === 43) sign = buf[p++] === 45 ? '-' : '';
  let digits = '';
  let kept = 0;
  let sticky = false;
  let pointExp = 0; // value = 0.digits × 10^(pointExp + exponent)
  let seen = false; // a nonzero digit has been seen
  let frac = false;
  for (; p < end; p++) {
    const c = buf[p];
    if (c === 46) {
      frac = true;
      continue;
    }
    if (c < 48 || c > 57) break;
    if (!seen) {
      if (c === 48) {
        if (frac) pointExp--;
        continue;
      }
      seen = true;
    }
    if (!frac) pointExp++;
    if (kept < KEPT_DIGITS) {
      digits += String.fromCharCode(c);
      kept++;
    } else if (c !== 48) sticky = true;
  }
  if (!seen) return sign === '-' ? -0 : 0;
  let exp = 0;
  if (p < end) {
    // e/E/d/D, then [+|-] digits; its magnitude is capped far past where every value is 0 or Infinity
    p++;
    let eneg = false;
    if (buf[p] === 45 || buf[p] === 43) eneg = buf[p++] === 45;
    for (; p < end; p++) if (exp < 1e10) exp = exp * 10 + (buf[p] - 48);
    if (eneg) exp = -exp;
  }
  return Number(`${sign}0.${digits}${sticky ? '1' : ''}e${pointExp + exp}`);
}
