/**
 * What of a request URL may be logged: the path, with the query string dropped and anything
 * shaped like an API key masked (a key pasted into a path must not reach the log either).
 */
const KEY_SHAPED = /vty_(live|test)_[0-9A-Za-z]*/g;
/** Long opaque tokens of another shape (someone else's key, a session) are masked too. */
const LONG_TOKEN = /[0-9A-Za-z_-]{40,}/g;

/**
 * Recent URLs that needed no masking: a service logs the same few paths over and over (each
 * request's log line asks), so each is decoded and scanned once. Only URLs logged as they are
 * (nothing masked, no query string) are kept, so no key or token stays in it; bounded: it starts
 * over beyond CACHE_MAX, and long URLs are not kept.
 */
const cache = new Map<string, string>();
const CACHE_MAX = 1_000;
const CACHE_URL_CHARS = 200;

export function redactUrl(url: string): string {
  const known = cache.get(url);
  if (known !== undefined) return known;
  const out = redact(url);
  if (out === url && url.length <= CACHE_URL_CHARS) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(url, out);
  }
  return out;
}

function redact(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let out = path;
  try {
    // Percent-encoded keys (%76ty_live_…) are decoded first so they cannot slip past.
    out = decodeURIComponent(path);
  } catch {
    // bad encoding: mask the raw form
  }
  out = out.replace(KEY_SHAPED, 'vty_$1_[redacted]').replace(LONG_TOKEN, '[redacted]');
  return q === -1 ? out : `${out}?[redacted]`;
}
