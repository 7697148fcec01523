import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:browser`: the tests that drive a real Chromium (test/browser), run by .ci/run. */
// The base's settings without its projects (`fast` and `e2e`): this config is one project of its own.
const { projects: _projects, ...test } = base.test ?? {};

export default defineConfig({
  ...base,
  test: { ...test, include: ['test/browser/**/*.test.ts'], exclude: ['node_modules/**'] },
});
