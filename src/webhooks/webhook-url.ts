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
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
// IPv4-mapped addresses (::ffff:0:0/96) meet the IPv4 rules (isPublicAddress reads the IPv4 they
// carry). Every other form that carries or translates to an IPv4 address is refused whole, as no
// public receiver needs one: ::/96 (IPv4-compatible, deprecated), ::ffff:0:0:0/96 (IPv4-translated,
// SIIT), 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64, RFC 6052 and RFC 8215: a NAT64 gateway reaches
// the private IPv4 they embed), 2002::/16 (6to4) and 2001::/32 (Teredo). fec0::/10 is the
// deprecated site-local range, private like fc00::/7.
for (const [network, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['100::', 64],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

export interface UrlPolicy {
  /** Only https, and only public addresses (production unless WEBHOOK_ALLOW_PRIVATE_URLS=true). */
  publicOnly: boolean;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = mappedIPv4(address);
    if (mapped) return isPublicAddress(mapped);
    return !NOT_PUBLIC.check(address, 'ipv6');
  }
  return !NOT_PUBLIC.check(address, 'ipv4');
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d, in either spelling) carries, else null. */
function mappedIPv4(address: string): string | null {
  const groups = ipv6Groups(address.toLowerCase());
  if (!groups || groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return null;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 counts as two). */
function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const groups = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * One answer for every host that may not receive webhooks, whether its name resolves to a
 * private address or does not resolve at all: two answers would tell a caller which internal
 * names exist (security review 2, L10).
 */
export const NOT_PUBLIC_PROBLEM = 'must be a host that resolves only to public addresses';

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
  if (addresses === null || addresses.length === 0 || !addresses.every(isPublicAddress)) return NOT_PUBLIC_PROBLEM;
  return null;
}

function resolveAll(host: string): Promise<string[] | null> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) => resolve(error ? null : addresses.map((entry) => entry.address)));
  });
}

/** A `lookup` for node:http(s) that refuses non-public addresses (the delivery's own check). */
export function checkedLookup(policy: UrlPolicy) {
  return (
    hostname: string,
    options: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      const allowed = policy.publicOnly ? addresses.filter((entry) => isPublicAddress(entry.address)) : addresses;
      if (allowed.length === 0)
        return callback(Object.assign(new Error(`${hostname} resolves to no public address`), { code: 'EADDRNOTPUBLIC' }), []);
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
