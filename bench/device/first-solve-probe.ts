/**
 * What a WebGPU user sees first: a fresh process's createRuntime, rt.upload and rt.solve of
 * poisson3D(n) (b = 1, defaults, the WebGPU path), then the same handle solved again --runs times.
 * Each solve is split by what the host spent in the WebGPU calls it made (the device's prototypes
 * wrapped: pipelines made (synchronously or not), shader modules, buffers made (count, MB, mappable
 * ones apart), bind groups, queue writes, submits, mapped ranges (the external memory V8 counts) and
 * the waits for mappings), when its first and last submit came, its garbage collections, and the
 * GPU buffers alive after it (count, MB: N solves must not grow them) and the host's memory after a
 * forced collection (with --expose-gc). The true residual of the last answer in f64 on the host.
 *
 *   node --expose-gc first-solve-probe.mjs [--n 128] [--runs 8] [--label new] [--dtype f64] > probe.tsv
 *   (in Node without a GPU: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json, a small --n)
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { create as createDawn } from 'webgpu';
import { createRuntime } from '../../src/runtime/runtime.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { trueResidual } from './true-residual.js';

const args = process.argv.slice(2);
const opt = (k: string, d: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const n = Number(opt('--n', '128'));
const runs = Number(opt('--runs', '8'));
const label = opt('--label', 'probe');
const dtype = opt('--dtype', 'f64') as 'f64' | 'f32';
// a preconditioner to ask for (default: rt.solve's choice)
const pre = opt('--pre', '');
const maxIter = Number(opt('--max-iter', '0'));
const gc = (globalThis as { gc?: () => void }).gc;

type Tally = Record<string, { n: number; ms: number; bytes: number }>;
let tally: Tally = {};
const add = (k: string, ms: number, bytes = 0) => {
  const t = (tally[k] ??= { n: 0, ms: 0, bytes: 0 });
  t.n++;
  t.ms += ms;
  t.bytes += bytes;
};
const live = new Map<object, number>();
let firstSubmit = -1;
let lastSubmit = -1;

/** Wraps method `name` of `proto` so that its host time is tallied under `key(args, out)`. */
function wrap(proto: Record<string, unknown>, name: string, key: (a: unknown[], out: unknown) => [string, number] | null, after?: (out: unknown, a: unknown[]) => void): void {
  const f = proto[name] as (...a: unknown[]) => unknown;
  proto[name] = function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    const out = f.apply(this, a);
    const ms = performance.now() - t;
    const k = key(a, out);
    if (k) add(k[0], ms, k[1]);
    after?.(out, a);
    return out;
  };
}

