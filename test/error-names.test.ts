/**
 * Every error class the package exports reports its own name through a literal (`name = 'ShapeError'`),
 * not through the constructor's name, which minifiers rename (a minified bundle would say `M` or `aa`).
 * test/package.test.ts checks the names in a minified bundle of the packed package; this test catches
 * a class without its literal right away, from the sources.
 */
import { describe, expect, it } from 'vitest';
import * as simdgl from '../src/index.js';

type ErrorClass = new (...args: unknown[]) => Error;
const errorClasses = Object.entries(simdgl as Record<string, unknown>).flatMap(([name, value]): [string, ErrorClass][] =>
  typeof value === 'function' && value.prototype instanceof Error ? [[name, value as ErrorClass]] : [],
);

describe('error names', () => {
  it('the package exports its error classes', () => {
    expect(errorClasses.length).toBeGreaterThanOrEqual(15);
  });
  for (const [exported, cls] of errorClasses) {
    it(`${exported} sets name = '${exported}' literally`, () => {
      // a field `name = 'X'` or an assignment `this.name = 'X'` in the class's own source (the base
      // class: `this.name = new.target === SimdglError ? 'SimdglError' : …`)
      expect(Function.prototype.toString.call(cls)).toMatch(new RegExp(`\\bname = (?:new\\.target === \\w+ \\? )?["']${exported}["']`));
      const e = Reflect.construct(cls, ['m', 'm', 'm', ['m'], true]) as Error;
      expect(e.name).toBe(exported);
    });
  }
});
