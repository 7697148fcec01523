import { createServer } from 'node:http';
import { cliOptions } from './cli.js';
import { Webhook } from 'standardwebhooks';

const USAGE = `Receives webhooks locally and prints each one verified with the standardwebhooks package.

Usage: WEBHOOK_SECRET=whsec_... npm run -s webhook-receiver -- [--port 4100] [--count N]
       npm run -s webhook-receiver -- --secret whsec_... [--port 4100] [--count N]

  --secret  the endpoint's secret, from the answer that created it; else WEBHOOK_SECRET
            (which, unlike an argument, other users' ps does not show)
  --port    where to listen on 127.0.0.1 (default 4100)
  --fail    answer 500 to this many deliveries first, to watch the retries (default 0)
  --count   exit (code 0) once this many deliveries are verified and answered 200
            (default: run until Ctrl-C)
  --help    this text

Register http://127.0.0.1:4100/ as the endpoint's url (outside production, http and loopback
are allowed). Each delivery prints one JSON line: verified or not, webhook-id, type, and the
event; a delivery that fails verification is answered 400. GET / answers 200 and prints
nothing, so that a script can wait until the receiver listens.`;

const cli = cliOptions<{ secret?: string; port?: string; fail?: string; count?: string }>('webhook-receiver', USAGE, {
  secret: { type: 'string' },
  port: { type: 'string', default: '4100' },
  fail: { type: 'string', default: '0' },
  count: { type: 'string' },
});
const { values } = cli;
// Annotated, so that TypeScript narrows after a call (a `never` function must be declared so).
const fail: (reason: string) => never = cli.fail;
// The environment keeps the secret out of the process list (issue 25, F18); --secret still wins.
const secret = values.secret ?? process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) fail('the endpoint secret (whsec_...) is needed, in WEBHOOK_SECRET or --secret');
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail('--port must be a port number');
let failures = Number(values.fail);
if (!Number.isInteger(failures) || failures < 0) fail('--fail must be a whole number');
let left = values.count === undefined ? Infinity : Number(values.count);
if (!(left === Infinity || (Number.isInteger(left) && left > 0))) fail('--count must be a whole number above 0');

const verifier = new Webhook(secret);
const server = createServer((req, res) => {
  // Deliveries are POSTs; a GET says the receiver is up (a script waits on it), and prints nothing.
  if (req.method === 'GET') return res.end('ready\n');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const id = req.headers['webhook-id'];
    try {
      const event = verifier.verify(body, req.headers as Record<string, string>) as { type: string };
      if (failures > 0) {
        failures--;
        console.log(JSON.stringify({ verified: true, answered: 500, webhookId: id, type: event.type }));
        res.statusCode = 500;
        return res.end();
      }
      console.log(JSON.stringify({ verified: true, answered: 200, webhookId: id, type: event.type, event }));
      if (--left > 0) return res.end();
      // The last one counted: answered on a connection that then closes, and so does the server; the process ends.
      res.setHeader('connection', 'close');
      res.end(() => server.close());
    } catch (error) {
      console.log(JSON.stringify({ verified: false, answered: 400, webhookId: id, reason: (error as Error).message }));
      res.statusCode = 400;
      res.end();
    }
  });
});
server.listen(port, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${port}/`));
