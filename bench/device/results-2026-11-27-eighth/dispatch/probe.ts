// (copied from ../f32ref/diag16-probe.ts; SRC is replaced by the worktree to bundle from)
// f32 + refinement against f64 on poisson3D(64), tol 1e-10, upload + solve as bench/solve.ts times them;
// per pool size and dispatch policy: wall / process CPU medians and phases, dispatch counts per dtype.
import { createRuntime, poisson3D } from 'SRC/src/index.js';
const rounds = +(process.env.ROUNDS ?? 5);
const P = poisson3D(64);
const P32 = P.astype('f32');
const b = new Float64Array(P.rows).fill(1);
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1e3; };
const med = (a: number[]) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const cfg of (process.env.CFGS ?? 'auto:auto,1:auto,2:auto,auto:16384,2:16384').split(',')) {
  const [w, it] = cfg.split(':');
  const rt = await createRuntime({ workers: w === 'auto' ? 'auto' : +w, inlineThreshold: it === 'auto' ? 'auto' : +it });
  const res: Record<string, Record<string, number[]>> = { f64: {}, f32: {} };
  const disp: Record<string, Record<string, number[]>> = { f64: {}, f32: {} };
  let info: Record<string, string> = {};
  for (let k = 0; k <= rounds; k++) {
    for (const [dt, A] of [['f64', P], ['f32', P32]] as const) {
      (globalThis as any).__DISPATCH = {};
      const c0 = cpu(); const t0 = performance.now();
      const h = rt.upload(A);
      const t1 = performance.now();
      const st: number[] = [];
      const r = await rt.solve(h, b, { tol: 1e-10, onIteration: () => void st.push(performance.now()) });
      const t2 = performance.now();
      h.dispose();
      const c2 = cpu();
      if (k === 0) continue;
      const n = st.length;
      const m: Record<string, number> = { wall: t2 - t0, cpu: c2 - c0, upload: t1 - t0, toFirst: st[0] - t1, iters: st[n - 1] - st[0], head: dt === 'f32' ? st[76] - st[0] : 0, tail: dt === 'f32' ? st[n - 1] - st[76] : 0, fin: t2 - st[n - 1] };
      for (const [key, v] of Object.entries(m)) (res[dt][key] ??= []).push(v);
      for (const [kern, e] of Object.entries((globalThis as any).__DISPATCH as Record<string, number[]>)) (disp[dt][kern] ??= [0, 0, 0, 0]).forEach((_, i, a) => (a[i] += e[i]));
      info[dt] = `${r.iterations} it, ${r.refinements} ref, true ${r.relativeResidual.toExponential(2)}${r.converged ? '' : ' ' + r.reason}`;
    }
  }
  console.log(`== workers ${w} (threads ${rt.capabilities().threads}), inlineThreshold ${it}, medians of ${rounds}`);
  for (const dt of ['f64', 'f32']) console.log(`  ${dt}: ${Object.entries(res[dt]).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join(' ')} | ${info[dt]}`);
  console.log(`  ratio f64/f32 wall ${(med(res.f64.wall) / med(res.f32.wall)).toFixed(3)} cpu ${(med(res.f64.cpu) / med(res.f32.cpu)).toFixed(3)}`);
  for (const dt of ['f64', 'f32']) console.log(`  ${dt} dispatch: ` + Object.entries(disp[dt]).filter(([, e]) => e[0] + e[1] >= 3 * rounds).map(([k, e]) => `${k} pool ${e[0]}×${(e[2] / Math.max(1, e[0])).toFixed(3)} inline ${e[1]}×${(e[3] / Math.max(1, e[1])).toFixed(3)}`).join('; '));
  rt.dispose();
}
