import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The fast tier (`npm run test:fast`): the unit tests, the in-process GraphQL tests and the
 * operation core's tests in process (test/support/in-process.ts), none of which opens a socket.
 */
export const FAST = ['test/unit/**/*.test.ts', 'test/graphql/**/*.test.ts', 'test/in-process/**/*.test.ts'];

export default defineConfig({
  resolve: {
    // One graphql module instance: Vite would load graphql's .mjs while type-graphql loads its .js.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['reflect-metadata'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time, each with its own database on one PostgreSQL.
    maxWorkers: 2,
    // The files of a worker share its module graph: the app is imported once per worker, not once
    // per file (73 s of imports became 10 s). So no file may leave global state behind: fake
    // timers are restored in afterEach, and nothing mocks modules (vi.mock would leak).
    isolate: false,
    // `npm test` runs both; `npm run test:fast` only the first. Each takes the settings above
    // (`extends`, which appends lists: so no project's files are named up here).
    projects: [
      { extends: true, test: { name: 'fast', include: FAST } },
      {
        extends: true,
        test: {
          name: 'e2e',
          // Everything else: started services, processes, sockets. Browser tests need a Chromium:
          // `npm run test:browser` (vitest.browser.config.ts), run by .ci/run.
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'node_modules/**', ...FAST],
        },
      },
    ],
  },
});
