import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites are CPU-heavy on a 2-core machine; two forks keep wall time and memory predictable.
    pool: 'forks',
    maxWorkers: 2,
  },
});
