/** The next event-loop task: setImmediate in Node, a MessageChannel message in browsers (unclamped, unlike setTimeout). */
export const nextTask: () => Promise<void> =
  typeof setImmediate === 'function'
    ? () => new Promise((r) => setImmediate(r))
    : () =>
        new Promise((r) => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => {
            ch.port1.close();
            r();
          };
          ch.port2.postMessage(0);
        });

/**
 * Throws what an AbortSignal that has fired carries, as the platform's own APIs (fetch) reject:
 * `signal.reason` (a DOMException named 'AbortError' unless abort() was given a reason).
 */
export function throwIfAborted(signal: { aborted: boolean; reason?: unknown } | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
