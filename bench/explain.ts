/**
 * `npm run bench -- --only explain` (issue 22 item 5): rt.explain's SpMV estimates, with no
 * rt.calibrate() (the automatic calibration alone), against measured products on every path here —
 * in Node the CPU path with 1 and 2 threads and WebGPU through Dawn (SwiftShader without a GPU), in a
 * cross-origin-isolated Chromium page the CPU, WebGL2 and WebGPU paths. bench/explain-cells.ts
 * measures; the goal is every cell's measured / estimate within [0.5, 2].
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../src/index.js';
import { loadDawn } from '../src/webgpu/device.js';
import { explainCells, type ExplainCell } from './explain-cells.js';
import { runInPage } from './page-run.js';
import { WEBGPU_ARGS } from '../scripts/isolated-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export async function benchExplain(log: (s: string) => void): Promise<ExplainCell[]> {
  const cells: ExplainCell[] = [];
  for (const workers of [1, 2]) {
    const rt = await createRuntime({ backend: 'cpu', workers });
    cells.push(...(await explainCells(rt, `Node, ${workers} thread${workers > 1 ? 's' : ''}`, [{ path: 'cpu', maxRows: 1e6 }], log)));
    rt.dispose();
  }
  // Dawn finds SwiftShader through the Vulkan loader when no GPU driver is installed
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  const dawn = await loadDawn();
  if (typeof dawn === 'string') log(`  Node WebGPU: not measured: ${dawn}`);
  else {
    const rt = await createRuntime({ backend: 'webgpu', webgpu: { gpu: dawn }, workers: 1 });
    log(`  Node WebGPU adapter: ${rt.capabilities().paths.webgpu.device}`);
    cells.push(...(await explainCells(rt, 'Node, Dawn', [{ path: 'webgpu', maxRows: 1e5 }], log)));
    rt.dispose();
  }
  const page = await runInPage(join(root, 'bench', 'explain-page.ts'), [''], '__explain', log, WEBGPU_ARGS);
  if (page) {
    const r = page[0] as { cells: ExplainCell[]; notes: string[]; devices: Record<string, string | undefined> };
    log(`  page devices: WebGL2 ${r.devices.webgl2 ?? '–'}; WebGPU ${r.devices.webgpu ?? '–'}`);
    for (const n of r.notes) log(`  page: path unavailable: ${n}`);
    cells.push(...r.cells);
  }
  return cells;
}
