/**
 * WebGL2 context and capabilities for the GPU path.
 *
 * The context comes from an HTMLCanvasElement, an OffscreenCanvas (works in workers), a
 * WebGL2RenderingContext the caller already has, or — with none of them — a 1×1 OffscreenCanvas made
 * here, or a canvas element where the engine has no WebGL2 on OffscreenCanvas (WebKit). Nothing in this file throws: a missing piece becomes a `reason`.
 */

export interface GpuCapabilities {
  /** a WebGL2 context was obtained */
  webgl2: boolean;
  /** EXT_color_buffer_float: R32F/RGBA32F textures are color-renderable (outputs are render targets) */
  colorBufferFloat: boolean;
  /** EXT_float_blend: blending into float targets (not needed by the kernels; reported) */
  floatBlend: boolean;
  /** MAX_TEXTURE_SIZE (0 without WebGL2) */
  maxTextureSize: number;
  /** MAX_ARRAY_TEXTURE_LAYERS (0 without WebGL2): tiles per array, see encoding.ts */
  maxArrayLayers: number;
  /** unmasked renderer string (WEBGL_debug_renderer_info) when the browser exposes it, else RENDERER */
  renderer: string;
  /** unmasked vendor string when available, else VENDOR */
  vendor: string;
  /** an RGBA32F render target read back with readPixels(RGBA, FLOAT) returned the exact values written */
  floatReadback: boolean;
  /** fenceSync + pixel-pack buffers are there, so read() does not stall the thread */
  asyncReadback: boolean;
  /** why the GPU path is unavailable; null when it is available */
  reason: string | null;
}

/** A canvas the WebGL2 path can draw on: a page's, or an OffscreenCanvas (which also works in a worker). */
export type GpuCanvas = HTMLCanvasElement | OffscreenCanvas;

export interface ContextOptions {
  canvas?: GpuCanvas;
  context?: WebGL2RenderingContext;
}

const ATTRIBUTES: WebGLContextAttributes = {
  alpha: true,
  antialias: false,
  depth: false,
  stencil: false,
  premultipliedAlpha: false,
  preserveDrawingBuffer: false,
  powerPreference: 'high-performance',
};

/** A WebGL2 context, or the reason there is none. Never throws. */
export function acquireContext(opts: ContextOptions = {}): { gl: WebGL2RenderingContext } | { gl: null; reason: string } {
  try {
    if (opts.context !== undefined) {
      const gl = opts.context as unknown;
      if (!isWebGL2(gl)) return { gl: null, reason: 'the context passed is not a WebGL2RenderingContext' };
      return { gl };
    }
    if (opts.canvas === undefined) return ownContext();
    const canvas = opts.canvas;
    if (typeof (canvas as { getContext?: unknown }).getContext !== 'function') {
      return { gl: null, reason: 'the canvas passed has no getContext()' };
    }
    const gl = (canvas as HTMLCanvasElement).getContext('webgl2', ATTRIBUTES) as unknown;
    if (!isWebGL2(gl)) {
      return {
        gl: null,
        reason: "getContext('webgl2') on the canvas passed returned null: WebGL2 is unavailable or disabled here, or the canvas already has another kind of context",
      };
    }
    return { gl };
  } catch (e) {
    return { gl: null, reason: `getting a WebGL2 context threw: ${(e as Error)?.message ?? String(e)}` };
  }
}

/**
 * A context on a canvas of our own: a 1×1 OffscreenCanvas (also in a worker), else — where the engine
 * gives OffscreenCanvas no WebGL2 (WebKit without WebGL in workers) — a canvas element of the document.
 */
function ownContext(): { gl: WebGL2RenderingContext } | { gl: null; reason: string } {
  const hasDocument = typeof document !== 'undefined' && typeof document.createElement === 'function';
  let offscreen = '';
  if (typeof OffscreenCanvas !== 'undefined') {
    const gl = new OffscreenCanvas(1, 1).getContext('webgl2', ATTRIBUTES) as unknown;
    if (isWebGL2(gl)) return { gl };
    offscreen = "getContext('webgl2') on a new OffscreenCanvas returned null (this engine has no WebGL2 on OffscreenCanvas)";
  }
  if (!hasDocument) {
    return {
      gl: null,
      reason: offscreen
        ? `${offscreen}, and there is no document for a canvas element here (a worker): run the WebGL2 path on the page's main thread, or pass { canvas } or { context }`
        : 'no canvas: this engine has neither OffscreenCanvas nor document (pass { canvas } or { context })',
    };
  }
  const gl = document.createElement('canvas').getContext('webgl2', ATTRIBUTES) as unknown;
  if (isWebGL2(gl)) return { gl };
  return {
    gl: null,
    reason: `${offscreen ? `${offscreen}; ` : ''}getContext('webgl2') on a new canvas element returned null: WebGL2 is unavailable or disabled here`,
  };
}

