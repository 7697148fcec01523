import { createServer } from 'node:http';
import { cliOptions } from './cli.js';
import { Webhook } from 'standardwebhooks';

const USAGE = `Receives webhooks locally and prints each one verified with the standardwebhooks package.

Usage: WEBHOOK_SECRET=whsec_... npm run -s webhook-receiver -- [--port 4100]
       npm run -s webhook-receiver -- --secret whsec_... [--port 4100]

  --secret  the endpoint's secret, from the answer that created it; else WEBHOOK_SECRET
            (which, unlike an argument, other users' ps does not show)
  --port    where to listen on 127.0.0.1 (default 4100)
  --fail    answer 500 to this many deliveries first, to watch the retries (default 0)
  --help    this text

Register http://127.0.0.1:4100/ as the endpoint's url (outside production, http and loopback
are allowed). Each delivery prints one JSON line: verified or not, webhook-id, type, and the
event; a delivery that fails verification is answered 400.`;

const cli = cliOptions<{ secret?: string; port?: string; fail?: string }>('webhook-receiver', USAGE, {
  secret: { type: 'string' },
  port: { type: 'string', default: '4100' },
  fail: { type: 'string', default: '0' },
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

const verifier = new Webhook(secret);
createServer((req, res) => {
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
      res.end();
    } catch (error) {
      console.log(JSON.stringify({ verified: false, answered: 400, webhookId: id, reason: (error as Error).message }));
      res.statusCode = 400;
      res.end();
    }
  });
}).listen(port, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${port}/`));
