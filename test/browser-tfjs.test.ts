// GPUBuffer interop with TF.js's WebGPU backend in Chromium (WebGPU on SwiftShader): bundles
// test/browser/tfjs-page.ts with @tensorflow/tfjs-core and @tensorflow/tfjs-backend-webgpu, serves it
// (with /matrices/ from data/matrices) and runs it. The page makes a runtime on TF.js's GPUDevice and
// runs tensor → GPUBuffer → SpMV → GPUBuffer → tensor with no read-back in between (every mapAsync
// counted), checked against the f64 reference. Chromium only: it is the engine with a WebGPU adapter
// here (test/browser-webgpu.test.ts reports the others); without Chromium the suite warns loudly.
import { beforeAll, describe, expect, it } from 'vitest';
import { missing, warnMissing } from '../scripts/browsers.mjs';
import { TFJS_CHECKS } from './browser/tfjs-checks.js';
import { runChecksPage, summary, type PageOutcome } from './engine-pages.js';

warnMissing('GPUBuffer interop with TF.js');

describe.runIf(!missing('chromium'))("browser: SpMV inside a TF.js WebGPU pipeline, on TF.js's device (chromium)", () => {
  let outcome: PageOutcome | undefined;
  let setupError: unknown;

  beforeAll(async () => {
    try {
      outcome = await runChecksPage('chromium', { entries: ['tfjs-page.ts'], title: 'simdgl × TF.js WebGPU', webgpu: true, matrices: true, timeout: 240_000 });
      console.log(`TF.js interop in chromium ${outcome.version}\n${summary(outcome)}${outcome.log.length ? `\n${outcome.log.join('\n')}` : ''}`);
    } catch (e) {
      setupError = e;
    }
  }, 300_000);

  for (const name of TFJS_CHECKS) {
    it(name, () => {
      if (setupError) throw setupError;
      expect(outcome?.error, 'the page threw outside a check').toBeUndefined();
      const r = outcome!.results.get(name);
      expect(r, `check "${name}" did not run`).toBeDefined();
      expect(r!.ok, r!.detail).toBe(true);
    });
  }
});
