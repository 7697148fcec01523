import { describe, expect, it } from 'vitest';
import { isPublicAddress, NOT_PUBLIC_PROBLEM, webhookUrlProblem } from '../../src/webhooks/webhook-url.js';

describe('webhook URL policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '::7f00:1',
    '64:ff9b::a00:1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses, in production, http and address literals in any spelling the URL parser normalises', async () => {
    const policy = { publicOnly: true };
    for (const url of [
      'http://8.8.8.8/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://127.1/',
      'https://localhost./',
    ]) {
      expect(await webhookUrlProblem(url, policy), url).not.toBeNull();
    }
    expect(await webhookUrlProblem('https://8.8.8.8/hooks', policy)).toBeNull();
    expect(await webhookUrlProblem('http://127.0.0.1/', { publicOnly: false })).toBeNull();
  });

  // Security review 2, L10: every IPv6 form that maps or translates to an IPv4 address, and the
  // deprecated site-local range.
  it.each([
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:a00:1', // IPv4-translated (SIIT)
    '::ffff:10.0.0.1',
    '::ffff:c0a8:101',
    '::ffff:0:0', // IPv4-mapped, private or unspecified
    '64:ff9b::7f00:1',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1::7f00:1',
    '64:ff9b:1::a00:1',
    '64:ff9b:1:ffff::1', // NAT64
    '2002:7f00:1::1',
    '2002:a00:1::1',
    '2002:808:808::1', // 6to4
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    'fec0::1',
    'feff::1', // site-local
  ])('refuses %s, which maps or translates to an IPv4 address or is site-local', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('accepts an IPv4-mapped public address in either spelling, like the IPv4 address itself', () => {
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:808:808')).toBe(true);
  });

  it('refuses those forms as URL literals in production', async () => {
    const policy = { publicOnly: true };
    for (const url of [
      'https://[::ffff:0:127.0.0.1]/',
      'https://[64:ff9b:1::7f00:1]/',
      'https://[2002:7f00:1::1]/',
      'https://[fec0::1]/',
    ]) {
      expect(await webhookUrlProblem(url, policy), url).toBe(NOT_PUBLIC_PROBLEM);
    }
  });

  it('answers a name that does not resolve exactly as one that resolves to a private address (no existence oracle)', async () => {
    const policy = { publicOnly: true };
    const missing = await webhookUrlProblem('https://no-such-host.invalid/hooks', policy);
    const internal = await webhookUrlProblem('https://localhost/hooks', policy);
    const literal = await webhookUrlProblem('https://10.0.0.1/hooks', policy);
    expect(internal).toBe(NOT_PUBLIC_PROBLEM);
    expect(missing).toBe(internal);
    expect(literal).toBe(internal);
  });
});
