import { spawn, spawnSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/database/embedded-postgres.js';

/**
 * `npm run webhook-receiver` as a developer runs it (issue 25, F18): the secret from
 * WEBHOOK_SECRET, out of the process list, as well as from --secret.
 */
const SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('WEBHOOK_SECRET' in env)) delete result.WEBHOOK_SECRET;
  return result;
}

describe('npm run webhook-receiver', () => {
  it('verifies deliveries with the secret in WEBHOOK_SECRET, never shown on its command line', async () => {
    const port = await freePort();
    const receiver = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhook-receiver.ts', '--port', String(port)], {
      env: childEnv({ WEBHOOK_SECRET: SECRET }),
    });
    let stdout = '';
    receiver.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    try {
      // It says where it listens on stderr once ready.
      await new Promise<void>((resolve, reject) => {
        receiver.stderr.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('listening') && resolve());
        receiver.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const body = JSON.stringify({ type: 'organization.created', data: { object: { id: 'x' } } });
      const date = new Date();
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign('msg_1', date, body),
      };
      const delivered = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers });
      expect(delivered.status).toBe(200);
      const forged = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: body.replace('x', 'y'), headers });
      expect(forged.status).toBe(400);
      expect(stdout).toContain('"verified":true');
    } finally {
      receiver.kill();
    }
  });

  it('answers GET / without printing, so a script can wait for it, and with --count exits 0 after that many verified deliveries (issue 36, F25)', async () => {
    const port = await freePort();
    const receiver = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhook-receiver.ts', '--port', String(port), '--count', '2'], {
      env: childEnv({ WEBHOOK_SECRET: SECRET }),
    });
    let stdout = '';
    receiver.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => receiver.once('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        receiver.stderr.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('listening') && resolve());
        receiver.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      const deliver = async (id: string, secret = SECRET) => {
        const body = JSON.stringify({ type: 'organization.updated', data: { object: { id } } });
        const date = new Date();
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, date, body),
        };
        return (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers })).status;
      };
      expect(await deliver('msg_1')).toBe(200);
      // One signed with another secret is answered 400 and not counted.
      expect(await deliver('msg_2', `whsec_${Buffer.alloc(24, 6).toString('base64')}`)).toBe(400);
      expect(await deliver('msg_3')).toBe(200);
      expect(await exited).toBe(0);
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map(({ verified, webhookId }) => ({ verified, webhookId }))).toEqual([
        { verified: true, webhookId: 'msg_1' },
        { verified: false, webhookId: 'msg_2' },
        { verified: true, webhookId: 'msg_3' },
      ]);
    } finally {
      receiver.kill();
    }
  });

  it('names both ways to give the secret when it has neither, in one line and exit 2', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/webhook-receiver.ts'], { env: childEnv({}), encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      'npm run webhook-receiver: the endpoint secret (whsec_...) is needed, in WEBHOOK_SECRET or --secret (--help for usage)',
    );
  });
});