function isWebGL2(gl: unknown): gl is WebGL2RenderingContext {
  if (gl === null || typeof gl !== 'object') return false;
  if (typeof WebGL2RenderingContext !== 'undefined' && gl instanceof WebGL2RenderingContext) return true;
  const g = gl as Record<string, unknown>;
  return typeof g.texImage3D === 'function' && typeof g.fenceSync === 'function' && typeof g.getExtension === 'function';
}

/** Capabilities of a context (or of none). Enables EXT_color_buffer_float / EXT_float_blend on the way. */
export function probeCapabilities(gl: WebGL2RenderingContext | null, reasonIfNone = 'WebGL2 is unavailable'): GpuCapabilities {
  const caps: GpuCapabilities = {
    webgl2: false,
    colorBufferFloat: false,
    floatBlend: false,
    maxTextureSize: 0,
    maxArrayLayers: 0,
    renderer: '',
    vendor: '',
    floatReadback: false,
    asyncReadback: false,
    reason: reasonIfNone,
  };
  if (!gl) return caps;
  try {
    if (gl.isContextLost()) {
      caps.reason = 'the WebGL2 context is lost';
      return caps;
    }
    caps.webgl2 = true;
    caps.colorBufferFloat = gl.getExtension('EXT_color_buffer_float') !== null;
    caps.floatBlend = gl.getExtension('EXT_float_blend') !== null;
    caps.maxTextureSize = Number(gl.getParameter(gl.MAX_TEXTURE_SIZE)) || 0;
    caps.maxArrayLayers = Number(gl.getParameter(gl.MAX_ARRAY_TEXTURE_LAYERS)) || 0;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    caps.renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
    caps.vendor = String(gl.getParameter(info ? info.UNMASKED_VENDOR_WEBGL : gl.VENDOR) ?? '');
    caps.asyncReadback = typeof gl.fenceSync === 'function' && typeof gl.getBufferSubData === 'function';
    caps.floatReadback = caps.colorBufferFloat && testFloatReadback(gl);
    caps.reason = !caps.colorBufferFloat
      ? 'EXT_color_buffer_float is missing: float textures cannot be render targets, so results cannot be computed on the GPU'
      : !caps.floatReadback
        ? 'reading an RGBA32F render target back (readPixels RGBA/FLOAT) did not return the values written'
        : caps.maxTextureSize < 1 || caps.maxArrayLayers < 1
          ? `the context reports MAX_TEXTURE_SIZE = ${caps.maxTextureSize} and MAX_ARRAY_TEXTURE_LAYERS = ${caps.maxArrayLayers}`
          : null;
  } catch (e) {
    caps.reason = `probing the WebGL2 context threw: ${(e as Error)?.message ?? String(e)}`;
  }
  return caps;
}

/**
 * Clears a 1×1 RGBA32F render target to values that need all 24 bits of the f32 mantissa, plus a
 * negative, a tiny normal and a large value, reads it back and compares bit for bit.
 */
function testFloatReadback(gl: WebGL2RenderingContext): boolean {
  const tex = gl.createTexture();
  const fb = gl.createFramebuffer();
  const prevFb = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
  try {
    while (gl.getError() !== gl.NO_ERROR) { /* drain earlier errors */ }
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 1, 1, 0, gl.RGBA, gl.FLOAT, null);
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) return false;
    const want = new Float32Array([1 + 2 ** -23, -16777215, 2 ** -126, 3.4e38]);
    gl.clearBufferfv(gl.COLOR, 0, want);
    const got = new Float32Array(4);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, got);
    if (gl.getError() !== gl.NO_ERROR) return false;
    return got.every((v, i) => Object.is(v, want[i]));
  } catch {
    return false;
  } finally {
    gl.bindFramebuffer(gl.FRAMEBUFFER, prevFb);
    gl.deleteFramebuffer(fb);
    gl.deleteTexture(tex);
  }
}
