/**
 * Ninth adversarial pass, Matrix Market values f64 cannot hold as written: a finite decimal past its
 * range (1e999 → Infinity, 1e-400 → 0) or an integer-field value past 2⁵³ that f64 rounds
 * (9007199254740993 → …992) was read without a word — where a value f32 cannot hold is a ParseError
 * when reading into f32 (docs/formats.md), and vector data past 2⁵³ is an InputRangeError. Each is now
 * a ParseError at its line naming the entry; the literals inf/nan, zeros and subnormals read as before.
 */
import { describe, expect, it } from 'vitest';
import { parseMatrixMarket, readMatrixMarket } from '../src/io/index.js';
import { ParseError } from '../src/errors.js';
import type { DType } from '../src/dtype.js';

const coordinate = (field: string, value: string) => `%%MatrixMarket matrix coordinate ${field} general\n2 2 2\n1 1 1${field === 'complex' ? ' 0' : ''}\n2 2 ${value}\n`;
const array = (field: string, value: string) => `%%MatrixMarket matrix array ${field} general\n2 1\n1${field === 'complex' ? ' 0' : ''}\n${value}\n`;

/** The stored value of entry (2, 2) (coordinate) or (2, 1) (array): re, and im for complex. */
function read(text: string, dtype?: DType): number[] {
  const { matrix } = parseMatrixMarket(text, { dtype });
  const A = matrix.toCSR();
  const c = A.dtype === 'c64' || A.dtype === 'c128' ? 2 : 1;
  return Array.from(A.values.slice(c, 2 * c));
}

async function readStream(text: string): Promise<number[]> {
  const bytes = new TextEncoder().encode(text);
  // 3-byte chunks: a token split across chunks
  const chunks = async function* () {
    for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
  };
  const { matrix } = await readMatrixMarket(chunks());
  return Array.from(matrix.toCSR().values.slice(1, 2));
}

describe('values f64 cannot hold', () => {
  const refused = ['1e999', '-1e999', '1.8e308', '1e-400', '-1e-400', '1e-324', '0.0000000001e-320'];
  it('a finite decimal past the range is a ParseError at its line naming the entry (read as ±Infinity or 0 before)', async () => {
    for (const v of refused) {
      for (const [text, where] of [
        [coordinate('real', v), '(2, 2)'],
        [array('real', v), '(2, 1)'],
        [coordinate('complex', `${v} 1`), '(2, 2)'],
        [coordinate('complex', `1 ${v}`), '(2, 2)'],
        [array('complex', `1 ${v}`), '(2, 1)'],
      ] as const) {
        for (const dtype of [undefined, text.includes('complex') ? 'c64' : 'f32'] as const) {
          expect(() => read(text, dtype), `${v} ${dtype}`).toThrow(ParseError);
          try {
            read(text, dtype);
          } catch (e) {
            expect((e as ParseError).line, `${v} ${text}`).toBe(4);
            expect((e as Error).message).toContain(`entry ${where} is ${v}, which f64 cannot hold`);
          }
        }
      }
      await expect(readStream(coordinate('real', v))).rejects.toBeInstanceOf(ParseError);
    }
  });

  it('what f64 holds reads as before: inf/nan literals, zeros of any exponent, subnormals, the largest finite', async () => {
    const cases: [string, number][] = [
      ['inf', Infinity],
      ['-Infinity', -Infinity],
      ['1.7976931348623157e308', 1.7976931348623157e308],
      ['4.9406564584124654e-324', 5e-324],
      ['3e-324', 5e-324],
      ['2.2250738585072014e-308', 2.2250738585072014e-308],
      ['0e-999', 0],
      ['-0.0e999', -0],
      ['0.000', 0],
      ['1e22', 1e22],
      ['1e-22', 1e-22],
    ];
    for (const [text, want] of cases) {
      expect(read(coordinate('real', text))[0], text).toBe(want);
      expect((await readStream(coordinate('real', text)))[0], text).toBe(want);
    }
    expect(Number.isNaN(read(coordinate('real', 'nan'))[0])).toBe(true);
  });

  it('an integer-field value f64 rounds is a ParseError (read as its neighbour before); exact ones read, and a real field rounds as decimals do', () => {
    for (const v of ['9007199254740993', '-9007199254740993', '+18014398509481985', '123456789012345678901']) {
      expect(() => read(coordinate('integer', v)), v).toThrow(/entry \(2, 2\) is [+-]?\d+, which f64 cannot hold \(it would become -?\d/);
      expect(() => read(array('integer', v)), v).toThrow(ParseError);
    }
    for (const v of ['9007199254740992', '-9007199254740992', '18014398509481984', '000009007199254740992', '1180591620717411303424']) {
      expect(read(coordinate('integer', v))[0], v).toBe(Number(v));
    }
    expect(read(coordinate('real', '9007199254740993'))[0]).toBe(9007199254740992);
  });
});
