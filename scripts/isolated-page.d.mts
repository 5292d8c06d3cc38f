// Types for scripts/isolated-page.mjs (a plain ES module shared by the scripts, the benchmarks, the
// demo server and the test suites), so the TypeScript callers are checked against it.
import type { IncomingMessage } from 'node:http';
import type { Browser } from 'playwright-core';

/** The headers on every response: cross-origin isolation (for SharedArrayBuffer) and no caching. */
export declare const ISOLATION_HEADERS: {
  readonly 'Cross-Origin-Opener-Policy': string;
  readonly 'Cross-Origin-Embedder-Policy': string;
  readonly 'Cross-Origin-Resource-Policy': string;
  readonly 'Cache-Control': string;
};

/** The Chromium binary: $SIMDGL_CHROMIUM, else /usr/bin/chromium. */
export declare const CHROMIUM: string;

/** The command-line switches launchChromium passes (SwiftShader WebGL, no sandbox, no background traffic). */
export declare const CHROMIUM_ARGS: string[];

/** A route's answer: [status, Content-Type, body]. */
export type RouteResponse = [status: number, contentType: string, body: string | Uint8Array];

/** Answers a request's URL path (not percent-decoded), or undefined for 404 (204 for /favicon.ico). */
export type Route = (path: string, req: IncomingMessage) => RouteResponse | undefined;

export interface IsolatedServer {
  /** http://HOST:PORT/ (localhost when bound to 0.0.0.0) */
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** default 0: a free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
}

/**
 * Starts an HTTP server whose every response carries ISOLATION_HEADERS; `route` answers each path.
 * Rejects when the port cannot be bound.
 */
export declare function listenIsolated(route: Route, options?: ListenOptions): Promise<IsolatedServer>;

/** The Content-Type of a bundled page's file: '/' is the HTML page, *.wasm kernels, the rest JavaScript. */
export declare function contentType(path: string): string;

/**
 * Serves `files` (path → text; '/' is the HTML page, *.wasm kernels, the rest JavaScript) and, when
 * `matricesDir` is given, /matrices/NAME.mtx from it.
 */
export declare function serveIsolated(files: Record<string, string | Uint8Array>, matricesDir?: string): Promise<IsolatedServer>;

/**
 * Bundles browser entry points in memory with esbuild; resolves to { '/NAME.js': text } per entry
 * point, plus the kernels' files at /wasm/NAME.wasm.
 */
export declare function bundlePage(entryPoints: string[], outdir: string): Promise<Record<string, string | Uint8Array>>;

/** The extra switches that give headless Chromium a WebGPU adapter (SwiftShader). */
export declare const WEBGPU_ARGS: string[];

/** Launches headless Chromium (playwright-core) with CHROMIUM_ARGS plus `extraArgs`, or resolves to null when the binary is missing. */
export declare function launchChromium(extraArgs?: string[]): Promise<Browser | null>;
