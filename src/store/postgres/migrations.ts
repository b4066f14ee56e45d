/**
 * The PostgreSQL schema, versioned like SQLite's (src/store/local/database.ts): each component has an
 * ordered list of steps, recorded in `verity_schema_migrations`; a released step is never edited.
 * Migrations run under a transaction-scoped advisory lock, so three `serve` processes starting
 * at once apply each step exactly once.
 *
 * Times: text ISO-8601 where SQLite has text (created_at…), bigint milliseconds where SQLite has
 * integers (delivery schedule, leases), so both stores map rows the same way.
 */
import type { Sql } from 'postgres';
import { EVENT_STREAM } from './event-log.js';

/** The server component: accounts, keys, usage, idempotency, rate windows, quota holds. */
const SERVER: readonly string[] = [
  `CREATE TABLE accounts (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     plan text NOT NULL CHECK (plan IN ('starter','pro','business','enterprise')),
     created_at text NOT NULL
   );
   CREATE TABLE api_keys (
     id text PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts(id),
     name text NOT NULL UNIQUE,
     environment text NOT NULL CHECK (environment IN ('live','test')),
     prefix text NOT NULL,
     last4 text NOT NULL,
     key_hash text NOT NULL UNIQUE,
     created_at text NOT NULL,
     last_used_at text,
     revoked_at text
   );
   CREATE INDEX api_keys_prefix ON api_keys(prefix);
   CREATE TABLE usage (
     account_id text NOT NULL REFERENCES accounts(id),
     period text NOT NULL,
     environment text NOT NULL CHECK (environment IN ('live','test')),
     credits bigint NOT NULL DEFAULT 0,
     requests bigint NOT NULL DEFAULT 0,
     PRIMARY KEY (account_id, period, environment)
   );
   -- Stripe-style: 'running' while the first request runs (lease_until bounds a crashed one),
   -- 'completed' with the response once its usage committed.
   CREATE TABLE idempotency (
     account_id text NOT NULL,
     key text NOT NULL,
     request_hash text NOT NULL,
     state text NOT NULL CHECK (state IN ('running','completed')),
     status integer NOT NULL DEFAULT 0,
     body text NOT NULL DEFAULT '',
     created_at bigint NOT NULL,
     lease_until bigint NOT NULL,
     PRIMARY KEY (account_id, key)
   );
   CREATE INDEX idempotency_created ON idempotency(created_at);
   -- One row per key: the accepted requests' times (ms, the database's clock) still in the window.
   CREATE TABLE rate_windows (
     key_id text PRIMARY KEY,
     stamps double precision[] NOT NULL DEFAULT '{}'
   );
   -- Credits of live requests still running; expire if their process dies.
   CREATE TABLE quota_holds (
     id bigserial PRIMARY KEY,
     account_id text NOT NULL,
     period text NOT NULL,
     credits integer NOT NULL,
     expires_at timestamptz NOT NULL
   );
   CREATE INDEX quota_holds_account ON quota_holds(account_id, expires_at);

   -- The sliding window of src/domain/rate-limit.ts, in the database: the key's row is locked,
   -- so concurrent requests from every process are counted one after another.
   CREATE FUNCTION verity_rate_take(p_key text, p_limit integer, p_window_ms double precision,
     OUT allowed boolean, OUT remaining integer, OUT reset_ms double precision) AS $$
   DECLARE
     now_ms double precision := extract(epoch FROM clock_timestamp()) * 1000;
     s double precision[];
     n integer;
   BEGIN
     INSERT INTO rate_windows (key_id) VALUES (p_key) ON CONFLICT (key_id) DO NOTHING;
     SELECT stamps INTO s FROM rate_windows WHERE key_id = p_key FOR UPDATE;
     s := ARRAY(SELECT x FROM unnest(s) AS x WHERE x > now_ms - p_window_ms ORDER BY x);
     n := coalesce(array_length(s, 1), 0);
     IF n >= p_limit THEN
       allowed := false;
       remaining := 0;
       reset_ms := s[n - p_limit + 1] + p_window_ms - now_ms;
       UPDATE rate_windows SET stamps = s WHERE key_id = p_key;
     ELSE
       s := s || now_ms;
       UPDATE rate_windows SET stamps = s WHERE key_id = p_key;
       allowed := true;
       remaining := p_limit - n - 1;
       reset_ms := s[1] + p_window_ms - now_ms;
     END IF;
   END $$ LANGUAGE plpgsql;

   -- A quota hold: the account's live usage row is locked, so holds are taken one at a time.
   CREATE FUNCTION verity_hold_quota(p_account text, p_period text, p_credits integer, p_quota bigint, p_ttl_ms integer,
     OUT hold_id bigint, OUT used bigint) AS $$
   DECLARE held bigint;
   BEGIN
     INSERT INTO usage (account_id, period, environment) VALUES (p_account, p_period, 'live') ON CONFLICT DO NOTHING;
     SELECT credits INTO used FROM usage WHERE account_id = p_account AND period = p_period AND environment = 'live' FOR UPDATE;
     SELECT coalesce(sum(credits), 0) INTO held FROM quota_holds WHERE account_id = p_account AND expires_at > clock_timestamp();
     IF used + held + p_credits > p_quota THEN
       hold_id := NULL;
     ELSE
       INSERT INTO quota_holds (account_id, period, credits, expires_at)
         VALUES (p_account, p_period, p_credits, clock_timestamp() + p_ttl_ms * interval '1 millisecond')
         RETURNING id INTO hold_id;
     END IF;
   END $$ LANGUAGE plpgsql;`,
  // The request guard in one round trip: the key (NULLs when unknown), and for a valid key the
  // rate take under its policy ({"test":{limit,windowMs},"live":{"<plan>":{limit,windowMs}}}).
  `CREATE FUNCTION verity_admit(p_hash text, p_policies jsonb,
     OUT id text, OUT account_id text, OUT prefix text, OUT environment text, OUT revoked_at text, OUT plan text,
     OUT allowed boolean, OUT remaining integer, OUT reset_ms double precision, OUT lim integer, OUT window_ms double precision) AS $$
   DECLARE pol jsonb;
   BEGIN
     SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
       INTO id, account_id, prefix, environment, revoked_at, plan
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = p_hash;
     IF NOT FOUND OR revoked_at IS NOT NULL THEN RETURN; END IF;
     pol := CASE WHEN environment = 'test' THEN p_policies -> 'test' ELSE p_policies -> 'live' -> plan END;
     lim := (pol ->> 'limit')::integer;
     window_ms := (pol ->> 'windowMs')::double precision;
     SELECT t.allowed, t.remaining, t.reset_ms INTO allowed, remaining, reset_ms FROM verity_rate_take(id, lim, window_ms) t;
   END $$ LANGUAGE plpgsql;`,
  // Scaling across processes (issue 16):
  // - usage is counted in shard rows (account, period, environment, shard): each commit adds to
  //   one shard row (a random one per batch), so commits of different processes on one account
  //   no longer queue on one row lock; totals are the sum of the shards;
  // - quota holds serialize on a transaction-scoped advisory lock per (account, period) instead of
  //   the usage row, and read usage and holds in ONE statement (one snapshot: a commit turning a
  //   hold into usage is seen whole or not at all);
  // - the request guard's rate takes run as one SQL statement per batch (ADMIT in rate.ts;
  //   `taken` = how many takes of the batch were allowed); every key has its window row from its
  //   creation, so the statement only updates (the row lock serializes, as in verity_rate_take).
  `ALTER TABLE usage ADD COLUMN shard smallint NOT NULL DEFAULT 0;
   ALTER TABLE usage DROP CONSTRAINT usage_pkey;
   ALTER TABLE usage ADD PRIMARY KEY (account_id, period, environment, shard);
   ALTER TABLE rate_windows ADD COLUMN taken integer NOT NULL DEFAULT 0;
   INSERT INTO rate_windows (key_id) SELECT id FROM api_keys ON CONFLICT (key_id) DO NOTHING;

   CREATE OR REPLACE FUNCTION verity_hold_quota(p_account text, p_period text, p_credits integer, p_quota bigint, p_ttl_ms integer,
     OUT hold_id bigint, OUT used bigint) AS $$
   DECLARE held bigint;
   BEGIN
     -- Holds of one account and period are taken one at a time, in every process.
     PERFORM pg_advisory_xact_lock(736830701, hashtext(p_account || '/' || p_period));
     -- One statement, one snapshot: usage and holds as of the same instant.
     SELECT (SELECT coalesce(sum(u.credits), 0) FROM usage u WHERE u.account_id = p_account AND u.period = p_period AND u.environment = 'live'),
            (SELECT coalesce(sum(h.credits), 0) FROM quota_holds h WHERE h.account_id = p_account AND h.expires_at > clock_timestamp())
       INTO used, held;
     IF used + held + p_credits > p_quota THEN
       hold_id := NULL;
     ELSE
       INSERT INTO quota_holds (account_id, period, credits, expires_at)
         VALUES (p_account, p_period, p_credits, clock_timestamp() + p_ttl_ms * interval '1 millisecond')
         RETURNING id INTO hold_id;
     END IF;
   END $$ LANGUAGE plpgsql;`,
  // Last-used times where the request guard already writes (issue 16, scaling with processes):
  // the guard's statement updates a key's window row on every take, so it stamps the time there
  // too (the database's clock, ms) instead of a separate UPDATE of api_keys rows once a second per
  // process (an api_keys row update touches four indexes; with many keys in use it cost more
  // database time than the commits). A key's last-used time is the later of the two columns.
  `ALTER TABLE rate_windows ADD COLUMN used_ms double precision;`,
];

