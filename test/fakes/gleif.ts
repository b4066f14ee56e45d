/**
 * A fake GLEIF API (JSON:API): `GET /api/v1/lei-records` with `filter[entity.legalName]`
 * (case-insensitive equality), `filter[fulltext]` (words contained), `filter[entity.registeredAs]`
 * and `page[size]`; `GET /api/v1/lei-records/{lei}`; JSON:API error bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { takeFailure, type FakeState } from './companies-house.js';

export interface FakeLei {
  lei: string;
  legalName: string;
  registeredAs: string | null;
  registeredAt?: string;
  jurisdiction: string;
  status: 'ACTIVE' | 'INACTIVE';
  expirationReason?: string;
  creationDate?: string;
  registrationStatus?: string;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/vnd.api+json', ...headers });
  res.end(JSON.stringify(body));
};

const toRecord = (r: FakeLei) => ({
  type: 'lei-records',
  id: r.lei,
  attributes: {
    lei: r.lei,
    entity: {
      legalName: { name: r.legalName, language: 'en' },
      otherNames: [],
      transliteratedOtherNames: [],
      legalAddress: { language: 'en', addressLines: ['1 Test Street'], city: 'London', region: null, country: r.jurisdiction.slice(0, 2), postalCode: 'EC1A 1AA' },
      registeredAt: { id: r.registeredAt ?? 'RA000585', other: null },
      registeredAs: r.registeredAs,
      jurisdiction: r.jurisdiction,
      category: 'GENERAL',
      legalForm: { id: 'H0PO', other: null },
      associatedEntity: { lei: null, name: null },
      status: r.status,
      expiration: { date: r.expirationReason ? '2020-01-01T00:00:00Z' : null, reason: r.expirationReason ?? null },
      successorEntity: { lei: null, name: null },
      successorEntities: [],
      creationDate: r.creationDate ?? null,
      subCategory: null,
      otherAddresses: [],
      eventGroups: [],
    },
    registration: {
      initialRegistrationDate: '2014-01-01T00:00:00Z',
      lastUpdateDate: '2024-01-01T00:00:00Z',
      status: r.registrationStatus ?? 'ISSUED',
      nextRenewalDate: '2025-01-01T00:00:00Z',
      managingLou: '213800WAVVOPS85N2205',
      corroborationLevel: 'FULLY_CORROBORATED',
      validatedAt: { id: r.registeredAt ?? 'RA000585', other: null },
      validatedAs: r.registeredAs,
      otherValidationAuthorities: [],
    },
    bic: null,
    mic: null,
    ocid: null,
    spglobal: [],
    conformityFlag: 'CONFORMING',
  },
  links: { self: `https://api.gleif.org/api/v1/lei-records/${r.lei}` },
});

export function gleifFake(records: FakeLei[]) {
  const state: FakeState = { requests: [], failures: [] };
  const handler = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    state.requests.push({ path: url.pathname + url.search, authorization: undefined, userAgent: req.headers['user-agent'] });
    const fail = takeFailure(state, url.pathname);
    if (fail) return json(res, fail.status, { errors: [{ status: String(fail.status), title: 'injected' }] }, fail.retryAfter ? { 'retry-after': fail.retryAfter } : {});
    const one = /^\/api\/v1\/lei-records\/([A-Z0-9]{20})$/.exec(url.pathname);
    if (one) {
      const r = records.find((x) => x.lei === one[1]);
      return r ? json(res, 200, { meta: {}, data: toRecord(r) }) : json(res, 404, { errors: [{ status: '404', title: 'Not Found' }] });
    }
    if (url.pathname !== '/api/v1/lei-records') return json(res, 404, { errors: [{ status: '404', title: 'Not Found' }] });
    const p = url.searchParams;
    let hits = records;
    const name = p.get('filter[entity.legalName]');
    const full = p.get('filter[fulltext]');
    const regAs = p.get('filter[entity.registeredAs]');
    if (name !== null) hits = hits.filter((r) => r.legalName.toLowerCase() === name.toLowerCase());
    if (full !== null) {
      const words = full.toLowerCase().split(/\W+/).filter(Boolean);
      hits = hits.filter((r) => words.every((w) => r.legalName.toLowerCase().includes(w)));
    }
    if (regAs !== null) hits = hits.filter((r) => r.registeredAs === regAs);
    const size = Number(p.get('page[size]') ?? 10);
    const page = hits.slice(0, size);
    return json(res, 200, {
      meta: { goldenCopy: { publishDate: '2024-01-01T00:00:00Z' }, pagination: { currentPage: 1, perPage: size, from: page.length ? 1 : 0, to: page.length, total: hits.length, lastPage: 1 } },
      links: { first: url.toString(), last: url.toString() },
      data: page.map(toRecord),
    });
  };
  return { handler, state };
}
