// rt.solve with each of `variants` ([label, options]) on a fresh handle of A (its plan and set-up made in the call,
// reuse: false), one untimed round (the first of a size grows the memory), then `rounds` alternating the variants:
// per variant its label, the median ms and the last outcome (or `error`: a typed refusal, such as a factor past the
// memory budget, as the variant's outcome). Shared by the probes bench/large-factor-probe.mjs and bench/saddle-probe.mjs, and
// the device probes bench/device/large-factor.ts and bench/device/saddle.ts (each variant's tol defaults to 1e-8, rt.solve's).
export async function solveRounds(rt, A, b, variants, rounds = 3) {
  const times = variants.map(() => []);
  const last = [];
  for (let k = 0; k <= rounds; k++) {
    for (const [v, [, o]] of variants.entries()) {
      const h = rt.upload(A);
      const s = performance.now();
      last[v] = await rt.solve(h, b, { ...o, reuse: false }).catch((e) => ({ error: `${e.name}: ${e.message.slice(0, 160)}` }));
      if (k > 0) times[v].push(last[v].error ? NaN : performance.now() - s);
      h.dispose();
    }
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  return variants.map(([label], v) => ({ label, ms: med(times[v]), r: last[v] }));
}

/** One variant's outcome in words: the method (the factor's kind and ordering, `detail` more of it), iterations, the true residual or the reason. */
export function outcomeLine({ label, ms, r }, detail = () => '') {
  if (r.error) return `${label}: ${r.error}`;
  const what = r.method === 'direct' ? `direct (${r.factor.kind}, ${r.factor.ordering}${detail(r.factor)})` : `${r.method} + ${r.preconditioner}, ${r.iterations} it`;
  return `${label}: ${ms.toFixed(0)} ms, ${what}, ${r.converged ? `true ${r.relativeResidual.toExponential(1)}` : `${r.reason} at ${r.relativeResidual.toExponential(1)}`}${r.methodFallback ? ' (after the Krylov candidates)' : ''}`;
}

/** One variant's outcome as a device probe's TSV line: what, label, path, method + preconditioner, iterations, reason, ms, and the true residual `truth` recomputes. */
export function tsvLine(backend, what, { label, ms, r }, truth) {
  if (r.error) return `${backend}\t${what}\t${label}\t${r.error}`;
  return `${backend}\t${what}\t${label}\t${r.path}\t${r.method}+${r.preconditioner}\t${r.iterations} its\t${r.reason}\t${ms.toFixed(1)} ms\ttrue relres ${truth(r.x).toExponential(2)}`;
}
