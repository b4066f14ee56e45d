/**
 * PDF dates (ISO 32000-1 §7.9.4). Apart from signatures.ts so that reading a file's dates does not
 * load the signature verifiers (pkijs, asn1js) for a file that has no signature.
 */

/** PDF date string `D:YYYYMMDDHHmmSSOHH'mm'` → ISO 8601; null when unreadable. */
export function parsePdfDate(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+\-])?\s*(\d{2})?'?\s*(\d{2})?'?/.exec(raw.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh, om] = m;
  let iso = `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  if (sign === '+' || sign === '-') iso += `${sign}${oh ?? '00'}:${om ?? '00'}`;
  else iso += 'Z';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
