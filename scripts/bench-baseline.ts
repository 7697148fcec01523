import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { baselineAnswer, preparedStatements, type Principal } from './bench-baseline-answers.js';

/**
 * The benchmark's baseline: the fastest honest code for the same operations. node:http,
 * pg and jose only: verify the same JWT (every request), run one SQL statement with the same
 * access check, write its answer (bench-baseline-answers.ts: the service's body byte for byte).
 * No framework, no GraphQL, no ORM.
 * Environment: DATABASE_URL, JWT_SECRET, PORT, and BASELINE_WORKERS (default 1): that many
 * processes sharing the port through node:cluster, as the service's WEB_CONCURRENCY does.
 */
const secret = new TextEncoder().encode(process.env.JWT_SECRET);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => undefined);
const one = preparedStatements(pool);

async function principal(req: IncomingMessage): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header?.startsWith('Bearer ')) return null;
  try {
    const { payload } = await jwtVerify(header.slice(7), secret, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
    return { sub: payload.sub!, org: typeof payload.org === 'string' ? payload.org : null };
  } catch {
    return null;
  }
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<any> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  try {
    const who = await principal(req);
    if (!who) return send(res, 401, '{"code":"UNAUTHENTICATED"}');
    const answer = await baselineAnswer(pool, one, who, req.method ?? '', req.url ?? '', () => readJson(req));
    send(res, answer.status, answer.body, answer.headers);
  } catch {
    send(res, 500, '{"code":"INTERNAL_SERVER_ERROR"}');
  }
}
// `handle` answers every error itself, so its promise has nothing left to reject.
const server = createServer((req, res) => void handle(req, res));
const workers = Number(process.env.BASELINE_WORKERS ?? 1);
if (workers > 1 && cluster.isPrimary) {
  for (let index = 0; index < workers; index++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  server.listen(Number(process.env.PORT ?? 4001), '127.0.0.1', () => console.log('baseline listening'));
  process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}
