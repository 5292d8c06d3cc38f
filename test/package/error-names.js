// Consumer fixture: bundled and minified by test/package.test.ts, then run in Node. Every error class
// the package exports must report its own name in a minified bundle (the names are literal, not the
// constructor's, which minifiers rename). Prints { exportName: instanceName }.
import * as simdgl from 'simdgl';

const names = {};
for (const [key, value] of Object.entries(simdgl)) {
  if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
  // arguments every constructor accepts (OptionError's fourth is the list of valid keys)
  names[key] = Reflect.construct(value, ['m', 'm', 'm', ['m'], true]).name;
}
console.log(JSON.stringify(names));
