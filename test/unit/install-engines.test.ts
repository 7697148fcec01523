import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * `npm install` with the npm of the Node the project runs on prints no EBADENGINE: every package
 * the lockfile installs accepts this Node (npm's own check, npm-install-checks, is semver's
 * `satisfies` with prereleases included). Under the machine's Node 20 npm still warns, as the
 * README's first screen explains; the suite runs on Node 24 and on the Node 26 tier.
 */
describe('the lockfile', () => {
  it('holds no package whose engines refuse the Node that runs the suite', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { engines?: Record<string, string> | string[]; optional?: boolean }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => !entry.optional)
      .flatMap(([path, { engines }]) => {
        const range = engines && !Array.isArray(engines) ? engines.node : undefined;
        return range && !semver.satisfies(process.version, range, { includePrerelease: true }) ? [`${path}: node ${range}`] : [];
      });
    expect(refusing).toEqual([]);
  });
});
