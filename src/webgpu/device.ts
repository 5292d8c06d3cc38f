/**
 * Where the WebGPU device comes from. Browsers (and Deno): `navigator.gpu`. Node: the `webgpu`
 * package (Dawn), an optional peer dependency, handed in by the user or loaded on demand with a
 * dynamic import when a GPU path is asked for; on Linux Dawn needs
 * a Vulkan driver (a GPU's, or SwiftShader's: point VK_ICD_FILENAMES at the vk_swiftshader_icd.json
 * that Chromium ships). Nothing here throws: a missing piece becomes a `reason`.
 */

export interface WebGpuCapabilities {
  /** a device was obtained */
  webgpu: boolean;
  /** where the GPU object came from */
  source: 'navigator.gpu' | 'webgpu package' | 'given' | null;
  /** the adapter's vendor / architecture / device / description, as far as it says */
  adapter: string;
  /** optional features enabled on the device */
  features: string[];
  /** subgroup operations enabled ('subgroups') */
  subgroups: boolean;
  /** smallest subgroup size the adapter may use (adapter.info.subgroupMinSize; WebGPU guarantees ≥ 4); 0 without subgroups */
  subgroupMinSize: number;
  /** GPU timestamps ('timestamp-query'): kernelTime() measures on the GPU */
  timestampQuery: boolean;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
  /** why the WebGPU path is unavailable; null when it is available */
  reason: string | null;
}

export interface DeviceOptions {
  /** use this GPU object (navigator.gpu, or a Dawn instance) instead of finding one */
  gpu?: GPU;
  /** the adapter to ask for: 'high-performance' or 'low-power' (default: the engine's choice) */
  powerPreference?: GPUPowerPreference;
  /** do not ask for subgroups / timestamp-query even where offered (for tests) */
  disableFeatures?: boolean;
  /** in Node without `gpu`: load the `webgpu` package (Dawn); default true (false: the path is unavailable, with the reason) */
  loadDawn?: boolean;
}

/** Why the WebGPU path is left out in Node under backend 'auto' (Dawn is opt-in). */
export const DAWN_OPT_IN =
  "in Node the WebGPU path is opt-in: install the optional peer dependency 'webgpu' (Dawn) and pass " +
  "createRuntime({ webgpu: { gpu: create([]) } }) with create from 'webgpu', or backend: 'webgpu' or 'gpu'";

export function noCapabilities(reason: string): WebGpuCapabilities {
  return {
    webgpu: false,
    source: null,
    adapter: '',
    features: [],
    subgroups: false,
    subgroupMinSize: 0,
    timestampQuery: false,
    maxStorageBufferBindingSize: 0,
    maxBufferSize: 0,
    maxComputeWorkgroupStorageSize: 0,
    maxComputeInvocationsPerWorkgroup: 0,
    reason,
  };
}

/** Dawn's GPU, made once per process (each instance starts its own Vulkan instance). */
let dawn: Promise<GPU | string> | null = null;

/**
 * Dawn's GPU object from the optional `webgpu` package (loaded once per process), or why it could not
 * be loaded. What the runtime uses under backend 'webgpu'/'gpu' in Node; the CLI hands it in with
 * createRuntime({ webgpu: { gpu } }) so that 'auto' considers the WebGPU path too.
 */
export function loadDawn(): Promise<GPU | string> {
  dawn ??= (async () => {
    try {
      // a variable specifier, marked for Vite and webpack: bundlers leave the optional dependency alone
      // (webpack would otherwise warn "Critical dependency: the request of a dependency is an expression")
      const name = 'webgpu';
      const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ name)) as { create(flags: string[]): GPU };
      return await quietDiscovery(() => mod.create([]));
    } catch (e) {
      return `the optional dependency 'webgpu' (Dawn for Node) could not be loaded: ${(e as Error)?.message ?? String(e)}`;
    }
  })();
  return dawn;
}

/**
 * Creates Dawn's GPU and lets it find its adapters (Dawn enumerates Vulkan devices once, at the first
 * requestAdapter) without Mesa's device-select layer where that layer can only fail: on a headless
 * Linux machine (no DISPLAY, no WAYLAND_DISPLAY, XDG_RUNTIME_DIR unset) it asks libwayland for a
 * display, which prints "error: XDG_RUNTIME_DIR is invalid…" on stderr twice. NODEVICE_SELECT=1 (the
 * layer's own switch) is set for the discovery only and removed again; a user who selects a GPU
 * through the layer (MESA_VK_DEVICE_SELECT, DRI_PRIME) or set NODEVICE_SELECT keeps it as it is.
 */
