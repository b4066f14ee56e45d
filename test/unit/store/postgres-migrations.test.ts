/**
 * Upgrading a PostgreSQL database migrated by the previous version (server@1–2, webhooks@1, event_stream@1,
 * batches@1) to server@3 / batches@2: usage already counted stays counted (shard 0 of the new key),
 * keys created before get their rate window rows, and the new guard, commit and quota hold work on
 * them. Needs a real server (skipped with a message without one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../../src/domain/keys.js';
import { freshDatabase, reachablePostgres } from '../../helpers/postgres.js';

const pgAdmin = await reachablePostgres();
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

describe.skipIf(!pgAdmin)('PostgreSQL migrations: from the previous version', () => {
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await freshDatabase(pgAdmin!);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('keeps the usage and keys of a database at server@2, and serves them after server@3', async () => {
    const { default: postgres } = await import('postgres');
    const { PG_MIGRATIONS } = await import('../../../src/store/postgres/migrations.js');
    const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
    const before = { server: 2, webhooks: 1, batches: 1, event_stream: 1 } as Record<string, number>;
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      await sql.unsafe(`CREATE TABLE verity_schema_migrations (component text NOT NULL, version integer NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`);
      for (const [component, steps] of PG_MIGRATIONS)
        for (const [i, step] of steps.slice(0, before[component]).entries()) {
          await sql.unsafe(step);
          await sql`INSERT INTO verity_schema_migrations (component, version) VALUES (${component}, ${i + 1})`;
        }
      // What the previous version wrote: an account, a key (no window row), 40 live credits.
      await sql`INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_old', 'old', 'starter', '2026-03-01T00:00:00.000Z')`;
      await sql`INSERT INTO api_keys (id, account_id, name, environment, prefix, last4, key_hash, created_at)
        VALUES ('key_old', 'acct_old', 'old-key', 'live', 'vty_live_abcd', 'wxyz', ${hashKey('vty_live_old')}, '2026-03-01T00:00:00.000Z')`;
      // A webhook registered before signature schemes existed (webhooks@2 adds them).
      await sql`INSERT INTO webhook_endpoints (id, account_id, url, events, secret, created_at)
        VALUES ('we_old', 'acct_old/live', 'https://old.example.com/in', '["verification.completed"]'::jsonb, ${'s'.repeat(40)}, '2026-03-01T00:00:00.000Z')`;
      await sql`INSERT INTO usage (account_id, period, environment, credits, requests) VALUES ('acct_old', '2026-03', 'live', 40, 12)`;
      // An event-stream session of event_stream@1 with results reported twice (event_stream@2 keeps
      // one per session, event and route: the latest) and no last_seen (dated by its open).
      await sql`INSERT INTO event_stream_sessions (id, scope, events, opened_ms) VALUES ('lss_old', 'acct_old/live', '["verification.completed"]'::jsonb, ${NOW})`;
      for (const [route, status, at] of [['/h', 500, 0], ['/h', 200, 1], [null, null, 2], [null, null, 3]] as const)
        await sql`INSERT INTO event_stream_results (session_id, event_id, route, status, latency_ms, error, at_ms) VALUES ('lss_old', 'wh_1', ${route}, ${status}, 1, NULL, ${NOW + at})`;
    } finally {
      await sql.end({ timeout: 1 });
    }

    const store = await openPostgresStore({ url: db.url, poolSize: 2, listen: false });
    try {
      const [applied] = await store.sql<{ v: string[] }[]>`SELECT array_agg(component || '@' || version ORDER BY component, version) AS v FROM verity_schema_migrations`;
      expect(applied!.v).toEqual(['batches@1', 'batches@2', 'event_stream@1', 'event_stream@2', 'server@1', 'server@2', 'server@3', 'server@4', 'webhooks@1', 'webhooks@2']);
      const [old] = await store.eventStream!.listSessions('acct_old/live', 10, 10);
      expect(old).toMatchObject({ session_id: 'lss_old', closed_at: null, last_seen_at: new Date(NOW).toISOString() });
      expect(old!.results.map((r) => [r.route, r.status])).toEqual([[null, null], ['/h', 200]]);
      // It keeps signing as before: SPEC 6.3's scheme, with its secret.
      expect(await store.webhooks.get('acct_old/live', 'we_old')).toMatchObject({ signature_scheme: 'verity', secret_hint: 'ssssss…ssss' });
      expect((await store.admin.listUsage('2026-03')).find((u) => u.account_name === 'old')).toMatchObject({ credits: 40, requests: 12 });
      const policies = { test: { limit: 5, windowMs: 60_000 }, live: { starter: { limit: 2, windowMs: 60_000 } } } as never;
      const a = await store.admit(hashKey('vty_live_old'), policies);
      expect(a.key?.id).toBe('key_old');
      expect(a.decision).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
      // Starter quota 1,000: 40 used, so 960 more may be held; the hold's commit continues the chain.
      expect(await store.holdQuota({ accountId: 'acct_old', period: '2026-03', credits: 961, quota: 1000, nowMs: Date.UTC(2026, 2, 15) })).toEqual({ ok: false, used: 40 });
      const h = await store.holdQuota({ accountId: 'acct_old', period: '2026-03', credits: 3, quota: 1000, nowMs: Date.UTC(2026, 2, 15) });
      expect(h.ok).toBe(true);
      if (!h.ok) return;
      expect(await store.commitCharge({ accountId: 'acct_old', environment: 'live', period: '2026-03', credits: 3, nowMs: NOW, hold: h.hold })).toEqual({
        before: 40,
        after: 43,
      });
    } finally {
      await store.close();
    }
  });
});
