/**
 * SSRF guard: which IP addresses a server-side connection (a `url` input's download, a webhook
 * delivery) may go to. Only ordinary public unicast addresses pass; loopback, private, link-local
 * (incl. cloud metadata 169.254.169.254), CGNAT, unspecified, multicast, broadcast, documentation,
 * benchmarking and other reserved ranges are refused.
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, the deprecated IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 6to4
 * 2002:aabb:ccdd::) are judged by the IPv4 address inside them, so `::7f00:1` is loopback.
 * Classification comes from ipaddr.js (maintained range tables) rather than hand parsing.
 */
import ipaddr from 'ipaddr.js';

/** Human names for ipaddr.js range names, used in refusals ("… is a loopback address"). */
const RULE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (cloud metadata lives here)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (shared, private)',
  private: 'private',
  uniqueLocal: 'private (unique local)',
  reserved: 'reserved',
  as112: 'reserved (AS112)',
  amt: 'reserved (AMT)',
  deprecatedSiteLocal: 'private (site-local)',
  discard: 'reserved (discard)',
  teredo: 'Teredo tunnel (embeds an address that cannot be checked)',
  benchmarking: 'reserved (benchmarking)',
  as112v6: 'reserved (AS112)',
  deprecatedOrchid: 'reserved (ORCHID)',
  orchid2: 'reserved (ORCHID)',
  droneRemoteIdProtocolEntityTags: 'reserved (DRIP)',
  segmentRouting: 'reserved (segment routing)',
  rfc6052: 'NAT64 (local-use prefix)',
};

function v4Rule(addr: ipaddr.IPv4): string | undefined {
  const range = addr.range();
  return range === 'unicast' ? undefined : (RULE_NAMES[range] ?? range);
}

/** The IPv4 address an IPv6 transition form carries, with the form's name; undefined if none. */
function embeddedV4(addr: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | undefined {
  const p = addr.parts;
  const fromWords = (hi: number, lo: number): ipaddr.IPv4 => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range = addr.range();
  if (range === 'ipv4Mapped') return { v4: fromWords(p[6]!, p[7]!), form: 'IPv4-mapped' };
  if (range === 'rfc6145') return { v4: fromWords(p[6]!, p[7]!), form: 'IPv4-translated' };
  if (range === '6to4') return { v4: fromWords(p[1]!, p[2]!), form: '6to4' };
  // 64:ff9b::/96 (well-known NAT64); the /48 local-use prefix has no fixed place for the address.
  if (range === 'rfc6052' && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) return { v4: fromWords(p[6]!, p[7]!), form: 'NAT64' };
  // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291) except :: and ::1 themselves.
  if (p.slice(0, 6).every((w) => w === 0) && (p[6] !== 0 || p[7]! > 1)) return { v4: fromWords(p[6]!, p[7]!), form: 'IPv4-compatible' };
  return undefined;
}

/**
 * Why a server must not connect to this address (e.g. "loopback", "private", "link-local …",
 * "6to4 embedding loopback"), or undefined when it is an ordinary public unicast address.
 */
export function forbiddenAddressRule(address: string): string | undefined {
  const literal = address.replace(/^\[|\]$/g, '');
  // Only canonical forms: resolvers return them and the WHATWG URL parser has already turned
  // 2130706433, 127.1 and 0x7f.1 into 127.0.0.1. Anything else is not an address: refuse.
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal) && !ipaddr.IPv6.isValid(literal)) return 'not an IP address';
  const parsed = ipaddr.parse(literal);
  if (parsed.kind() === 'ipv4') return v4Rule(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const inner = embeddedV4(v6);
  if (inner) {
    const rule = v4Rule(inner.v4);
    return rule ? `${inner.form} embedding a ${rule}` : undefined;
  }
  const range = v6.range();
  return range === 'unicast' ? undefined : (RULE_NAMES[range] ?? range);
}

/** True when a server must not connect to this address. */
export function isForbiddenAddress(address: string): boolean {
  return forbiddenAddressRule(address) !== undefined;
}
