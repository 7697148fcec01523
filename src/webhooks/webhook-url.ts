import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (spec section 11): in production only `https`, and never to a
 * loopback, private, link-local, shared, multicast or unspecified address, unless
 * WEBHOOK_ALLOW_PRIVATE_URLS=true. Checked at registration (the name is resolved), and again
 * at every delivery by the connection's own lookup (`checkedLookup`), so that a name which
 * later resolves elsewhere (DNS rebinding) is refused on the socket actually opened.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
// IPv4-mapped addresses (::ffff:a.b.c.d) meet the IPv4 rules (BlockList maps them); ::/96 is
// the deprecated IPv4-compatible form.
for (const [network, prefix] of [
  ['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32], ['100::', 64],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

export interface UrlPolicy {
  /** Only https, and only public addresses (production unless WEBHOOK_ALLOW_PRIVATE_URLS=true). */
  publicOnly: boolean;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[1]);
    return !NOT_PUBLIC.check(address, 'ipv6');
  }
  return !NOT_PUBLIC.check(address, 'ipv4');
}

const NOT_PUBLIC_PROBLEM = 'must not resolve to a loopback, private, link-local or unspecified address';

/** The host of a URL as an address literal when it is one (IPv6 without its brackets), else its name. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * What can be told of a URL without resolving it: its scheme, and an address literal's range
 * (a literal skips any lookup). Null when it may be tried. At registration and at delivery.
 */
export function literalUrlProblem(url: URL, policy: UrlPolicy): string | null {
  if (!policy.publicOnly) return null;
  if (url.protocol !== 'https:') return 'must be https';
  const host = hostOf(url);
  return isIP(host) && !isPublicAddress(host) ? NOT_PUBLIC_PROBLEM : null;
}

/** Why this URL may not receive webhooks, or null when it may. Resolves its host name. */
export async function webhookUrlProblem(url: string, policy: UrlPolicy): Promise<string | null> {
  const parsed = new URL(url);
  const problem = literalUrlProblem(parsed, policy);
  if (problem || !policy.publicOnly || isIP(hostOf(parsed))) return problem;
  const addresses = await resolveAll(hostOf(parsed));
  if (addresses === null || addresses.length === 0) return 'must be a name that resolves';
  if (!addresses.every(isPublicAddress)) return NOT_PUBLIC_PROBLEM;
  return null;
}

function resolveAll(host: string): Promise<string[] | null> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) => resolve(error ? null : addresses.map((entry) => entry.address)));
  });
}

/** A `lookup` for node:http(s) that refuses non-public addresses (the delivery's own check). */
export function checkedLookup(policy: UrlPolicy) {
  return (hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      const allowed = policy.publicOnly ? addresses.filter((entry) => isPublicAddress(entry.address)) : addresses;
      if (allowed.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to no public address`), { code: 'EADDRNOTPUBLIC' }), []);
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
