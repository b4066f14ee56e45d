/**
 * Reads the few XMP properties the document checks use (ISO 16684-1). XMP writers use both the
 * attribute form (`xmp:CreateDate="…"`) and the element form (`<xmp:CreateDate>…</…>`), and
 * `dc:creator` is an `rdf:Seq` of `rdf:li`; a regular-expression reader covers those without a
 * full RDF parser.
 */
export interface XmpFields {
  createDate: string | null;
  modifyDate: string | null;
  metadataDate: string | null;
  creatorTool: string | null;
  producer: string | null;
  creator: string | null;
  documentId: string | null;
  /** Number of `stEvt:action` entries in xmpMM:History (saves/conversions recorded by the writer). */
  historyEvents: number;
}

const unescapeXml = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d))).replace(/&amp;/g, '&');

function prop(xml: string, qname: string): string | null {
  const q = qname.replace(':', ':');
  const attr = new RegExp(`\\b${q}\\s*=\\s*"([^"]*)"`).exec(xml) ?? new RegExp(`\\b${q}\\s*=\\s*'([^']*)'`).exec(xml);
  if (attr) return unescapeXml(attr[1]!).trim() || null;
  const el = new RegExp(`<${q}(?:\\s[^>]*)?>([\\s\\S]*?)</${q}>`).exec(xml);
  if (!el) return null;
  const inner = el[1]!;
  const li = /<rdf:li(?:\s[^>]*)?>([\s\S]*?)<\/rdf:li>/.exec(inner);
  const v = (li ? li[1]! : inner).replace(/<[^>]+>/g, '').trim();
  return v ? unescapeXml(v) : null;
}

export function parseXmp(xml: string): XmpFields {
  return {
    createDate: prop(xml, 'xmp:CreateDate') ?? prop(xml, 'xap:CreateDate'),
    modifyDate: prop(xml, 'xmp:ModifyDate') ?? prop(xml, 'xap:ModifyDate'),
    metadataDate: prop(xml, 'xmp:MetadataDate') ?? prop(xml, 'xap:MetadataDate'),
    creatorTool: prop(xml, 'xmp:CreatorTool') ?? prop(xml, 'xap:CreatorTool'),
    producer: prop(xml, 'pdf:Producer'),
    creator: prop(xml, 'dc:creator'),
    documentId: prop(xml, 'xmpMM:DocumentID'),
    historyEvents: (xml.match(/stEvt:action/g) ?? []).length,
  };
}

/** XMP dates are ISO 8601 with optional parts (`2023-05-04T13:31:05-07:00`, `2023-05-04`). */
export function parseXmpDate(v: string | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  const zone = !tz || tz === 'Z' ? 'Z' : tz.includes(':') ? tz : `${tz.slice(0, 3)}:${tz.slice(3)}`;
  const t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
