/**
 * The in-page half of `npm run bench -- --only explain`: a fresh page's runtime (every path Chromium
 * offers: the CPU, WebGL2 and WebGPU, both on SwiftShader without a GPU), estimates against measured
 * products (bench/explain-cells.ts). Results go to window.__explain.
 */
import { createRuntime } from '../src/index.js';
import { explainCells } from './explain-cells.js';
import type { PathId } from '../src/path.js';

const w = window as unknown as { __explain?: unknown; __log: string[] };
w.__log = [];

async function run(): Promise<unknown> {
  const rt = await createRuntime();
  try {
    const caps = rt.capabilities();
    const paths: Array<{ path: PathId; maxRows: number }> = [{ path: 'cpu', maxRows: 1e6 }];
    // a software renderer runs its shaders on the CPU: the larger matrices would take minutes there
    for (const id of ['webgl2', 'webgpu'] as const) if (caps.paths[id].available) paths.push({ path: id, maxRows: 1e5 });
    const notes = (['webgl2', 'webgpu'] as const).filter((id) => !caps.paths[id].available).map((id) => `${id}: ${caps.paths[id].reason}`);
    const cells = await explainCells(rt, `page, ${caps.threads} threads`, paths, (s) => w.__log.push(s));
    return { cells, notes, devices: { webgl2: caps.paths.webgl2.device, webgpu: caps.paths.webgpu.device } };
  } finally {
    rt.dispose();
  }
}

run().then(
  (r) => (w.__explain = r),
  (e) => (w.__explain = { error: String((e as Error)?.stack ?? e) }),
);
