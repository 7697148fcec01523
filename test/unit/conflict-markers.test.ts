import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * No tracked file holds a merge's conflict markers. Prettier formats them as text in Markdown and
 * the type checker never reads docs, so a conflicted decisions.md once passed the whole suite.
 */
describe('the tree', () => {
  it('holds no merge conflict markers', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
      .split('\0')
      .filter((file) => /\.(ts|md|json|ya?ml|graphql|sh)$/.test(file) && !file.includes('/generated/'));
    const marked = files.filter((file) => /^(<{7} |={7}$|>{7} )/m.test(readFileSync(file, 'utf8')));
    expect(marked).toEqual([]);
  });
});
