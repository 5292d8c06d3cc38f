/**
 * Node's built-in modules for the library's Node-only branches, through process.getBuiltinModule
 * (Node ≥ 20.16) rather than import(): no bundler follows it, so browser bundles (esbuild, Vite,
 * webpack) never see node:worker_threads or node:os. Returns null outside Node.
 */
type Builtins = {
  'node:worker_threads': typeof import('node:worker_threads');
  'node:os': typeof import('node:os');
  'node:fs': typeof import('node:fs');
};

export function nodeBuiltin<K extends keyof Builtins>(name: K): Builtins[K] | null {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return (p?.getBuiltinModule?.(name) as Builtins[K] | undefined) ?? null;
}
