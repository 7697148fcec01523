import { spawn, type ChildProcess } from 'node:child_process';

export interface Started {
  child: ChildProcess;
  url: string;
  token: string | undefined;
  output: () => string;
}

/**
 * Runs src/main.ts as `npm start` does (a process of its own), and waits for its welcome lines.
 * One process serving alone (WEB_CONCURRENCY=1) unless `env` asks for more: the tests that use
 * this signal, kill and read the process they started; cluster.test.ts runs the cluster.
 */
export async function startMain(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Started> {
  const childEnv: Record<string, string> = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WEB_CONCURRENCY: '1',
    ...env,
  };
  for (const name of [
    'DATABASE_URL',
    'JWT_SECRET',
    'JWT_PUBLIC_KEY',
    'JWKS_URL',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'DATA_ENCRYPTION_KEY',
    'VITEST',
    'VITEST_WORKER_ID',
  ]) {
    if (!(name in env)) delete childEnv[name];
  }
  // Detached: in a process group of its own, which a test can signal whole, as Ctrl-C does.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!/GraphQL[^\n]*: http/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // the token line follows
  return {
    child,
    url: /service: (http:\/\/\S+)/.exec(output)![1],
    token: /^export TOKEN=(\S+)$/m.exec(output)?.[1],
    output: () => output,
  };
}

/**
 * SIGTERM, then the exit code once its output is all read. Every test that reads a child's
 * output after it ends waits for 'close', not 'exit': 'exit' can come first while its last lines
 * (or a cluster worker's, which share the pipe) still wait in the pipe, and on a busy machine a
 * test then missed a line that was written.
 */
export function stopMain(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ code, ms: Date.now() - started }));
    child.kill('SIGTERM');
  });
}

/** The JSON log lines the processes wrote so far (the welcome's plain lines skipped). */
export function logLines(started: Started): Array<Record<string, any>> {
  return started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** The pid of the process that answered each of these request ids (from its access line). */
export function answeredBy(started: Started, requestIds: string[]): number[] {
  const ids = new Set(requestIds);
  return logLines(started)
    .filter((line) => line.msg === 'request completed' && ids.has(line.req?.id))
    .map((line) => line.pid as number);
}
