import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

/**
 * Programs a few tests need that a fresh machine with only Node and npm lacks. `npm test` must
 * pass there (README), so their tests skip, each file saying why in one line that names the
 * program and how to install it, and vitest's summary counts them as skipped. `.ci/run` installs
 * them and sets REQUIRE_<NAME>=1, under which a missing one fails the file instead.
 */
const PROGRAMS = {
  pgbouncer: {
    title: 'PgBouncer',
    path: process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer',
    install: "install Debian's pgbouncer (sudo apt-get install pgbouncer) or set PGBOUNCER_PATH",
    required: 'REQUIRE_PGBOUNCER',
  },
  chromium: {
    title: 'Chromium',
    path: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    install: "install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM_PATH",
    required: 'REQUIRE_CHROMIUM',
  },
} as const;

export type Program = keyof typeof PROGRAMS;

/** The program's path, when the machine has it. */
export function programPath(program: Program): string {
  return PROGRAMS[program].path;
}

/**
 * Why the tests that need `program` cannot run here, or undefined when they can. Thrown instead
 * when the run requires it (REQUIRE_PGBOUNCER=1, REQUIRE_CHROMIUM=1: .ci/run).
 */
export function missing(program: Program): string | undefined {
  const { title, path, install, required } = PROGRAMS[program];
  if (existsSync(path)) return undefined;
  const problem = `no ${title} at ${path}: ${install}`;
  if (process.env[required] === '1') throw new Error(`${required}=1, but there is ${problem}.`);
  return `needs ${title}, and there is ${problem}.`;
}

/** `describe`, skipped with its one-line reason when `reason` says it cannot run here. */
export function describeUnless(reason: string | undefined, name: string, body: () => void): void {
  if (reason === undefined) {
    describe(name, body);
  } else {
    console.warn(`Skipped: ${reason}`);
    describe.skip(name, body);
  }
}

/** `it`, skipped with its one-line reason when `reason` says it cannot run here. */
export function itUnless(reason: string | undefined, name: string, body: () => Promise<void>, timeout?: number): void {
  if (reason === undefined) {
    it(name, body, timeout);
  } else {
    console.warn(`Skipped: ${reason}`);
    it.skip(name, body, timeout);
  }
}
