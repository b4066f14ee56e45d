import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SYSTEM_BUNDLES, loadDocumentTrustAnchors } from '../../../src/engine/document/signing/trust-store.js';
import { ROOT_PEM_PATH } from './signatures-build.js';
import { existsSync } from 'node:fs';

describe('document.trust_anchors', () => {
  it('reads PEM bundle paths, PEM text and a comma-separated list; a bad entry is a warning', () => {
    const w: string[] = [];
    expect(loadDocumentTrustAnchors({}, w)).toEqual({ certs: [], configured: false });
    const one = loadDocumentTrustAnchors({ document: { trust_anchors: ROOT_PEM_PATH } }, w);
    expect(one.certs.map((c) => c.subject)).toEqual(['CN=verity test root']);
    const text = loadDocumentTrustAnchors({ document: { trust_anchors: readFileSync(ROOT_PEM_PATH, 'utf8') } }, w);
    expect(text.certs).toHaveLength(1);
    expect(w).toEqual([]);
    const list = loadDocumentTrustAnchors({ document: { trust_anchors: `${ROOT_PEM_PATH}, /nonexistent.pem` } }, w);
    expect(list).toMatchObject({ configured: true });
    expect(list.certs).toHaveLength(1);
    expect(w).toEqual(['document.trust_anchors: /nonexistent.pem cannot be read (ENOENT); those anchors are not used']);
  });

  it.skipIf(!SYSTEM_BUNDLES.some((p) => existsSync(p)))('`system` reads the operating system bundle', () => {
    const w: string[] = [];
    const sys = loadDocumentTrustAnchors({ document: { trust_anchors: 'system' } }, w);
    expect(sys.certs.length).toBeGreaterThan(50);
    expect(w).toEqual([]);
  });
});
