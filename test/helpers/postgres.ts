/**
 * A real PostgreSQL server for the tests, when one is reachable: `VERITY_TEST_DATABASE_URL`, or
 * the libpq variables pg_virtualenv sets (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; see
 * .ci/run). Each test file gets its own throwaway database. Without a server the PostgreSQL
 * cases skip with a visible message (never silently).
 */
export function postgresAdminUrl(): string | undefined {
  const given = process.env.VERITY_TEST_DATABASE_URL;
  if (given) return given;
  const { PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE } = process.env;
  if (!PGHOST || !PGUSER) return undefined;
  const auth = PGPASSWORD ? `${encodeURIComponent(PGUSER)}:${encodeURIComponent(PGPASSWORD)}` : encodeURIComponent(PGUSER);
  const host = PGHOST.startsWith('/') ? `localhost` : PGHOST;
  const q = PGHOST.startsWith('/') ? `?host=${encodeURIComponent(PGHOST)}` : '';
  return `postgres://${auth}@${host}:${PGPORT ?? '5432'}/${PGDATABASE ?? 'postgres'}${q}`;
}

let reported = false;

/** The admin URL when the server answers; otherwise undefined, after printing why (once per file). */
export async function reachablePostgres(): Promise<string | undefined> {
  const url = postgresAdminUrl();
  const skip = (why: string): undefined => {
    if (!reported) {
      reported = true;
      process.stderr.write(`\n[postgres] SKIPPING the PostgreSQL tests: ${why}. Run them under pg_virtualenv (see .ci/run) or set VERITY_TEST_DATABASE_URL.\n`);
    }
    return undefined;
  };
  if (!url) return skip('no PostgreSQL configured (no VERITY_TEST_DATABASE_URL / PGHOST)');
  const { default: postgres } = await import('postgres');
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    return url;
  } catch (err) {
    return skip(`PostgreSQL at ${url.replace(/:[^:@/]*@/, ':***@')} is not reachable (${(err as Error).message})`);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

/** A fresh database on the server; `drop()` removes it (connections are closed first). */
export async function freshDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: postgres } = await import('postgres');
  const name = `verity_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const sql = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end({ timeout: 1 });
      }
    },
  };
}
