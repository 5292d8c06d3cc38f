// west0479, warm and 20 ms asleep before each call: rt.upload + rt.solve against the direct solver's own
// layers called straight (planFactor + factorize(once) + F.solve + info, on the runtime's kernels, A's
// canonical CSR given): what the runtime's layers around the factorization (upload, option checks, the
// plan's cache, the certificate, the result) cost warm and cold. Calls alternated, medians of process CPU
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { createRuntime, parseMatrixMarket } = await import(dist + '/dist/index.js');
const { planFactor } = await import(dist + '/dist/solvers/direct/plan.js');
const { factorize } = await import(dist + '/dist/solvers/direct/factor.js');
const { directKernels } = await import(dist + '/dist/runtime/direct.js');
const rt = await createRuntime();
const A = parseMatrixMarket(readFileSync('/work/wt/small479/data/matrices/west0479.mtx')).matrix.toCSR();
const b = new Float64Array(A.rows).fill(1);
const K = directKernels(rt.cpu.backend);
const viaRt = async () => { const h = rt.upload(A); const r = await rt.solve(h, b, { tol: 1e-8 }); h.dispose(); return r.relativeResidual; };
const straight = async () => { const plan = planFactor(A, 'auto', 'auto', K.symbolic); const F = await factorize(A, {}, undefined, K, plan, true); const s = await F.solve(b); const info = F.info; F.dispose(); return s.relativeResidual + 0 * info.n; };
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const gap of [0, 20]) {
  const res = [[], []]; const rr = [];
  for (let k = -200; k < (gap ? 150 : 1500); k++) {
    for (const j of (k & 1) ? [1, 0] : [0, 1]) {
      if (gap && k >= 0) await new Promise((r) => setTimeout(r, gap));
      const c0 = process.cpuUsage();
      rr[j] = await (j ? straight() : viaRt());
      const c = process.cpuUsage(c0);
      if (k >= 0) res[j].push(c.user + c.system);
    }
  }
  console.log(`GAP ${gap}: rt.upload + rt.solve ${med(res[0])} µs, planFactor + factorize + F.solve + info ${med(res[1])} µs CPU (${rr.map((x) => x.toExponential(2)).join(' / ')})`);
}
rt.dispose();
