import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:browser`: the tests that drive a real Chromium (test/browser), run by .ci/run. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/browser/**/*.test.ts'], exclude: ['node_modules/**'] },
});
