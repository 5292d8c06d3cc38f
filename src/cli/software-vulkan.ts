import { existsSync } from 'node:fs';
import { loadDawn } from '../webgpu/device.js';

/** Where Debian's (and most Linux distributions') Chromium keeps SwiftShader's Vulkan driver. */
const SWIFTSHADER_ICDS = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib/chromium-browser/vk_swiftshader_icd.json'];

/**
 * The command line shows the WebGPU path even on machines without a GPU driver: it adds Chromium's
 * SwiftShader (a Vulkan implementation on the CPU) to the drivers Dawn may use. VK_ADD_DRIVER_FILES
 * adds to the loader's search instead of replacing it, so a real GPU still wins, and a driver the user
 * chose (VK_ICD_FILENAMES / VK_DRIVER_FILES) is left alone. With SwiftShader offered, Mesa's lavapipe
 * (the other software driver, which Dawn refuses in Debian 12's Mesa with a "Warning: Vulkan
 * shaderUniform*ArrayDynamicIndexing required" on stderr) is hidden from the loader, unless the user
 * set VK_LOADER_DRIVERS_DISABLE. The library itself never does this: a program decides whether a
 * software renderer counts as a GPU path. Call before the first runtime.
 */
export function offerSoftwareVulkan(): void {
  const env = process.env;
  if (env.VK_ICD_FILENAMES || env.VK_DRIVER_FILES || env.VK_ADD_DRIVER_FILES || env.SIMDGL_NO_SWIFTSHADER) return;
  const icd = SWIFTSHADER_ICDS.find((f) => existsSync(f));
  if (!icd) return;
  env.VK_ADD_DRIVER_FILES = icd;
  env.VK_LOADER_DRIVERS_DISABLE ??= '*lvp_icd*';
}

/**
 * createRuntime's `webgpu` option for the command's 'auto' runtimes: in Node the library loads Dawn
 * (the optional `webgpu` package) by itself only when a GPU path is forced, and the reports show every
 * path, so the command hands Dawn in. Without the package nothing is handed in and the runtime says why.
 */
export async function dawnOption(): Promise<{ gpu?: GPU }> {
  const gpu = await loadDawn();
  return typeof gpu === 'string' ? {} : { gpu };
}
