import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A test skips only through test/support/programs.ts, which says why in one line (a program this
 * machine lacks, with how to install it) and fails instead when the run requires the program.
 * Anything else that skips, or narrows a run to one test, would pass unseen.
 */
const ROOT = join(import.meta.dirname, '..');
/** The one place that skips, and this file, whose examples below would match. */
const ALLOWED = ['support/programs.ts', 'unit/no-silent-skips.test.ts'];
const SKIPS = /\b(?:it|test|describe|suite|bench)\s*\.\s*(?:skip|skipIf|runIf|todo|only)\b|\bcontext\.skip\(|\(\s*\{\s*skip\s*\}\s*\)/;

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

describe('skips', () => {
  it('are made only by test/support/programs.ts, which says why', () => {
    const skipping = testFiles(ROOT)
      .map((file) => relative(ROOT, file))
      .filter((file) => !ALLOWED.includes(file) && !file.startsWith('generated/'))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (SKIPS.test(line) ? [`test/${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(skipping).toEqual([]);
  });

  it('are found by the pattern above', () => {
    for (const line of ["it.skip('x', () => {})", 'describe.skipIf(true)(', 'it.runIf(false)(', 'test.only(', "it('x', ({ skip }) => {"]) {
      expect(SKIPS.test(line), line).toBe(true);
    }
    expect(SKIPS.test("it('skips nothing', () => {})")).toBe(false);
  });
});
