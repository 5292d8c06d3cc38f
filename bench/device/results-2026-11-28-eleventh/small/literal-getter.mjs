// object literals with a getter against a method and none: node --trace-gc literal-getter.mjs getter|method|plain (time and collections)
const mode = process.argv[2];
const t0 = performance.now(); let z = 0;
for (let i = 0; i < 300000; i++) {
  const big = new Float64Array(50).fill(i);
  let o;
  if (mode === 'getter') o = { big, get g() { return big[0]; } };
  else if (mode === 'method') o = { big, g() { return big[0]; } };
  else o = { big };
  z += o.big[1];
}
console.log(mode, (performance.now() - t0).toFixed(0), 'ms');
