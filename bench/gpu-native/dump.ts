/**
 * GPU dump for the native harness (bench/gpu-native/harness.c): runs the library's OWN GpuBackend
 * (src/gpu/backend.ts + encoding.ts + twgl, unchanged) against a recording WebGL2 context, so every
 * texture (internal format, size, layers, the exact bytes the encoder produced), shader source (with
 * the #defines the backend inserts), uniform value and draw call is the backend's, and writes them as
 * a replayable trace. There is one encoder: this file only chooses matrices, formats and dtypes and
 * computes the f64 reference y.
 *
 *   node dist/gpu-dump.js OUTDIR [--matrices a,b,...] [--mtx DIR]
 *
 * Per case OUTDIR/<matrix>__<kernel>__<dtype>/:
 *   trace.txt     one GL call per line (object ids are the recorder's; blobs are offsets into blob.bin);
 *                 lines before `MARK kernel` are setup (programs, uploads, two warm-up products so the
 *                 ping-pong targets exist), lines up to `MARK end` are ONE y = A·x exactly as
 *                 GpuBackend.spmv issues it; header lines give the result texture and sizes
 *   blob.bin      texture data and shader sources
 *   ref.bin       f64 reference y (from the values and x as the dtype holds them)
 *   bound.bin     f64 Σ|a_ij||x_j| per row (error scale)
 *   manifest.json the same in words: textures, programs (vertex + fragment source), uniforms, draws
 * Per matrix OUTDIR/mat__<matrix>/: rowptr.bin, colidx.bin (int32), values.bin, x.bin (f64), info.json
 * for bench/gpu-native/cusparse.py (the same matrix and x).
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GpuBackend } from '../../src/gpu/backend.js';
import { CSRMatrix } from '../../src/formats/csr.js';
import { ELLMatrix } from '../../src/formats/ell.js';
import { DIAMatrix } from '../../src/formats/dia.js';
import { HYBMatrix } from '../../src/formats/hyb.js';
import { SELLMatrix } from '../../src/formats/sell.js';
import { poisson3D } from '../../src/generators/poisson.js';
import { randomMatrix } from '../../src/generators/random.js';
import { Prng } from '../../src/generators/prng.js';
import { parseMatrixMarket } from '../../src/io/index.js';
import { componentBytes, type DType } from '../../src/dtype.js';
import enumsJson from './gl-enums.json' with { type: 'json' };

const ENUMS: Record<string, number> = {
  ...(enumsJson as Record<string, number>),
  UNPACK_FLIP_Y_WEBGL: 0x9240,
  UNPACK_PREMULTIPLY_ALPHA_WEBGL: 0x9241,
  UNPACK_COLORSPACE_CONVERSION_WEBGL: 0x9243,
  BROWSER_DEFAULT_WEBGL: 0x9244,
};

/** Limits the recorder reports (Chrome/ANGLE on an NVIDIA GPU); the harness checks the device has at least these. */
const LIMITS = { MAX_TEXTURE_SIZE: 16384, MAX_ARRAY_TEXTURE_LAYERS: 2048, MAX_FRAGMENT_UNIFORM_VECTORS: 1024 };

const UNIFORM_TYPES: Record<string, number> = {
  float: 0x1406, int: 0x1404, vec2: 0x8b50, vec4: 0x8b52, ivec4: 0x8b55,
  sampler2DArray: 0x8dc1, isampler2DArray: 0x8dcf,
};

interface Obj { id: number; kind: string }
interface Loc { loc: number }
interface ShaderObj extends Obj { type: number; source: string }
interface ProgObj extends Obj { shaders: ShaderObj[]; uniforms: Array<{ name: string; type: number; size: number }> }

const f32bits = (v: number) => {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, v, true);
  return b.getUint32(0, true);
};

/** A WebGL2 context that records every call as a trace line. Only what GpuBackend and twgl call. */
class Recorder {
  ops: string[] = [];
  private next = 1;
  private blobFd: number;
  blobOff = 0;
  private clearValue = new Float32Array(4);
  /** manifest side: textures and programs by id */
  textures = new Map<number, { ifmt: number; w: number; h: number; d: number; bytes: number; blob: number }>();
  programs = new Map<number, ProgObj>();
  draws: Array<{ program: number; layer: number | null; viewport: number[]; uniforms: Record<string, unknown> }> = [];
  private current: ProgObj | null = null;
  private pendingUniforms: Record<string, unknown> = {};
  private locNames = new Map<number, string>();
  private viewportV = [0, 0, 0, 0];
  private layer: number | null = null;