/** The webhooks component: endpoints, the outbox, deliveries, attempts, thresholds, shared lanes. */
const WEBHOOKS: readonly string[] = [
  `CREATE TABLE webhook_endpoints (
     id text PRIMARY KEY,
     account_id text NOT NULL,
     url text NOT NULL,
     events jsonb NOT NULL,
     secret text NOT NULL,
     created_at text NOT NULL,
     deleted_at text
   );
   CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id) WHERE deleted_at IS NULL;
   CREATE TABLE webhook_events (
     id text PRIMARY KEY,
     account_id text NOT NULL,
     type text NOT NULL,
     created_at text NOT NULL,
     body text NOT NULL
   );
   CREATE TABLE webhook_deliveries (
     id bigserial PRIMARY KEY,
     event_id text NOT NULL REFERENCES webhook_events (id),
     webhook_id text NOT NULL REFERENCES webhook_endpoints (id),
     status text NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'cancelled')),
     attempts integer NOT NULL DEFAULT 0,
     next_attempt_at bigint NOT NULL,
     lease_until bigint,
     last_error text,
     updated_at bigint NOT NULL,
     replay boolean NOT NULL DEFAULT false,
     UNIQUE (event_id, webhook_id)
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
   CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, status, next_attempt_at);
   CREATE INDEX webhook_deliveries_leases ON webhook_deliveries (status, lease_until);
   CREATE TABLE webhook_attempts (
     id bigserial PRIMARY KEY,
     delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id),
     event_id text NOT NULL,
     webhook_id text NOT NULL,
     attempt integer NOT NULL,
     started_at bigint NOT NULL,
     outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'lost')),
     status_code integer,
     latency_ms bigint,
     error text
   );
   CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
   CREATE TABLE webhook_credit_thresholds (
     account_id text NOT NULL,
     period text NOT NULL,
     threshold integer NOT NULL,
     PRIMARY KEY (account_id, period, threshold)
   );
   -- Per endpoint URL, across every worker process: start times (ms, the workers' clock, as the
   -- schedule and leases are) of the last
   -- attempts, locked by a claim, so 10 per second holds however many processes deliver.
   CREATE TABLE webhook_lanes (
     url text PRIMARY KEY,
     starts double precision[] NOT NULL DEFAULT '{}'
   );
   -- A delivery that becomes due is announced to every LISTENing worker when its transaction
   -- commits (identical notifications of one transaction are folded into one).
   CREATE FUNCTION verity_outbox_notify() RETURNS trigger AS $$
   BEGIN
     PERFORM pg_notify('verity_outbox', '');
     RETURN NULL;
   END $$ LANGUAGE plpgsql;
   CREATE TRIGGER webhook_deliveries_notify AFTER INSERT OR UPDATE OF status ON webhook_deliveries
     FOR EACH ROW WHEN (NEW.status = 'pending') EXECUTE FUNCTION verity_outbox_notify();

   -- Claim one delivery for an attempt: the row with FOR UPDATE SKIP LOCKED (a row another worker
   -- is claiming is skipped, never waited for), then the endpoint's shared lane with a row lock:
   -- at most p_rate starts in any p_window_ms, p_gap_ms apart, p_max_in_flight leased at once.
   -- result: 'claimed', 'deferred' (retry_in_ms) or 'gone' (taken, not due, or out of attempts).
   CREATE FUNCTION verity_claim(p_id bigint, p_now bigint, p_lease_ms bigint, p_rate integer, p_window_ms double precision,
     p_gap_ms double precision, p_max_in_flight integer, p_max_attempts integer,
     OUT result text, OUT retry_in_ms double precision, OUT attempt integer) AS $$
   DECLARE
     d record;
     lane_url text;
     s double precision[];
     n integer;
     busy integer;
     now_db double precision := p_now;
     wait double precision := 0;
   BEGIN
     SELECT dd.id, dd.event_id, dd.webhook_id, dd.status, dd.attempts, dd.lease_until INTO d FROM webhook_deliveries dd
       WHERE dd.id = p_id AND ((dd.status = 'pending' AND dd.next_attempt_at <= p_now) OR (dd.status = 'delivering' AND dd.lease_until <= p_now))
       FOR UPDATE SKIP LOCKED;
     IF NOT FOUND THEN result := 'gone'; RETURN; END IF;
     SELECT w.url INTO lane_url FROM webhook_endpoints w WHERE w.id = d.webhook_id;
     INSERT INTO webhook_lanes (url) VALUES (lane_url) ON CONFLICT (url) DO NOTHING;
     SELECT starts INTO s FROM webhook_lanes WHERE url = lane_url FOR UPDATE;
     s := ARRAY(SELECT x FROM unnest(s) AS x WHERE x > now_db - p_window_ms ORDER BY x);
     n := coalesce(array_length(s, 1), 0);
     SELECT count(*) INTO busy FROM webhook_deliveries dd JOIN webhook_endpoints w ON w.id = dd.webhook_id
       WHERE w.url = lane_url AND dd.status = 'delivering' AND dd.lease_until > p_now;
     IF n >= p_rate THEN wait := greatest(wait, s[n - p_rate + 1] + p_window_ms - now_db); END IF;
     IF n > 0 THEN wait := greatest(wait, s[n] + p_gap_ms - now_db); END IF;
     IF busy >= p_max_in_flight THEN wait := greatest(wait, p_gap_ms); END IF;
     IF wait > 0 THEN result := 'deferred'; retry_in_ms := wait; RETURN; END IF;
     UPDATE webhook_lanes SET starts = s || now_db WHERE url = lane_url;
     IF d.status = 'delivering' THEN
       INSERT INTO webhook_attempts (delivery_id, event_id, webhook_id, attempt, started_at, outcome, error)
         VALUES (d.id, d.event_id, d.webhook_id, d.attempts, coalesce(d.lease_until, p_now) - p_lease_ms, 'lost',
                 'the worker stopped mid-delivery; outcome unknown, sending again');
       IF d.attempts >= p_max_attempts THEN
         UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL,
           last_error = 'the last attempt was lost when the worker stopped', updated_at = p_now WHERE id = d.id;
         result := 'gone';
         RETURN;
       END IF;
     END IF;
     attempt := d.attempts + 1;
     UPDATE webhook_deliveries SET status = 'delivering', attempts = attempt, lease_until = p_now + p_lease_ms, updated_at = p_now
       WHERE id = d.id;
     result := 'claimed';
   END $$ LANGUAGE plpgsql;`,
];

