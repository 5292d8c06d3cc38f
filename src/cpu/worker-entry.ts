/**
 * Entry of the embedded worker script: wires workerMain to whichever worker API the engine has —
 * worker_threads' parentPort in Node, the global scope of a Web Worker in browsers.
 */
import { workerMain } from './worker-main.js';
import type { WorkerInit } from './control.js';
import { nodeBuiltin } from '../node-builtins.js';

declare const self: { onmessage: ((e: { data: WorkerInit }) => void) | null; postMessage(m: unknown): void; close(): void };

async function start(): Promise<void> {
  if (typeof self !== 'undefined' && typeof (self as { importScripts?: unknown }).importScripts === 'function') {
    self.onmessage = (e) => {
      self.onmessage = null;
      void workerMain(e.data, (m) => self.postMessage(m), () => self.close());
    };
    return;
  }
  const { parentPort, receiveMessageOnPort } = nodeBuiltin('node:worker_threads')!;
  parentPort!.once('message', (init: WorkerInit) => {
    const port = init.port as Parameters<typeof receiveMessageOnPort>[0] | undefined;
    void workerMain(init, (m) => parentPort!.postMessage(m), (code) => process.exit(code), port && (() => receiveMessageOnPort(port)?.message));
  });
}
void start();
