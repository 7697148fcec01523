import { chromium, type Browser } from 'playwright-core';
import { programPath } from '../support/programs.js';

/**
 * Headless Chromium for the browser tests: Debian's (`apt-get install chromium`, done by
 * .ci/run), or CHROMIUM_PATH; the files that need it skip without it (support/programs.ts).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: programPath('chromium'),
    // This machine has no internet: Chromium's own background traffic is turned off.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
