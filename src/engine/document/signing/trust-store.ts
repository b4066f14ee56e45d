/**
 * Trust anchors for document signatures (`document.trust_anchors`): a comma-separated list whose
 * entries are a path to a PEM bundle (a trust list exported as PEM works the same way), PEM text
 * itself, or `system` for the operating system's bundle (Debian/Ubuntu
 * /etc/ssl/certs/ca-certificates.crt, else the Red Hat and Alpine locations). Files are read once
 * per path. Without anchors no signer is `trusted`: trust is reported as unknown, never guessed.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { EngineConfig } from '../../types.js';

export const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];
/** A bundle larger than this is refused (the system bundle is ~220 kB). */
const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;

export interface TrustAnchors {
  certs: X509Certificate[];
  /** Whether any anchor was configured (false → trust is `unknown`, not `untrusted`). */
  configured: boolean;
}

export const NO_ANCHORS: TrustAnchors = { certs: [], configured: false };

const cache = new Map<string, X509Certificate[] | string>();

const PEM_RE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export function parsePemBundle(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.match(PEM_RE) ?? []) {
    try {
      out.push(new X509Certificate(block));
    } catch {
      /* a damaged entry in a bundle is skipped; the rest still count */
    }
  }
  return out;
}

function loadEntry(entry: string): X509Certificate[] | string {
  if (entry.includes('-----BEGIN')) return parsePemBundle(entry);
  const hit = cache.get(entry);
  if (hit) return hit;
  let result: X509Certificate[] | string;
  const path = entry === 'system' ? SYSTEM_BUNDLES.find((p) => existsSync(p)) : entry;
  if (!path) result = 'no system certificate bundle was found';
  else {
    try {
      const buf = readFileSync(path);
      if (buf.length > MAX_BUNDLE_BYTES) result = `${path} is larger than ${MAX_BUNDLE_BYTES / 1048576} MB`;
      else {
        const certs = parsePemBundle(buf.toString('utf8'));
        result = certs.length ? certs : `${path} holds no PEM certificate`;
      }
    } catch (err) {
      result = `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  cache.set(entry, result);
  return result;
}

export function loadDocumentTrustAnchors(config: EngineConfig, warnings: string[]): TrustAnchors {
  const v = config.document?.trust_anchors;
  const entries = (Array.isArray(v) ? v : typeof v === 'string' ? (v.includes('-----BEGIN') ? [v] : v.split(',')) : []).map((e) => e.trim()).filter(Boolean);
  if (!entries.length) return NO_ANCHORS;
  const certs: X509Certificate[] = [];
  for (const e of entries) {
    const r = loadEntry(e);
    if (typeof r === 'string') warnings.push(`document.trust_anchors: ${r}; those anchors are not used`);
    else certs.push(...r);
  }
  return { certs, configured: true };
}