/**
 * The batches component (issue 15), the SQLite schema's twin (src/store/sqlite/batches.ts): `n`
 * orders batches as SQLite's rowid does; leases are bigint milliseconds.
 */
const BATCHES: readonly string[] = [
  `CREATE TABLE batches (
     n bigserial NOT NULL UNIQUE,
     id text PRIMARY KEY,
     account_id text NOT NULL,
     environment text NOT NULL CHECK (environment IN ('live','test')),
     key_id text NOT NULL,
     key_prefix text NOT NULL,
     type text NOT NULL CHECK (type IN ('claim','business','media','document')),
     status text NOT NULL CHECK (status IN ('queued','running','cancelling','completed','partial','cancelled')),
     total integer NOT NULL,
     succeeded integer NOT NULL DEFAULT 0,
     failed integer NOT NULL DEFAULT 0,
     cancelled integer NOT NULL DEFAULT 0,
     credits_reserved integer NOT NULL,
     credits_used integer NOT NULL DEFAULT 0,
     credits_settled integer NOT NULL DEFAULT 0,
     finished integer NOT NULL DEFAULT 0,
     metadata text,
     created_at text NOT NULL,
     completed_at text
   );
   CREATE INDEX batches_by_account ON batches (account_id, environment, n);
   CREATE INDEX batches_active ON batches (n) WHERE status IN ('queued','running','cancelling');
   CREATE TABLE batch_items (
     batch_id text NOT NULL REFERENCES batches (id),
     idx integer NOT NULL,
     custom_id text NOT NULL,
     request text NOT NULL,
     credits integer NOT NULL,
     status text NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),
     lease_owner text,
     lease_until bigint,
     attempts integer NOT NULL DEFAULT 0,
     seq integer,
     result text,
     error text,
     finished_at text,
     PRIMARY KEY (batch_id, idx),
     UNIQUE (batch_id, custom_id)
   );
   CREATE INDEX batch_items_open ON batch_items (batch_id, idx) WHERE status IN ('queued','running');
   CREATE UNIQUE INDEX batch_items_seq ON batch_items (batch_id, seq) WHERE seq IS NOT NULL;
   CREATE INDEX batch_items_owner ON batch_items (lease_owner) WHERE status = 'running';
   -- A running live batch's credits: one hold per batch, whichever process took it last.
   ALTER TABLE quota_holds ADD COLUMN batch_id text;
   CREATE UNIQUE INDEX quota_holds_batch ON quota_holds (batch_id) WHERE batch_id IS NOT NULL;
   CREATE FUNCTION verity_hold_batch(p_account text, p_period text, p_batch text, p_credits integer, p_quota bigint, p_ttl_ms integer,
     OUT hold_id bigint, OUT used bigint) AS $$
   DECLARE held bigint;
   BEGIN
     INSERT INTO usage (account_id, period, environment) VALUES (p_account, p_period, 'live') ON CONFLICT DO NOTHING;
     -- The account's usage row serializes every hold of the account, in every process.
     SELECT credits INTO used FROM usage WHERE account_id = p_account AND period = p_period AND environment = 'live' FOR UPDATE;
     DELETE FROM quota_holds WHERE batch_id = p_batch;
     SELECT coalesce(sum(credits), 0) INTO held FROM quota_holds WHERE account_id = p_account AND expires_at > clock_timestamp();
     IF used + held + p_credits > p_quota THEN
       hold_id := NULL;
     ELSE
       INSERT INTO quota_holds (account_id, period, credits, expires_at, batch_id)
         VALUES (p_account, p_period, p_credits, clock_timestamp() + p_ttl_ms * interval '1 millisecond', p_batch)
         RETURNING id INTO hold_id;
     END IF;
   END $$ LANGUAGE plpgsql;`,
  // The batch hold on the shard rows and the advisory lock of server@3.
  `CREATE OR REPLACE FUNCTION verity_hold_batch(p_account text, p_period text, p_batch text, p_credits integer, p_quota bigint, p_ttl_ms integer,
     OUT hold_id bigint, OUT used bigint) AS $$
   DECLARE held bigint;
   BEGIN
     PERFORM pg_advisory_xact_lock(736830701, hashtext(p_account || '/' || p_period));
     DELETE FROM quota_holds WHERE batch_id = p_batch;
     SELECT (SELECT coalesce(sum(u.credits), 0) FROM usage u WHERE u.account_id = p_account AND u.period = p_period AND u.environment = 'live'),
            (SELECT coalesce(sum(h.credits), 0) FROM quota_holds h WHERE h.account_id = p_account AND h.expires_at > clock_timestamp())
       INTO used, held;
     IF used + held + p_credits > p_quota THEN
       hold_id := NULL;
     ELSE
       INSERT INTO quota_holds (account_id, period, credits, expires_at, batch_id)
         VALUES (p_account, p_period, p_credits, clock_timestamp() + p_ttl_ms * interval '1 millisecond', p_batch)
         RETURNING id INTO hold_id;
     END IF;
   END $$ LANGUAGE plpgsql;`,
];