  constructor(blobPath: string) {
    this.blobFd = openSync(blobPath, 'w');
  }
  close(): void {
    closeSync(this.blobFd);
  }
  private blob(bytes: Uint8Array): number {
    const off = this.blobOff;
    writeSync(this.blobFd, bytes);
    this.blobOff += bytes.byteLength;
    return off;
  }
  private obj(kind: string): Obj {
    return { id: this.next++, kind };
  }
  mark(name: string): void {
    this.ops.push(`MARK ${name}`);
  }

  // ---- the WebGL2 surface --------------------------------------------------------------------
  isContextLost() { return false; }
  getError() { return 0; }
  getExtension(name: string) {
    if (name === 'EXT_color_buffer_float' || name === 'EXT_float_blend') return {};
    return null;
  }
  getSupportedExtensions() { return ['EXT_color_buffer_float', 'EXT_float_blend']; }
  getParameter(p: number) {
    for (const [k, v] of Object.entries(LIMITS)) if (ENUMS[k] === p) return v;
    if (p === ENUMS.RENDERER || p === ENUMS.VENDOR) return 'simdgl-dump';
    if (p === ENUMS.FRAMEBUFFER_BINDING) return null;
    throw new Error(`recorder: getParameter(0x${p.toString(16)}) not implemented`);
  }
  fenceSync() { return {}; }
  texStorage2D() { throw new Error('recorder: texStorage2D is not used by the backend'); }
  texStorage3D() { throw new Error('recorder: texStorage3D is not used by the backend'); }
  getBufferSubData() { throw new Error('recorder: read-back is not part of a dump'); }
  createTexture() {
    // twgl tells a texture from a { texture, sampler } pair by Object.prototype.toString: give it the tag
    const o = Object.assign(this.obj('tex'), { [Symbol.toStringTag]: 'WebGLTexture' }); this.ops.push(`T_CREATE ${o.id}`); return o; }
  deleteTexture(t: Obj | null) { if (t) this.ops.push(`T_DEL ${t.id}`); }
  bindTexture(target: number, t: Obj | null) { this.ops.push(`T_BIND ${target} ${t?.id ?? 0}`); this.boundTex = t; }
  private boundTex: Obj | null = null;
  texParameteri(target: number, p: number, v: number) { this.ops.push(`T_PARAM ${target} ${p} ${v}`); }
  pixelStorei(p: number, v: number | boolean) { this.ops.push(`PSTORE ${p} ${Number(v)}`); }
  texImage2D(target: number, level: number, ifmt: number, w: number, h: number, border: number, fmt: number, type: number, src: ArrayBufferView | null) {
    const [off, n] = this.data(src);
    this.ops.push(`T_IMG2D ${target} ${level} ${ifmt} ${w} ${h} ${border} ${fmt} ${type} ${off} ${n}`);
  }
  texImage3D(target: number, level: number, ifmt: number, w: number, h: number, d: number, border: number, fmt: number, type: number, src: ArrayBufferView | null) {
    const [off, n] = this.data(src);
    this.ops.push(`T_IMG3D ${target} ${level} ${ifmt} ${w} ${h} ${d} ${border} ${fmt} ${type} ${off} ${n}`);
    if (this.boundTex) this.textures.set(this.boundTex.id, { ifmt, w, h, d, bytes: n, blob: off });
  }
  private data(src: ArrayBufferView | null | undefined): [number, number] {
    if (!src) return [-1, 0];
    const u8 = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
    return [this.blob(u8), u8.byteLength];
  }
  createFramebuffer() { const o = this.obj('fb'); this.ops.push(`F_CREATE ${o.id}`); return o; }
  deleteFramebuffer(f: Obj | null) { if (f) this.ops.push(`F_DEL ${f.id}`); }
  bindFramebuffer(target: number, f: Obj | null) { this.ops.push(`F_BIND ${target} ${f?.id ?? 0}`); }
  framebufferTexture2D(target: number, att: number, tt: number, t: Obj | null, level: number) {
    this.ops.push(`F_TEX2D ${target} ${att} ${tt} ${t?.id ?? 0} ${level}`);
  }
  framebufferTextureLayer(target: number, att: number, t: Obj | null, level: number, layer: number) {
    this.ops.push(`F_LAYER ${target} ${att} ${t?.id ?? 0} ${level} ${layer}`);
    this.layer = t ? layer : null;
  }
  checkFramebufferStatus() { return ENUMS.FRAMEBUFFER_COMPLETE; }
  clearBufferfv(buffer: number, db: number, v: Float32Array) {
    this.clearValue = Float32Array.from(v);
    this.ops.push(`CLEARBUF ${buffer} ${db} ${Array.from(v, f32bits).join(' ')}`);
  }
  readPixels(_x: number, _y: number, _w: number, _h: number, _f: number, _t: number, dst: unknown) {
    // only the capability probe reads pixels during a dump (1×1 texel it just cleared)
    if (dst instanceof Float32Array) dst.set(this.clearValue.subarray(0, dst.length));
    this.ops.push('READPIX');
  }
  createVertexArray() { const o = this.obj('vao'); this.ops.push(`V_CREATE ${o.id}`); return o; }
  deleteVertexArray(v: Obj | null) { if (v) this.ops.push(`V_DEL ${v.id}`); }
  bindVertexArray(v: Obj | null) { this.ops.push(`V_BIND ${v?.id ?? 0}`); }
  createShader(type: number) {
    const o = { ...this.obj('shader'), type, source: '' } as ShaderObj;
    this.ops.push(`S_CREATE ${o.id} ${type}`);
    return o;
  }
  shaderSource(s: ShaderObj, src: string) {
    s.source = src;
    const [off, n] = this.data(new TextEncoder().encode(src));
    this.ops.push(`S_SRC ${s.id} ${off} ${n}`);
  }
  compileShader(s: ShaderObj) { this.ops.push(`S_COMPILE ${s.id}`); }
  getShaderParameter(s: ShaderObj, p: number) {
    if (p === ENUMS.SHADER_TYPE) return s.type;
    return true;
  }
  getShaderInfoLog() { return ''; }
  getShaderSource(s: ShaderObj) { return s.source; }
  deleteShader(s: ShaderObj | null) { if (s) this.ops.push(`S_DEL ${s.id}`); }
  createProgram() {
    const o = { ...this.obj('program'), shaders: [], uniforms: [] } as ProgObj;
    this.programs.set(o.id, o);
    this.ops.push(`P_CREATE ${o.id}`);
    return o;
  }
  attachShader(p: ProgObj, s: ShaderObj) { p.shaders.push(s); this.ops.push(`P_ATTACH ${p.id} ${s.id}`); }
  bindAttribLocation() { /* the quad has no attributes */ }
  linkProgram(p: ProgObj) {
    p.uniforms = parseUniforms(p.shaders.map((s) => s.source));
    this.ops.push(`P_LINK ${p.id}`);
  }
  getProgramParameter(p: ProgObj, pname: number) {
    if (pname === ENUMS.LINK_STATUS) return true;
    if (pname === ENUMS.ACTIVE_UNIFORMS) return p.uniforms.length;
    if (pname === ENUMS.ACTIVE_ATTRIBUTES || pname === ENUMS.ACTIVE_UNIFORM_BLOCKS || pname === ENUMS.TRANSFORM_FEEDBACK_VARYINGS) return 0;
    throw new Error(`recorder: getProgramParameter(0x${pname.toString(16)}) not implemented`);
  }
  getProgramInfoLog() { return ''; }
  getActiveUniform(p: ProgObj, i: number) {
    const u = p.uniforms[i];
    return { name: u.size > 1 ? `${u.name}[0]` : u.name, type: u.type, size: u.size };
  }
  getActiveUniforms(p: ProgObj, idx: number[], pname: number) {
    // twgl asks for UNIFORM_BLOCK_INDEX (-1: default block) and UNIFORM_OFFSET etc.
    return idx.map(() => (pname === ENUMS.UNIFORM_BLOCK_INDEX ? -1 : 0));
  }
  getUniformLocation(p: ProgObj, name: string): Loc {
    const loc = this.next++;
    this.locNames.set(loc, name);
    this.ops.push(`ULOC ${loc} ${p.id} ${name}`);
    return { loc };
  }
  deleteProgram(p: ProgObj | null) { if (p) this.ops.push(`P_DEL ${p.id}`); }
  useProgram(p: ProgObj | null) { this.current = p; this.ops.push(`P_USE ${p?.id ?? 0}`); }
  private u(l: Loc | null, v: unknown) {
    if (l) this.pendingUniforms[this.locNames.get(l.loc)!] = v;
  }
  uniform1i(l: Loc | null, v: number) { if (l) this.ops.push(`U1I ${l.loc} ${v | 0}`); this.u(l, v); }
  uniform1f(l: Loc | null, v: number) { if (l) this.ops.push(`U1F ${l.loc} ${f32bits(v)}`); this.u(l, v); }
  uniform1iv(l: Loc | null, v: ArrayLike<number>) { if (l) this.ops.push(`U1IV ${l.loc} ${v.length} ${Array.from(v, (x) => x | 0).join(' ')}`); this.u(l, Array.from(v)); }
  uniform1fv(l: Loc | null, v: ArrayLike<number>) { if (l) this.ops.push(`U1FV ${l.loc} ${v.length} ${Array.from(v, f32bits).join(' ')}`); this.u(l, Array.from(v)); }
  uniform4fv(l: Loc | null, v: ArrayLike<number>) { if (l) this.ops.push(`U4FV ${l.loc} ${v.length / 4} ${Array.from(v, f32bits).join(' ')}`); this.u(l, Array.from(v)); }
  uniform4iv(l: Loc | null, v: ArrayLike<number>) { if (l) this.ops.push(`U4IV ${l.loc} ${v.length / 4} ${Array.from(v, (x) => x | 0).join(' ')}`); this.u(l, Array.from(v)); }
  activeTexture(unit: number) { this.ops.push(`ACTIVE ${unit}`); }
  bindSampler(unit: number, s: unknown) { if (s) throw new Error('recorder: samplers are not used'); void unit; }
  disable(cap: number) { this.ops.push(`DISABLE ${cap}`); }
  enable(cap: number) { this.ops.push(`ENABLE ${cap}`); }
  colorMask(r: boolean, g: boolean, b: boolean, a: boolean) { this.ops.push(`CMASK ${+r} ${+g} ${+b} ${+a}`); }
  viewport(x: number, y: number, w: number, h: number) { this.viewportV = [x, y, w, h]; this.ops.push(`VIEWPORT ${x} ${y} ${w} ${h}`); }
  drawArrays(mode: number, first: number, count: number) {
    this.ops.push(`DRAW ${mode} ${first} ${count}`);
    this.draws.push({ program: this.current?.id ?? 0, layer: this.layer, viewport: [...this.viewportV], uniforms: { ...this.pendingUniforms } });
  }
  flush() { this.ops.push('FLUSH'); }
  finish() { this.ops.push('FINISH'); }
}

