import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // Generous: CLI and e2e tests spawn Node processes, and these machines are shared and noisy; a
    // timeout here is a hang detector, never a performance check.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
