import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests spawn the built CLI and servers; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Builds the CLI once for the e2e tests (test/e2e/global-setup.ts).
    globalSetup: ['test/e2e/global-setup.ts'],
  },
});
