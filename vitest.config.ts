import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real tokenizers too big to install with the project are fetched once, up front.
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // e2e files spawn processes and bind sockets; two at a time fits a 2-core box.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