/** Uniform declarations of the linked shaders (after the #defines the backend put in: DIA_VEC4). */
function parseUniforms(sources: string[]): Array<{ name: string; type: number; size: number }> {
  const out = new Map<string, { name: string; type: number; size: number }>();
  for (const src of sources) {
    const defs = new Map<string, string>();
    for (const m of src.matchAll(/^#define\s+(\w+)\s+(\S+)/gm)) defs.set(m[1], m[2]);
    for (const m of src.matchAll(/^\s*uniform\s+(?:(?:highp|mediump|lowp)\s+)?(\w+)\s+(\w+)\s*(?:\[\s*(\w+)\s*\])?\s*;/gm)) {
      const type = UNIFORM_TYPES[m[1]];
      if (type === undefined) throw new Error(`recorder: uniform type ${m[1]} not known`);
      const sz = m[3] === undefined ? 1 : Number(defs.get(m[3]) ?? m[3]);
      out.set(m[2], { name: m[2], type, size: sz });
    }
  }
  return [...out.values()];
}

// twgl's sampler setter needs the global to exist (it then checks the object's tag)
(globalThis as Record<string, unknown>).WebGLTexture ??= class WebGLTexture {};
(globalThis as Record<string, unknown>).WebGLSampler ??= class WebGLSampler {};

// ---- cases ---------------------------------------------------------------------------------------

type Kernel = 'csr_row' | 'csr_segmented' | 'ell' | 'sell' | 'sell_s1' | 'dia' | 'hyb';
const KERNELS: Kernel[] = ['csr_row', 'csr_segmented', 'ell', 'sell', 'dia', 'hyb'];

function vectorX(n: number): Float64Array {
  const rng = new Prng(7);
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = rng.next() * 2 - 1;
  return x;
}

function hostMatrix(csr: CSRMatrix, k: Kernel): { m: CSRMatrix | SELLMatrix | ELLMatrix | DIAMatrix | HYBMatrix; opts: object } | { skipped: string } {
  try {
    switch (k) {
      case 'csr_row': return { m: csr, opts: { kernel: 'row' } };
      case 'csr_segmented': return { m: csr, opts: { kernel: 'segmented' } };
      case 'ell': return { m: ELLMatrix.fromCSR(csr, { maxFill: 3 }), opts: {} };
      // SELL with the default C and σ (sorted where unsorted slices would pad > 10%), and unsorted (one pass)
      case 'sell': return { m: SELLMatrix.fromCSR(csr), opts: {} };
      case 'sell_s1': return { m: SELLMatrix.fromCSR(csr, { sortWindow: 1, maxFill: 3 }), opts: {} };
      case 'dia': return { m: DIAMatrix.fromCSR(csr, { maxFill: 3 }), opts: {} };
      case 'hyb': return { m: HYBMatrix.fromCSR(csr), opts: {} };
    }
  } catch (e) {
    return { skipped: (e as Error).message.split('\n')[0] };
  }
}

function dumpCase(out: string, name: string, base: CSRMatrix, k: Kernel, dtype: DType, x64: Float64Array): string {
  const dir = path.join(out, `${name}__${k}__${dtype}`);
  mkdirSync(dir, { recursive: true });
  const csr = base.astype(dtype);
  const hm = hostMatrix(csr, k);
  if ('skipped' in hm) {
    writeFileSync(path.join(dir, 'skipped.txt'), hm.skipped + '\n');
    return `${name} ${k} ${dtype}: skipped (${hm.skipped})`;
  }
  // x as the dtype holds it on the host; the reference uses exactly those values
  const x = dtype === 'f32' ? Float32Array.from(x64) : Float64Array.from(x64);
  const ref = new Float64Array(csr.rows);
  const bound = new Float64Array(csr.rows);
  for (let i = 0; i < csr.rows; i++) {
    let s = 0, b = 0;
    for (let p = csr.rowPtr[i]; p < csr.rowPtr[i + 1]; p++) {
      const t = csr.values[p] * x[csr.colIdx[p]];
      s += t;
      b += Math.abs(t);
    }
    ref[i] = s;
    bound[i] = b;
  }
  const rec = new Recorder(path.join(dir, 'blob.bin'));
  const gl = new Proxy(rec, {
    get(t, p, r) {
      if (typeof p === 'string' && p in ENUMS && /^[A-Z0-9_]+$/.test(p)) return ENUMS[p];
      const v = Reflect.get(t, p, r);
      if (v === undefined && typeof p === 'string' && !['canvas', 'then', 'drawingBufferWidth'].includes(p)) {
        throw new Error(`recorder: gl.${p} is not implemented`);
      }
      return typeof v === 'function' ? v.bind(t) : v;
    },
  }) as unknown as WebGL2RenderingContext;
  const be = GpuBackend.create({ context: gl });
  if (!be.available) throw new Error(`backend unavailable on the recorder: ${be.reason}`);
  const M = be.upload(hm.m as never, hm.opts);
  const xv = be.vector(dtype, x);
  const yv = be.vector(dtype, csr.rows);
  // two warm-up products: programs compiled, ping-pong targets in the pool, so the kernel section
  // is a steady-state product (no texture creation), as in a solver loop
  be.spmv(M, xv, yv);
  be.spmv(M, xv, yv);
  rec.draws.length = 0;
  rec.mark('kernel');
  be.spmv(M, xv, yv);
  rec.mark('end');
  const drawsPerProduct = rec.draws.length;
  const resultTex = (yv as unknown as { texture: { id: number } }).texture.id;
  const l = yv.layout;
  const fpe = dtype === 'f32' ? 1 : 2;
  // effective bytes (DESIGN.md): the host format's arrays + x + y, in the dtype
  const bytes = hm.m.storageBytes() + (csr.rows + csr.cols) * componentBytes(dtype);
  const header = [
    `CASE ${name} ${k} ${dtype}`,
    `SIZE ${csr.rows} ${csr.cols} ${csr.nnz}`,
    `BYTES ${bytes}`,
    `GPUBYTES ${M.bytes}`,
    `RESULT ${resultTex} ${l.width} ${l.height} ${l.layers} ${csr.rows * fpe} ${dtype === 'f32' ? 'f32' : 'ds'}`,
    `LIMITS ${LIMITS.MAX_TEXTURE_SIZE} ${LIMITS.MAX_ARRAY_TEXTURE_LAYERS} ${LIMITS.MAX_FRAGMENT_UNIFORM_VECTORS}`,
    `DRAWS ${drawsPerProduct}`,
  ];
  writeFileSync(path.join(dir, 'trace.txt'), header.concat(rec.ops).join('\n') + '\nEOF\n');
  rec.close();
  writeFileSync(path.join(dir, 'ref.bin'), new Uint8Array(ref.buffer));
  writeFileSync(path.join(dir, 'bound.bin'), new Uint8Array(bound.buffer));
  const manifest = {
    case: { matrix: name, kernel: k, shader: M.kernel, dtype, rows: csr.rows, cols: csr.cols, nnz: csr.nnz, uploadOptions: hm.opts },
    effectiveBytes: bytes,
    gpuTextureBytes: M.bytes,
    limits: LIMITS,
    textures: [...rec.textures.entries()].map(([id, t]) => ({ id, internalFormat: `0x${t.ifmt.toString(16)}`, width: t.w, height: t.h, layers: t.d, dataBytes: t.bytes, blobOffset: t.blob })),
    programs: [...rec.programs.values()].map((p) => ({ id: p.id, vertex: p.shaders[0]?.source, fragment: p.shaders[1]?.source, uniforms: p.uniforms })),
    result: { texture: resultTex, layout: l, floats: csr.rows * fpe, decode: dtype === 'f32' ? 'f32' : 'double-single hi+lo' },
    drawsPerProduct: rec.draws,
  };
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  const line = `${name} ${k} ${dtype}: ${drawsPerProduct} draw(s), ${(M.bytes / 1e6).toFixed(1)} MB of textures`;
  be.dispose();
  return line;
}

/** The bandwidth probe: backend.copy(x, y) on a long f32 vector (one draw per layer). */
function dumpCopy(out: string, n: number): string {
  const dir = path.join(out, `copy${n}__copy__f32`);
  mkdirSync(dir, { recursive: true });
  const rec = new Recorder(path.join(dir, 'blob.bin'));
  const gl = new Proxy(rec, { get: (t, p, r) => (typeof p === 'string' && p in ENUMS ? ENUMS[p] : typeof Reflect.get(t, p, r) === 'function' ? Reflect.get(t, p, r).bind(t) : Reflect.get(t, p, r)) }) as unknown as WebGL2RenderingContext;
  const be = GpuBackend.create({ context: gl });
  if (!be.available) throw new Error(be.reason);
  const x = vectorX(n);
  const xv = be.vector('f32', x);
  const yv = be.vector('f32', n);
  be.copy(xv, yv);
  be.copy(xv, yv);
  rec.draws.length = 0;
  rec.mark('kernel');
  be.copy(xv, yv);
  rec.mark('end');
  const l = yv.layout;
  writeFileSync(path.join(dir, 'trace.txt'), [
    `CASE copy${n} copy f32`, `SIZE ${n} ${n} 0`, `BYTES ${8 * n}`, `GPUBYTES 0`,
    `RESULT ${(yv as unknown as { texture: { id: number } }).texture.id} ${l.width} ${l.height} ${l.layers} ${n} f32`,
    `LIMITS ${LIMITS.MAX_TEXTURE_SIZE} ${LIMITS.MAX_ARRAY_TEXTURE_LAYERS} ${LIMITS.MAX_FRAGMENT_UNIFORM_VECTORS}`, `DRAWS ${rec.draws.length}`,
  ].concat(rec.ops).join('\n') + '\nEOF\n');
  rec.close();
  const ref = Float64Array.from(Float32Array.from(x));
  writeFileSync(path.join(dir, 'ref.bin'), new Uint8Array(ref.buffer));
  writeFileSync(path.join(dir, 'bound.bin'), new Uint8Array(Float64Array.from(ref, Math.abs).buffer));
  be.dispose();
  return `copy ${n} f32: ${l.layers} layer(s)`;
}

function writeMatrix(out: string, name: string, A: CSRMatrix, x: Float64Array): void {
  const dir = path.join(out, `mat__${name}`);
  mkdirSync(dir, { recursive: true });
  const f64 = A.astype('f64');
  const b = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  writeFileSync(path.join(dir, 'rowptr.bin'), b(f64.rowPtr));
  writeFileSync(path.join(dir, 'colidx.bin'), b(f64.colIdx));
  writeFileSync(path.join(dir, 'values.bin'), b(f64.values));
  writeFileSync(path.join(dir, 'x.bin'), b(x));
  writeFileSync(path.join(dir, 'info.json'), JSON.stringify({ name, rows: A.rows, cols: A.cols, nnz: A.nnz }));
}

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const out = args[0];
if (!out) {
  console.error('usage: node gpu-dump.js OUTDIR [--matrices a,b] [--mtx DIR] [--dtypes f32,f64] [--kernels k,...]');
  process.exit(2);
}
const opt = (k: string) => {
  const i = args.indexOf(k);
  return i > 0 ? args[i + 1] : undefined;
};
const mtxDir = opt('--mtx') ?? path.join(here, '../../data/matrices');
const loadMtx = (f: string) => {
  const r = parseMatrixMarket(readFileSync(path.join(mtxDir, f)), { dtype: 'f64' }) as unknown as { matrix?: { toCSR(): CSRMatrix }; toCSR?: () => CSRMatrix };
  const m = (r.matrix ?? r) as { toCSR(): CSRMatrix };
  return m.toCSR();
};
const MATRICES: Record<string, () => CSRMatrix> = {
  poisson3D_128: () => poisson3D(128),
  poisson3D_64: () => poisson3D(64),
  powerlaw_2M: () => randomMatrix({ rows: 2_000_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  powerlaw_250k: () => randomMatrix({ rows: 250_000, meanRowLength: 8, distribution: 'powerlaw', exponent: 1.5, seed: 42 }),
  Groebner_id2003_aug: () => loadMtx('Groebner_id2003_aug.mtx'),
  bcsstk13: () => loadMtx('bcsstk13.mtx'),
  rajat01: () => loadMtx('rajat01.mtx'),
  t1: () => loadMtx('t1.mtx'),
};
const names = (opt('--matrices') ?? 'poisson3D_128,powerlaw_2M,Groebner_id2003_aug,bcsstk13,rajat01').split(',');
const dtypes = (opt('--dtypes') ?? 'f32,f64').split(',') as DType[];
const kernels = (opt('--kernels') ?? KERNELS.join(',')).split(',') as Kernel[];
mkdirSync(out, { recursive: true });
const t0 = performance.now();
for (const name of names) {
  const make = MATRICES[name];
  if (!make) throw new Error(`unknown matrix ${name}`);
  const A = make();
  const x = vectorX(A.cols);
  writeMatrix(out, name, A, x);
  for (const dt of dtypes) for (const k of kernels) console.log(dumpCase(out, name, A, k, dt, x));
}
const copyN = Number(opt('--copy') ?? 0);
if (copyN > 0) console.log(dumpCopy(out, copyN));
console.log(`dump done in ${((performance.now() - t0) / 1e3).toFixed(1)} s`);
