/**
 * Where `verity serve` may deliver webhooks: the same address policy as `url` inputs
 * (src/sources/address-guard.ts), so a caller with a key cannot point deliveries at the host's
 * loopback services, the private network or the cloud metadata endpoint.
 *
 * Two checks, because neither alone is enough:
 * - at registration (and rotation/test), the URL itself: https only, and an IP literal or a
 *   `localhost` name is refused with the rule it breaks (no DNS here: names are judged later);
 * - at connect time, on every attempt: every address the name resolves to (a custom undici
 *   lookup), and the literal address itself — so a name that is re-pointed (DNS rebinding)
 *   after registration is still refused. Redirects are never followed (a 3xx is a failure).
 *
 * `verity serve --allow-private-webhooks` turns both checks off for development (logged at
 * start-up). Embedded mode (the CLI's own registry) does not use this guard: there the operator
 * is the only caller, and `verity listen` on loopback is the point.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { VerityError } from '../api/errors.js';
import { forbiddenAddressRule } from '../sources/address-guard.js';

export type LookupFn = (
  hostname: string,
  options: { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface TargetPolicy {
  /** Development switch: allow http and loopback/private targets. */
  allowPrivate: boolean;
  /** DNS resolution, injectable for tests (a name resolving to 10.0.0.1 without real DNS). */
  lookup?: LookupFn;
}

const LOCALHOST = /^(localhost|.*\.localhost)\.?$/i;

/** Why this URL may not be a webhook target under the policy, or undefined when it may. */
export function targetUrlProblem(url: string, policy: TargetPolicy): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute https URL';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an https URL';
  if (u.username || u.password) return 'must not carry credentials (user:password@)';
  if (policy.allowPrivate) return undefined;
  // The WHATWG parser has already turned 2130706433, 127.1 and 0x7f.1 into 127.0.0.1.
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (LOCALHOST.test(host)) return 'must not point to a loopback address (localhost)';
  if (isIP(host)) {
    const rule = forbiddenAddressRule(host);
    if (rule) return `must not point to a ${rule} address (${host})`;
  }
  if (u.protocol !== 'https:') return 'must be https (plain http is allowed only when serve runs with --allow-private-webhooks)';
  return undefined;
}

/** A 400 naming the rule, for the `url` field. */
export function checkTargetUrl(url: string, policy: TargetPolicy, field = 'url'): void {
  const problem = targetUrlProblem(url, policy);
  if (problem)
    throw new VerityError('VALIDATION_FAILED', `${field} ${problem}`, {
      details: [{ field, issue: problem }],
    });
}

/** Marks a connection refused by the guard; the worker records its message, never a reply body. */
export class ForbiddenTargetError extends Error {
  readonly code = 'E_FORBIDDEN_TARGET';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ForbiddenTargetError';
  }
}

/**
 * The connect-time lookup for an undici Agent: resolves, then refuses the connection when any
 * resolved address is forbidden (a name with one public and one private address is refused).
 */
export function guardedLookup(policy: TargetPolicy) {
  const resolve: LookupFn = policy.lookup ?? ((h, o, cb) => dnsLookup(h, o, cb));
  return (
    hostname: string,
    options: object,
    cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    resolve(hostname, { all: true }, (err, addresses) => {
      if (err) return cb(err, '', 4);
      if (!policy.allowPrivate) {
        if (!addresses.length) return cb(new ForbiddenTargetError(`${hostname} resolves to no address`) as never, '', 4);
        for (const a of addresses) {
          const rule = forbiddenAddressRule(a.address);
          if (rule) return cb(new ForbiddenTargetError(`refused: ${hostname} resolves to a ${rule} address`) as never, '', 4);
        }
      }
      if ((options as { all?: boolean }).all) return cb(null, addresses);
      cb(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The literal-address half of the connect-time check (no lookup happens for IP literals). */
export function literalTargetProblem(url: string, policy: TargetPolicy): string | undefined {
  if (policy.allowPrivate) return undefined;
  const problem = targetUrlProblem(url, policy);
  return problem ? `refused: the target ${problem}` : undefined;
}
