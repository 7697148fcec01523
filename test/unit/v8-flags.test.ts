import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { notGiven, RUNTIME_FLAGS, START_FLAGS } from '../../src/v8-flags.js';

describe("V8's memory settings (src/v8-flags.ts)", () => {
  it('leaves out a flag the command line gives, with any value, and its --no- form', () => {
    const flags = ['--max-semi-space-size=8', '--heap-growing-percent=40', '--no-maglev'];
    expect(notGiven(flags, [])).toEqual(flags);
    expect(notGiven(flags, ['--import', 'tsx', '--heap-growing-percent=80', '--maglev'])).toEqual(['--max-semi-space-size=8']);
    expect(notGiven(flags, ['--max-semi-space-size=32'])).toEqual(['--heap-growing-percent=40', '--no-maglev']);
  });

  it("puts the flags V8 reads only when it starts on npm start's command line, before the entry point", () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start).toContain(`node ${START_FLAGS.join(' ')} dist/src/main.js`);
  });

  it('keeps the two lists apart', () => {
    expect(notGiven(RUNTIME_FLAGS, START_FLAGS)).toEqual(RUNTIME_FLAGS);
  });
});
