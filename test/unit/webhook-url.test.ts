import { describe, expect, it } from 'vitest';
import { isPublicAddress, webhookUrlProblem } from '../../src/webhooks/webhook-url.js';

describe('webhook URL policy', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a00:1', '::7f00:1', '64:ff9b::a00:1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses, in production, http and address literals in any spelling the URL parser normalises', async () => {
    const policy = { publicOnly: true };
    for (const url of ['http://8.8.8.8/', 'https://2130706433/', 'https://0x7f.1/', 'https://[::ffff:127.0.0.1]/', 'https://127.1/', 'https://localhost./']) {
      expect(await webhookUrlProblem(url, policy), url).not.toBeNull();
    }
    expect(await webhookUrlProblem('https://8.8.8.8/hooks', policy)).toBeNull();
    expect(await webhookUrlProblem('http://127.0.0.1/', { publicOnly: false })).toBeNull();
  });
});
