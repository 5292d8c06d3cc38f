// Types for scripts/browsers.mjs (the engine-neutral browser driver of the suites and benchmarks).

export type Engine = 'chromium' | 'firefox' | 'webkit';

/** chromium, firefox, webkit: the engines every browser suite runs in. */
export declare const ENGINES: readonly Engine[];
/** $SIMDGL_FIREFOX, else /usr/bin/firefox-esr */
export declare const FIREFOX: string;
/** $SIMDGL_WEBKIT_DRIVER, else /usr/bin/WebKitWebDriver */
export declare const WEBKIT_DRIVER: string;
/** WebKitGTK's MiniBrowser ($SIMDGL_WEBKIT_BROWSER, else found under /usr/lib), or null. */
export declare function webkitBrowser(): string | null;
/** Why `engine` cannot be launched here (what to install, or left out by $SIMDGL_ENGINES), or null when it can. */
export declare function missing(engine: Engine): string | null;
/** Prints one loud warning per engine that cannot run, naming the suite that is not tested there. */
export declare function warnMissing(suite: string): void;

export interface LaunchOptions {
  /** ask for the engine's WebGPU: Chromium's SwiftShader adapter, Firefox's dom.webgpu.enabled, WebKitGTK's WebGPU feature */
  webgpu?: boolean;
  viewport?: { width: number; height: number };
}

/** A console message or uncaught page error (Chromium and Firefox; WebKit's WebDriver has no console stream). */
export interface LogEntry {
  type: string;
  text: string;
}

/** One page of a launched engine. Functions given to evaluate/waitFor run in the page: no closures. */
export interface EnginePage {
  engine: Engine;
  version: string;
  /** console messages and page errors as they come (always empty in WebKit) */
  log: LogEntry[];
  /** console errors and uncaught page errors so far (WebKit: those after goto() returned, from a hook it installs) */
  errors(): Promise<string[]>;
  goto(url: string): Promise<void>;
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** resolves once `fn(arg)` is truthy in the page (polled every 100 ms); rejects after `timeout` ms */
  waitFor<A = undefined>(fn: (arg: A) => unknown, arg?: A, timeout?: number): Promise<void>;
  /** puts a text file into the file input `selector` and fires change */
  setInputFile(selector: string, name: string, text: string): Promise<void>;
  /** PNG of the page (full page in Chromium and Firefox, the window in WebKit) */
  screenshot(): Promise<Buffer>;
  /** PNG of one element */
  screenshotElement(selector: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** Launches `engine` headless with one page; rejects with what to install when it cannot. */
export declare function launch(engine: Engine, options?: LaunchOptions): Promise<EnginePage>;