const gpu = createDawn([]) as unknown as GPU;
const tCreate = performance.now();
const rt = await createRuntime({ backend: 'webgpu', workers: 1, webgpu: { gpu } });
const createMs = performance.now() - tCreate;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const device = (rt.pathById('webgpu') as any).backend.engine.device as GPUDevice;
const devP = Object.getPrototypeOf(device);
const queueP = Object.getPrototypeOf(device.queue);
const made: string[] = [];
wrap(devP, 'createComputePipeline', () => ['pipeline (sync)', 0], (_o, a) => made.push((a[0] as GPUComputePipelineDescriptor).label ?? '?'));
wrap(devP, 'createShaderModule', () => ['shader module', 0]);
wrap(devP, 'createBindGroup', () => ['bind group', 0]);
// when the background pipelines were asked for and answered (ms from the solve's start), and the solve's waits for them
const asyncAt = { issued: [] as number[], answered: [] as number[] };
let solveT0 = 0;
wrap(devP, 'createComputePipelineAsync', () => ['pipeline (async, issued)', 0], (out) => {
  const t = performance.now();
  asyncAt.issued.push(t - solveT0);
  (out as Promise<unknown>).then(() => {
    add('pipeline (async, done after issue)', performance.now() - t);
    asyncAt.answered.push(performance.now() - solveT0);
  }, () => {});
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const engineP = Object.getPrototypeOf((rt.pathById('webgpu') as any).backend.engine);
if (typeof engineP.prewarmed === 'function') {
  const prewarmed = engineP.prewarmed;
  engineP.prewarmed = function (this: unknown) {
    const p = prewarmed.call(this) as Promise<void> | null;
    const t = performance.now();
    p?.then(() => add('waited for background pipelines', performance.now() - t));
    return p;
  };
}
let bufP: Record<string, unknown> | null = null;
wrap(devP, 'createBuffer', (a) => {
  const d = a[0] as GPUBufferDescriptor;
  const kind = d.usage & 1 ? 'buffer MAP_READ' : d.usage & 2 ? 'buffer MAP_WRITE' : d.mappedAtCreation ? 'buffer mappedAtCreation' : 'buffer';
  return [kind, d.size];
}, (out, a) => {
  live.set(out as object, (a[0] as GPUBufferDescriptor).size);
  if (!bufP) {
    bufP = Object.getPrototypeOf(out);
    wrap(bufP!, 'getMappedRange', (_a, r) => ['mapped range (external)', (r as ArrayBuffer).byteLength]);
    const destroy = bufP!.destroy as (...x: unknown[]) => unknown;
    bufP!.destroy = function (this: object, ...x: unknown[]) {
      live.delete(this);
      return destroy.apply(this, x);
    };
    const mapAsync = bufP!.mapAsync as (...x: unknown[]) => Promise<unknown>;
    bufP!.mapAsync = function (this: object, ...x: unknown[]) {
      const t = performance.now();
      const p = mapAsync.apply(this, x);
      p.then(() => add(x[0] === 1 ? 'map for read (wait)' : 'map for write (wait)', performance.now() - t), () => {});
      return p;
    };
  }
});
wrap(queueP, 'writeBuffer', (a) => ['queue.writeBuffer', Number((a[4] as number | undefined) ?? (a[2] as ArrayBufferLike).byteLength ?? 0)]);
// --stop-at-submit: the process ends at the first solve's first submit (the host part before it, e.g. under
// --cpu-prof on a software adapter, whose GPU time says nothing)
const stopAtSubmit = args.includes('--stop-at-submit');
wrap(queueP, 'submit', () => ['submit', 0], () => {
  const t = performance.now();
  if (firstSubmit < 0) firstSubmit = t;
  lastSubmit = t;
  if (stopAtSubmit) {
    const waited = tally['waited for background pipelines'];
    console.log(`STOP\t${label}\tfirst submit at ${(t - solveT0).toFixed(1)} ms of the first solve (rt.upload ${uploadMs.toFixed(1)} ms before it)\tCPU ${(((c) => c.user + c.system)(process.cpuUsage(cpuStart)) / 1000).toFixed(0)} ms since rt.upload${waited ? `\twaited for background pipelines ${waited.ms.toFixed(1)} ms` : ''}`);
    process.exit(0);
  }
});

const A = poisson3D(n).astype(dtype);
const b = dtype === 'f32' ? new Float32Array(A.rows).fill(1) : new Float64Array(A.rows).fill(1);
const gcs: { t: number; ms: number; kind: number }[] = [];
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push({ t: e.startTime, ms: e.duration, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0 }); });
obs.observe({ entryTypes: ['gc'] });
console.log(`# ${label}: poisson3D(${n}) ${dtype}, ${A.rows} rows; createRuntime ${createMs.toFixed(1)} ms; node ${process.version}`);
const mb = (x: number) => (x / 1048576).toFixed(1);
let x: ArrayLike<number> = b;
let last: { iterations: number; method: string; preconditioner: string; reason: string } | null = null;
const cpuStart = process.cpuUsage();
const tUpload = performance.now();
const h = rt.upload(A);
const uploadMs = performance.now() - tUpload;
for (let s = 0; s <= runs; s++) {
  tally = {};
  made.length = 0;
  asyncAt.issued.length = asyncAt.answered.length = 0;
  firstSubmit = lastSubmit = -1;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  solveT0 = t0;
  const r = await rt.solve(h, b, { path: 'webgpu', ...(pre ? { preconditioner: pre as 'jacobi' } : {}), ...(maxIter ? { maxIter } : {}) });
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  x = r.x;
  last = r;
  await new Promise((res) => setTimeout(res, 10));
  const gcIn = gcs.filter((g) => g.t >= t0 && g.t < performance.now());
  const mem0 = process.memoryUsage();
  gc?.();
  const mem = process.memoryUsage();
  let liveBytes = 0;
  for (const v of live.values()) liveBytes += v;
  const cells = Object.entries(tally).sort((p, q) => q[1].ms - p[1].ms).map(([k, t]) => `${k} ${t.n}/${t.ms.toFixed(1)} ms${t.bytes ? `/${mb(t.bytes)} MB` : ''}`);
  console.log(`SOLVE\t${label}\t${s === 0 ? 'first' : `#${s + 1}`}\t${(t1 - t0).toFixed(1)} ms\thost CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms\t${r.iterations} it ${r.reason}\tfirst submit at ${firstSubmit < 0 ? '-' : (firstSubmit - t0).toFixed(1)} ms, last at ${lastSubmit < 0 ? '-' : (lastSubmit - t0).toFixed(1)}\tGCs ${gcIn.length}/${gcIn.reduce((a, g) => a + g.ms, 0).toFixed(1)} ms${gcIn.some((g) => g.kind === 4) ? ' M' : ''}\tbefore gc: external ${mb(mem0.external)} MB, arrayBuffers ${mb(mem0.arrayBuffers)}\tafter gc: heap ${mb(mem.heapUsed)} MB, external ${mb(mem.external)}, arrayBuffers ${mb(mem.arrayBuffers)}, rss ${mb(mem.rss)}\tGPU buffers made here and alive ${live.size} (${mb(liveBytes)} MB)\t${cells.join('\t')}${made.length ? `\tpipelines made: ${made.join(' ')}` : ''}${asyncAt.issued.length ? `\tbackground pipelines asked for at ${Math.min(...asyncAt.issued).toFixed(0)}–${Math.max(...asyncAt.issued).toFixed(0)} ms, answered ${asyncAt.answered.length} by ${Math.max(...asyncAt.answered).toFixed(0)} ms (first ${Math.min(...asyncAt.answered).toFixed(0)})` : ''}`);
}
obs.disconnect();
if (args.includes('--writes')) {
  // b's 16 MB (n = 128) into a GPU buffer once a solve, three ways: the engine's kept MAP_WRITE buffer (what
  // writeVector does: a fresh mapping, external memory, each time), queue.writeBuffer whole (Dawn stages
  // it: past its 4 MB ring a staging buffer of its own), and in ring-sized pieces; host ms, then the GPU's
  // completion awaited (as the solve's iterations would) before the next
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const engine = (rt.pathById('webgpu') as any).backend.engine;
  const dst = device.createBuffer({ size: b.byteLength, usage: 128 | 8 | 4 });
  const ways: [string, () => void][] = [
    ['engine.write (kept MAP_WRITE)', () => engine.write(dst, b)],
    ['queue.writeBuffer whole', () => device.queue.writeBuffer(dst, 0, b.buffer, b.byteOffset, b.byteLength)],
    ['queue.writeBuffer 4 MB pieces', () => {
      for (let at = 0; at < b.byteLength; at += 4 << 20) device.queue.writeBuffer(dst, at, b.buffer, b.byteOffset + at, Math.min(4 << 20, b.byteLength - at));
      device.queue.submit([]);
    }],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [what, write] of ways) {
      const ts: number[] = [];
      tally = {};
      for (let k = 0; k < 12; k++) {
        const t = performance.now();
        write();
        ts.push(performance.now() - t);
        await device.queue.onSubmittedWorkDone();
      }
      ts.sort((p, q) => p - q);
      const mapped = tally['mapped range (external)'];
      console.log(`WRITE\t${label}\t${what}\t${mb(b.byteLength)} MB\thost ms median ${ts[6].toFixed(2)}, min ${ts[0].toFixed(2)}, max ${ts[11].toFixed(2)}\tmapped ranges ${mapped ? `${mapped.n}/${mb(mapped.bytes)} MB` : '0'}\tbuffers made ${Object.entries(tally).filter(([k]) => k.startsWith('buffer')).map(([k, t]) => `${k} ${t.n}`).join(', ') || 0}`);
    }
  }
  dst.destroy();
}
console.log(`RESULT\t${label}\trt.upload ${uploadMs.toFixed(1)} ms\t${last!.method} + ${last!.preconditioner}\t${last!.iterations} it\t${last!.reason}\ttrue residual ${trueResidual(poisson3D(n), x, b).toExponential(2)}`);
rt.dispose();
