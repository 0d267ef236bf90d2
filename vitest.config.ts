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
          // vitest's default leaves a core idle (cores - 1): one worker on a 2-core machine.
          maxWorkers: 2,
          isolate: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Ceilings, not expectations: on a busy 2-core machine one process start can take
          // seconds; tests wait on events and finish as soon as those arrive.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // e2e files spawn processes and bind sockets; two at a time fits a 2-core box.
          maxWorkers: 2,
          isolate: false,
        },
      },
    ],
  },
});
