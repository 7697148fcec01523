import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The options of a small command-line script (`npm run token`, `npm run webhook-receiver`):
 * `--help` prints the usage and exits 0; a usage error is one line on stderr and exit 2,
 * never a stack trace.
 */
export function cliOptions<T>(
  command: string,
  usage: string,
  options: ParseArgsConfig['options'],
): { values: T; fail: (reason: string) => never } {
  const fail = (reason: string): never => {
    console.error(`npm run ${command}: ${reason} (--help for usage)`);
    process.exit(2);
  };
  let values: T & { help?: boolean };
  try {
    values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }).values as T & { help?: boolean };
  } catch (error) {
    return fail((error as Error).message.split('\n')[0]);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  return { values, fail };
}