export const PG_MIGRATIONS: ReadonlyArray<readonly [component: string, steps: readonly string[]]> = [
  ['server', SERVER],
  ['webhooks', WEBHOOKS],
  ['batches', BATCHES],
  // The event stream's log, sessions and results (issue 29).
  ['event_stream', EVENT_STREAM],
];

/** Applies what is missing; returns the steps applied (component@version). */
export async function migratePostgres(sql: Sql): Promise<string[]> {
  return sql.begin(async (tx) => {
    // One migrator at a time across processes; released at commit.
    await tx`SELECT pg_advisory_xact_lock(7368307)`;
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS verity_schema_migrations (
      component text NOT NULL, version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version))`);
    const done = new Set((await tx<{ c: string }[]>`SELECT component || '@' || version AS c FROM verity_schema_migrations`).map((r) => r.c));
    const applied: string[] = [];
    for (const [component, steps] of PG_MIGRATIONS)
      for (const [i, step] of steps.entries()) {
        const id = `${component}@${i + 1}`;
        if (done.has(id)) continue;
        await tx.unsafe(step);
        await tx`INSERT INTO verity_schema_migrations (component, version) VALUES (${component}, ${i + 1})`;
        applied.push(id);
      }
    return applied;
  }) as Promise<string[]>;
}