async function quietDiscovery(create: () => GPU): Promise<GPU> {
  const env = process.env;
  const headless = !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.XDG_RUNTIME_DIR?.startsWith('/');
  const scoped = process.platform === 'linux' && headless && env.NODEVICE_SELECT === undefined && !env.MESA_VK_DEVICE_SELECT && !env.DRI_PRIME;
  if (!scoped) return create();
  env.NODEVICE_SELECT = '1';
  try {
    const gpu = create();
    await gpu.requestAdapter();
    return gpu;
  } finally {
    delete env.NODEVICE_SELECT;
  }
}

/** The GPU object of this engine, or why there is none. */
export async function findGpu(opts: DeviceOptions): Promise<{ gpu: GPU; source: WebGpuCapabilities['source'] } | { reason: string }> {
  if (opts.gpu) return { gpu: opts.gpu, source: 'given' };
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) return { gpu: nav.gpu, source: 'navigator.gpu' };
  const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  if (!isNode) {
    // WebKitGTK with its WebGPU feature on defines navigator.gpu, but as null
    if (nav && 'gpu' in nav && nav.gpu === null) return { reason: 'navigator.gpu is null: this engine exposes WebGPU but has no implementation behind it here' };
    return { reason: 'navigator.gpu is missing: this engine has no WebGPU (or it is disabled)' };
  }
  if (opts.loadDawn === false) return { reason: DAWN_OPT_IN };
  const got = await loadDawn();
  return typeof got === 'string' ? { reason: got } : { gpu: got, source: 'webgpu package' };
}

const WANTED: GPUFeatureName[] = ['subgroups', 'timestamp-query'];

/** A device with the optional features that help (subgroups, timestamp-query) and the adapter's full buffer limits. */
export async function acquireDevice(opts: DeviceOptions): Promise<{ device: GPUDevice; caps: WebGpuCapabilities } | { reason: string }> {
  try {
    const found = await findGpu(opts);
    if ('reason' in found) return found;
    const adapter = await found.gpu.requestAdapter({ powerPreference: opts.powerPreference ?? 'high-performance' });
    if (!adapter) {
      const hint =
        found.source === 'webgpu package' && typeof process !== 'undefined' && !process.env?.VK_ICD_FILENAMES
          ? ' (Dawn found no Vulkan driver it accepts: none is installed, or only one it refuses, such as the lavapipe of Debian 12; without a GPU, set VK_ICD_FILENAMES to a SwiftShader ICD such as /usr/lib/chromium/vk_swiftshader_icd.json)'
          : found.source === 'navigator.gpu'
            ? ' (the browser offers navigator.gpu but no GPU it supports: software renderers are often refused, as by Firefox on Mesa)'
            : '';
      return { reason: `requestAdapter() returned null: no WebGPU adapter here${hint}` };
    }
    const features = opts.disableFeatures ? [] : WANTED.filter((f) => adapter.features.has(f));
    const l = adapter.limits;
    const device = await adapter.requestDevice({
      requiredFeatures: features,
      requiredLimits: {
        maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
        maxBufferSize: l.maxBufferSize,
        maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
        maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
        maxStorageBuffersPerShaderStage: Math.min(10, l.maxStorageBuffersPerShaderStage),
      },
    });
    const info = adapter.info as Partial<GPUAdapterInfo> | undefined;
    const adapterName = [info?.vendor, info?.architecture, info?.device, info?.description].filter((s) => s).join(' / ') || 'unknown adapter';
    const dl = device.limits;
    return {
      device,
      caps: {
        webgpu: true,
        source: found.source,
        adapter: adapterName,
        features,
        subgroups: features.includes('subgroups'),
        subgroupMinSize: features.includes('subgroups') ? Math.max(4, info?.subgroupMinSize ?? 4) : 0,
        timestampQuery: features.includes('timestamp-query'),
        maxStorageBufferBindingSize: dl.maxStorageBufferBindingSize,
        maxBufferSize: dl.maxBufferSize,
        maxComputeWorkgroupStorageSize: dl.maxComputeWorkgroupStorageSize,
        maxComputeInvocationsPerWorkgroup: dl.maxComputeInvocationsPerWorkgroup,
        reason: null,
      },
    };
  } catch (e) {
    return { reason: `getting a WebGPU device threw: ${(e as Error)?.message ?? String(e)}` };
  }
}
